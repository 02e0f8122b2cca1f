"""Files numbered by training step, taken in step order as they appear.

    for step, path in as_they_appear(lambda: numbered_files("translations"),
                                     wait_minutes=10, min_steps=20000):
      ...

tensor2tensor's `stepfiles_iterator`, for checkpoints (t2t-avg-all) and
translations of them (t2t-bleu --translations_dir): `list_files()` gives the
current [(step, path)]; each step from `min_steps` on is yielded once, oldest
first, and a file older than the last one yielded is never yielded. When no
new file is there, the iterator waits up to `wait_minutes` (counted from when
the caller is done with the last file) for one, then stops; with
wait_minutes=0 it yields what is there and stops.
"""

import os
import re
import time

# `name-12000`: a file named after the step it belongs to.
_STEP_SUFFIX = re.compile(r"-(\d+)$")


def numbered_files(directory):
  """[(step, path)] of the files in `directory` whose name ends in `-STEP`."""
  found = []
  for name in os.listdir(directory):
    match = _STEP_SUFFIX.search(name)
    path = os.path.join(directory, name)
    if match and os.path.isfile(path):
      found.append((int(match.group(1)), path))
  return found


def as_they_appear(list_files, wait_minutes=0, min_steps=0, poll_seconds=10,
                   clock=time.monotonic, sleep=time.sleep):
  """Yields (step, path) of `list_files()` in step order, waiting for new ones (module doc)."""
  next_step = min_steps
  deadline = clock() + wait_minutes * 60
  while True:
    pending = sorted(item for item in list_files() if item[0] >= next_step)
    if pending:
      step, path = pending[0]
      yield step, path
      next_step = step + 1
      deadline = clock() + wait_minutes * 60
    elif clock() >= deadline:
      return
    else:
      sleep(poll_seconds)
