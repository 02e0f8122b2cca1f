"""TFRecords of ids on disk: sharded atomic writing, parsing, and the completion marker.

Each record is a `tf.train.Example` with int64 lists "inputs" and "targets"
(tensor2tensor's format). A split is written as `num_shards` files under
temporary names, renamed when all are complete; its JSON marker (`SplitInfo`)
is written last. Readers trust a split only through its marker.
"""

import dataclasses
import json
import os

import tensorflow as tf

from t2t_lite.data import example_bytes
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import TEMP_SUFFIX
from t2t_lite.files.json_files import DamagedFile, check_field, has_type, parse_object, read_text

FORMAT_VERSION = 1


@dataclasses.dataclass(frozen=True)
class SplitInfo:
  """A completely generated split, as its marker records it.

  files: absolute paths of its TFRecord shards.
  examples: number of records.
  length_counts: {length: number of records} of max(len(inputs), len(targets)),
    EOS included (the length bucketing and `max_length` use).
  vocab_digest: SHA-256 of the vocabulary file(s) the ids come from.
  summary: what datagen reported for the split (counts, drops, percentiles).
  file_sizes: each shard's size in bytes, as written (a shard cut at a record's end still
    reads to its end: its size tells); () in markers written before sizes were recorded.
  """
  problem: str
  split: str
  files: tuple
  examples: int
  length_counts: dict
  vocab_digest: str = ""
  summary: dict = dataclasses.field(default_factory=dict)
  file_sizes: tuple = ()

  def count_longer_than(self, max_length):
    """How many examples have more than `max_length` tokens on a side (training drops them)."""
    return sum(count for length, count in self.length_counts.items() if length > max_length)

  @property
  def longest(self):
    return max(self.length_counts, default=0)

  def to_json(self, data_dir):
    values = dataclasses.asdict(self)
    values["files"] = [os.path.relpath(path, data_dir) for path in self.files]
    values["length_counts"] = {str(k): v for k, v in sorted(self.length_counts.items())}
    values["format"] = FORMAT_VERSION
    return json.dumps(values, indent=1, ensure_ascii=False)

  @classmethod
  def from_json(cls, text, data_dir, path="marker", remedy="run t2t-datagen again"):
    """The split a marker's JSON text describes; a `DamagedFile` naming `path`, the field
    and `remedy` when it is not a marker of this format."""
    values = parse_object(text, path, remedy)
    if values.pop("format", None) != FORMAT_VERSION:
      raise DamagedFile(path, f"is not a split marker of format {FORMAT_VERSION} (written by "
                        f"another version of t2t_lite?)", remedy)
    for name, kind in (("problem", str), ("split", str), ("files", tuple), ("examples", int),
                       ("length_counts", dict), ("vocab_digest", str), ("summary", dict),
                       ("file_sizes", tuple)):
      check_field(values, name, kind, path, remedy, required=name not in ("vocab_digest",
                                                                          "summary",
                                                                          "file_sizes"))
    if not all(isinstance(name, str) and name for name in values["files"]):
      raise DamagedFile(path, "field 'files' is not a list of file names", remedy)
    sizes = values.get("file_sizes", ())
    if sizes and (len(sizes) != len(values["files"])
                  or not all(has_type(size, int) and size >= 0 for size in sizes)):
      raise DamagedFile(path, "field 'file_sizes' is not a size in bytes for each file", remedy)
    if not all(key.isdigit() and has_type(count, int) and count >= 0
               for key, count in values["length_counts"].items()):
      raise DamagedFile(path, "field 'length_counts' is not an object of {length: count} "
                        "integers", remedy)
    unknown = sorted(set(values) - {field.name for field in dataclasses.fields(cls)})
    if unknown:
      raise DamagedFile(path, f"has unknown fields {', '.join(unknown)}", remedy)
    values["files"] = tuple(os.path.join(data_dir, name) for name in values["files"])
    values["length_counts"] = {int(k): v for k, v in values["length_counts"].items()}
    values["file_sizes"] = tuple(sizes)
    return cls(**values)


def marker_path(data_dir, problem, split):
  return os.path.join(data_dir, f"{problem}-{split}.json")


def shard_paths(data_dir, problem, split, num_shards):
  return [os.path.join(data_dir, f"{problem}-{split}-{i:05d}-of-{num_shards:05d}.tfrecord")
          for i in range(num_shards)]


