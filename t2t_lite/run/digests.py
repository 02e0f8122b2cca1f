"""What a run depends on, by SHA-256: its vocabulary copies and its data directory's marker.

    run.json  "vocab_sha256": {"vocab.translate_ende_multi30k.model": "9f2c..."}
              "data_sha256":  {"translate_ende_multi30k-train.json": "51ab..."}

t2t-trainer records them when it describes the run. Every command that reads the run
checks the vocabulary copies against them (`check_vocabulary`): a copy swapped for
another model of the same size would otherwise decode, and export, silently wrong. A
resumed run also compares the data directory's train marker (`data_difference`): the data
it trained on, not data generated anew since. A run written before digests were recorded
has none, and nothing is checked.
"""

import os
import re

from t2t_lite.data.records import marker_path
from t2t_lite.errors import UserError
from t2t_lite.files.file_reading import DamagedFile, file_sha256

FIELDS = ("vocab_sha256", "data_sha256")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def vocab_digests(vocab_paths):
  """{file name: SHA-256} of the vocabulary files at `vocab_paths`."""
  return {os.path.basename(path): file_sha256(path) for path in dict.fromkeys(vocab_paths)}


def data_digests(data_dir, problem_name, split="train"):
  """{marker name: SHA-256} of a split's marker in data_dir (none when absent)."""
  path = marker_path(data_dir, problem_name, split)
  return {os.path.basename(path): file_sha256(path)} if os.path.isfile(path) else {}


def check_field(values, name, path, remedy):
  """DamagedFile unless run.json's field `name` (when there) maps file names to digests."""
  digests = values.get(name, {})
  if not isinstance(digests, dict) or not all(
      isinstance(file, str) and file and os.path.basename(file) == file
      and file not in (".", "..") and isinstance(digest, str) and _SHA256.fullmatch(digest)
      for file, digest in digests.items()):
    raise DamagedFile(path, f"field '{name}' is not an object of file names and SHA-256 "
                      f"digests (64 hex digits)", remedy)


def check_vocabulary(copies, description):
  """UserError when a vocabulary copy is not the file run.json's digest names: what differs
  and what to do. copies: {file name: the path of the run's copy}."""
  for name, recorded in description.vocab_sha256.items():
    path = copies[name]
    found = file_sha256(path, remedy="restore it from a copy of the run")
    if found != recorded:
      raise UserError(
          f"{path} is not the vocabulary its run was trained with (SHA-256 {found[:12]}..., "
          f"run.json records {recorded[:12]}...): its model knows only that vocabulary's "
          f"ids; put the run's own file back (the --data_dir it was trained on holds it) or "
          f"restore the run from a copy")


def data_difference(previous, current):
  """(marker name, how it differs) for the first data marker the run recorded (`previous`,
  its RunDescription) that `current`'s data directory does not match, or None."""
  for name, recorded in previous.data_sha256.items():
    found = current.data_sha256.get(name)
    if found != recorded:
      return name, ("it is missing" if found is None else
                    "its SHA-256 differs from the one run.json records")
  return None
