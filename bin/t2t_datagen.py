"""t2t-datagen: writes a problem's vocabulary and sharded TFRecords of ids."""

from t2t_lite.bin import common

common.define_shared_flags("problem", "data_dir", "tmp_dir")


def main(argv):
  del argv
  common.not_available_yet("t2t-datagen (data generation)")


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