def read_split_info(data_dir, problem, split):
  """The split's `SplitInfo`, or None when it is missing or incomplete (shards missing);
  a `DamagedFile` naming the marker and the field when the marker is damaged, or naming
  the shard whose size is not the one written."""
  path = marker_path(data_dir, problem, split)
  if not os.path.lexists(path):
    return None
  remedy = f"run t2t-datagen --problem={problem} --data_dir={data_dir} again"
  info = SplitInfo.from_json(read_text(path, remedy), data_dir, path, remedy)
  if not all(os.path.isfile(name) for name in info.files):
    return None
  for name, size in zip(info.files, info.file_sizes):
    found = os.path.getsize(name)
    if found != size:  # damaged_records' words: the same damage, found sooner.
      raise DamagedFile(name, f"damaged record file ({found:,} bytes where t2t-datagen wrote "
                        f"{size:,}: cut short or changed since)", f"regenerate the data with "
                        f"t2t-datagen --problem={problem} --data_dir={data_dir}")
  return info


def remove_split(data_dir, problem, split):
  """Removes a split's marker first, then any shards and leftovers of earlier runs."""
  prefix = f"{problem}-{split}-"
  marker = marker_path(data_dir, problem, split)
  for name in [marker, marker + TEMP_SUFFIX] + sorted(
      os.path.join(data_dir, n) for n in os.listdir(data_dir)
      if n.startswith(prefix) and (n.endswith(".tfrecord") or n.endswith(TEMP_SUFFIX))):
    if os.path.exists(name):
      os.remove(name)


def serialize(inputs, targets):
  """Two sequences of ids -> a serialized tf.train.Example (`example_bytes`: the bytes
  protobuf's deterministic serialization gives, in every process)."""
  return example_bytes.serialize(inputs, targets)


class ShardWriter:
  """Writes serialized records round-robin into shards under temporary names.

  `commit()` renames them all to their final names; leaving the `with` block
  without a commit (an exception, an interrupt) deletes the temporary files.
  """

  def __init__(self, paths):
    self.paths = list(paths)
    self._temps = [path + TEMP_SUFFIX for path in self.paths]
    self._writers = [tf.io.TFRecordWriter(temp) for temp in self._temps]
    self._next = 0
    self._committed = False

  def write(self, record):
    self._writers[self._next].write(record)
    self._next = (self._next + 1) % len(self._writers)

  def commit(self):
    self._close()
    for temp, path in zip(self._temps, self.paths):
      os.replace(temp, path)
    self._committed = True

  def _close(self):
    for writer in self._writers:
      writer.close()

  def __enter__(self):
    return self

  def __exit__(self, *exc_info):
    if not self._committed:
      self._close()
      for temp in self._temps:
        if os.path.exists(temp):
          os.remove(temp)
    return False


FEATURES = {
    "inputs": tf.io.RaggedFeature(tf.int64),
    "targets": tf.io.RaggedFeature(tf.int64),
}


def parse(serialized):
  """A serialized record -> {"inputs": [length] int32, "targets": [length] int32}."""
  parsed = tf.io.parse_single_example(serialized, FEATURES)
  return {key: tf.cast(value, tf.int32) for key, value in parsed.items()}


def parse_batch(serialized):
  """[batch] serialized records -> {"inputs": [batch, (length)] int32, "targets": ...}.

  Parsing many records in one op is several times faster than one by one.
  """
  parsed = tf.io.parse_example(serialized, FEATURES)
  return {key: tf.cast(value, tf.int32) for key, value in parsed.items()}


def read_serialized(files, *, deterministic, cycle_length=16):
  """A dataset of file names -> their serialized records, files read interleaved."""
  return files.interleave(tf.data.TFRecordDataset, cycle_length=cycle_length, block_length=16,
                          num_parallel_calls=tf.data.AUTOTUNE, deterministic=deterministic)


def parse_dataset(serialized, *, deterministic, batch_size=256):
  """Serialized records -> examples {"inputs": [s] int32, "targets": [t] int32}, parsed in
  batches of `batch_size` (order kept when `deterministic`)."""
  return (serialized.batch(batch_size)
          .map(parse_batch, num_parallel_calls=tf.data.AUTOTUNE, deterministic=deterministic)
          .unbatch()
          .map(_as_tensors))  # Unbatched rows of ragged tensors are plain tensors.


def _as_tensors(example):
  return {key: tf.convert_to_tensor(value) for key, value in example.items()}


def require_split(data_dir, problem, split, vocab_digest):
  """`read_split_info` of a split made with `vocab_digest`, or a UserError to run t2t-datagen."""
  info = read_split_info(data_dir, problem, split)
  if info is None or info.vocab_digest != vocab_digest:
    raise UserError(f"no complete '{split}' data of problem {problem} in {data_dir}; run "
                    f"t2t-datagen --problem={problem} --data_dir={data_dir}")
  return info
