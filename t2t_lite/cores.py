"""The CPU cores this process may run on: the default count of workers that each take one
(t2t-datagen's encoding processes, t2t-serve's batch threads)."""

import os


def usable_cores():
  """How many cores this process may run on (its affinity, where the system tells it)."""
  return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
