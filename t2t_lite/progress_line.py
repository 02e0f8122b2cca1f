"""One status line on stderr, the progress display every command shares.

On a terminal the line is redrawn in place, at most 5 times a second; elsewhere
(a log file, CI) a new line is written at most every `interval` seconds, so logs
stay short. Callers format the text; this class decides when and how it shows.

When what reads the line goes away (`| tee log`, and tee is killed), the line says so in
`reader_gone` and its stream's descriptor is pointed at /dev/null, so that no later write
of the process fails: t2t-trainer then stops as a signal stops it, saving first.
"""

import os
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
    self.reader_gone = False

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
      self._write("\r" + text + "\x1b[K")
      self._showing = True
    else:
      self._write(text + "\n")

  def message(self, text):
    """`text` on a line of its own (a result, a checkpoint), below the status line."""
    if self._showing:
      self._showing = False
      text = "\n" + text
    self._write(text + "\n")

  def close(self):
    """Ends the status line on a terminal; the next output starts on a fresh line."""
    if self._showing:
      self._write("\n")
      self._showing = False

  def _write(self, text):
    try:
      self.stream.write(text)
      self.stream.flush()
    except BrokenPipeError:
      self.reader_gone = True
      os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())
