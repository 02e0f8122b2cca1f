"""--train_minutes: a run's time limit is its total over restarts; reaching it saves and ends
the run as finished, and under linear_decay the schedule ends where the pace meets it. The
steps run on a fake clock that only they move. Signals and failed starts: test_stopping.py."""

import functools
import signal

import pytest
import tensorflow as tf

from helpers import FakeTime, listed_steps, signal_at_step
from tiny_runs import snapshot, tiny_run, tiny_trainer
from t2t_lite.errors import UserError
from t2t_lite.registry import HPARAMS
from t2t_lite.training import optimization, stop_requests, train_step, trainer
from t2t_lite.training.config import TrainConfig
from t2t_lite.training.trained_time import TRAINED_SECONDS, TrainedTime


def steps_take(monkeypatch, seconds):
  """Each training step takes `seconds` on the clock --train_minutes read (a fake one, moved
  by the steps alone) -> the learning rates the steps use, appended as they run."""
  clock, rates = FakeTime(), []
  original = train_step.TrainStep.__call__

  def timed_step(self, *args):
    stats = original(self, *args)
    clock.sleep(seconds)
    rates.append(float(stats["learning_rate"]))
    return stats
  monkeypatch.setattr(train_step.TrainStep, "__call__", timed_step)
  monkeypatch.setattr(trainer, "TimeLimit",
                      functools.partial(stop_requests.TimeLimit, clock=clock.clock))
  return rates


