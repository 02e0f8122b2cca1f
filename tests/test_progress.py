"""Training's status line: the ETA counts the steps left, and stops at a time limit."""

import io
import re

from t2t_lite.training.progress import StepProgress


def eta_seconds(progress, step):
  stream = progress.line.stream
  progress.update(step, loss=1.0, tokens=100.0, learning_rate=1e-3)
  hours, minutes, seconds = map(int, re.findall(r"ETA (\d+):(\d\d):(\d\d)",
                                               stream.getvalue())[-1])
  return 3600 * hours + 60 * minutes + seconds


def progress_at(monkeypatch, elapsed, **limit):
  progress = StepProgress(1000, 0, stream=io.StringIO(), interval=0.0, **limit)
  monkeypatch.setattr(progress.line, "elapsed", lambda: elapsed)
  return progress


def test_the_eta_is_the_steps_left_at_the_pace_so_far(monkeypatch):
  # 100 of 1,000 steps in 60 seconds: 900 more take 540.
  assert eta_seconds(progress_at(monkeypatch, 60.0), 100) == 540


def test_a_time_limit_caps_the_eta(monkeypatch):
  # The same pace under --train_minutes=5: the run stops 240 seconds from now.
  assert eta_seconds(progress_at(monkeypatch, 60.0, minutes=5), 100) == 240
  # A limit later than the last step leaves the steps' ETA.
  assert eta_seconds(progress_at(monkeypatch, 60.0, minutes=60), 100) == 540


def test_a_run_stopped_early_ends_on_its_own_step():
  # A line an hour, the first an hour in: no step shows until the run ends.
  progress = StepProgress(1000, 0, stream=io.StringIO(), interval=3600.0)
  for step in (1, 2, 3):
    progress.update(step, loss=1.0, tokens=100.0, learning_rate=1e-3)
  progress.finish()
  progress.finish()  # Already shown: not again.
  shown = re.findall(r"step (\d+)/1000", progress.line.stream.getvalue())
  assert shown == ["3"]


def test_finishing_before_any_step_shows_nothing():
  progress = StepProgress(1000, 0, stream=io.StringIO(), interval=0.0)
  progress.finish()
  assert progress.line.stream.getvalue() == ""
