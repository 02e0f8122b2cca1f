"""t2t-avg-all: averages the last N checkpoints of a run into one checkpoint.

    t2t-avg-all --model_dir=RUN --output_dir=RUN_AVG --n=5

RUN_AVG becomes a run directory of its own (hparams, vocabulary, one
checkpoint) that t2t-decoder and t2t-exporter accept as --output_dir.
"""

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
flags.DEFINE_string("model_dir", None, "Run directory holding the checkpoints to average.")
common.define_shared_flags("output_dir")
flags.DEFINE_integer("n", 5, "How many of the latest checkpoints to average "
                     "(paper: 5 for base, 20 for big).")


def main(argv):
  del argv
  from t2t_lite.errors import UserError
  from t2t_lite.training.averaging import average_checkpoints
  if not FLAGS.model_dir or not FLAGS.output_dir:
    raise UserError("--model_dir (the run to read) and --output_dir (where to write the "
                    "average) are both required")
  average_checkpoints(FLAGS.model_dir, FLAGS.output_dir, FLAGS.n)
  return 0


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
