"""One writer per directory: a lock the operating system lets go of when its process ends.

    with holding(directory):
      ...  # Write into directory; a second process's `holding(directory)` is a UserError.

The lock is `fcntl.flock` on LOCK_NAME inside the directory: a process killed
with -9 leaves no stale lock (the file may stay behind; a file nobody has
locked stops no one). The file records the holder's pid, host and command, and
a second writer is refused at once with one line naming them, before it
changes anything. The holder removes the file when it lets go; a process that
locked a file which was removed or replaced meanwhile (the name now stands for
another file) tries again, so taking the lock by its name is safe against both.
The lock file is opened without following links (`t2t_lite.files.no_follow`): a link, a FIFO
or a hard link planted at its name is refused in one line, never truncated or written.

`atomic_files.replacing_directory` swaps a whole directory for a new one: it
calls `carry_into(path, staging)` before the swap, so the new directory's lock
file is already held when it takes the old one's place. Readers take no lock.
"""

import contextlib
import errno
import fcntl
import json
import os
import socket

from absl import logging

from t2t_lite.errors import UserError, command_name
from t2t_lite.files.no_follow import open_for_writing

LOCK_NAME = ".t2t_writer.lock"

_held = {}  # Real path of a directory -> the `_Lock` this process holds on it.


class _Lock:
  """The lock files this process holds for one directory (two while a swap carries it)."""

  def __init__(self, directory, descriptor):
    self.directory = directory
    self.descriptors = [descriptor]
    self.depth = 1  # Nested `holding` blocks of the same directory.

  def release(self):
    """Removes the directory's lock file if it is one of ours, then lets go of all."""
    path = os.path.join(self.directory, LOCK_NAME)
    try:
      if any(os.path.samestat(os.fstat(fd), os.stat(path)) for fd in self.descriptors):
        os.remove(path)
    except OSError:
      pass  # Gone with its directory (a removed stub run), or never there: nothing to do.
    for fd in self.descriptors:
      os.close(fd)
    self.descriptors = []


def holder_record():
  """What the lock file says about its holder: pid, host and command."""
  return {"pid": os.getpid(), "host": socket.gethostname(),
          "command": command_name("python")}


def _lock_file(directory):
  """A descriptor of directory/LOCK_NAME, locked by this process and naming it; or None
  with what the file says about the process that holds it."""
  path = os.path.join(directory, LOCK_NAME)
  while True:
    fd = open_for_writing(path, os.O_RDWR | os.O_CREAT)  # Never through a planted link.
    try:
      fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
      holder = _read_holder(fd)
      os.close(fd)
      return None, holder
    except OSError:
      os.close(fd)
      raise
    try:
      current = os.stat(path)
    except FileNotFoundError:
      current = None
    if current is not None and os.path.samestat(os.fstat(fd), current):
      os.ftruncate(fd, 0)
      os.pwrite(fd, (json.dumps(holder_record()) + "\n").encode("utf-8"), 0)
      return fd, None
    os.close(fd)  # Its holder removed or replaced it meanwhile: lock the file there now.


def _read_holder(fd):
  try:
    record = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
    return (f"{record['command']} (pid {int(record['pid'])} on host {record['host']})")
  except (OSError, ValueError, KeyError, TypeError, RecursionError):  # Not our record.
    return "another process (it has not written its pid yet)"


@contextlib.contextmanager
def holding(directory):
  """Holds `directory`'s writer lock inside the block (see the module doc).

  A missing directory is created (and removed afterwards if it is still empty, so a
  refused or failed command leaves none); a path that is not a directory is left to the
  caller's own checks (no lock). Nested blocks of one process share one lock. A file
  system without flock (ENOLCK) gets a warning and no lock.
  """
  directory = os.path.abspath(directory)
  key = os.path.realpath(directory)
  if key in _held:
    _held[key].depth += 1
    try:
      yield
    finally:
      _held[key].depth -= 1
    return
  if os.path.lexists(directory) and not os.path.isdir(directory):
    yield
    return
  created = not os.path.lexists(directory)
  if created:
    os.makedirs(directory)
  try:
    fd, holder = _lock_file(directory)
  except OSError as error:
    if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
      _remove_if_empty(directory, created)
      raise
    logging.warning("%s: file locks are not supported here (%s); nothing stops a second "
                    "process from writing into it at the same time", directory, error)
    try:
      yield
    finally:
      _remove_if_empty(directory, created)
    return
  if fd is None:
    _remove_if_empty(directory, created)
    raise _held_by(directory, holder)
  _held[key] = lock = _Lock(directory, fd)
  try:
    yield
  finally:
    del _held[key]
    lock.release()
    _remove_if_empty(directory, created)


def _remove_if_empty(directory, created):
  if created:
    try:
      os.rmdir(directory)
    except OSError:
      pass  # Not empty: it holds what the command wrote.


def holds(directory):
  """Whether this process holds `directory`'s writer lock."""
  return os.path.realpath(os.path.abspath(directory)) in _held


def carry_into(directory, successor):
  """Before `successor` replaces `directory` (a rename): if this process holds
  `directory`'s lock, it also locks `successor`'s lock file, so the lock holds on
  across the swap. `successor` is this process's own new directory."""
  lock = _held.get(os.path.realpath(os.path.abspath(directory)))
  if lock is None:
    return
  fd, holder = _lock_file(successor)
  if fd is None:
    raise _held_by(successor, holder)
  lock.descriptors.append(fd)


def _held_by(directory, holder):
  return UserError(f"{directory} is being written by {holder}; wait for it to finish or stop "
                   f"it, or pass another directory")
