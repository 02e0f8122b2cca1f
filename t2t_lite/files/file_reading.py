"""Every file a command reads: a regular file (or a link to one), checked before it is
opened, bounded in size where it cannot legitimately be large, its bytes decoded with a
one-line error.

    data = read_bytes(path, remedy=RESTORE, limit=SMALL_FILE_BYTES)   # a project's file
    text = read_text(path, what="reference file")                     # the user's file
    with open_regular(path) as f: ...

A FIFO, a device, a socket, a directory or a dangling link is refused before it is
opened (a FIFO would block the reader for ever); the file is then opened without
blocking and checked again, so one swapped in meanwhile is refused too.

Errors: a file the project wrote (a run's or a data directory's, given `remedy`) is a
`DamagedFile` "PATH: what is wrong; remedy"; a file of the user's is a UserError
"[what ]PATH: what is wrong; what to do".
"""

import hashlib
import os
import stat

from t2t_lite.errors import UserError

# The most bytes of a file that holds a few settings or names (run.json, hparams.json, a
# checkpoint state file, a marker): anything larger is not one.
SMALL_FILE_BYTES = 1 << 20


class DamagedFile(UserError):
  """A file the project wrote that no longer reads as what it should hold.

  path: the file; the message names it, what is wrong and what to do.
  """

  def __init__(self, path, problem, remedy):
    self.path = path
    super().__init__(f"{path}: {problem}; {remedy}")


KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
         (stat.S_ISSOCK, "a socket"))


def kind_of(mode):
  """What a file of `mode` is in words ("a FIFO (named pipe)"), or None for a regular file."""
  if stat.S_ISREG(mode):
    return None
  return next((words for test, words in KINDS if test(mode)), "not a regular file")


def why_unreadable(path):
  """(what is wrong, what to do) when `path` is not a regular file to read, else None."""
  try:
    status = os.stat(path)
  except (FileNotFoundError, NotADirectoryError):
    if os.path.islink(path):
      return (f"is a symbolic link to {os.readlink(path)}, which does not exist",
              "check the link")
    return "no such file", "check the path"
  except OSError as error:  # A loop of links, no permission to look, a name too long.
    return f"cannot be read ({error.strerror or error})", "check the path"
  kind = kind_of(status.st_mode)
  if kind == "a directory":
    return "is a directory, not a file", "pass a file"
  if kind:
    return f"is {kind}, not a regular file", "pass a file"
  return None


def _error(path, problem, todo, what, remedy):
  if remedy is not None:
    return DamagedFile(path, problem, remedy)
  return UserError(f"{f'{what} ' if what else ''}{path}: {problem}; {todo}")


def open_regular(path, what="", remedy=None):
  """`path` opened for binary reading once it is known to be a regular file.

  what: words naming the user's file in errors ("reference file"); remedy: what to do
  about a project's file (a `DamagedFile` then).
  """
  reason = why_unreadable(path)
  if reason:
    raise _error(path, *reason, what, remedy)
  try:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
  except OSError as error:
    raise _error(path, f"cannot be read ({error.strerror or error})", "check the file",
                 what, remedy) from None
  kind = kind_of(os.fstat(fd).st_mode)
  if kind:  # Replaced since the check.
    os.close(fd)
    raise _error(path, f"is {kind}, not a regular file", "pass a file", what, remedy)
  os.set_blocking(fd, True)
  return os.fdopen(fd, "rb")


def read_bytes(path, what="", remedy=None, limit=None):
  """The bytes of the regular file `path` (`open_regular`); at most `limit` of them,
  else an error saying how large it is."""
  with open_regular(path, what, remedy) as f:
    data = f.read() if limit is None else f.read(limit + 1)
  if limit is not None and len(data) > limit:
    size = max(os.path.getsize(path), len(data))
    raise _error(path, f"is {size:,} bytes, more than the {limit:,} such a file can hold",
                 "check the path", what, remedy)
  return data


def decode_utf8(data, path, what="", remedy=None):
  """UTF-8 bytes of `path` -> text; a one-line error naming the first bad byte."""
  try:
    return data.decode("utf-8")
  except UnicodeDecodeError as error:
    raise _error(path, f"is not UTF-8 text (byte {error.start})",
                 "convert it to UTF-8, e.g. with iconv", what, remedy) from None


def read_text(path, what="", remedy=None, limit=None):
  """The UTF-8 text of the regular file `path` (`read_bytes`, `decode_utf8`)."""
  return decode_utf8(read_bytes(path, what, remedy, limit), path, what, remedy)


def file_sha256(path, what="", remedy=None):
  """The SHA-256 hex digest of the regular file `path`'s bytes."""
  digest = hashlib.sha256()
  with open_regular(path, what, remedy) as f:
    for block in iter(lambda: f.read(1 << 20), b""):
      digest.update(block)
  return digest.hexdigest()
