"""The pace transformer_auto plans --train_minutes with: real steps, timed in a child."""

import dataclasses
import math

import pytest

from t2t_lite.errors import UserError
from t2t_lite.registry import HPARAMS
from t2t_lite.training import step_pace
from t2t_lite.training.step_pace import PaceSettings, measured_pace, timed_pace

TINY = dataclasses.replace(HPARAMS["transformer_test_small"](), batch_size=256)


def test_the_warmup_steps_are_not_timed_and_the_timed_ones_are_capped(monkeypatch):
  calls = []
  monkeypatch.setattr(step_pace, "TIMED_SECONDS", 3600.0)
  monkeypatch.setattr(step_pace, "MAX_TIMED_STEPS", 7)
  assert timed_pace(lambda: calls.append(1)) > 0
  assert len(calls) == step_pace.WARMUP_STEPS + 7
  calls.clear()
  monkeypatch.setattr(step_pace, "TIMED_SECONDS", 0.0)  # Past at once: one timed step.
  assert timed_pace(lambda: calls.append(1)) > 0
  assert len(calls) == step_pace.WARMUP_STEPS + 1


@pytest.mark.slow
def test_a_models_pace_is_measured_in_a_child_process():
  steps_per_second, seconds = measured_pace(TINY, vocab_size=300, length=20)
  assert math.isfinite(steps_per_second) and steps_per_second > 0
  assert seconds > 0


@pytest.mark.slow
def test_a_failed_measurement_is_one_line_saying_what_to_do_instead():
  # A setting the run refuses: the run's own line.
  with pytest.raises(UserError, match=r"^unknown model 'no_such_model'; known: transformer"):
    measured_pace(TINY, vocab_size=300, length=20, settings=PaceSettings(model="no_such_model"))
  # Anything else: the child's last line, and how to run without a measurement.
  with pytest.raises(UserError, match=r"^measuring this machine's training pace for "
                     r"--train_minutes failed: .*; stop the run with --train_steps instead$"):
    measured_pace(TINY, vocab_size=300, length=20,
                  settings=PaceSettings(mixed_precision="no_such_dtype"))
