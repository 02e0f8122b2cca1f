"""One status line on stderr, the progress display every command shares.

On a terminal the line is redrawn in place, at most 5 times a second; elsewhere
(a log file, CI) a new line is written at most every `interval` seconds, so logs
stay short. Callers format the text; this class decides when and how it shows.
"""

import sys
import time

TERMINAL_REDRAW_S = 0.2


class ProgressLine:

  def __init__(self, stream=None, enabled=True, interval=30.0):
    self.stream = stream or sys.stderr
    self.enabled = enabled
    self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
    self.interval = TERMINAL_REDRAW_S if self.tty else interval
    self.start = time.monotonic()
    self._last_shown = self.start  # The first line after one interval: none for quick work.
    self._showing = False

  def elapsed(self):
    """Seconds since the line was made (never 0, to divide by)."""
    return max(time.monotonic() - self.start, 1e-9)

  def due(self):
    """Whether `show` would draw now (to skip formatting text that would not show)."""
    return self.enabled and time.monotonic() - self._last_shown >= self.interval

  def show(self, text, force=False):
    """Draws `text` as the status line if it is due (or `force`: e.g. the last step)."""
    if not (force and self.enabled) and not self.due():
      return
    self._last_shown = time.monotonic()
    if self.tty:
      self.stream.write("\r" + text + "\x1b[K")
      self._showing = True
    else:
      self.stream.write(text + "\n")
    self.stream.flush()

  def message(self, text):
    """`text` on a line of its own (a result, a checkpoint), below the status line."""
    if self._showing:
      self.stream.write("\n")
      self._showing = False
    self.stream.write(text + "\n")
    self.stream.flush()

  def close(self):
    """Ends the status line on a terminal; the next output starts on a fresh line."""
    if self._showing:
      self.stream.write("\n")
      self._showing = False
      self.stream.flush()
