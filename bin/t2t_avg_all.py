"""t2t-avg-all: averages the last N checkpoints, from the end of a run, into one checkpoint.

    t2t-avg-all --model_dir=RUN --output_dir=RUN_AVG --n=5 [--window=0.1 --dev_sentences=200
                --min_steps=M --wait_minutes=W]

Only checkpoints in the run's last --window of steps are averaged
(t2t_lite.training.checkpoint_choice); fewer than --n there is one line saying so. Where
the run's data has a dev split, the average and the last checkpoint decode its first
--dev_sentences sentences, and RUN_AVG holds the last checkpoint alone when the average
scores lower (t2t_lite.training.average_dev_check), and RUN_AVG/decoding.json holds the
length penalty that decodes them best (t2t_lite.training.alpha_choice), which t2t-decoder
and t2t-exporter then decode with. RUN_AVG becomes a run directory of its
own (hparams, vocabulary, one checkpoint) that t2t-decoder and t2t-exporter accept as
--output_dir. It must be new, empty, or an earlier average (replaced once the new one is
complete); a checkpoint of RUN that does not read is skipped with a warning. With
--wait_minutes, a run still training is followed: RUN_AVG is replaced by the newest
average at each new checkpoint (t2t_lite.training.rolling_average).
"""

import dataclasses

from t2t_lite.bin import common
from t2t_lite.cli.command_line import (declared, define_flags, flag_values, reject_positional,
                                      require, setting)
from t2t_lite.cli.shared_settings import shared
from t2t_lite.training.average_settings import AVERAGING


@dataclasses.dataclass(frozen=True)
class AvgAllFlags:
  """Which checkpoints to average, and where to write the average."""
  model_dir: str = setting(None, "Run directory holding the checkpoints to average.")
  output_dir: str = shared("output_dir")
  n: int = declared(AVERAGING, "n")
  window: float = declared(AVERAGING, "window")
  dev_sentences: int = declared(AVERAGING, "dev_sentences")
  min_steps: int = declared(AVERAGING, "min_steps")
  wait_minutes: int = declared(AVERAGING, "wait_minutes")


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
