"""Divergence against the run's own start (t2t_lite.training.divergence)."""

import math
import re

import numpy as np
import pytest

from t2t_lite.errors import UserError
from t2t_lite.training.divergence import (START_STEPS, WINDOW, LossWatch, divergence_bound,
                                          divergence_limit, guessing_limit)

# The per-step losses of t2t-trainer on Multi30k en-de (transformer_test_small, 1,024-token
# batches, learning_rate_constant=1e5): from the untrained model's 8.4 up, each still below
# the fixed bound 4 ln(V) + 10 = 46 until step 26.
LOSSES_AT_1E5 = [8.408, 8.006, 6.336, 7.416, 6.192, 9.122, 6.602, 10.509, 6.271, 12.243, 8.049,
                 11.636, 11.289, 10.370, 17.555, 9.890, 21.474, 17.115, 16.798, 21.262, 30.858,
                 20.042, 29.393, 35.546, 36.286]


def watch(losses, last_checkpoint=None, vocab_size=None):
  """Feeds `losses` as steps 1, 2, ... -> the step whose check raised, or None."""
  loss_watch = LossWatch(vocab_size)
  for step, loss in enumerate(losses, 1):
    try:
      loss_watch.check(step, loss, last_checkpoint)
    except UserError:
      return step
  return None


def test_a_loss_stuck_far_above_its_start_is_divergence():
  losses = [8.4] * START_STEPS + [16.9] * WINDOW
  assert 16.9 < divergence_bound(8192)  # The fixed bound alone lets it pass.
  loss_watch = LossWatch()
  with pytest.raises(UserError) as caught:
    for step, loss in enumerate(losses, 1):
      loss_watch.check(step, loss, "/runs/a/ckpt-20")
  message = str(caught.value)
  # Caught at the first full window whose mean is above 8.4 + 4.2 = 12.6, within the
  # window after the rise: step 10, (5 x 8.4 + 5 x 16.9) / 10 = 12.65.
  match = re.match(r"the loss became ([0-9.]+) at step (\d+) ", message)
  assert "\n" not in message and match, message
  assert float(match.group(1)) > divergence_limit(8.4) and int(match.group(2)) == WINDOW
  assert "far above the 8.4 of its first 5 steps" in message
  assert "the last good checkpoint /runs/a/ckpt-20 is intact" in message


def test_a_learning_rate_of_1e5_is_caught_before_the_fixed_bound():
  assert max(LOSSES_AT_1E5) < divergence_bound(8192)  # The fixed bound: not before step 26.
  # Steps 1-5 average 7.27 (limit 10.9); steps 8-17 average 11.9, the first window above it.
  assert watch(LOSSES_AT_1E5) == 17


@pytest.mark.parametrize("start, end, seed", [(8.4, 2.0, 0), (9.0, 4.5, 1), (1.5, 1.2, 2),
                                              (0.3, 0.3, 3)])
def test_noisy_training_never_trips_it(start, end, seed):
  """Falling (or flat, as a resumed run's) losses with per-step noise of 0.5 nats, more
  than a batch's: the limit is at least 2 nats above the start's mean of 5 steps (noise
  0.5 / sqrt(5) = 0.22) and the recent mean is over 10 (0.16): a 7-sigma margin."""
  steps = np.arange(3000)
  rng = np.random.default_rng(seed)
  losses = end + (start - end) * np.exp(-steps / 300) + rng.normal(0, 0.5, steps.size)
  assert watch(np.maximum(losses, 0.0).tolist()) is None


def test_the_limit_is_half_again_the_start_and_at_least_two_nats_above_it():
  assert divergence_limit(8.4) == pytest.approx(12.6)
  assert divergence_limit(1.0) == 3.0
  assert divergence_limit(math.log(8192)) == pytest.approx(1.5 * math.log(8192))


def test_a_resumed_run_that_blows_up_at_once_is_caught_against_guessing():
  """A trained run (loss 1.5) resumed at a learning rate far too high: its first step is
  still 1.5, the next ones are 11-12 (a 300-piece vocabulary: guessing gives ln 300 = 5.7).
  Its start, taken in the rise, hides it from the start-relative limit alone."""
  losses = [1.5, 11.0, 11.5, 11.2, 11.4] + [11.4] * 20
  assert watch(losses) is None  # Start 9.3: limit 13.9.
  assert guessing_limit(300, 1.5) == pytest.approx(math.log(300) + 2.0)
  assert watch(losses, vocab_size=300) == WINDOW


@pytest.mark.parametrize("seed", [0, 1])
def test_noisy_fresh_training_stays_under_the_guessing_limit(seed):
  """A fresh run starts at about ln V and falls: its 10-step mean (noise 0.5 / sqrt(10))
  stays far below ln V + 2."""
  steps = np.arange(3000)
  rng = np.random.default_rng(seed)
  start = math.log(8192)
  losses = 2.0 + (start - 2.0) * np.exp(-steps / 300) + rng.normal(0, 0.5, steps.size)
  assert watch(np.maximum(losses, 0.0).tolist(), vocab_size=8192) is None
