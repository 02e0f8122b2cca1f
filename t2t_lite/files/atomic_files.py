"""Files and directories written whole or not at all: a temporary name, then a rename."""

import contextlib
import os
import shutil

from absl import logging

from t2t_lite.errors import UserError
from t2t_lite.files import writer_lock
from t2t_lite.files.file_reading import read_bytes
from t2t_lite.files.no_follow import new_file

TEMP_SUFFIX = ".incomplete"


@contextlib.contextmanager
def atomic_write_path(path):
  """Yields a temporary path to write `path`'s content to; when the block succeeds it
  replaces `path`, when it fails it is removed: never half a file at `path`.

  The temporary file is made afresh, empty (`no_follow.new_file`): a link left at its
  name is removed, never written through; and the rename replaces whatever is at `path`
  (a link too) rather than writing through it.
  """
  temp = path + TEMP_SUFFIX
  try:
    os.close(new_file(temp))
    yield temp
    with open(temp, "rb+") as f:
      os.fsync(f.fileno())
    os.replace(temp, path)
  except BaseException:
    if os.path.lexists(temp) and not os.path.isdir(temp):
      os.remove(temp)
    raise


def write_bytes_atomic(path, data):
  """Writes `data` to `path`; a crash leaves the old file (or none), never half a file."""
  with atomic_write_path(path) as temp, open(temp, "wb") as f:
    f.write(data)  # The file atomic_write_path just made (not a link).


def write_text_atomic(path, text):
  """Writes UTF-8 `text` to `path` like `write_bytes_atomic`."""
  write_bytes_atomic(path, text.encode("utf-8"))


def copy_file_atomic(source, path):
  """Copies `source` to `path` like `write_bytes_atomic`."""
  write_bytes_atomic(path, read_bytes(source))


@contextlib.contextmanager
def replacing_directory(path, marker, marker_text, what):
  """Builds a directory beside `path` and swaps it in only when the block succeeds.

  Yields the staging directory (`path` + TEMP_SUFFIX, holding the file `marker`
  with `marker_text`). `path` may be missing, an empty directory, or an earlier
  result holding `marker`; anything else (the user's files, another run) is a
  UserError naming it, before any work is done. A failed block removes the
  staging directory; a successful one replaces `path` with it: `path` goes to
  `path` + OLD_SUFFIX, the staging directory takes its name, the old one is deleted.
  A process killed between those two renames leaves no `path`, and the next call
  first completes that swap (`_finish_interrupted_swap`), so a result is never lost.
  The writer lock on `path` (`t2t_lite.files.writer_lock`) is held throughout and carried
  across the swap: a second process writing `path` is refused in one line.
  what: how the error names `path`, e.g. "--export_dir=DIR".
  """
  path = os.path.abspath(path.rstrip(os.sep) or os.sep)
  staging, old = path + TEMP_SUFFIX, path + OLD_SUFFIX
  _check_replaceable(path, marker, what)
  with writer_lock.holding(path):
    _finish_interrupted_swap(path, staging, old, marker, what)
    _check_replaceable(path, marker, what)
    for leftover in (staging, old):  # Of an earlier run that failed or was killed.
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
    writer_lock.carry_into(path, staging)
    if os.path.isdir(path):
      os.replace(path, old)
    os.replace(staging, path)
    shutil.rmtree(old, ignore_errors=True)


OLD_SUFFIX = ".old"


def _finish_interrupted_swap(path, staging, old, marker, what):
  """Completes the swap of a process killed between `replacing_directory`'s two renames.

  That state is the only one with `old` there and `path` missing (or vacant: empty but
  for a lock file); the staging directory is then complete, since the renames start only
  once its block succeeded. It becomes `path` (the old result when there is none), and
  the normal leftover cleanup removes `old` afterwards. A live process in the middle of
  its swap still holds the staging directory's lock: it is refused, not disturbed.
  The caller holds `path`'s writer lock, which the survivor carries on.
  """
  if not os.path.isdir(old) or os.path.islink(old) or not _vacant(path):
    return
  survivor = staging if os.path.isdir(staging) and not os.path.islink(staging) else old
  _check_replaceable(survivor, marker, f"{what} (beside it, {survivor})")
  writer_lock.carry_into(path, survivor)
  if os.path.isdir(path):
    shutil.rmtree(path)  # Vacant: nothing but a lock file.
  os.replace(survivor, path)
  logging.warning("%s: completed the replacement a killed process left half done (%s)",
                  what, "the new result" if survivor == staging else "the previous result kept")


def _vacant(path):
  """Whether `path` is missing, or a directory holding nothing but a writer lock file."""
  if not os.path.lexists(path):
    return True
  return (os.path.isdir(path) and not os.path.islink(path)
          and not _contents(path))


def _contents(path):
  """The names in directory `path` but its writer lock file."""
  return [name for name in os.listdir(path) if name != writer_lock.LOCK_NAME]


def _check_replaceable(path, marker, what):
  """UserError unless `path` is missing, an empty directory or holds `marker`."""
  if not os.path.lexists(path):
    return
  if not os.path.isdir(path) or os.path.islink(path):
    raise UserError(f"{what}: {path} exists and is not a directory; pass a new directory")
  if _contents(path) and not os.path.isfile(os.path.join(path, marker)):
    raise UserError(f"{what}: {path} already holds files this command did not write (no "
                    f"{marker}); pass a new or empty directory")
