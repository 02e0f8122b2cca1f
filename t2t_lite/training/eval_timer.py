"""When the training loop evaluates: every --local_eval_frequency steps, and every
--eval_every_minutes of training (by default a tenth of --train_minutes), so that a run
under a time limit shows its progress whatever its pace.

    timer = EvalTimer.for_config(config, multi_worker)
    ... step ...; if timer.due(step): evaluate; timer.evaluated(step)

Several workers evaluate together (collective operations) and their clocks disagree, so
evaluations by time are off there and an --eval_every_minutes is refused.
"""

import time

from t2t_lite.errors import UserError


class EvalTimer:
  """Whether an evaluation is due after a step: one at a multiple of `every_steps`, or
  `every_minutes` (0: never by time) after the last evaluation ended (or the timer began);
  never two at one step. With evaluations by time, one at a multiple of `every_steps` waits
  for half of `every_minutes` since the last (a run evaluated by time at step 951 does not
  evaluate again at step 1,000)."""

  def __init__(self, every_steps, every_minutes, clock=time.monotonic):
    self.every_steps, self.every_minutes = every_steps, every_minutes or 0
    self._clock = clock
    self._since = clock()
    self.last_step = None  # The step of the last evaluation, None before the first.

  @classmethod
  def for_config(cls, config, multi_worker, clock=time.monotonic):
    """The timer of t2t-trainer's `config`; --eval_every_minutes's default (None) is a
    tenth of --train_minutes, off without them or across several workers."""
    minutes = config.eval_every_minutes
    if multi_worker and minutes:
      raise UserError(f"--eval_every_minutes={minutes:g} is not supported across several "
                      f"workers (each worker's clock would decide alone); evaluate every "
                      f"--local_eval_frequency steps")
    if minutes is None:
      minutes = 0 if multi_worker else (config.train_minutes or 0) / 10
    return cls(config.local_eval_frequency, minutes, clock)

  def due(self, step):
    if step == self.last_step:
      return False
    if not self.every_minutes:
      return step % self.every_steps == 0
    waited = (self._clock() - self._since) / (60.0 * self.every_minutes)
    return waited >= 1 or (step % self.every_steps == 0 and waited >= 0.5)

  def evaluated(self, step):
    """Marks an evaluation at `step`, ended now."""
    self.last_step, self._since = step, self._clock()
