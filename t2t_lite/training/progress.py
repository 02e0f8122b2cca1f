"""A one-line progress display: step, loss, tokens/s, learning rate, ETA."""

import sys
import time


def format_duration(seconds):
  seconds = int(max(seconds, 0))
  hours, rest = divmod(seconds, 3600)
  minutes, seconds = divmod(rest, 60)
  return f"{hours}:{minutes:02d}:{seconds:02d}"


class Progress:
  """Rewrites one line on a terminal; elsewhere (logs, CI) prints a line every `interval` s."""

  def __init__(self, total_steps, first_step, stream=None, interval=30.0):
    self.total_steps = total_steps
    self.stream = stream or sys.stderr
    self.interactive = self.stream.isatty()
    self.interval = interval
    self._start_step = first_step
    self._start = time.monotonic()
    self._last_print = 0.0
    self._tokens = 0.0

  def update(self, step, loss, tokens, learning_rate):
    """After `step`: loss per token, the step's tokens, the learning rate it used."""
    self._tokens += tokens
    now = time.monotonic()
    if not self.interactive and now - self._last_print < self.interval and \
        step < self.total_steps:
      return
    self._last_print = now
    elapsed = max(now - self._start, 1e-9)
    done = step - self._start_step
    eta = (self.total_steps - step) * elapsed / max(done, 1)
    line = (f"step {step}/{self.total_steps} | loss {loss:.4f} | "
            f"{self._tokens / elapsed:,.0f} tok/s | lr {learning_rate:.3g} | "
            f"ETA {format_duration(eta)}")
    if self.interactive:
      self.stream.write("\r" + line.ljust(100))
    else:
      self.stream.write(line + "\n")
    self.stream.flush()

  def tokens_per_second(self):
    return self._tokens / max(time.monotonic() - self._start, 1e-9)

  def message(self, text):
    """A line of its own (eval results, checkpoints), not overwritten by the bar."""
    self.stream.write(("\n" if self.interactive else "") + text + "\n")
    self.stream.flush()
