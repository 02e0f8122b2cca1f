"""Errors a user can cause: each one prints as a single line, never a traceback."""


class UserError(Exception):
  """A mistake in the user's input; the message says what was wrong and what to do.

  Command-line entry points catch it and print `<program>: error: <message>`.
  """

  def __init__(self, message):
    one_line = " ".join(str(message).split())
    super().__init__(one_line)


class MissingFlag(UserError):
  """A required flag left empty: "--NAME is required: REASON" (`command_line.require`)."""

  def __init__(self, name, reason):
    super().__init__(f"--{name} is required: {reason}")
