"""Checkpoints that survive faults: written atomically, kept K at a time, resumed.

TensorFlow writes a checkpoint's data and index files under temporary names and
then records it in the directory's `checkpoint` state file, which it replaces
atomically. A checkpoint is trusted only once that file names it, so a process
killed mid-write leaves at most stray temporary files, never a checkpoint that
looks valid but is not. `restore_latest` restores the newest one the state file
names; `CheckpointManager` deletes all but the last `keep` checkpoints.
"""

import os
import time

from absl import logging
import tensorflow as tf

from t2t_lite.training.strategy import is_chief


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
    self.checkpoint = tf.train.Checkpoint(**trackables)
    self.manager = tf.train.CheckpointManager(self.checkpoint, output_dir, keep,
                                              checkpoint_name="ckpt")
    self._last_step = 0
    self._last_time = time.monotonic()

  def restore_latest(self):
    """Restores the newest checkpoint of output_dir, if any; returns its path or None."""
    path = tf.train.latest_checkpoint(self.output_dir)
    if path is None:
      return None
    self.checkpoint.restore(path).expect_partial()
    logging.info("restored %s", path)
    self._last_step = int(path.rsplit("-", 1)[1])
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
      path = self.manager.save(checkpoint_number=step)
    else:
      # Other workers must take part in the save's collective ops; they write to a
      # private directory and delete it.
      scratch = os.path.join(self.output_dir, f".worker_{self.strategy.cluster_resolver.task_id}")
      path = self.checkpoint.write(os.path.join(scratch, f"ckpt-{step}"))
      tf.io.gfile.rmtree(scratch)
    self._last_step, self._last_time = step, time.monotonic()
    return path


def checkpoint_paths(model_dir):
  """Paths of the checkpoints the state file of model_dir lists, oldest first."""
  state = tf.train.get_checkpoint_state(model_dir)
  return list(state.all_model_checkpoint_paths) if state else []
