"""A dataset's published files, checked by SHA-256: a file known by its name is checked by
its content, not by its line count alone (the published files never change, so another
file of the same length, another language's or a cut one, is refused). Each problem keeps
the digests of the files it reads ({name: SHA-256}) in its own module.

    check_published(path, PUBLISHED_SHA256, "Multi30k")   # UserError naming the file
"""

import os

from t2t_lite.errors import UserError
from t2t_lite.files.file_reading import file_sha256


def check_published(path, digests, dataset, todo="replace it with the published file"):
  """UserError when the file at `path`, named as a published file of `digests` ({name:
  SHA-256}, of `dataset`), holds other bytes: "PATH is not DATASET's published NAME (...);
  TODO". Nothing for a name not among them."""
  name = os.path.basename(path)
  expected = digests.get(name)
  if expected is None:
    return
  found = file_sha256(path)
  if found != expected:
    raise UserError(f"{path} is not {dataset}'s published {name} (its SHA-256 "
                    f"{found[:12]}... differs from the published {expected[:12]}...: another "
                    f"language's, split's or version's file?); {todo}")
