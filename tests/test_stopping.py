"""Stopping a run: every signal saves (in the loop, in an evaluation, during the final save)
and exits 128 + its number; --train_minutes ends a run as finished; a failed start leaves
its --output_dir as it was. Signals are sent by this process to itself at chosen moments."""

import functools
import json
import os
import signal

import pytest
import tensorflow as tf

from commands import error_line
from helpers import FakeTime
from tiny_runs import TINY_HPARAMS, copy_run, snapshot, tiny_run, tiny_train, tiny_trainer
from t2t_lite.errors import UserError
from t2t_lite.registry import HPARAMS
from t2t_lite.run import checkpoints
from t2t_lite.run.checkpoints import checkpoint_paths
from t2t_lite.run.run_layout import checkpoint_step
from t2t_lite.training import evaluation, optimization, stop_requests, train_step, trainer
from t2t_lite.training.config import TrainConfig
from t2t_lite.training.stop_requests import StoppedBySignal
from t2t_lite.training.trained_time import TRAINED_SECONDS, TrainedTime


def signal_at_step(monkeypatch, signum, at_step):
  """The training step sends `signum` to this process once the step reaches `at_step`."""
  original = train_step.TrainStep.__call__

  def step_then_signal(self, *args):
    stats = original(self, *args)
    if int(self.optimizer.iterations) == at_step:
      os.kill(os.getpid(), signum)
    return stats
  monkeypatch.setattr(train_step.TrainStep, "__call__", step_then_signal)


def steps(output_dir):
  return [checkpoint_step(path) for path in checkpoint_paths(output_dir)]


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_in_the_loop_saves_and_exits_128_plus_its_number(
    tmp_path_factory, tmp_path, monkeypatch, signum, status):
  data_dir, _ = tiny_run(tmp_path_factory)
  signal_at_step(monkeypatch, signum, 2)
  output_dir = str(tmp_path / "run")
  handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
  result = tiny_trainer(data_dir, output_dir, "--train_steps=50", "--schedule=train")
  assert result.returncode == status, result.stderr[-2000:]
  name = signal.Signals(signum).name
  assert error_line(result.stderr) == (
      f"t2t-trainer: {name}: saved {output_dir}/ckpt-2 at step 2; run the same command to "
      f"resume (exit status {status}: stopped, not finished)")
  assert steps(output_dir) == [2]
  # The handlers are put back.
  assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == handlers


