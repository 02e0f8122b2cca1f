"""Files and directories written whole or not at all: a temporary name, then a rename."""

import contextlib
import os
import shutil

from t2t_lite.errors import UserError

TEMP_SUFFIX = ".incomplete"


@contextlib.contextmanager
def atomic_write_path(path):
  """Yields a temporary path to write `path`'s content to; when the block succeeds it
  replaces `path`, when it fails it is removed: never half a file at `path`."""
  temp = path + TEMP_SUFFIX
  try:
    yield temp
    with open(temp, "rb+") as f:
      os.fsync(f.fileno())
    os.replace(temp, path)
  except BaseException:
    if os.path.exists(temp):
      os.remove(temp)
    raise


def write_bytes_atomic(path, data):
  """Writes `data` to `path`; a crash leaves the old file (or none), never half a file."""
  with atomic_write_path(path) as temp, open(temp, "wb") as f:
    f.write(data)


def write_text_atomic(path, text):
  """Writes UTF-8 `text` to `path` like `write_bytes_atomic`."""
  write_bytes_atomic(path, text.encode("utf-8"))


def copy_file_atomic(source, path):
  """Copies `source` to `path` like `write_bytes_atomic`."""
  with open(source, "rb") as f:
    write_bytes_atomic(path, f.read())


@contextlib.contextmanager
def replacing_directory(path, marker, marker_text, what):
  """Builds a directory beside `path` and swaps it in only when the block succeeds.

  Yields the staging directory (`path` + TEMP_SUFFIX, holding the file `marker`
  with `marker_text`). `path` may be missing, an empty directory, or an earlier
  result holding `marker`; anything else (the user's files, another run) is a
  UserError naming it, before any work is done. A failed block removes the
  staging directory; a successful one replaces `path` with it.
  what: how the error names `path`, e.g. "--export_dir=DIR".
  """
  path = os.path.abspath(path.rstrip(os.sep) or os.sep)
  _check_replaceable(path, marker, what)
  staging, old = path + TEMP_SUFFIX, path + ".old"
  for leftover in (staging, old):  # Of an interrupted earlier run.
    if os.path.lexists(leftover):
      _check_replaceable(leftover, marker, f"{what} (beside it, {leftover})")
      shutil.rmtree(leftover)
  os.makedirs(staging)
  try:
    write_text_atomic(os.path.join(staging, marker), marker_text)
    yield staging
  except BaseException:
    shutil.rmtree(staging, ignore_errors=True)
    raise
  if os.path.isdir(path) and not os.listdir(path):
    os.rmdir(path)
  elif os.path.isdir(path):
    os.replace(path, old)
  os.replace(staging, path)
  shutil.rmtree(old, ignore_errors=True)


def _check_replaceable(path, marker, what):
  """UserError unless `path` is missing, an empty directory or holds `marker`."""
  if not os.path.lexists(path):
    return
  if not os.path.isdir(path) or os.path.islink(path):
    raise UserError(f"{what}: {path} exists and is not a directory; pass a new directory")
  if os.listdir(path) and not os.path.isfile(os.path.join(path, marker)):
    raise UserError(f"{what}: {path} already holds files this command did not write (no "
                    f"{marker}); pass a new or empty directory")
