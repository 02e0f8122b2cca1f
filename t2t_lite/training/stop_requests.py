"""How a training run stops early: a signal (SIGTERM, Ctrl-C; a reader of its output gone
away stops it as SIGPIPE would) or --train_minutes.

Either way the loop finishes the step it is in, saves a checkpoint of it and
ends. A signal also cuts short an evaluation it arrives in (the evaluation is
abandoned, the checkpoint is not), and one that arrives during the final save
or evaluation lets the save complete. A run stopped by a signal then raises
`StoppedBySignal`, which the commands turn into the exit status a scheduler
expects of it, 128 + the signal's number (143 for SIGTERM, 130 for SIGINT),
so "stopped" reads differently from "finished" (0). --train_minutes is a
planned end: that run ends as a finished one does. It is the run's total
training time: every checkpoint keeps the seconds trained
(`t2t_lite.training.trained_time`), so a resumed run trains the minutes left.

A handler's exception raised while TensorFlow's C++ runs Python code (tracing a
function) can come back out as another: pybind11 replaces it with a RuntimeError
("MISMATCH of original and normalized active exception types"). So once a signal
has arrived, an exception from the block it arrived in is taken for the signal's own.
"""

import contextlib
import signal
import time


class StoppedBySignal(BaseException):
  """A run that a signal stopped, after its checkpoint was saved. Its text is the line
  to show; `exit_status` is 128 + the signal's number."""

  def __init__(self, signum, text):
    super().__init__(text)
    self.exit_status = 128 + signum


class EvaluationInterrupted(BaseException):
  """Raised inside `StopRequested.interrupting()` when a signal arrives there. A
  BaseException, so that no `except Exception` on the way swallows it."""


class StopRequested:
  """Turns SIGTERM/SIGINT into a flag the loop checks after each step; inside
  `interrupting()` (an evaluation) the signal also raises EvaluationInterrupted.

  interrupt_evaluations: False where every worker must run the evaluation's collective
    operations together (several workers): there the evaluation completes first.
  """

  SIGNALS = (signal.SIGTERM, signal.SIGINT)

  def __init__(self, interrupt_evaluations=True):
    self.signum = None
    self.by_another_worker = False  # Whether the signal came to another worker of the run.
    self.interrupt_evaluations = interrupt_evaluations
    self._interruptible = False

  @property
  def signal_name(self):
    """"SIGTERM" or "SIGINT" once one arrived, else None."""
    return signal.Signals(self.signum).name if self.signum else None

  def __enter__(self):
    self._previous = {sig: signal.signal(sig, self._handle) for sig in self.SIGNALS}
    # A signal `stopped_before_the_loop` took, whose exception Python swallowed (raised
    # in a garbage-collection callback, say): it stops the loop as one received here.
    self.signum = next((handler.signum for handler in self._previous.values()
                        if isinstance(handler, _StopAtOnce) and handler.signum), None)
    return self

  def _handle(self, signum, frame):
    del frame
    self.signum = self.signum or signum
    if self._interruptible:
      self._interruptible = False
      raise EvaluationInterrupted()

  def output_reader_gone(self):
    """What read the run's output went away (`ProgressLine.reader_gone`): the run stops as
    SIGPIPE would stop it, after its step and a save; 141 is the exit status `| head` gives."""
    self.signum = self.signum or signal.SIGPIPE

  def __exit__(self, *exc):
    for sig, handler in self._previous.items():
      signal.signal(sig, handler)

  @contextlib.contextmanager
  def interrupting(self):
    """A block a signal cuts short (EvaluationInterrupted), also one that came before it."""
    if self.signum and self.interrupt_evaluations:
      raise EvaluationInterrupted()
    self._interruptible = self.interrupt_evaluations
    try:
      yield
    except Exception:
      if self.signum and self.interrupt_evaluations:  # The signal's, replaced (module doc).
        raise EvaluationInterrupted() from None
      raise
    finally:
      self._interruptible = False

  def join_another_worker(self):
    """Stops as another worker of the run was stopped (the workers agree at each step): as
    by a SIGTERM of this process's own, when none came."""
    if not self.signum:
      self.signum, self.by_another_worker = signal.SIGTERM, True

  def stopped(self, path, step):
    """The StoppedBySignal to raise once `path`, the checkpoint of `step`, is saved."""
    where = " to another worker" if self.by_another_worker else ""
    return StoppedBySignal(self.signum, (
        f"{self.signal_name}{where}: saved {path} at step {step}; run the same command to resume "
        f"(exit status {128 + self.signum}: stopped, not finished)"))


