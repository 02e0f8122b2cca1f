"""t2t-bleu: scores a translation file against a reference file."""

from absl import flags

from t2t_lite.bin import common

flags.DEFINE_string("translation", None, "Translated text, one sentence per line.")
flags.DEFINE_string("reference", None, "Reference text, one sentence per line.")


def main(argv):
  del argv
  common.not_available_yet("t2t-bleu (BLEU scoring)")


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
