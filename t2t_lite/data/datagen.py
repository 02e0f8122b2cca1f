"""Data generation: a problem's text pairs -> SentencePiece vocabulary -> sharded TFRecords.

Everything is first written into a staging directory beside the data
(`<problem>.incomplete` in data_dir): the vocabulary, then per split the
shards and, last, the split's marker. Input that fails (a missing file,
differing line counts, invalid UTF-8) or a full disk therefore leaves the
data_dir as it was. Only when every split is complete are the problem's old
markers and shards removed and the new files moved in, markers last; an
interrupted run leaves nothing trusted, and the next run removes its staging
directory. A marker records the vocabulary's digest; readers check it.
"""

import collections
import dataclasses
import hashlib
import itertools
import os
import shutil
import time

import numpy as np
import tensorflow as tf

from t2t_lite.data import records
from t2t_lite.data.report import DatagenSummary, PairProgress, SplitSummary, VocabSummary
from t2t_lite.data.vocabulary import train_sentencepiece
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import TEMP_SUFFIX, write_bytes_atomic, write_text_atomic
from t2t_lite.files.file_reading import read_bytes

ENCODE_BATCH = 1024  # Pairs encoded per call of the tokenizer.


def vocab_paths(problem, data_dir):
  """(input model path, target model path) of `problem` in `data_dir`."""
  if problem.shared_vocab:
    path = os.path.join(data_dir, f"vocab.{problem.name}.model")
    return path, path
  return (os.path.join(data_dir, f"vocab.{problem.name}.inputs.model"),
          os.path.join(data_dir, f"vocab.{problem.name}.targets.model"))


def vocab_digest(problem, data_dir):
  """SHA-256 over the problem's vocabulary file(s); UserError when one is missing."""
  digest = hashlib.sha256()
  for path in sorted(set(vocab_paths(problem, data_dir))):
    if not os.path.isfile(path):
      raise UserError(f"no vocabulary at {path}; run t2t-datagen --problem={problem.name} "
                      f"--data_dir={data_dir} first")
    digest.update(read_bytes(path))
  return digest.hexdigest()


def read_split_info(problem, split, data_dir):
  """The split's `SplitInfo`; UserError unless it is complete and matches the vocabulary."""
  return records.require_split(data_dir, problem.name, split, vocab_digest(problem, data_dir))


def generate(problem, data_dir, sources, *, vocab_size, progress):
  """Writes the vocabulary and every split of `problem`; returns a `DatagenSummary`."""
  if not isinstance(vocab_size, int) or vocab_size < 1:
    raise UserError(f"vocab_size={vocab_size} must be a positive integer")
  os.makedirs(data_dir, exist_ok=True)
  staging = os.path.join(data_dir, problem.name + TEMP_SUFFIX)
  if os.path.islink(staging) or os.path.isfile(staging):
    os.remove(staging)  # Something at the staging name: a link is removed, not followed.
  elif os.path.isdir(staging):
    shutil.rmtree(staging)  # Left by an interrupted run.
  os.makedirs(staging)
  try:
    vocab_summary = _write_vocabularies(problem, staging, sources, vocab_size, progress)
    input_vocab, target_vocab = problem.vocabularies(staging)
    digest = vocab_digest(problem, staging)
    splits = [_write_split(problem, split, staging, sources, input_vocab, target_vocab, digest,
                           progress) for split in problem.splits]
    _move_in(problem, staging, data_dir)
  finally:
    shutil.rmtree(staging, ignore_errors=True)
  vocab_summary = dataclasses.replace(
      vocab_summary, paths=sorted(set(vocab_paths(problem, data_dir))))
  return DatagenSummary(problem.name, data_dir, vocab_summary, splits)


def _move_in(problem, staging, data_dir):
  """Replaces the problem's data in data_dir with the complete data in staging: old
  markers and shards go first, then the vocabulary and each split's shards, its marker
  last."""
  for split in problem.splits:
    records.remove_split(data_dir, problem.name, split)
  markers = {records.marker_path(staging, problem.name, split) for split in problem.splits}
  names = sorted(set(os.listdir(staging)) - {os.path.basename(m) for m in markers})
  for name in names + sorted(os.path.basename(m) for m in markers):
    os.replace(os.path.join(staging, name), os.path.join(data_dir, name))


