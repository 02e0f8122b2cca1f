"""A run directory's checkpoints: listing them, restoring the newest that reads, and saving
them during training, atomically, every N steps or seconds, K at a time.

TensorFlow writes a checkpoint's data and index files under temporary names; a
checkpoint is trusted only once the directory's `checkpoint` state file names it,
which is replaced atomically. `restore_newest` restores the newest listed checkpoint
that reads: one truncated or corrupted afterwards (or whose files were deleted) is
named in a warning and the next older one is used.

A save (`Checkpoints`) writes the checkpoint's files, then replaces the state file
with the last `keep` checkpoints, then deletes the files of those it dropped. So a
process killed at any moment leaves at most stray files (the next start removes those
of dropped checkpoints; the next save of the same step replaces an unlisted new one),
never a listed checkpoint that is partly written or already deleted.
"""

import os
import time

from absl import logging
import tensorflow as tf

from google.protobuf import text_format
from tensorflow.python.training.checkpoint_state_pb2 import CheckpointState

from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import write_text_atomic
from t2t_lite.files.file_errors import first_line
from t2t_lite.files.file_reading import SMALL_FILE_BYTES, DamagedFile, read_text, why_unreadable
from t2t_lite.run.run_layout import (CHECKPOINT_FILE, CHECKPOINT_NAME, STATE_FILE,
                                     checkpoint_prefix, checkpoint_step, worker_scratch)
from t2t_lite.distribute.strategy import is_chief

# What reading a checkpoint with missing, truncated or corrupted files raises.
UNREADABLE_ERRORS = (tf.errors.OpError, IndexError)


def checkpoint_paths(output_dir):
  """Paths of the checkpoints the state file of output_dir lists, oldest first; a
  `DamagedFile` when the state file is there but does not read (not a regular file, too
  large, not UTF-8, not TensorFlow's text format, or naming no checkpoint `ckpt-N`)."""
  path = os.path.join(output_dir, STATE_FILE)
  if not os.path.lexists(path):
    return []
  state = CheckpointState()
  try:
    text_format.Merge(read_text(path, remedy=STATE_REMEDY, limit=SMALL_FILE_BYTES), state)
  except text_format.ParseError:
    raise DamagedFile(path, STATE_DAMAGE, STATE_REMEDY) from None
  names = list(state.all_model_checkpoint_paths)
  if not state.model_checkpoint_path:
    raise DamagedFile(path, "names no latest checkpoint (model_checkpoint_path)", STATE_REMEDY)
  wrong = next((name for name in names if not CHECKPOINT_NAME.fullmatch(
      os.path.basename(name))), None)
  if wrong is not None:
    raise DamagedFile(path, f"lists {wrong[:80]!r}, not a checkpoint ckpt-N", STATE_REMEDY)
  return [name if os.path.isabs(name) else os.path.join(output_dir, name) for name in names]


STATE_DAMAGE = "is not a checkpoint list (TensorFlow's text format)"
STATE_REMEDY = ("restore it from a copy of the run, or write it anew: a line "
                "'all_model_checkpoint_paths: \"ckpt-N\"' per checkpoint there, oldest first, "
                "then 'model_checkpoint_path: \"ckpt-N\"' naming the newest")


def write_state(output_dir, paths):
  """Replaces the state file of output_dir so that it lists `paths` (oldest first), the
  last being the latest, by their names relative to output_dir."""
  names = [os.path.basename(path) for path in paths]
  lines = [f'model_checkpoint_path: "{names[-1]}"']
  lines += [f'all_model_checkpoint_paths: "{name}"' for name in names]
  write_text_atomic(os.path.join(output_dir, STATE_FILE), "\n".join(lines) + "\n")


def write_only_checkpoint(output_dir, step, **trackables):
  """Writes checkpoint ckpt-<step> of `trackables` (e.g. model=...) into output_dir as the
  only one its state file lists -> its path."""
  checkpoint = tf.train.Checkpoint(**trackables)
  checkpoint.save_counter.assign_add(1)  # Restoring expects it, as Checkpoint.save.
  path = checkpoint.write(checkpoint_prefix(output_dir, step))
  write_state(output_dir, [path])
  return path


def checkpoint_exists(path):
  """Whether checkpoint `path` (RUN/ckpt-N) has its index file."""
  return tf.io.gfile.exists(path + ".index")


