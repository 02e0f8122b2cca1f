"""t2t-exporter: writes a text-in/text-out SavedModel of a trained model."""

from absl import flags

from t2t_lite.bin import common

common.define_shared_flags("output_dir", "checkpoint_path", "decode_hparams")
flags.DEFINE_string("export_dir", None, "Where to write the SavedModel "
                    "(default: <output_dir>/export).")


def main(argv):
  del argv
  common.not_available_yet("t2t-exporter (SavedModel export)")


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
