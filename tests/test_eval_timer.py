"""When the training loop evaluates: every --local_eval_frequency steps and every
--eval_every_minutes (by default a tenth of --train_minutes), never twice at one step; and
through t2t-trainer, evaluations by time in a run whose step count never reaches one. And
how often a timed run saves by default."""

import re

import pytest

from commands import one_line_error
from helpers import FakeTime
from tiny_runs import tiny_run, tiny_trainer
from t2t_lite.errors import UserError
from t2t_lite.training.config import TrainConfig
from t2t_lite.training.eval_timer import EvalTimer


# Each row: every_steps, every_minutes, then (seconds the step took, the step, whether an
# evaluation is due after it) in order; an evaluation that is due is run, taking 30 s.
@pytest.mark.parametrize("every_steps, every_minutes, steps", [
    # By steps alone (minutes 0: off).
    (3, 0, [(100, 1, False), (100, 2, False), (100, 3, True), (1, 4, False), (1, 6, True)]),
    # By time: 1 minute after the timer began, then after the last evaluation ended.
    (1000, 1, [(30, 1, False), (30, 2, True), (45, 3, False), (15, 4, True), (59, 5, False)]),
    # Whichever comes first, a multiple of the steps once half the minutes have passed since
    # the last; never twice at one step (a step skipped by float16's loss scaling stays).
    (4, 1, [(70, 1, True), (1, 2, False), (1, 4, False), (30, 8, True), (70, 8, False),
            (1, 9, True)]),
])
def test_an_evaluation_is_due_by_steps_or_by_time(every_steps, every_minutes, steps):
  time = FakeTime()
  timer = EvalTimer(every_steps, every_minutes, clock=time.clock)
  for seconds, step, due in steps:
    time.sleep(seconds)
    assert timer.due(step) == due, (time.now, step)
    if due:
      time.sleep(30)
      timer.evaluated(step)
      assert timer.last_step == step


@pytest.mark.parametrize("flags, multi_worker, minutes", [
    ({}, False, 0),                                             # Off without a time limit.
    ({"train_minutes": 20}, False, 2),                          # A tenth of the limit.
    ({"train_minutes": 20, "eval_every_minutes": 0}, False, 0),  # Off, explicitly.
    ({"train_minutes": 20, "eval_every_minutes": 0.5}, False, 0.5),
    ({"eval_every_minutes": 3}, False, 3),
    ({"eval_every_minutes": 0}, True, 0),
    ({}, True, 0),                                              # Off across workers.
])
def test_the_minutes_between_evaluations_default_to_a_tenth_of_the_limit(
    flags, multi_worker, minutes):
  config = TrainConfig(output_dir="run", local_eval_frequency=7, **flags)
  timer = EvalTimer.for_config(config, multi_worker)
  assert (timer.every_steps, timer.every_minutes) == (7, minutes)


def test_several_workers_refuse_evaluations_by_time():
  config = TrainConfig(output_dir="run", eval_every_minutes=2)
  assert one_line_error(lambda: EvalTimer.for_config(config, multi_worker=True)) == (
      "--eval_every_minutes=2 is not supported across several workers (each worker's clock "
      "would decide alone); evaluate every --local_eval_frequency steps")


def test_eval_every_minutes_has_a_floor():
  with pytest.raises(UserError, match=r"--eval_every_minutes=-1: it must be at least 0"):
    TrainConfig(output_dir="run", eval_every_minutes=-1)


# Trains for a minute: a machine loaded 2.5x over its cores spent 30 s on the baseline
# evaluation and the first step's trace, which count in the minutes.
@pytest.mark.slow
def test_a_timed_run_evaluates_by_time(tmp_path_factory, tmp_path):
  data_dir, _ = tiny_run(tmp_path_factory)
  result = tiny_trainer(data_dir, tmp_path / "run", "--train_steps=100000",
                        "--train_minutes=1", "--eval_every_minutes=0.05",
                        "--local_eval_frequency=100000", "--eval_steps=1")
  assert result.returncode == 0, result.stderr[-2000:]
  evaluated = [int(step) for step in re.findall(r"eval at step (\d+):", result.stderr)]
  last = int(re.search(r"reached .* at step (\d+);", result.stderr).group(1))
  # The baseline, evaluations by time (every 3 s of the 60 s), the last step's: each once.
  assert evaluated[0] == 0 and evaluated[-1] == last, evaluated
  assert len(evaluated) >= 3 and evaluated == sorted(set(evaluated)), evaluated


@pytest.mark.parametrize("flags,seconds", [
    ({}, 600),                                                   # The paper's 10 minutes.
    ({"train_minutes": 60}, 180),                                # 20 saves in the hour.
    ({"train_minutes": 20}, 60),
    ({"train_minutes": 0.5}, 60),                                # Never more than a minute.
    ({"train_minutes": 600}, 600),
    ({"train_minutes": 60, "save_checkpoints_secs": 0}, 0),      # Given: as given.
    ({"save_checkpoints_secs": 30}, 30),
])
def test_a_timed_run_saves_often_enough_to_average_its_end(flags, seconds):
  assert TrainConfig(output_dir="run", **flags).seconds_between_saves() == seconds
