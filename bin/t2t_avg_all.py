"""t2t-avg-all: averages the last N checkpoints of a run into one checkpoint."""

from absl import flags

from t2t_lite.bin import common

flags.DEFINE_string("model_dir", None, "Run directory holding the checkpoints to average.")
common.define_shared_flags("output_dir")
flags.DEFINE_integer("n", 5, "How many of the latest checkpoints to average "
                     "(paper: 5 for base, 20 for big).")


def main(argv):
  del argv
  common.not_available_yet("t2t-avg-all (checkpoint averaging)")


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
