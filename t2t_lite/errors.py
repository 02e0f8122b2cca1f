"""Errors a user can cause: each one prints as a single line, never a traceback."""

import os
import sys


class UserError(Exception):
  """A mistake in the user's input; the message says what was wrong and what to do.

  Command-line entry points catch it and print `<program>: error: <message>`.
  """

  def __init__(self, message):
    one_line = " ".join(str(message).split())
    super().__init__(one_line)


def command_name(default):
  """The running command's name as its lines say it ("t2t-trainer"), or `default` when
  Python was started without one."""
  return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else default


class MissingFlag(UserError):
  """A required flag left empty: "--NAME is required: REASON" (`command_line.require`)."""

  def __init__(self, name, reason):
    super().__init__(f"--{name} is required: {reason}")