def test_train_minutes_stops_saves_and_ends_as_finished(tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  steps_take(monkeypatch, 25.0)
  output_dir = str(tmp_path / "run")
  result = tiny_trainer(data_dir, output_dir, "--train_steps=50", "--schedule=train",
                        "--train_minutes=1")
  # 25 s (step 1), 50 s (step 2), 75 s (step 3): one minute reached after step 3.
  assert result.returncode == 0, result.stderr[-2000:]
  assert (f"--train_minutes=1 reached (1.2 minutes trained): saved {output_dir}/ckpt-3 at "
          f"step 3; pass a larger --train_minutes (the run's total) to train on"
          ) in result.stderr
  assert "training cost:" in result.stderr and listed_steps(output_dir) == [3]
  assert trained_seconds(f"{output_dir}/ckpt-3") == 75.0


def trained_seconds(path):
  """The seconds checkpoint `path` says its run had trained; None where it does not say."""
  saved = dict(tf.train.list_variables(path))
  if not any(name.startswith(f"{TRAINED_SECONDS}/") for name in saved):
    return None
  return float(tf.train.load_variable(path, f"{TRAINED_SECONDS}/.ATTRIBUTES/VARIABLE_VALUE"))


@pytest.mark.parametrize("trained_seconds, trained_steps, reads", [
    # A new run: the first call marks the pace's start, which is trusted past 10 steps and
    # 30 seconds (here), then one step a second; past the limit, the step it is at.
    (0, 0, [(20, 5, None), (40, 25, None), (50, 35, 35 + 550), (700, 600, 600)]),
    # A resumed run with 300 s of 600 trained, at 2 steps a second: that pace until its own
    # is measured (300 - 20 s left at 20 s), then its own (one step a second).
    (300, 600, [(20, 600, 600 + 2 * 280), (40, 620, 620 + 2 * 260), (50, 630, 630 + 250)]),
    # Too short a history to trust (10 s): as a new run.
    (10, 20, [(20, 20, None), (30, 30, None)]),
])
def test_the_pace_projects_the_step_at_the_time_limit(
    monkeypatch, trained_seconds, trained_steps, reads):
  monkeypatch.setattr(stop_requests.TimeLimit, "PACE_STEPS", 10)
  monkeypatch.setattr(stop_requests.TimeLimit, "PACE_SECONDS", 30.0)
  now = [0.0]
  limit = stop_requests.TimeLimit(10, trained_seconds, trained_steps,  # 600 seconds.
                                  clock=lambda: now[0])
  for now[0], step, expected in reads:
    assert limit.projected_step(step) == expected, (now[0], step)
  assert stop_requests.TimeLimit(0).projected_step(600) is None


@pytest.mark.parametrize("minutes, trained_seconds, now, reached, seconds_left", [
    (1, 0, 59.0, False, 1.0),
    (1, 0, 60.0, True, 0.0),
    (1, 45, 10.0, False, 5.0),    # The run's total: 45 s before this process.
    (1, 45, 15.0, True, 0.0),
    (1, 90, 0.0, True, 0.0),      # Trained them before: nothing left.
    (0, 9000, 9000.0, False, 0.0),  # No limit.
])
def test_the_time_limit_is_the_runs_total(minutes, trained_seconds, now, reached,
                                          seconds_left):
  clock = [0.0]
  limit = stop_requests.TimeLimit(minutes, trained_seconds, clock=lambda: clock[0])
  clock[0] = now
  assert limit.trained_seconds() == trained_seconds + now
  assert (limit.reached(), limit.seconds_left()) == (reached, seconds_left)


LINEAR_DECAY = ("--hparams=batch_size=256,max_length=32,learning_rate_schedule=constant*"
                "linear_decay,learning_rate_constant=0.001,learning_rate_decay_steps={}")


def pace_trusted_at_once(monkeypatch):
  monkeypatch.setattr(stop_requests.TimeLimit, "PACE_STEPS", 1)
  monkeypatch.setattr(stop_requests.TimeLimit, "PACE_SECONDS", 0.0)


def test_train_minutes_ends_linear_decay_where_the_pace_meets_the_limit(
    tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  pace_trusted_at_once(monkeypatch)
  steps_take(monkeypatch, 10.0)
  ends = []
  monkeypatch.setattr(optimization.FactorSchedule, "set_end_step",
                      lambda self, step: ends.append(step))
  output_dir = str(tmp_path / "run")
  result = tiny_trainer(data_dir, output_dir, "--train_steps=50", "--schedule=train",
                        "--train_minutes=1", LINEAR_DECAY.format(3))
  assert result.returncode == 0, result.stderr[-2000:]
  # Before each step the pace is read: at step 0 its start; at step 1 (10 s, 10 s a step,
  # 50 s left) step 6, and so on: step 6 each time, where the minute ends.
  assert ends == [6, 6, 6, 6, 6] and listed_steps(output_dir) == [6]


def schedule_rate(step, end_step, decay_steps):
  """The learning rate of LINEAR_DECAY at `step` when the run ends at `end_step`."""
  hparams = HPARAMS["transformer_test_small"]().override(
      LINEAR_DECAY.format(decay_steps).removeprefix("--hparams="))
  return float(optimization.learning_rate_schedule(hparams, end_step)(step))


def test_train_minutes_are_the_runs_total_across_restarts(tmp_path_factory, tmp_path,
                                                          monkeypatch):
  """Stopped at 3 s of 6, a run trains the 3 left, on the learning rates of a run never
  stopped; again, it trains nothing; with more minutes it trains on from the rate the
  schedule gives the new end (not from the peak, as a schedule ending at --train_steps)."""
  data_dir, _ = tiny_run(tmp_path_factory)
  pace_trusted_at_once(monkeypatch)
  rates = steps_take(monkeypatch, 1.0)
  flags = ["--train_steps=50", "--schedule=train", LINEAR_DECAY.format(100)]
  # A run never stopped: its first step ends at --train_steps (no pace yet), the next ones
  # at step 6, where the pace meets the limit.
  unstopped = [schedule_rate(0, 50, 100)] + [schedule_rate(step, 6, 100) for step in range(1, 6)]
  output_dir = str(tmp_path / "run")
  with monkeypatch.context() as patches:
    signal_at_step(patches, signal.SIGTERM, 3)
    assert tiny_trainer(data_dir, output_dir, "--train_minutes=0.1", *flags).returncode == 143
  assert trained_seconds(f"{output_dir}/ckpt-3") == 3.0
  result = tiny_trainer(data_dir, output_dir, "--train_minutes=0.1", *flags)
  assert result.returncode == 0, result.stderr[-2000:]
  assert f"resuming from {output_dir}/ckpt-3 (step 3)" in result.stdout
  assert listed_steps(output_dir) == [3, 6] and trained_seconds(f"{output_dir}/ckpt-6") == 6.0
  assert rates == pytest.approx(unstopped)

  before = snapshot(output_dir, mtimes=True)
  again = tiny_trainer(data_dir, output_dir, "--train_minutes=0.1", *flags)
  assert again.returncode == 0, again.stderr[-2000:]
  assert again.stdout.splitlines()[-1] == (
      f"{output_dir} has trained its --train_minutes=0.1 (0.1 minutes, step 6, the learning "
      f"rate decayed to {unstopped[-1]:.2g}); nothing to do: pass a larger --train_minutes "
      f"(the run's total) to train on")
  assert snapshot(output_dir, mtimes=True) == before

  rates.clear()
  longer = tiny_trainer(data_dir, output_dir, "--train_minutes=0.15", *flags)
  assert longer.returncode == 0, longer.stderr[-2000:]
  # 3 s more at the run's pace (a step a second) end it at step 9: linear_decay over its
  # second half, from step 6 of 9.
  assert listed_steps(output_dir)[-1] == 9 and trained_seconds(f"{output_dir}/ckpt-9") == 9.0
  new_end, old_end = schedule_rate(6, 9, 100), schedule_rate(6, 50, 100)
  assert rates[0] == pytest.approx(new_end) and new_end < 0.7 * old_end


def test_a_checkpoint_without_the_seconds_trained_resumes_as_none_trained(
    tmp_path_factory, tmp_path, monkeypatch):
  """Checkpoints written before the seconds were kept."""
  data_dir, _ = tiny_run(tmp_path_factory)
  steps_take(monkeypatch, 1.0)
  output_dir = str(tmp_path / "run")
  with monkeypatch.context() as patches:
    patches.setattr(TrainedTime, "trackables", lambda self: {})  # As written before.
    assert tiny_trainer(data_dir, output_dir, "--train_steps=3",
                        "--schedule=train").returncode == 0
  assert trained_seconds(f"{output_dir}/ckpt-3") is None
  result = tiny_trainer(data_dir, output_dir, "--train_steps=50", "--schedule=train",
                        "--train_minutes=0.05")
  assert result.returncode == 0, result.stderr[-2000:]
  assert listed_steps(output_dir) == [3, 6] and trained_seconds(f"{output_dir}/ckpt-6") == 3.0


def test_train_minutes_has_a_floor():
  with pytest.raises(UserError, match=r"--train_minutes=-1: it must be at least 0"):
    TrainConfig(output_dir="run", train_minutes=-1)
