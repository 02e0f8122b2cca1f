"""File-system failures (read-only, not a directory, no space) are one line naming the path
and the cause, and leave no partial files."""

import errno
import os
import shutil
import sys

import pytest
import tensorflow as tf

from commands import TESTS, run
from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import file_error_message, reporting_file_errors


@pytest.mark.parametrize("error, message", [
    (OSError(errno.EROFS, "Read-only file system", "/data/x"),
     "/data/x: Read-only file system; use a directory you can write"),
    (OSError(errno.ENOSPC, "No space left on device", "/data/x.incomplete"),
     "/data/x.incomplete: No space left on device; free space there"),
    (NotADirectoryError(errno.ENOTDIR, "Not a directory", "/data/file/x"),
     "/data/file/x: Not a directory; check the path: a part of it is a file"),
    (tf.errors.PermissionDeniedError(
        None, None, "{{function_node __wrapped__SaveV2_device_/job:localhost}} /run/ckpt-5_temp; "
        "Read-only file system [Op:SaveV2]"),
     "/run/ckpt-5_temp: Read-only file system; use a directory you can write"),
    (tf.errors.FailedPreconditionError(None, None, "/run/hparams.json is not a directory"),
     "/run/hparams.json is not a directory; check the path"),
])
def test_file_system_errors_read_as_one_line(error, message):
  assert file_error_message(error).startswith(message)


def test_other_errors_keep_their_traceback():
  assert file_error_message(ValueError("a bug")) is None
  assert file_error_message(tf.errors.InvalidArgumentError(None, None, "shapes")) is None

  def failing(path):
    raise OSError(errno.EROFS, "Read-only file system", path)
  with pytest.raises(UserError, match="^/x: Read-only file system"):
    reporting_file_errors(failing)("/x")
  with pytest.raises(KeyError):
    reporting_file_errors({}.__getitem__)("missing")


def can_mount_tmpfs():
  return os.geteuid() == 0 and shutil.which("unshare") and shutil.which("mount")


@pytest.mark.slow
@pytest.mark.skipif(not can_mount_tmpfs(), reason="needs root and unshare to mount a private "
                                                   "tmpfs (full and read-only disks)")
def test_full_and_read_only_disks(tmp_path):
  full, read_only, work = (tmp_path / name for name in ("full", "read_only", "work"))
  for directory in (full, read_only, work):
    directory.mkdir()
  script = (f"mount -t tmpfs -o size=64k tmpfs {full} && "
            f"mount -t tmpfs -o size=16k,ro tmpfs {read_only} && "
            f"exec {sys.executable} {os.path.join(TESTS, 'full_disk_check.py')} {full} "
            f"{read_only} {work}")
  result = run(["unshare", "--mount", "sh", "-c", script], cwd=TESTS)
  assert result.returncode == 0, result.stderr[-3000:]
  lines = dict(line.split(": ", 1) for line in result.stdout.splitlines())
  assert "No space left on device" in lines["datagen full"]
  assert lines["datagen read-only"].startswith(f"{read_only}/")
  assert "Read-only file system" in lines["datagen read-only"]
  assert "No space left on device; the last checkpoint (none yet) is intact" in \
      lines["checkpoint full"]
  assert "Read-only file system" in lines["checkpoint read-only"]
  assert "left" not in lines, result.stdout  # No partial file on the full disk.
