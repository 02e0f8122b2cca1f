"""Checks of where a command will write, made before the work whose result goes there."""

import os

from t2t_lite.atomic_files import TEMP_SUFFIX
from t2t_lite.errors import UserError


def check_output_file(path, flag, inputs=()):
  """UserError unless a file can be written at `path` without replacing an input.

  flag: the option that named `path`, for the message. inputs: files the command
  reads. The check writes and removes `path` + TEMP_SUFFIX, so that a read-only or
  full disk shows before the work instead of after it.
  """
  if os.path.isdir(path):
    raise UserError(f"{flag}={path} is a directory; name a file")
  parent = os.path.dirname(os.path.abspath(path))
  if not os.path.isdir(parent):
    raise UserError(f"{flag}={path}: the directory {parent} does not exist; create it first")
  for source in inputs:
    if source and os.path.exists(path) and os.path.samefile(path, source):
      raise UserError(f"{flag}={path} is the input file {source}; writing would replace it, "
                      f"so name another file")
  probe = path + TEMP_SUFFIX
  try:
    with open(probe, "wb"):
      pass
    os.remove(probe)
  except OSError as error:
    raise UserError(f"{flag}={path} cannot be written: {error.strerror or error}; choose "
                    f"another place") from None


def check_output_directory(path, flag):
  """UserError when `path` exists but is not a directory."""
  if os.path.exists(path) and not os.path.isdir(path):
    raise UserError(f"{flag}={path} is a file, not a directory; pass a directory")
