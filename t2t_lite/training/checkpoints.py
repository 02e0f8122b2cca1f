"""Saving checkpoints during training: atomically, every N steps or seconds, K at a time.

A checkpoint is trusted only once the directory's `checkpoint` state file
names it (`t2t_lite.run.checkpoints`). A save writes the checkpoint's files,
then replaces the state file with the last `keep` checkpoints, then deletes
the files of those it dropped. So a process killed at any moment leaves at
most stray files (the next start removes those of dropped checkpoints; the
next save of the same step replaces an unlisted new one), never a listed
checkpoint that is partly written or already deleted. `restore_latest` resumes
from the newest listed checkpoint that reads.
"""

import os
import re
import time

from absl import logging
import tensorflow as tf

from t2t_lite.errors import UserError
from t2t_lite.file_errors import first_line
from t2t_lite.run.checkpoints import (checkpoint_paths, checkpoint_step, restore_newest,
                                      write_state)
from t2t_lite.strategy import is_chief

# A checkpoint's index or data file: ckpt-N.index, ckpt-N.data-00000-of-00001.
CHECKPOINT_FILE = re.compile(r"ckpt-(\d+)\.(index|data-\d+-of-\d+)")


class Checkpoints:
  """Saves and restores model, optimizer (its iteration count is the step) and data position.

  every_steps / every_seconds: save when either many steps or seconds passed
  since the last save (0 or None disables that trigger).
  """

  def __init__(self, strategy, output_dir, keep, every_steps, every_seconds, **trackables):
    self.strategy = strategy
    self.output_dir = output_dir
    self.every_steps = every_steps or 0
    self.every_seconds = every_seconds or 0
    self.keep = keep
    self.checkpoint = tf.train.Checkpoint(**trackables)
    if is_chief(strategy):
      remove_unfinished_saves(output_dir)
    listed = checkpoint_paths(output_dir)
    self.latest = listed[-1] if listed else None  # The newest listed checkpoint's path.
    self._last_step = 0
    self._last_time = time.monotonic()

  def restore_latest(self):
    """Restores the newest readable checkpoint of output_dir; returns its path or None.

    Newer listed checkpoints that do not read are dropped from the state file
    (their files stay until a save of the same step replaces them).
    """
    restored = restore_newest(self.checkpoint, self.output_dir)
    if restored is None:
      return None
    path, _ = restored
    listed = checkpoint_paths(self.output_dir)
    if listed[-1] != path and is_chief(self.strategy):
      write_state(self.output_dir, listed[:listed.index(path) + 1])
    self.latest = path
    logging.info("restored %s", path)
    self._last_step = checkpoint_step(path)
    return path

  def due(self, step):
    """Whether a save is due after `step`."""
    if self.every_steps and step - self._last_step >= self.every_steps:
      return True
    return bool(self.every_seconds) and time.monotonic() - self._last_time >= self.every_seconds

  def save(self, step):
    """Writes checkpoint ckpt-<step> (once per step) and prunes old ones; returns its path."""
    if self.latest and checkpoint_step(self.latest) == step:
      return self.latest
    if is_chief(self.strategy):
      path = self._save_as_chief(step)
    else:
      # Other workers must take part in the save's collective ops; they write to a
      # private directory and delete it.
      scratch = os.path.join(self.output_dir, f".worker_{self.strategy.cluster_resolver.task_id}")
      path = self.checkpoint.write(os.path.join(scratch, f"ckpt-{step}"))
      tf.io.gfile.rmtree(scratch)
    self._last_step, self._last_time = step, time.monotonic()
    return path

  def _save_as_chief(self, step):
    """Writes ckpt-<step>, lists it with the `keep - 1` before it, then deletes the
    files of older ones. A failed save (no space, read-only) leaves no partial files
    and is a UserError naming the directory and the cause."""
    prefix = os.path.join(self.output_dir, f"ckpt-{step}")
    try:
      self.checkpoint.save_counter.assign_add(1)  # Restoring expects it, as Checkpoint.save.
      path = self.checkpoint.write(prefix)
      older = [p for p in checkpoint_paths(self.output_dir) if checkpoint_step(p) != step]
      listed = older + [path]
      write_state(self.output_dir, listed[-self.keep:])
    except (tf.errors.OpError, OSError) as error:
      _remove_checkpoint_files(prefix)
      raise UserError(
          f"could not save checkpoint {prefix}: {first_line(error)}; the last checkpoint "
          f"{self.latest or '(none yet)'} is intact; free space or fix "
          f"{self.output_dir}, then run the same command to resume") from None
    self.latest = path
    for dropped in listed[:-self.keep]:
      _remove_checkpoint_files(dropped)
    return path


def remove_unfinished_saves(output_dir):
  """Removes what a process killed mid-save leaves behind: `ckpt-N_temp` directories,
  and files of checkpoints older than every listed one (dropped from the state
  file, not yet deleted)."""
  leftovers = tf.io.gfile.glob(os.path.join(output_dir, "ckpt-*_temp"))
  listed = checkpoint_paths(output_dir)
  if listed:
    oldest_kept = checkpoint_step(listed[0])
    for path in tf.io.gfile.glob(os.path.join(output_dir, "ckpt-*.*")):
      match = CHECKPOINT_FILE.fullmatch(os.path.basename(path))
      if match and int(match.group(1)) < oldest_kept:
        leftovers.append(path)
  for path in leftovers:
    logging.warning("removing %s, left by a save that did not finish", path)
    _remove(path)


def _remove_checkpoint_files(prefix):
  """Deletes a checkpoint's index and data files and its unfinished `_temp` directory."""
  for path in tf.io.gfile.glob(prefix + ".*") + tf.io.gfile.glob(prefix + "_temp"):
    _remove(path)


def _remove(path):
  if tf.io.gfile.isdir(path):
    tf.io.gfile.rmtree(path)
  else:
    tf.io.gfile.remove(path)
