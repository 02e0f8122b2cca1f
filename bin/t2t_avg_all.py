"""t2t-avg-all: averages the last N checkpoints, from the end of a run, into one checkpoint.

    t2t-avg-all --model_dir=RUN --output_dir=RUN_AVG --n=5 [--window=0.1 --dev_sentences=200
                --min_steps=M --wait_minutes=W]

Only checkpoints in the run's last --window of steps are averaged
(t2t_lite.training.checkpoint_choice); fewer than --n there is one line saying so. Where
the run's data has a dev split, the average and the last checkpoint decode its first
--dev_sentences sentences, and RUN_AVG holds the last checkpoint alone when the average
scores lower (t2t_lite.training.average_dev_check). RUN_AVG becomes a run directory of its
own (hparams, vocabulary, one checkpoint) that t2t-decoder and t2t-exporter accept as
--output_dir. It must be new, empty, or an earlier average (replaced once the new one is
complete); a checkpoint of RUN that does not read is skipped with a warning. With
--wait_minutes, a run still training is followed: RUN_AVG is replaced by the newest
average at each new checkpoint (t2t_lite.training.rolling_average).
"""

import dataclasses

from t2t_lite.bin import common
from t2t_lite.cli.command_line import define_flags, flag_values, reject_positional, require, setting
from t2t_lite.cli.shared_settings import shared
from t2t_lite.training.average_defaults import DEFAULT_DEV_SENTENCES, DEFAULT_WINDOW


@dataclasses.dataclass(frozen=True)
class AvgAllFlags:
  """Which checkpoints to average, and where to write the average."""
  model_dir: str = setting(None, "Run directory holding the checkpoints to average.")
  output_dir: str = shared("output_dir")
  n: int = setting(5, "How many of the latest checkpoints to average (paper: 5 for base, 20 "
                   "for big).", minimum=1)
  window: float = setting(DEFAULT_WINDOW, "Average only checkpoints in this last fraction of "
                          "the run's steps: from step (1 - window) x the newest checkpoint's "
                          "on (1: anywhere in the run).", above=0, maximum=1,
                          bound_hint="1: the whole run")
  dev_sentences: int = setting(DEFAULT_DEV_SENTENCES, "Decode this many dev sentences "
                               "(greedy) with the average and with the last checkpoint, and "
                               "write the last checkpoint alone if it scores higher (0: no "
                               "check; needs the run's --data_dir with a dev split).",
                               minimum=0, bound_hint="0: no dev check")
  min_steps: int = setting(0, "Ignore checkpoints with fewer steps.", minimum=0)
  wait_minutes: int = setting(0, "Wait up to N minutes for a new checkpoint, averaging again "
                              "at each one (cf. --save_checkpoints_secs).", minimum=0)


define_flags(AvgAllFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(AvgAllFlags)
  from t2t_lite.training.checkpoint_choice import CheckpointChoice
  from t2t_lite.training.rolling_average import average_as_they_appear
  require(args, model_dir="the run directory whose checkpoints to average",
          output_dir="the directory to write the average in")
  choice = CheckpointChoice(args.n, args.window, args.min_steps)
  from t2t_lite.files.writer_lock import holding
  with holding(args.output_dir):  # For every average it writes (--wait_minutes: many).
    average_as_they_appear(args.model_dir, args.output_dir, choice, args.wait_minutes,
                           args.dev_sentences)
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