def restore_checkpoint(checkpoint, path):
  """`checkpoint.restore(path).expect_partial()`, or an error that names the checkpoint.

  Raises UnreadableCheckpoint when its files are missing, truncated or
  corrupted, and UserError when it holds weights of other shapes (another
  vocabulary or architecture).
  """
  if not checkpoint_exists(path):
    raise UnreadableCheckpoint(path, "its .index file is missing")
  for name in tf.io.gfile.glob(path + ".*"):  # TensorFlow would wait on a FIFO for ever.
    reason = why_unreadable(name)
    if reason:
      raise UnreadableCheckpoint(path, f"{name} {reason[0]}")
  try:
    return checkpoint.restore(path).expect_partial()
  except UNREADABLE_ERRORS as error:
    raise UnreadableCheckpoint(path, first_line(error)) from None
  except ValueError as error:
    if "incompatible tensor" not in str(error):
      raise
    raise UserError(f"{path} does not fit this model ({first_line(error).rstrip('.')}); it "
                    f"was written with another vocabulary or architecture") from None


def readable_checkpoints(checkpoint, output_dir, paths=None):
  """Yields (path, restore status) for the listed checkpoints of output_dir (or `paths`,
  some of them, oldest first), newest first, each restored into `checkpoint` when reached;
  one that does not read is named in a warning and skipped."""
  for path in reversed(checkpoint_paths(output_dir) if paths is None else paths):
    try:
      status = restore_checkpoint(checkpoint, path)
    except UnreadableCheckpoint as error:
      logging.warning("%s; using the next older checkpoint", error)
      continue
    yield path, status


def restore_newest(checkpoint, output_dir):
  """(path, status) of the newest readable listed checkpoint, restored into `checkpoint`;
  None when output_dir lists none; UserError when none of those listed reads."""
  restored = next(readable_checkpoints(checkpoint, output_dir), None)
  if restored is None and checkpoint_paths(output_dir):
    raise UserError(f"none of the checkpoints listed in {os.path.join(output_dir, STATE_FILE)} "
                    f"can be read (see the warnings above); restore them from a backup")
  return restored


class UnreadableCheckpoint(Exception):
  """A checkpoint whose files are missing, truncated or corrupted."""

  def __init__(self, path, reason):
    super().__init__(f"checkpoint {path} cannot be read: {reason}")


class Checkpoints:
  """Saves and restores model, optimizer (its iteration count is the step) and data position.

  every_steps / every_seconds: save when either many steps or seconds passed
  since the last save (0 or None disables that trigger); the trainer asks both
  (`due_by_steps`, `due_by_time`), and makes its workers agree on the second.
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

  def due_by_steps(self, step):
    """Whether `step` is every_steps past the last save (the same on every worker)."""
    return bool(self.every_steps) and step - self._last_step >= self.every_steps

  def due_by_time(self):
    """Whether every_seconds passed since the last save, by this process's clock."""
    return bool(self.every_seconds) and time.monotonic() - self._last_time >= self.every_seconds

  def save(self, step):
    """Writes checkpoint ckpt-<step> (once per step) and prunes old ones; returns its path
    (on a worker other than the chief: the path the chief writes)."""
    if self.latest and checkpoint_step(self.latest) == step:
      return self.latest
    if is_chief(self.strategy):
      path = self._save_as_chief(step)
    else:
      # Other workers must take part in the save's collective ops; they write to a
      # private directory and delete it.
      scratch = worker_scratch(self.output_dir, self.strategy.cluster_resolver.task_id)
      self.checkpoint.write(checkpoint_prefix(scratch, step))
      tf.io.gfile.rmtree(scratch)
      path = checkpoint_prefix(self.output_dir, step)  # The chief's, of the same step.
      self.latest = path
    self._last_step, self._last_time = step, time.monotonic()
    return path

  def _save_as_chief(self, step):
    """Writes ckpt-<step>, lists it with the `keep - 1` before it, then deletes the
    files of older ones. A failed save (no space, read-only) leaves no partial files
    and is a UserError naming the directory and the cause."""
    prefix = checkpoint_prefix(self.output_dir, step)
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
  files of checkpoints older than every listed one (dropped from the state file, not
  yet deleted), and the scratch directories of workers (`worker_scratch`): the chief
  calls it as a run starts, before any worker can save."""
  any_checkpoint = checkpoint_prefix(output_dir, "*")  # RUN/ckpt-*
  leftovers = tf.io.gfile.glob(any_checkpoint + "_temp")
  leftovers += tf.io.gfile.glob(worker_scratch(output_dir, "*"))
  listed = checkpoint_paths(output_dir)
  if listed:
    oldest_kept = checkpoint_step(listed[0])
    for path in tf.io.gfile.glob(any_checkpoint + ".*"):
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
