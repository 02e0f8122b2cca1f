"""Mixed precision, and the paper's base and big sets, start and train on CPU."""

import re

import pytest

from trainer_runs import run_trainer


@pytest.mark.parametrize("precision", ["bfloat16", "float16"])
def test_mixed_precision_trains(small_translation_data, tmp_path, precision):
  _, data_dir = small_translation_data
  result = run_trainer(data_dir, str(tmp_path / "run"), "--train_steps=40",
                       "--local_eval_frequency=40", "--eval_steps=0",
                       "--eval_decode_sentences=4", f"--mixed_precision={precision}")
  assert result.returncode == 0, result.stderr[-3000:]
  losses = [float(x) for x in re.findall(r"eval at step \d+: loss ([0-9.]+)", result.stderr)]
  # The baseline and step 40, once each (float16 skips overflowing steps, not evaluations).
  assert len(losses) == 2 and losses[1] < losses[0] - 0.5, result.stderr[-2000:]


@pytest.mark.parametrize("hparams_set", ["transformer_base", "transformer_big"])
def test_the_papers_sets_start_training(small_translation_data, tmp_path, hparams_set):
  _, data_dir = small_translation_data
  result = run_trainer(data_dir, str(tmp_path / "run"), f"--hparams_set={hparams_set}",
                       "--hparams=batch_size=256,max_length=64", "--train_steps=2",
                       "--schedule=train")
  assert result.returncode == 0, result.stderr[-3000:]
  assert "step 2/2" in result.stderr and "training cost:" in result.stderr
