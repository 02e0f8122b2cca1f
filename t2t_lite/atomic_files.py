"""Files written whole or not at all: a temporary name, fsync, then a rename."""

import os

TEMP_SUFFIX = ".incomplete"


def write_bytes_atomic(path, data):
  """Writes `data` to `path`; a crash leaves the old file (or none), never half a file."""
  temp = path + TEMP_SUFFIX
  with open(temp, "wb") as f:
    f.write(data)
    f.flush()
    os.fsync(f.fileno())
  os.replace(temp, path)


def write_text_atomic(path, text):
  """Writes UTF-8 `text` to `path` like `write_bytes_atomic`."""
  write_bytes_atomic(path, text.encode("utf-8"))


def copy_file_atomic(source, path):
  """Copies `source` to `path` like `write_bytes_atomic`."""
  with open(source, "rb") as f:
    write_bytes_atomic(path, f.read())