def _write_vocabularies(problem, data_dir, sources, vocab_size, progress):
  input_path, target_path = vocab_paths(problem, data_dir)
  start = time.time()
  if problem.shared_vocab:
    sides = {input_path: (0, 1)}
  else:
    sides = {input_path: (0,), target_path: (1,)}
  sentences = collections.Counter()
  for path, columns in sides.items():
    bar = PairProgress(f"vocabulary {os.path.basename(path)}: reading train", progress)
    counts = collections.Counter()

    def texts():
      for pair in problem.clean_pairs("train", sources, counts):
        bar.update(counts["read"])
        for column in columns:
          sentences[path] += 1
          yield pair[column]

    stream = texts()
    first = next(stream, None)
    if first is None:
      bar.close()
      raise UserError(f"problem {problem.name} gave no usable training pairs "
                      f"({_describe(counts)}); check its train files or downloads")
    model = train_sentencepiece(itertools.chain([first], stream), vocab_size,
                                user_defined_symbols=problem.user_defined_symbols,
                                lowercase=problem.lowercase)
    bar.close()
    write_bytes_atomic(path, model)
  return VocabSummary(paths=sorted(set((input_path, target_path))), size=vocab_size,
                      shared=problem.shared_vocab, sentences=sum(sentences.values()),
                      seconds=time.time() - start)


def _write_split(problem, split, data_dir, sources, input_vocab, target_vocab, digest,
                 progress):
  start = time.time()
  counts = collections.Counter()
  input_lengths, target_lengths = [], []
  paths = records.shard_paths(data_dir, problem.name, split, problem.record_shards.get(split, 1))
  bar = PairProgress(f"{split}: writing", progress)
  with records.ShardWriter(paths) as writer:
    for batch in _batches(problem.clean_pairs(split, sources, counts), ENCODE_BATCH):
      inputs = _encode(input_vocab, [source for source, _ in batch])
      targets = _encode(target_vocab, [target for _, target in batch])
      for input_ids, target_ids in zip(inputs, targets):
        writer.write(records.serialize(input_ids, target_ids))
        input_lengths.append(len(input_ids))
        target_lengths.append(len(target_ids))
      bar.update(counts["read"], len(input_lengths))
    writer.commit()
  bar.close()
  summary = SplitSummary.from_lengths(split, counts, np.array(input_lengths, np.int64),
                                      np.array(target_lengths, np.int64), time.time() - start)
  longest = np.maximum(input_lengths, target_lengths) if input_lengths else np.zeros(0, np.int64)
  values, frequencies = np.unique(longest, return_counts=True)
  info = records.SplitInfo(
      problem=problem.name, split=split, files=tuple(paths), examples=len(input_lengths),
      length_counts={int(v): int(n) for v, n in zip(values, frequencies)},
      vocab_digest=digest, summary=summary.to_dict())
  write_text_atomic(records.marker_path(data_dir, problem.name, split),
                            info.to_json(data_dir))
  return summary


def _describe(counts):
  read = counts["read"]
  drops = ", ".join(f"{n} {reason}" for reason, n in counts.items() if reason != "read")
  return f"{read} read" + (f", dropped: {drops}" if drops else "")


def _batches(iterable, size):
  batch = []
  for item in iterable:
    batch.append(item)
    if len(batch) == size:
      yield batch
      batch = []
  if batch:
    yield batch


def _encode(vocab, texts):
  """Texts -> a list of numpy id arrays, each ending with EOS."""
  ids = vocab.encode(tf.constant(texts))  # [batch, (length)]
  flat, splits = ids.flat_values.numpy(), ids.row_splits.numpy()
  return [flat[splits[i]:splits[i + 1]] for i in range(len(texts))]
