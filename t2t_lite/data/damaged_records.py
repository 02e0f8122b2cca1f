"""A damaged record file named in one line, wherever a problem's records are read.

A TFRecord shard cut short (a crash, a full disk, a partial copy) or with an altered byte
(its CRCs no longer match) makes TensorFlow's reader raise a DataLossError that names no
file ("corrupted record at 574"), from deep inside a training step or an evaluation.
`naming_damaged_records` turns it into a `UserError` naming the file and saying to
regenerate the data:

    with naming_damaged_records(problem.name, data_dir, ("train", "dev")):
      ...  # reading the problem's records: training, evaluating, the dev sentences

Finding the file reads the splits' files once more, each to its end (TensorFlow's reader,
in one op a file), and only after the error: reading sound data costs nothing more.
"""

import contextlib

import tensorflow as tf

from t2t_lite.data import records
from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import first_line


@contextlib.contextmanager
def naming_damaged_records(problem, data_dir, splits):
  """Turns a DataLossError raised inside into a UserError naming the first damaged file of
  `splits` of `problem` (a name) in `data_dir`; re-raises it when every file reads whole."""
  try:
    yield
  except tf.errors.DataLossError as error:
    found = find_damaged_file(_split_files(problem, data_dir, splits))
    if found is None:  # Not the records: a checkpoint, say.
      raise
    path, reason = found
    raise UserError(f"{path}: damaged record file ({reason}); regenerate the data with "
                    f"t2t-datagen --problem={problem} --data_dir={data_dir}") from None


def find_damaged_file(paths):
  """(path, what is wrong) of the first of `paths` that does not read to its end, or None."""
  for path in paths:
    try:
      _count_records(path)
    except tf.errors.DataLossError as error:
      return path, first_line(error)
  return None


def _count_records(path):
  """The file's records, counted in one op (eager: its error's message is the reader's)."""
  return tf.data.TFRecordDataset(path).reduce(tf.constant(0, tf.int64),
                                              lambda count, _: count + 1)


def _split_files(problem, data_dir, splits):
  """The record files the markers of `splits` list (a split without a sound marker: none)."""
  files = []
  for split in splits:
    try:
      info = records.read_split_info(data_dir, problem, split)
    except UserError:
      continue
    files.extend(info.files if info else ())
  return files
