"""The pace transformer_auto plans --train_minutes with: real steps, timed in a child."""

import dataclasses
import math

import pytest

from t2t_lite.errors import UserError
from t2t_lite.registry import HPARAMS, import_usr_dir, imported_usr_dirs
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
@pytest.mark.parametrize("cpu_replicas", [1, 2])
def test_a_models_pace_is_measured_in_a_child_process(cpu_replicas):
  """The child splits the CPU as t2t-trainer will (hparams cpu_replicas, no GPU here)."""
  hparams = dataclasses.replace(TINY, cpu_replicas=cpu_replicas)
  steps_per_second, seconds = measured_pace(hparams, vocab_size=300, length=20)
  assert math.isfinite(steps_per_second) and steps_per_second > 0
  assert seconds > 0


def test_an_unknown_model_is_the_registrys_line_before_any_child_starts(monkeypatch):
  monkeypatch.setattr(step_pace.subprocess, "run", None)  # Not called.
  with pytest.raises(UserError, match=r"^unknown model 'no_such_model'; known: transformer"):
    measured_pace(TINY, vocab_size=300, length=20, settings=PaceSettings(model="no_such_model"))


@pytest.mark.slow
def test_a_failed_measurement_is_one_line_saying_what_to_do_instead():
  with pytest.raises(UserError, match=r"^measuring this machine's training pace for "
                     r"--train_minutes failed: .*no_such_dtype.*; stop the run with "
                     r"--train_steps instead$"):
    measured_pace(TINY, vocab_size=300, length=20,
                  settings=PaceSettings(mixed_precision="no_such_dtype"))


@pytest.mark.slow
def test_a_model_of_a_usr_dir_is_measured_too(tmp_path):
  """The child imports the --t2t_usr_dir folders the run imported, so a user's model is
  known there."""
  package = tmp_path / "pace_usr_dir"
  package.mkdir()
  (package / "__init__.py").write_text(
      "from t2t_lite.models.transformer import Transformer\n"
      "from t2t_lite.registry import MODELS\n\n\n"
      "@MODELS.register\n"
      "class PaceUsrDirTransformer(Transformer):\n"
      "  pass\n", encoding="utf-8")
  import_usr_dir(str(package))
  assert str(package) in imported_usr_dirs()
  steps_per_second, _ = measured_pace(TINY, vocab_size=300, length=20,
                                      settings=PaceSettings(model="pace_usr_dir_transformer"))
  assert steps_per_second > 0
