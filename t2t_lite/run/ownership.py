"""A training run's hold on its directory: one writer at a time, and no stub left by a
start that failed. `Run.training` takes it; nothing else needs to.

    with owning(output_dir):
      ...  # create or resume the run, train

The chief holds the directory's writer lock (`t2t_lite.files.writer_lock`) throughout;
other workers of a multi-worker run write only their scratch files there and take
no lock. When the block fails (any exception, Ctrl-C included) before it saved a
checkpoint, what it wrote is undone: a directory it created is removed, and in a
directory that was there before, the files and directories it added (summaries
included) are removed and the run
description files it rewrote (hparams.json, run.json, the hparams history) get
their earlier content back. A block that saved a checkpoint keeps everything: the
run has something of value, and resuming it needs its files.
"""

import contextlib
import os
import shutil

from absl import logging

from t2t_lite.distribute.cluster import find_cluster
from t2t_lite.files import writer_lock
from t2t_lite.files.atomic_files import write_bytes_atomic
from t2t_lite.run import run_layout
from t2t_lite.run.checkpoints import checkpoint_paths

# The run description files a start rewrites (and a failed start puts back).
RESTORED_FILES = (run_layout.HPARAMS_FILE, run_layout.RUN_FILE, run_layout.HISTORY_FILE)


@contextlib.contextmanager
def owning(output_dir):
  """The module doc's hold on `output_dir` inside the block."""
  if not is_chief_process():
    yield
    return
  output_dir = os.path.abspath(output_dir)
  existed = os.path.isdir(output_dir)
  entries = _entries(output_dir) if existed else set()
  saved = {name: _read(os.path.join(output_dir, name)) for name in RESTORED_FILES}
  with writer_lock.holding(output_dir):
    checkpoints = checkpoint_paths(output_dir) if existed else []
    try:
      yield
    except BaseException:
      if checkpoint_paths(output_dir) == checkpoints:
        _undo_start(output_dir, existed, entries, saved)
      raise


def _undo_start(output_dir, existed, entries, saved):
  """Removes what a failed start wrote: the module doc."""
  if not existed:
    shutil.rmtree(output_dir, ignore_errors=True)
    logging.info("removed %s: the run that was to start there failed before its first "
                 "checkpoint", output_dir)
    return
  for name in sorted(_entries(output_dir) - entries - {writer_lock.LOCK_NAME}):
    path = os.path.join(output_dir, name)
    if os.path.isdir(path) and not os.path.islink(path):
      shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):  # Not inside a directory removed before it.
      os.remove(path)
  for name, content in saved.items():
    if content is not None and _read(os.path.join(output_dir, name)) != content:
      write_bytes_atomic(os.path.join(output_dir, name), content)


def _entries(directory):
  """The relative paths of every file and directory under `directory`."""
  entries = set()
  for root, directories, files in os.walk(directory):
    entries.update(os.path.relpath(os.path.join(root, name), directory)
                   for name in directories + files)
  return entries


def _read(path):
  try:
    with open(path, "rb") as f:
      return f.read()
  except OSError:
    return None


def is_chief_process():
  """Whether this process writes the run directory: its cluster's chief
  (`t2t_lite.distribute.cluster`; `t2t_lite.distribute.strategy.is_chief` once the strategy
  exists), or the only process."""
  cluster = find_cluster()
  return cluster is None or cluster.is_chief
