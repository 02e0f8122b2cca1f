"""Faults: kill -9 at random moments, SIGTERM, a diverging loss. No work is lost."""

import os
import random
import signal
import subprocess
import time

import tensorflow as tf

from trainer_runs import run_trainer, trainer_command


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
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
  return subprocess.Popen(trainer_command(data_dir, output_dir, *flags), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_checkpoint_after(output_dir, step, process, timeout=300):
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    latest = tf.train.latest_checkpoint(output_dir)
    if latest and int(latest.rsplit("-", 1)[1]) > step:
      return
    assert process.poll() is None, process.stdout.read()[-3000:]
    time.sleep(0.2)
  raise AssertionError(f"no checkpoint after step {step} within {timeout}s")


def test_kill_9_at_random_moments_then_resume(small_translation_data, tmp_path):
  _, data_dir = small_translation_data
  output_dir = str(tmp_path / "run")
  flags = ("--train_steps=100000", "--schedule=train", "--save_checkpoints_steps=2",
           "--keep_checkpoint_max=3")
  rng = random.Random(7)
  last_step = 0
  for _ in range(3):
    process = start_trainer(data_dir, output_dir, *flags)
    wait_for_checkpoint_after(output_dir, last_step, process)
    time.sleep(rng.uniform(0.0, 2.0))  # Often mid-save: a checkpoint every 2 steps.
    process.kill()
    output = process.communicate()[0]
    steps = checkpoints_are_all_readable(output_dir)
    assert steps and steps == sorted(steps) and len(steps) <= 3
    if last_step:
      assert f"(step {last_step_at_start})" in output, output[-2000:]
    last_step_at_start = steps[-1]
    last_step = steps[-1]
  result = run_trainer(data_dir, output_dir, "--schedule=train", "--save_checkpoints_steps=2",
                       f"--train_steps={last_step + 4}")
  assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
  assert f"(step {last_step})" in result.stdout
  assert checkpoints_are_all_readable(output_dir)[-1] == last_step + 4


def test_sigterm_saves_and_exits_cleanly(small_translation_data, tmp_path):
  _, data_dir = small_translation_data
  output_dir = str(tmp_path / "run")
  process = start_trainer(data_dir, output_dir, "--train_steps=100000", "--schedule=train",
                          "--save_checkpoints_steps=5")
  wait_for_checkpoint_after(output_dir, 0, process)
  process.send_signal(signal.SIGTERM)
  output = process.communicate(timeout=120)[0]
  assert process.returncode == 0, output[-2000:]
  saved = tf.train.latest_checkpoint(output_dir)
  assert f"SIGTERM: saved {saved}" in output
  assert int(saved.rsplit("-", 1)[1]) >= 5


def test_a_diverging_loss_stops_with_one_line_and_keeps_the_last_checkpoint(
    small_translation_data, tmp_path):
  _, data_dir = small_translation_data
  output_dir = str(tmp_path / "run")
  first = run_trainer(data_dir, output_dir, "--train_steps=2", "--schedule=train")
  assert first.returncode == 0, first.stderr[-2000:]
  before = checkpoints_are_all_readable(output_dir)
  result = run_trainer(data_dir, output_dir, "--train_steps=50", "--schedule=train",
                       "--save_checkpoints_steps=1",
                       "--hparams=batch_size=1024,max_length=96,learning_rate_warmup_steps=1,"
                       "learning_rate_constant=1e30,optimizer_adam_epsilon=1e-30")
  assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
  last_line = result.stderr.strip().splitlines()[-1]
  assert "the loss became nan at step" in last_line or "the loss became inf at step" in last_line
  after = checkpoints_are_all_readable(output_dir)
  # Only steps before the bad one were saved, and they all still read.
  bad_step = int(last_line.split(" at step ")[1].split(";")[0])
  assert before[-1] in after and all(step < bad_step for step in after)
