"""Data generation: a problem's text pairs -> SentencePiece vocabulary -> sharded TFRecords.

Everything is first written into a staging directory beside the data
(`<problem>.incomplete` in data_dir): the vocabulary, then per split the
shards and, last, the split's marker. Input that fails (a missing file,
differing line counts, invalid UTF-8) or a full disk therefore leaves the
data_dir as it was. Only when every split is complete are the problem's old
markers and shards removed and the new files moved in, markers last; an
interrupted run leaves nothing trusted, and the next run removes its staging
directory. A marker records the vocabulary's digest; readers check it.

The records are encoded on every core (`t2t_lite.data.encoding`), the same bytes whatever
the number of processes, and written round-robin into the split's files: record i into
file i mod N, so that each file holds an even sample of the whole split. The train
split's N grows with its size (`train_shards`), so that several workers can each read
whole files of their own; dev and test take the problem's `record_shards`.
"""

import collections
import dataclasses
import hashlib
import itertools
import os
import shutil
import time

from t2t_lite.cli.command_line import check_declared
from t2t_lite.cli.shared_settings import SHARED
from t2t_lite.cores import usable_cores
from t2t_lite.data import records, shard_bounds
from t2t_lite.data.datagen_settings import DATAGEN
from t2t_lite.data.encoding import PairEncoder, encode_in_order
from t2t_lite.data.encoding_workers import check_process_count
from t2t_lite.data.report import DatagenSummary, PairProgress, SplitSummary, VocabSummary
from t2t_lite.data.vocabulary import train_sentencepiece
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import TEMP_SUFFIX, write_bytes_atomic, write_text_atomic
from t2t_lite.files.file_reading import read_bytes

ENCODE_BATCH = 1024  # Pairs encoded per call of the tokenizer.
# Train pairs a file at most (~18 MB of records at Europarl's lengths), unless there would
# be more than MAX_SHARDS files: WMT14 en-de's 4.5 million pairs come in 64 files.
PAIRS_PER_SHARD = 100_000
MAX_SHARDS = 1024


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


def generate(problem, data_dir, sources, *, vocab_size, progress, num_shards=None,
             processes=None):
  """Writes the vocabulary and every split of `problem`; returns a `DatagenSummary`.

  num_shards: the train split's file count (default: `train_shards` of its size), at
    most its pairs and what may be open at once (`shard_bounds`).
  processes: how many processes encode the records (default: one per core; at most
    `encoding_workers.PROCESSES_PER_CORE` a core).
  """
  if not isinstance(vocab_size, int):
    raise UserError(f"vocab_size={vocab_size!r}: pass a whole number of subwords")
  check_declared(SHARED, "vocab_size", vocab_size)
  check_declared(DATAGEN, "num_shards", num_shards)  # As t2t-datagen checks its flags.
  check_declared(DATAGEN, "num_concurrent_processes", processes)
  processes = processes or usable_cores()
  check_process_count(processes)
  if num_shards:  # Refused before any work where the files could not all be open.
    shard_bounds.make_room_for(num_shards, processes)
  os.makedirs(data_dir, exist_ok=True)
  staging = os.path.join(data_dir, problem.name + TEMP_SUFFIX)
  if os.path.islink(staging) or os.path.isfile(staging):
    os.remove(staging)  # Something at the staging name: a link is removed, not followed.
  elif os.path.isdir(staging):
    shutil.rmtree(staging)  # Left by an interrupted run.
  os.makedirs(staging)
  try:
    vocab_summary, train_pairs = _write_vocabularies(problem, staging, sources, vocab_size,
                                                     progress)
    encoder = PairEncoder(*(read_bytes(path) for path in vocab_paths(problem, staging)))
    digest = vocab_digest(problem, staging)
    if num_shards:
      shard_bounds.check_against_pairs(num_shards, train_pairs)
    shards = dict(problem.record_shards)
    shards["train"] = num_shards or train_shards(train_pairs, shards.get("train", 1))
    shard_bounds.make_room_for(max(shards.values()), processes)
    splits = [_write_split(problem, split, staging, sources, encoder, digest,
                           shards.get(split, 1), processes, progress)
              for split in problem.splits]
    _move_in(problem, staging, data_dir)
  finally:
    shutil.rmtree(staging, ignore_errors=True)
  vocab_summary = dataclasses.replace(
      vocab_summary, paths=sorted(set(vocab_paths(problem, data_dir))))
  return DatagenSummary(problem.name, data_dir, vocab_summary, splits)


def train_shards(pairs, minimum=1):
  """The train split's file count for `pairs` pairs: the least power of two that keeps
  them to PAIRS_PER_SHARD a file, at least `minimum` (the problem's), at most MAX_SHARDS.
  A power of two, so that 2, 4, 8... workers each read as many whole files of their own."""
  shards = 1
  while shards * PAIRS_PER_SHARD < pairs and shards < MAX_SHARDS:
    shards *= 2
  return max(shards, minimum)


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
  sentences, pairs = collections.Counter(), collections.Counter()
  for path, columns in sides.items():
    bar = PairProgress(f"vocabulary {os.path.basename(path)}: reading train", progress)
    counts = collections.Counter()

    def texts():
      for pair in problem.clean_pairs("train", sources, counts):
        bar.update(counts["read"])
        pairs[path] += 1
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
  summary = VocabSummary(paths=sorted(set((input_path, target_path))), size=vocab_size,
                         shared=problem.shared_vocab, sentences=sum(sentences.values()),
                         seconds=time.time() - start)
  return summary, pairs[input_path]


def _write_split(problem, split, data_dir, sources, encoder, digest, shards, processes,
                 progress):
  start = time.time()
  counts = collections.Counter()
  # {length: examples} of each side and of the longer side: sizes that do not grow.
  input_lengths, target_lengths, longest = (collections.Counter() for _ in range(3))
  written = 0
  paths = records.shard_paths(data_dir, problem.name, split, shards)
  bar = PairProgress(f"{split}: writing", progress)
  batches = _batches(problem.clean_pairs(split, sources, counts), ENCODE_BATCH)
  with records.ShardWriter(paths) as writer:
    for encoded in encode_in_order(encoder, batches, processes):
      for record in encoded.records:
        writer.write(record)
      input_lengths.update(encoded.input_lengths)
      target_lengths.update(encoded.target_lengths)
      longest.update(map(max, encoded.input_lengths, encoded.target_lengths))
      written += len(encoded.records)
      bar.update(counts["read"], written)
    writer.commit()
  bar.close()
  summary = SplitSummary.from_length_counts(split, counts, input_lengths, target_lengths,
                                            time.time() - start)
  info = records.SplitInfo(
      problem=problem.name, split=split, files=tuple(paths), examples=summary.examples,
      length_counts={int(v): int(n) for v, n in sorted(longest.items())},
      vocab_digest=digest, summary=summary.to_dict(),
      file_sizes=tuple(os.path.getsize(path) for path in paths))
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
