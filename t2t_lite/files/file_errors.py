"""File-system failures as one line naming the path and the cause (and what to do).

Python's OSError and TensorFlow's file errors (tf.io.gfile, checkpoints,
summaries, SavedModels) are both recognised; other errors are left alone, so a
bug still shows its traceback.
"""

import errno
import functools
import re
import sys

from t2t_lite.errors import UserError
from t2t_lite.files.file_reading import why_unreadable

# Causes, as the operating system words them, and what the user can do about each.
CAUSES = {
    "No space left on device": "free space there (or use another directory) and run the "
                               "command again",
    "Disk quota exceeded": "free space there (or use another directory) and run the command "
                           "again",
    "Read-only file system": "use a directory you can write",
    "Permission denied": "use a directory you can write",
    "Operation not permitted": "use a directory you can write",
    "Not a directory": "check the path: a part of it is a file",
    "is not a directory": "check the path: a part of it is a file",
    "Is a directory": "check the path: it names a directory, not a file",
    "No such file or directory": "check the path",
}
HINTS_BY_ERRNO = {
    errno.ENOSPC: CAUSES["No space left on device"],
    errno.EDQUOT: CAUSES["Disk quota exceeded"],
    errno.EROFS: CAUSES["Read-only file system"],
    errno.EACCES: CAUSES["Permission denied"],
    errno.EPERM: CAUSES["Operation not permitted"],
    errno.ENOTDIR: CAUSES["Not a directory"],
    errno.EISDIR: CAUSES["Is a directory"],
    errno.ENOENT: CAUSES["No such file or directory"],
}


def file_error_message(error):
  """The one line for a file-system failure, or None when `error` is not one."""
  if isinstance(error, OSError):
    if error.errno not in HINTS_BY_ERRNO:
      return None
    cause = error.strerror or str(error)
    where = f"{error.filename}: " if error.filename else ""
    return f"{where}{cause}; {HINTS_BY_ERRNO[error.errno]}"
  if _is_tensorflow_error(error):
    text = first_line(error)
    hint = next((hint for cause, hint in CAUSES.items() if cause in text), None)
    if hint is None:
      return None
    return f"{text.replace('; ', ': ', 1)}; {hint}"
  return None


def require_file(path, what=""):
  """UserError unless `path` is a regular file (or a link to one): "PATH: is a directory,
  not a file; pass a file" for a directory, "PATH: no such file; check the path" when
  missing, and likewise for a dangling link, a FIFO or a device
  (`t2t_lite.files.file_reading.why_unreadable`). what: words before the path ("translation
  file")."""
  reason = why_unreadable(path)
  if reason:
    problem, todo = reason
    named = f"{what} {path}" if what else path
    raise UserError(f"{named}: {problem}; {todo}")


def reporting_file_errors(main):
  """`main`, with file-system failures raised as a UserError of one line."""

  @functools.wraps(main)
  def wrapped(*args, **kwargs):
    try:
      return main(*args, **kwargs)
    except Exception as error:
      message = file_error_message(error)
      if message is None:
        raise
      raise UserError(message) from None
  return wrapped


def _is_tensorflow_error(error):
  tf_errors = sys.modules.get("tensorflow.python.framework.errors_impl")
  return tf_errors is not None and isinstance(error, tf_errors.OpError)


def first_line(error):
  """The first line of an error's message, without the decorations of TensorFlow's
  op errors (theirs read "PATH; cause")."""
  text = str(getattr(error, "message", "") or error)
  text = re.sub(r"\{\{[^}]*\}\}\s*", "", text)   # {{function_node ...}}
  text = re.sub(r"\s*\[Op:[^\]]*\].*", "", text, flags=re.S)
  lines = text.strip().splitlines()
  return lines[0] if lines else type(error).__name__
