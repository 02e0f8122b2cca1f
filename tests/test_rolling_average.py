"""t2t-avg-all --min_steps and --wait_minutes: averaging a run's checkpoints as they appear."""

import functools
import os
import shutil
import subprocess
import sys

from helpers import FakeTime
from t2t_lite.files import step_files
from t2t_lite.training import rolling_average
from t2t_lite.training.checkpoint_choice import CheckpointChoice

AVG_ALL = os.path.join(os.path.dirname(sys.executable), "t2t-avg-all")


def list_checkpoints(run, steps):
  """Rewrites the run's checkpoint state file to list ckpt-STEP for `steps` only."""
  names = [f'"ckpt-{step}"' for step in steps]
  with open(os.path.join(run, "checkpoint"), "w") as f:
    f.write(f"model_checkpoint_path: {names[-1]}\n")
    f.writelines(f"all_model_checkpoint_paths: {name}\n" for name in names)


def test_a_new_checkpoint_is_averaged_in_as_it_appears(trained_run, tmp_path, monkeypatch, capsys):
  _, output_dir, _ = trained_run
  run = shutil.copytree(output_dir, tmp_path / "run")
  list_checkpoints(run, [20, 40])  # The trainer has written two so far.

  def trainer_writes_the_third(sleeps):
    if sleeps == 2:
      list_checkpoints(run, [20, 40, 60])
  time = FakeTime(trainer_writes_the_third)
  monkeypatch.setattr(rolling_average, "as_they_appear", functools.partial(
      step_files.as_they_appear, clock=time.clock, sleep=time.sleep))
  averaged = tmp_path / "averaged"
  written = rolling_average.average_as_they_appear(
      str(run), str(averaged), CheckpointChoice(n=2, window=1), wait_minutes=1, dev_sentences=0)
  printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("averaged")]
  assert [line.split(" into ")[0] for line in printed] == [
      "averaged 2 checkpoint(s) (ckpt-20, ckpt-40)", "averaged 2 checkpoint(s) (ckpt-40, ckpt-60)"]
  assert written == str(averaged / "ckpt-60")
  assert time.sleeps == 2 + 6  # Then a minute without a new checkpoint.


def test_min_steps_leaves_out_the_earlier_checkpoints(trained_run, tmp_path):
  _, output_dir, _ = trained_run
  result = subprocess.run([AVG_ALL, f"--model_dir={output_dir}",
                           f"--output_dir={tmp_path / 'averaged'}", "--n=5", "--min_steps=40",
                           "--window=1", "--dev_sentences=0"],
                          capture_output=True, text=True, timeout=300)
  assert result.returncode == 0, result.stderr[-2000:]
  assert result.stdout.splitlines() == [
      "t2t-avg-all: 2 of the 5 checkpoints asked for are from --min_steps=40 on (steps 40 to "
      "60); averaging those (a lower --min_steps reaches further back)",
      f"averaged 2 checkpoint(s) (ckpt-40, ckpt-60) into {tmp_path / 'averaged'}/ckpt-60"]
  result = subprocess.run([AVG_ALL, f"--model_dir={output_dir}",
                           f"--output_dir={tmp_path / 'none'}", "--min_steps=100"],
                          capture_output=True, text=True, timeout=300)
  assert result.returncode == 2 and "Traceback" not in result.stderr
  assert result.stderr.strip().splitlines()[-1] == (
      f"t2t-avg-all: error: --model_dir={output_dir} has no checkpoint from step 100 on; lower "
      f"--min_steps or wait longer (--wait_minutes)")
