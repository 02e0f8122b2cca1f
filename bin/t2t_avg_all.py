"""t2t-avg-all: averages the last N checkpoints of a run into one checkpoint.

    t2t-avg-all --model_dir=RUN --output_dir=RUN_AVG --n=5 [--min_steps=M --wait_minutes=W]

RUN_AVG becomes a run directory of its own (hparams, vocabulary, one
checkpoint) that t2t-decoder and t2t-exporter accept as --output_dir. It must
be new, empty, or an earlier average (replaced once the new one is complete);
a checkpoint of RUN that does not read is skipped with a warning. With
--wait_minutes, a run still training is followed: RUN_AVG is replaced by the
newest average at each new checkpoint (t2t_lite.training.rolling_average).
"""

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
flags.DEFINE_string("model_dir", None, "Run directory holding the checkpoints to average.")
common.define_shared_flags("output_dir")
flags.DEFINE_integer("n", 5, "How many of the latest checkpoints to average "
                     "(paper: 5 for base, 20 for big).")
flags.DEFINE_integer("min_steps", 0, "Ignore checkpoints with fewer steps.")
flags.DEFINE_integer("wait_minutes", 0, "Wait up to N minutes for a new checkpoint, "
                     "averaging again at each one (cf. --save_checkpoints_secs).")


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
  from t2t_lite.errors import UserError
  from t2t_lite.training.rolling_average import average_as_they_appear
  if not FLAGS.model_dir or not FLAGS.output_dir:
    raise UserError("--model_dir (the run to read) and --output_dir (where to write the "
                    "average) are both required")
  from t2t_lite.writer_lock import holding
  with holding(FLAGS.output_dir):  # For every average it writes (--wait_minutes: many).
    average_as_they_appear(FLAGS.model_dir, FLAGS.output_dir, FLAGS.n, FLAGS.min_steps,
                           FLAGS.wait_minutes)
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
