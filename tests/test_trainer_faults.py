"""Faults: kill -9 at a random moment, SIGTERM, a diverging loss. No work is lost."""

import os
import random
import re
import signal
import time

import pytest
import tensorflow as tf

from commands import start
from tiny_runs import copy_run
from trainer_runs import run_trainer, trainer_command

from t2t_lite.training.curves import read_scalars

pytestmark = pytest.mark.slow  # Kills and signals real trainer processes.


def checkpoints_are_all_readable(output_dir):
  """Every checkpoint the state file lists opens and every tensor in it reads."""
  state = tf.train.get_checkpoint_state(output_dir)
  paths = list(state.all_model_checkpoint_paths) if state else []
  for path in paths:
    reader = tf.train.load_checkpoint(path)
    for name, dtype in reader.get_variable_to_dtype_map().items():
      if dtype != tf.variant:  # The input pipeline's position has no numpy form.
        reader.get_tensor(name)
  return [int(path.rsplit("-", 1)[1]) for path in paths]


def start_trainer(data_dir, output_dir, *flags):
  return start(trainer_command(data_dir, output_dir, *flags), merge_stderr=True)


def wait_for_checkpoint_after(output_dir, step, process, timeout=300):
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    latest = tf.train.latest_checkpoint(output_dir)
    if latest and int(latest.rsplit("-", 1)[1]) > step:
      return
    assert process.poll() is None, process.stdout.read()[-3000:]
    time.sleep(0.2)
  raise AssertionError(f"no checkpoint after step {step} within {timeout}s")


def truncate_newest_checkpoint(output_dir):
  """Cuts the newest checkpoint's data file in half (a disk failure after the save)."""
  newest = tf.train.latest_checkpoint(output_dir)
  data = newest + ".data-00000-of-00001"
  with open(data, "r+b") as f:
    f.truncate(os.path.getsize(data) // 2)


def test_kill_9_at_a_random_moment_then_resume(small_translation_data, tmp_path):
  """Killed mid-training (often mid-save), every checkpoint left is readable; with the newest
  then truncated, as a disk failure would leave it, the next run resumes from the one before."""
  _, data_dir = small_translation_data
  output_dir = str(tmp_path / "run")
  process = start_trainer(data_dir, output_dir, "--train_steps=100000", "--schedule=train",
                          "--save_checkpoints_steps=2", "--keep_checkpoint_max=3")
  wait_for_checkpoint_after(output_dir, 2, process)  # Two checkpoints at least: 2 and 4.
  time.sleep(random.Random(7).uniform(0.0, 2.0))  # Often mid-save: a checkpoint every 2 steps.
  process.kill()
  process.communicate()
  steps = checkpoints_are_all_readable(output_dir)
  assert len(steps) >= 2 and steps == sorted(steps) and len(steps) <= 3, steps
  truncate_newest_checkpoint(output_dir)
  result = run_trainer(data_dir, output_dir, "--schedule=train", "--save_checkpoints_steps=2",
                       f"--train_steps={steps[-1] + 4}")
  assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
  assert f"(step {steps[-2]})" in result.stdout
  assert checkpoints_are_all_readable(output_dir)[-1] == steps[-1] + 4
  assert not [name for name in os.listdir(output_dir) if name.endswith("_temp")]


def test_sigterm_saves_and_exits_cleanly(small_translation_data, tmp_path):
  """SIGTERM saves and exits 143 (128 + 15: stopped, not finished); while it runs, a second
  trainer on its directory is refused, naming it, and changes no file."""
  _, data_dir = small_translation_data
  output_dir = str(tmp_path / "run")
  process = start_trainer(data_dir, output_dir, "--train_steps=100000", "--schedule=train",
                          "--save_checkpoints_steps=5")
  wait_for_checkpoint_after(output_dir, 0, process)
  with open(os.path.join(output_dir, "run.json"), "rb") as f:
    run_json = f.read()
  second = run_trainer(data_dir, output_dir, "--train_steps=7", "--schedule=train")
  assert second.returncode == 2, second.stderr[-2000:]
  assert re.search(rf"t2t-trainer: error: {re.escape(output_dir)} is being written by "
                   rf"t2t-trainer \(pid {process.pid} on host \S+\)", second.stderr)
  with open(os.path.join(output_dir, "run.json"), "rb") as f:
    assert f.read() == run_json  # The second one's --train_steps=7 is not recorded.
  process.send_signal(signal.SIGTERM)
  output = process.communicate(timeout=120)[0]
  assert process.returncode == 143, output[-2000:]
  saved = tf.train.latest_checkpoint(output_dir)
  assert f"SIGTERM: saved {saved}" in output
  saved_step = int(saved.rsplit("-", 1)[1])
  assert saved_step >= 5
  # Every step's summary is on disk, the last (saved) one's included.
  assert read_scalars(os.path.join(output_dir, "train"))["loss"][0] == list(
      range(1, saved_step + 1))


def test_a_diverging_loss_stops_with_one_line_and_keeps_the_last_checkpoint(
    trained_run, tmp_path):
  data_dir, shared_run, _ = trained_run
  output_dir = copy_run(shared_run, tmp_path / "run")  # Others read the shared one.
  before = checkpoints_are_all_readable(output_dir)
  result = run_trainer(data_dir, output_dir, "--train_steps=110", "--schedule=train",
                       "--save_checkpoints_steps=1",
                       "--hparams=batch_size=1024,max_length=96,learning_rate_warmup_steps=1,"
                       "learning_rate_constant=1e30,optimizer_adam_epsilon=1e-30")
  assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
  last_line = result.stderr.strip().splitlines()[-1]
  # Non-finite, or finite but far above the untrained model's loss.
  match = re.search(r"the loss became (nan|inf|[0-9.e+]+) at step (\d+)", last_line)
  assert match and "the last good checkpoint" in last_line, last_line
  after = checkpoints_are_all_readable(output_dir)
  # Only steps before the bad one were saved, and they all still read.
  bad_step = int(match.group(2))
  assert before[-1] in after and all(step < bad_step for step in after)
