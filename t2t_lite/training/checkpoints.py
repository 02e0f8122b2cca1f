"""Saving checkpoints during training: atomically, every N steps or seconds, K at a time.

A checkpoint is trusted only once the directory's `checkpoint` state file
names it (`t2t_lite.run.checkpoints`), so a process killed mid-write leaves at
most stray temporary files (removed at the next start), never a checkpoint
that looks valid but is not. `restore_latest` resumes from the newest listed
checkpoint that reads. `CheckpointManager` deletes all but the last `keep`.
"""

import os
import time

from absl import logging
import tensorflow as tf

from t2t_lite.errors import UserError
from t2t_lite.file_errors import first_line
from t2t_lite.run.checkpoints import (checkpoint_paths, checkpoint_step, restore_newest,
                                      write_state)
from t2t_lite.strategy import is_chief


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
    self.manager = self._manager()
    self._last_step = 0
    self._last_time = time.monotonic()

  def _manager(self):
    return tf.train.CheckpointManager(self.checkpoint, self.output_dir, self.keep,
                                      checkpoint_name="ckpt")

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
      self.manager = self._manager()
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
    if self.manager.latest_checkpoint and self.manager.latest_checkpoint.endswith(f"-{step}"):
      return self.manager.latest_checkpoint
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
    """manager.save; a failed save (no space, read-only) leaves no partial files and
    is a UserError naming the directory and the cause."""
    try:
      return self.manager.save(checkpoint_number=step)
    except tf.errors.OpError as error:
      prefix = os.path.join(self.output_dir, f"ckpt-{step}")
      for path in tf.io.gfile.glob(prefix + ".*") + tf.io.gfile.glob(prefix + "_temp"):
        _remove(path)
      raise UserError(
          f"could not save checkpoint {prefix}: {first_line(error)}; the last checkpoint "
          f"{self.manager.latest_checkpoint or '(none yet)'} is intact; free space or fix "
          f"{self.output_dir}, then run the same command to resume") from None


def remove_unfinished_saves(output_dir):
  """Removes the `ckpt-N_temp` directories a save killed midway leaves behind."""
  for path in tf.io.gfile.glob(os.path.join(output_dir, "ckpt-*_temp")):
    logging.warning("removing %s, left by a save that did not finish", path)
    _remove(path)


def _remove(path):
  if tf.io.gfile.isdir(path):
    tf.io.gfile.rmtree(path)
  else:
    tf.io.gfile.remove(path)
