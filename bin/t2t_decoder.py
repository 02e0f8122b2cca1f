"""t2t-decoder: translates (or parses) with a trained model: beam search or greedy."""

from absl import flags

from t2t_lite.bin import common

common.define_shared_flags("problem", "data_dir", "output_dir", "checkpoint_path",
                           "decode_hparams")
flags.DEFINE_string("decode_from_file", None, "Input file, one sentence per line.")
flags.DEFINE_string("decode_to_file", None, "Output file, one line per input line.")
flags.DEFINE_bool("decode_interactive", False, "Read sentences from standard input.")


def main(argv):
  del argv
  common.not_available_yet("t2t-decoder (beam search decoding)")


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
