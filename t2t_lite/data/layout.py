"""A data directory's layout: the names t2t-datagen gives what it writes there (several
problems may share one directory).

    DATA/vocab.<problem>.model                 a shared vocabulary (or .inputs/.targets.model)
    DATA/<problem>-<split>-00000-of-00016.tfrecord    a split's shards
    DATA/<problem>-<split>.json                a split's marker, written last
    DATA/<problem>.incomplete/                 t2t-datagen's staging directory
    DATA/.t2t_writer.lock                      the lock of the one t2t-datagen writing it

(`t2t_lite.data.datagen` and `t2t_lite.data.records` make the names.)
"""

import os
import re

from t2t_lite.files.writer_lock import LOCK_NAME

SPLITS = ("train", "dev", "test")
_SPLIT = "|".join(SPLITS)
MARKER = re.compile(rf".+-({_SPLIT})\.json")
SHARD = re.compile(rf".+-({_SPLIT})-\d{{5}}-of-\d{{5}}\.tfrecord(\.incomplete)?")
_ENTRIES = ((MARKER, "split marker"), (SHARD, "TFRecord shard"),
            (re.compile(r"vocab\..+\.model"), "vocabulary"),
            (re.compile(r".+\.incomplete"), "staging directory"),
            (re.compile(re.escape(LOCK_NAME)), "writer lock"))


def data_entry(name):
  """What the file or folder `name` directly in a data directory is, in words, or None for
  a name that is not t2t-datagen's."""
  return next((words for pattern, words in _ENTRIES if pattern.fullmatch(name)), None)


def is_data_directory(path):
  """Whether `path` holds a split's marker or shards (what t2t-datagen writes)."""
  try:
    names = os.listdir(path)
  except OSError:
    return False
  return any(MARKER.fullmatch(name) or SHARD.fullmatch(name) for name in names)
