"""Training's progress display: step, loss, tokens/s, learning rate, ETA."""

from t2t_lite.progress_line import ProgressLine


def format_duration(seconds):
  seconds = int(max(seconds, 0))
  hours, rest = divmod(seconds, 3600)
  minutes, seconds = divmod(rest, 60)
  return f"{hours}:{minutes:02d}:{seconds:02d}"


class StepProgress:
  """Training's status line: step, loss, tokens/s, learning rate, ETA (see ProgressLine)."""

  def __init__(self, total_steps, first_step, stream=None, interval=30.0, minutes=0):
    """`minutes`: the run's time limit (--train_minutes), which caps the ETA; 0 = none."""
    self.total_steps = total_steps
    self.seconds = 60.0 * minutes
    self.line = ProgressLine(stream, interval=interval)
    self._start_step = first_step
    self._tokens = 0.0
    self._latest = self._shown = None  # (step, loss, learning rate)

  def update(self, step, loss, tokens, learning_rate):
    """After `step`: loss per token, the step's tokens, the learning rate it used."""
    self._tokens += tokens
    self._latest = (step, loss, learning_rate)
    last = step >= self.total_steps
    if last or self.line.due():
      self._show(force=last)

  def finish(self):
    """Shows the latest step's line if it has not shown: a run stopped by --train_minutes or
    a signal ends on its own step, not on the one of up to `interval` seconds before."""
    if self._latest is not None and self._latest != self._shown:
      self._show(force=True)

  def _show(self, force):
    step, loss, learning_rate = self._latest
    elapsed = self.line.elapsed()
    eta = (self.total_steps - step) * elapsed / max(step - self._start_step, 1)
    if self.seconds:
      eta = min(eta, self.seconds - elapsed)
    self.line.show(f"step {step}/{self.total_steps} | loss {loss:.4f} | "
                   f"{self._tokens / elapsed:,.0f} tok/s | lr {learning_rate:.3g} | "
                   f"ETA {format_duration(eta)}", force=force)
    self._shown = self._latest

  def tokens_per_second(self):
    return self._tokens / self.line.elapsed()

  def message(self, text):
    """A line of its own (eval results, checkpoints), not overwritten by the status line."""
    self.line.message(text)
