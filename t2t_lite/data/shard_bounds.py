"""How many record files t2t-datagen may write a split into: the bounds of --num_shards.

A split is written round-robin into all its files at once (`records.ShardWriter`), each
an open file until the split is complete, so the count is bounded twice:

- by the open files this process may have: `make_room_for` raises its soft limit up to
  the hard one where the files need it (a default soft limit is often 1,024), and refuses
  in one line past the hard one;
- by the train pairs: `check_against_pairs` refuses more files than pairs (some would
  hold no record).
"""

import os
import resource

from t2t_lite.errors import UserError

# Open files kept for everything but the record files (one each, `records.ShardWriter`)
# and the encoding processes: TensorFlow's and SentencePiece's own, the vocabulary being
# read, the text files, the progress line; multiprocessing's resource tracker's pipe; and,
# for a moment while an encoding process starts, the 6 ends of the pipes it is started
# with (the 2 it takes, and spawn's own 4).
OTHER_FILES = 64
# Kept open here for each encoding process (`encoding_workers`): the ends of its two pipes
# that stay here (batches to it, results from it), and the two of multiprocessing's spawn
# (its sentinel, and the pipe that sent it its start, closed only when it is collected).
PER_PROCESS = 4


def make_room_for(files, processes):
  """Makes sure this process may open `files` record files at once beside what it has open
  and `processes` encoding processes: raises its soft limit where needed; UserError when
  even the hard limit is too low."""
  soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
  others = _open_now() + OTHER_FILES + PER_PROCESS * processes
  needed = files + others
  if _allows(soft, needed):  # Never lowered, an unlimited one least of all.
    return
  if not _allows(hard, needed):
    raise _too_many(files, needed, hard, others, "its hard limit, ulimit -Hn")
  try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
  except (ValueError, OSError):  # Past what the system allows a process (Linux: nr_open).
    raise _too_many(files, needed, soft, others, "the system refused more") from None


def _allows(limit, needed):
  """Whether a limit that getrlimit gives (RLIM_INFINITY: none) lets `needed` files open."""
  return limit == resource.RLIM_INFINITY or needed <= limit


def _too_many(files, needed, limit, others, why):
  return UserError(f"--num_shards={files}: writing them needs {needed} open files at once, "
                   f"but this process may open at most {limit} ({why}); pass "
                   f"--num_shards={max(limit - others, 1)} or fewer, or raise the limit")


def check_against_pairs(num_shards, pairs):
  """UserError when --num_shards asks for more train files than there are train pairs."""
  if num_shards > pairs:
    raise UserError(f"--num_shards={num_shards} is more than the {pairs:,} train pairs (a "
                    f"file would hold no record); pass --num_shards={max(pairs, 1)} or fewer")


def _open_now():
  """How many files this process has open (where the system lists them; else 0)."""
  try:
    return len(os.listdir("/proc/self/fd"))
  except OSError:
    return 0
