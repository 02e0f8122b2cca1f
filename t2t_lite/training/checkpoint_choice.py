"""Which of a run's checkpoints t2t-avg-all averages: the newest n in the end of training.

    choice = CheckpointChoice(n=20, window=0.2, min_steps=0)
    choice.candidates(paths)   # those from step 6,720 on, of a run whose newest is 8,400

Only checkpoints from step (1 - window) x the newest checkpoint's step on, and from
`min_steps` on, are averaged: early ones, far from where training ended, make an average
worse than the last checkpoint alone. window=1 reaches back to the run's start. Of those,
the newest n that read are averaged (`averaging.average_checkpoints`); while a run is
still training, `rolling_average` waits for n of them.
"""

import dataclasses
from fractions import Fraction
import math

from t2t_lite.cli.command_line import declared
from t2t_lite.cli.flag_bounds import check_bounds
from t2t_lite.run.run_layout import checkpoint_step
from t2t_lite.training.average_settings import AVERAGING


@dataclasses.dataclass(frozen=True)
class CheckpointChoice:
  """The newest `n` checkpoints in the run's last `window` of steps, from `min_steps` on."""
  n: int = declared(AVERAGING, "n")
  window: float = declared(AVERAGING, "window")
  min_steps: int = declared(AVERAGING, "min_steps")

  def __post_init__(self):
    check_bounds(self)  # As t2t-avg-all checks its flags: one line, "--n=0: it must be ...".

  def first_step(self, newest_step):
    """The oldest step averaged in a run whose newest checkpoint is at `newest_step`."""
    return max(self.min_steps, self._window_start(newest_step))

  def candidates(self, paths):
    """The checkpoints among `paths` (RUN/ckpt-N, oldest first) that may be averaged, oldest
    first: the newest n that read are."""
    if not paths:
      return []
    first = self.first_step(_newest_step(paths))
    return [path for path in paths if checkpoint_step(path) >= first]

  def shortfall_line(self, found, paths, unreadable=0):
    """The line saying that only `found` of the n checkpoints asked for are there to
    average among `paths` (the run's; `unreadable` more did not read), and what reaches
    further back."""
    newest = _newest_step(paths)
    first = self.first_step(newest)
    span = f"(steps {first:,} to {newest:,})"
    if self.window < 1 and first > self.min_steps:
      where = f"in the run's last {self.window * 100:g}% {span}"
      hint = "--window=1 reaches further back"
    elif self.min_steps:
      where = f"from --min_steps={self.min_steps:,} on {span}"
      hint = "a lower --min_steps reaches further back"
    else:
      where = f"in the run {span}"
      hint = "t2t-trainer's --keep_checkpoint_max sets how many a run keeps"
    readable = " and can be read" if unreadable else ""
    verb, use = ("is", "using it alone") if found == 1 else ("are", "averaging those")
    return (f"t2t-avg-all: {found} of the {self.n} checkpoints asked for {verb} {where}"
            f"{readable}; {use} ({hint})")

  def _window_start(self, newest_step):
    # Exact in the decimal the flag was given as: 0.2 of 8,400 steps starts at 6,720.
    return math.ceil((1 - Fraction(repr(self.window))) * newest_step)


def _newest_step(paths):
  return max(map(checkpoint_step, paths))
