"""A run directory's checkpoints: which are listed, and restoring the newest that reads.

TensorFlow writes a checkpoint's data and index files under temporary names and
then records it in the directory's `checkpoint` state file, which it replaces
atomically. A checkpoint is trusted only once that file names it. `restore_newest`
restores the newest listed checkpoint that reads: one truncated or corrupted
afterwards (or whose files were deleted) is named in a warning and the next
older one is used. Saving during training: `t2t_lite.training.checkpoints`.
"""

import os

from absl import logging
import tensorflow as tf

from t2t_lite.atomic_files import write_text_atomic
from t2t_lite.errors import UserError
from t2t_lite.file_errors import first_line
from t2t_lite.json_files import DamagedFile

# What reading a checkpoint with missing, truncated or corrupted files raises.
UNREADABLE_ERRORS = (tf.errors.OpError, IndexError)


def checkpoint_paths(model_dir):
  """Paths of the checkpoints the state file of model_dir lists, oldest first; a
  `DamagedFile` when the state file is there but does not read."""
  state = tf.train.get_checkpoint_state(model_dir)
  if state is None and tf.io.gfile.exists(os.path.join(model_dir, STATE_FILE)):
    raise DamagedFile(os.path.join(model_dir, STATE_FILE), STATE_DAMAGE, STATE_REMEDY)
  return list(state.all_model_checkpoint_paths) if state else []


STATE_FILE = "checkpoint"  # TensorFlow's name for the list of a directory's checkpoints.
STATE_DAMAGE = "is not a checkpoint list (TensorFlow's text format) or cannot be read"
STATE_REMEDY = ("restore it from a copy of the run, or write it anew: a line "
                "'all_model_checkpoint_paths: \"ckpt-N\"' per checkpoint there, oldest first, "
                "then 'model_checkpoint_path: \"ckpt-N\"' naming the newest")


def write_state(model_dir, paths):
  """Replaces the state file of model_dir so that it lists `paths` (oldest first), the
  last being the latest, by their names relative to model_dir."""
  names = [os.path.basename(path) for path in paths]
  lines = [f'model_checkpoint_path: "{names[-1]}"']
  lines += [f'all_model_checkpoint_paths: "{name}"' for name in names]
  write_text_atomic(os.path.join(model_dir, "checkpoint"), "\n".join(lines) + "\n")


def checkpoint_step(path):
  """The step in a checkpoint's name (ckpt-N)."""
  return int(path.rsplit("-", 1)[1])


def restore_checkpoint(checkpoint, path):
  """`checkpoint.restore(path).expect_partial()`, or an error that names the checkpoint.

  Raises UnreadableCheckpoint when its files are missing, truncated or
  corrupted, and UserError when it holds weights of other shapes (another
  vocabulary or architecture).
  """
  if not tf.io.gfile.exists(path + ".index"):
    raise UnreadableCheckpoint(path, "its .index file is missing")
  try:
    return checkpoint.restore(path).expect_partial()
  except UNREADABLE_ERRORS as error:
    raise UnreadableCheckpoint(path, first_line(error)) from None
  except ValueError as error:
    if "incompatible tensor" not in str(error):
      raise
    raise UserError(f"{path} does not fit this model ({first_line(error).rstrip('.')}); it "
                    f"was written with another vocabulary or architecture") from None


def readable_checkpoints(checkpoint, model_dir):
  """Yields (path, restore status) for the listed checkpoints of model_dir, newest first,
  each restored into `checkpoint` when reached; one that does not read is named in a
  warning and skipped."""
  for path in reversed(checkpoint_paths(model_dir)):
    try:
      status = restore_checkpoint(checkpoint, path)
    except UnreadableCheckpoint as error:
      logging.warning("%s; using the next older checkpoint", error)
      continue
    yield path, status


def restore_newest(checkpoint, model_dir):
  """(path, status) of the newest readable listed checkpoint, restored into `checkpoint`;
  None when model_dir lists none; UserError when none of those listed reads."""
  restored = next(readable_checkpoints(checkpoint, model_dir), None)
  if restored is None and checkpoint_paths(model_dir):
    raise UserError(f"none of the checkpoints listed in {os.path.join(model_dir, 'checkpoint')} "
                    f"can be read (see the warnings above); restore them from a backup")
  return restored


class UnreadableCheckpoint(Exception):
  """A checkpoint whose files are missing, truncated or corrupted."""

  def __init__(self, path, reason):
    super().__init__(f"checkpoint {path} cannot be read: {reason}")
