"""Opening files to write without following a symbolic link t2t_lite did not make.

    fd = open_for_writing(path, os.O_RDWR | os.O_CREAT)   # e.g. a writer lock file
    fd = new_file(temp)                                   # a temporary file, made afresh

A link planted at such a path would make the command truncate and write the file it
points to. `open_for_writing` refuses it (O_NOFOLLOW), as it refuses a FIFO, a device
or a file with other names (hard links), in one line naming the path: nothing is
written. `new_file` is for names that are t2t_lite's own (PATH.incomplete): whatever a
killed process or anyone else left there is removed (a link itself, never what it
points to) and the file is created anew (O_EXCL).
"""

import errno
import os

from t2t_lite.errors import UserError
from t2t_lite.files.file_reading import kind_of


def open_for_writing(path, flags, mode=0o644):
  """os.open(path, flags) for writing a regular file with one name, never through a link:
  -> the descriptor (close-on-exec, blocking); UserError naming `path` otherwise."""
  try:
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                 mode)
  except OSError as error:
    if error.errno == errno.ELOOP and os.path.islink(path):
      raise linked(path) from None
    raise
  status = os.fstat(fd)
  kind = kind_of(status.st_mode)
  if kind or status.st_nlink > 1:
    os.close(fd)
    what = f"is {kind}" if kind else f"has {status.st_nlink} names (hard links)"
    raise UserError(f"{path} {what}, not a file t2t_lite made; remove it, then run the "
                    f"command again (nothing was written)")
  os.set_blocking(fd, True)
  return fd


def linked(path):
  """The UserError for a symbolic link found where a command was to write."""
  return UserError(f"{path} is a symbolic link to {os.readlink(path)}: t2t_lite writes no "
                   f"file through a link it did not make; remove the link, then run the "
                   f"command again (nothing was written)")


def new_file(path, mode=0o644):
  """A descriptor of a new, empty regular file at `path`, one of t2t_lite's own names
  (a temporary one): an entry left there that is not a directory is removed first."""
  if os.path.isdir(path) and not os.path.islink(path):
    raise UserError(f"{path} is a directory where t2t_lite writes a temporary file; move it "
                    f"away, then run the command again")
  if os.path.lexists(path):
    os.remove(path)
  return open_for_writing(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
