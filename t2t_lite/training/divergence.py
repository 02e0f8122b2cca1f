"""Divergence: a loss that explodes (`check_loss`), or ends far above where it began (`LossWatch`).

A fixed bound (`divergence_bound`, 4 ln(V) + 10) catches only a loss that
explodes. A learning rate far too high more often leaves the loss stuck well
above the untrained model's (about ln V, 8.4 for an 4,500-token vocabulary)
yet below the bound, e.g. at 16.9: training that has made the model worse than
guessing, with exit 0 and no word. `LossWatch` compares the mean loss of the
last WINDOW steps with `start`, the mean of the first START_STEPS steps this
process took, and calls it diverged when it is above

    start + max(start / 2, 2.0)

Half again the start loss: for a fresh run, whose start is the untrained model's
ln V, the model then assigns the right tokens less probability than uniform
guessing does, by a factor of sqrt(V) on average. At least 2 nats (a perplexity
7.4 times the start's): a resumed run that starts low keeps room for the noise of
its batches. The start is the first few steps alone: a learning rate far too
high drives the loss up within tens of steps, and a longer start would take in
the rise it is to be measured against. The end is a mean over WINDOW steps: a
batch of rare words raises one step's loss, not ten steps' mean, and a loss
that falls, as training's does, never comes near the limit.

Given the vocabulary size V, the limit is also at most 2 nats above ln V, the loss
of guessing uniformly (label smoothing included), or above the first step's loss
when a run started higher: a resumed run whose first steps already blew up (its
start then taken in the rise) is caught too, and no run can end worse than
guessing by a factor of e^2 = 7.4 in perplexity.
"""

import collections
import math

from t2t_lite.errors import UserError

START_STEPS = 5  # Steps in the start's mean.
WINDOW = 10  # Steps in the recent mean.


def divergence_limit(start):
  """The mean loss above which a run that started at mean loss `start` has diverged."""
  return start + max(start / 2.0, 2.0)


def guessing_limit(vocab_size, first_loss):
  """2 nats above the loss of guessing uniformly among `vocab_size` tokens (ln V), or above
  `first_loss` when the run started higher."""
  return max(math.log(max(vocab_size, 2)), first_loss) + 2.0


class LossWatch:
  """Feeds on each step's loss per token; `check` raises a UserError once the mean of the
  last `window` steps is above `divergence_limit` of the first `start_steps` steps' mean
  (or, with vocab_size, above `guessing_limit`)."""

  def __init__(self, vocab_size=None, start_steps=START_STEPS, window=WINDOW):
    self.vocab_size = vocab_size
    self.start_steps, self.window = start_steps, window
    self.first = []
    self.recent = collections.deque(maxlen=window)

  def limit(self, start):
    """The mean loss above which this run, starting at `start` (mean), has diverged."""
    if self.vocab_size is None:
      return divergence_limit(start)
    return min(divergence_limit(start), guessing_limit(self.vocab_size, self.first[0]))

  def check(self, step, loss, last_checkpoint):
    """After `step` with `loss` per token; last_checkpoint: for the error, the newest saved."""
    if len(self.first) < self.start_steps:
      self.first.append(loss)
    self.recent.append(loss)
    if len(self.recent) < self.window:
      return
    start = sum(self.first) / len(self.first)
    now = sum(self.recent) / len(self.recent)
    limit = self.limit(start)
    if now <= limit:
      return
    raise UserError(
        f"the loss became {now:.4g} at step {step} (mean of the last {self.window} steps), "
        f"far above the {start:.4g} of its first {self.start_steps} steps here (limit "
        f"{limit:.4g}): "
        f"training diverged; {_kept(last_checkpoint)}; lower the learning rate "
        f"(learning_rate_constant)")


def divergence_bound(vocab_size):
  """The per-token loss above which training has diverged: far above the loss of the
  untrained model, about ln(vocab_size)."""
  return 4.0 * math.log(max(vocab_size, 2)) + 10.0


def check_loss(step, loss, vocab_size, last_checkpoint):
  """UserError when the step's loss is not finite or above `divergence_bound`."""
  bound = divergence_bound(vocab_size)
  if math.isfinite(loss) and loss <= bound:
    return
  reason = "" if not math.isfinite(loss) else (
      f", above {bound:.1f} (4 ln(vocabulary size) + 10): training diverged")
  raise UserError(f"the loss became {loss:.6g} at step {step}{reason}; "
                  f"{_kept(last_checkpoint)}; lower the learning rate "
                  f"(learning_rate_constant) or use bfloat16")


def _kept(last_checkpoint):
  """What a divergence error says of the saved work."""
  kept = (f"the last good checkpoint {last_checkpoint} is intact" if last_checkpoint
          else "no checkpoint was saved yet")
  return f"nothing was saved after it, and {kept}"