@contextlib.contextmanager
def stopped_before_the_loop():
  """Inside: SIGTERM or SIGINT raises StoppedBySignal at once (there is nothing to save
  before the first step), so that a start stopped that way ends with its one line and
  128 + the signal, and is undone as any failed start is. The loop's StopRequested takes
  over while it runs. Outside the main thread (where handlers cannot be set): no change."""
  stop = _StopAtOnce()
  try:
    previous = {sig: signal.signal(sig, stop) for sig in StopRequested.SIGNALS}
  except ValueError:  # Not the main thread.
    yield
    return
  try:
    yield
  except Exception:
    if stop.signum:  # The signal's, replaced (module doc).
      raise stop.stopped() from None
    raise
  finally:
    for sig, handler in previous.items():
      signal.signal(sig, handler)


class _StopAtOnce:
  """`stopped_before_the_loop`'s handler: raises StoppedBySignal, and keeps the signal."""

  signum = None

  def __call__(self, signum, frame):
    del frame
    self.signum = self.signum or signum
    raise self.stopped()

  def stopped(self):
    return StoppedBySignal(self.signum, f"{signal.Signals(self.signum).name} before training "
                                        f"began: nothing to save yet")


class TimeLimit:
  """--train_minutes: whether the run has trained the minutes given, in all (wall clock,
  evaluations included, across restarts). 0 or None: no limit.

  trained_seconds, trained_steps: what the run had trained before this process's loop
  began (the checkpoint's `t2t_lite.training.trained_time`; 0 for a new run).
  """

  def __init__(self, minutes, trained_seconds=0.0, trained_steps=0, clock=time.monotonic):
    self.minutes = minutes or 0
    self._before = (float(trained_seconds), int(trained_steps))
    self._clock = clock
    self._start = clock()
    self._first = None  # (time, step) of the first projected_step call.

  # The pace is measured from the first step seen until `projected_step` trusts it: past
  # the first steps' tracing, and over enough steps to average out their lengths. Until
  # then a resumed run goes by its pace before (its trained steps in its trained seconds),
  # when that is as long.
  PACE_STEPS, PACE_SECONDS = 100, 60.0

  def trained_seconds(self, now=None):
    """The run's training time so far (or at clock time `now`): before this process, and
    since its loop began."""
    return self._before[0] + (self._clock() if now is None else now) - self._start

  def seconds_left(self, now=None):
    """Of the minutes given (0 without a limit, or once they are trained)."""
    return max(0.0, 60.0 * self.minutes - self.trained_seconds(now))

  def projected_step(self, step):
    """The step this run's pace (steps a second) will have reached when the minutes are
    up; None without a limit, or until the pace is measured."""
    if not self.minutes:
      return None
    now = self._clock()
    if self._first is None:
      self._first = (now, step)
    first_time, first_step = self._first
    pace = (self._pace(now - first_time, step - first_step) or
            self._pace(*self._before))
    if pace is None:
      return None
    return step + int(self.seconds_left(now) * pace)

  def _pace(self, seconds, steps):
    """steps / seconds once they are enough to trust, else None."""
    if steps < self.PACE_STEPS or seconds < self.PACE_SECONDS or seconds <= 0:
      return None
    return steps / seconds

  def reached(self):
    return bool(self.minutes) and self.trained_seconds() >= 60.0 * self.minutes

  def describe(self, path, step):
    """The line of a run that has just trained its minutes, saved as `path` at `step`."""
    return (f"--train_minutes={self.minutes:g} reached ({self.trained_seconds() / 60:.1f} "
            f"minutes trained): saved {path} at step {step}; {TO_TRAIN_LONGER}")

  def nothing_to_do(self, step, learning_rate=None, decays=False):
    """The rest of the line, after the run directory's name, of a run started again once
    it has trained its minutes, at `step`: its last step had `learning_rate` (None: not
    known); `decays`: its schedule decays to 0 at the end of the minutes (linear_decay)."""
    rate = "" if learning_rate is None else (
        f", the learning rate decayed to {learning_rate:.2g}" if decays
        else f", learning rate {learning_rate:.2g}")
    return (f"has trained its --train_minutes={self.minutes:g} "
            f"({self.trained_seconds() / 60:.1f} minutes, step {step}{rate}); nothing to do: "
            f"{TO_TRAIN_LONGER}")


# --train_minutes is the run's total: how to train a run on once it is spent.
TO_TRAIN_LONGER = "pass a larger --train_minutes (the run's total) to train on"
