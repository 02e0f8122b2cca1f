"""Results built once per test run and shared by its pytest-xdist workers."""

import fcntl
import json
import os
import shutil


def built_once(tmp_path_factory, name, build):
  """`build(directory)`'s JSON-able result, built by the first pytest-xdist worker (or
  the only process) that asks and read back by the others: session fixtures that train
  or generate data cost their time once per test run, not once per worker."""
  root = tmp_path_factory.getbasetemp()
  if os.environ.get("PYTEST_XDIST_WORKER"):
    root = root.parent  # Shared by the workers of one run.
  directory, result = root / name, root / f"{name}.json"
  with open(root / f"{name}.lock", "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    if not result.exists():
      shutil.rmtree(directory, ignore_errors=True)  # Of a build that failed.
      directory.mkdir()
      result.write_text(json.dumps(build(directory)), encoding="utf-8")
    return json.loads(result.read_text(encoding="utf-8"))
