"""Stopping a run: every signal saves (in the loop, in an evaluation, during the final save)
and exits 128 + its number; a failed start leaves its --output_dir as it was. Signals are
sent by this process to itself at chosen moments. --train_minutes: test_train_minutes.py."""

import functools
import json
import os
import signal

import pytest

from commands import error_line
from helpers import listed_steps, signal_at_step
from tiny_runs import TINY_HPARAMS, copy_run, snapshot, tiny_run, tiny_train, tiny_trainer
from t2t_lite.errors import UserError
from t2t_lite.run import checkpoints
from t2t_lite.training import evaluation, stop_requests, train_step, trainer
from t2t_lite.training.progress import StepProgress
from t2t_lite.training.stop_requests import StoppedBySignal


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
  assert listed_steps(output_dir) == [2]
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
  assert listed_steps(output_dir) == [3]


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
  assert listed_steps(output_dir) == [2] and len(calls) == 2


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
  assert listed_steps(output_dir) == [2]


def test_a_reader_gone_away_saves_and_exits_as_sigpipe(tmp_path_factory, tmp_path, monkeypatch):
  """`t2t-trainer ... | tee log`, and tee is killed at step 2: the status line's next write
  (every step here) finds no reader; the run saves that step and exits 141, as `| head`."""
  data_dir, _ = tiny_run(tmp_path_factory)
  read_end, write_end = os.pipe()
  stream = os.fdopen(write_end, "w")
  monkeypatch.setattr(trainer, "StepProgress",
                      functools.partial(StepProgress, stream=stream, interval=0.0))
  original = train_step.TrainStep.__call__

  def step_then_close_the_reader(self, *args):
    stats = original(self, *args)
    if int(self.optimizer.iterations) == 2:
      os.close(read_end)
    return stats
  monkeypatch.setattr(train_step.TrainStep, "__call__", step_then_close_the_reader)
  output_dir = str(tmp_path / "run")
  try:
    result = tiny_trainer(data_dir, output_dir, "--train_steps=50", "--schedule=train")
  finally:
    stream.close()
  assert result.returncode == 141, result.stderr[-2000:]
  assert listed_steps(output_dir) == [2]


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
  from t2t_lite.run.run_directory import owning
  cluster = {"worker": ["localhost:1", "localhost:2"]}
  if task["type"] == "chief":
    cluster["chief"] = ["localhost:3"]
  monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": task}))
  output_dir = str(tmp_path / "run")
  os.makedirs(output_dir)
  with owning(output_dir):
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