def test_sigterm_during_the_final_save_lets_it_complete(tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  original = checkpoints.Checkpoints.save

  def signal_then_save(self, step):
    if step == 3:
      os.kill(os.getpid(), signal.SIGTERM)  # Arrives while the final checkpoint is written.
    return original(self, step)
  monkeypatch.setattr(checkpoints.Checkpoints, "save", signal_then_save)
  output_dir = str(tmp_path / "run")
  with pytest.raises(StoppedBySignal) as stopped:
    tiny_train(data_dir, output_dir, train_steps=3, save_checkpoints_steps=100)
  assert stopped.value.exit_status == 143 and "saved" in str(stopped.value)
  assert steps(output_dir) == [3]


def stopped_evaluating_every_2_steps(data_dir, output_dir):
  """-> the StoppedBySignal of a tiny run evaluating at steps 0, 2, 4, ... (50 steps)."""
  with pytest.raises(StoppedBySignal) as stopped:
    tiny_train(data_dir, output_dir, train_steps=50, schedule="train_and_evaluate",
               local_eval_frequency=2, eval_steps=1, save_checkpoints_steps=100)
  return stopped.value


def test_a_signal_cuts_an_evaluation_short_and_saves(tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  original = evaluation.Evaluator.evaluate
  calls = []

  def long_evaluation(self):
    calls.append(1)
    if len(calls) == 2:  # The evaluation at step 2 (the first is step 0's baseline).
      os.kill(os.getpid(), signal.SIGTERM)
      for _ in range(100):  # Long: only the signal ends it.
        original(self)
      raise AssertionError("the evaluation went on after SIGTERM")
    return original(self)
  monkeypatch.setattr(evaluation.Evaluator, "evaluate", long_evaluation)
  output_dir = str(tmp_path / "run")
  assert stopped_evaluating_every_2_steps(data_dir, output_dir).exit_status == 143
  assert steps(output_dir) == [2] and len(calls) == 2


def test_a_signal_once_an_evaluation_finished_keeps_its_results(
    tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  report, evaluate = trainer._Loop._report_evaluation, trainer._Loop._evaluate
  returned = []

  def report_after_a_signal(self, step, results, progress):
    if step == 2:
      os.kill(os.getpid(), signal.SIGTERM)  # Arrives as the finished evaluation is shown.
    return report(self, step, results, progress)

  def evaluate_and_keep(self, step, progress, stop, **options):
    returned.append((step, evaluate(self, step, progress, stop, **options)))
    return returned[-1][1]
  monkeypatch.setattr(trainer._Loop, "_report_evaluation", report_after_a_signal)
  monkeypatch.setattr(trainer._Loop, "_evaluate", evaluate_and_keep)
  output_dir = str(tmp_path / "run")
  assert stopped_evaluating_every_2_steps(data_dir, output_dir).exit_status == 143
  assert [(step, results is not None) for step, results in returned] == [(0, True), (2, True)]
  assert steps(output_dir) == [2]


def signal_this_process(signum):
  """Sends `signum` to this process and runs Python code until its handler has run."""
  os.kill(os.getpid(), signum)
  for _ in range(1000):  # The handler runs between two of these.
    sum(range(100))


def test_a_signal_swallowed_before_the_loop_stops_the_loop():
  with stop_requests.stopped_before_the_loop():
    try:
      signal_this_process(signal.SIGTERM)
    except StoppedBySignal:
      pass  # Swallowed, as Python does an exception raised in a garbage-collection callback.
    with stop_requests.StopRequested() as stop:
      assert stop.signal_name == "SIGTERM"


def replaced_by_runtime_error(signum):
  """Sends `signum` to this process, as TensorFlow's C++ code would see it while it runs
  Python: the handler's exception comes back out as a RuntimeError (pybind11's)."""
  try:
    signal_this_process(signum)
  except BaseException as error:
    raise RuntimeError(f"pybind11::error_already_set: MISMATCH ... REPLACED BY "
                       f"{type(error).__name__}") from None
  raise AssertionError("the handler raised nothing")


def test_a_signal_whose_exception_comes_back_as_another_still_cuts_an_evaluation_short():
  with stop_requests.StopRequested() as stop:
    with pytest.raises(stop_requests.EvaluationInterrupted):
      with stop.interrupting():
        replaced_by_runtime_error(signal.SIGINT)
    assert stop.signal_name == "SIGINT"
    with pytest.raises(ValueError):  # Without a signal, an error stays itself.
      with stop_requests.StopRequested().interrupting():
        raise ValueError("not a signal's")


def test_a_signal_before_the_loop_whose_exception_comes_back_as_another_still_stops():
  with pytest.raises(StoppedBySignal) as stopped:
    with stop_requests.stopped_before_the_loop():
      replaced_by_runtime_error(signal.SIGTERM)
  assert stopped.value.exit_status == 143
  assert str(stopped.value) == "SIGTERM before training began: nothing to save yet"
  with pytest.raises(ValueError):
    with stop_requests.stopped_before_the_loop():
      raise ValueError("not a signal's")


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
  assert "training cost:" in result.stderr and steps(output_dir) == [3]
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
  assert ends == [6, 6, 6, 6, 6] and steps(output_dir) == [6]


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
  assert steps(output_dir) == [3, 6] and trained_seconds(f"{output_dir}/ckpt-6") == 6.0
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
  assert steps(output_dir)[-1] == 9 and trained_seconds(f"{output_dir}/ckpt-9") == 9.0
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
  assert steps(output_dir) == [3, 6] and trained_seconds(f"{output_dir}/ckpt-6") == 3.0


def test_train_minutes_has_a_floor():
  with pytest.raises(UserError, match=r"--train_minutes=-1: it must be at least 0"):
    TrainConfig(output_dir="run", train_minutes=-1)


def fail_at_first_step(monkeypatch):
  def fail(self, *args):
    raise UserError("the first step failed")
  monkeypatch.setattr(train_step.TrainStep, "__call__", fail)


def test_a_failed_start_leaves_no_run_directory(tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  fail_at_first_step(monkeypatch)
  output_dir = tmp_path / "new" / "run"
  result = tiny_trainer(data_dir, output_dir, "--train_steps=5", "--schedule=train")
  assert result.returncode == 2 and error_line(result.stderr).endswith("the first step failed")
  assert not output_dir.exists()
  empty = tmp_path / "empty"
  empty.mkdir()
  assert tiny_trainer(data_dir, empty, "--train_steps=5").returncode == 2
  assert os.listdir(empty) == []


def test_a_failed_resume_leaves_the_run_as_it_was(tmp_path_factory, tmp_path, monkeypatch):
  data_dir, shared_run = tiny_run(tmp_path_factory)
  output_dir = copy_run(shared_run, tmp_path / "run")
  before = snapshot(output_dir)
  fail_at_first_step(monkeypatch)
  result = tiny_trainer(data_dir, output_dir, "--train_steps=9", "--schedule=train",
                        f"--hparams={TINY_HPARAMS},learning_rate_constant=7.0")
  assert result.returncode == 2, result.stderr[-2000:]
  assert snapshot(output_dir) == before
  with open(os.path.join(output_dir, "hparams.json"), encoding="utf-8") as f:
    assert json.load(f)["learning_rate_constant"] != 7.0


@pytest.mark.parametrize("task, chief", [({"type": "worker", "index": 0}, True),
                                         ({"type": "worker", "index": 1}, False),
                                         ({"type": "chief", "index": 0}, True)])
def test_only_the_chief_of_several_workers_holds_the_run_directory(
    tmp_path, monkeypatch, task, chief):
  """Other workers write only scratch files there: they take no lock, so none waits on the
  chief's."""
  from t2t_lite.files import writer_lock
  from t2t_lite.training.output_dir_guard import guarding
  cluster = {"worker": ["localhost:1", "localhost:2"]}
  if task["type"] == "chief":
    cluster["chief"] = ["localhost:3"]
  monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": task}))
  output_dir = str(tmp_path / "run")
  os.makedirs(output_dir)
  with guarding(output_dir):
    assert writer_lock.holds(output_dir) == chief


def test_a_signal_before_the_first_step_ends_the_start_and_undoes_it(
    tmp_path_factory, tmp_path, monkeypatch):
  data_dir, _ = tiny_run(tmp_path_factory)
  original = checkpoints.Checkpoints.restore_latest

  def signal_then_restore(self):
    os.kill(os.getpid(), signal.SIGTERM)  # While the run is being set up.
    return original(self)
  monkeypatch.setattr(checkpoints.Checkpoints, "restore_latest", signal_then_restore)
  output_dir = tmp_path / "run"
  result = tiny_trainer(data_dir, output_dir, "--train_steps=5", "--schedule=train")
  assert result.returncode == 143, result.stderr[-2000:]
  assert error_line(result.stderr) == ("t2t-trainer: SIGTERM before training began: nothing to "
                                       "save yet")
  assert not output_dir.exists()
