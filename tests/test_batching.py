"""The input pipeline: tensor2tensor's buckets, token budgets, drops, determinism, sharding."""

import collections
import logging

import numpy as np
import pytest

from t2t_lite.data import batching, pipeline, records
from t2t_lite.data.vocabulary import EOS_ID
from t2t_lite.errors import UserError
from t2t_lite.models.hyperparameters import HParams

# tensor2tensor's _bucket_boundaries(256, 8, 1.1), worked out by hand: +1 while int(x * 1.1)
# does not grow, then int(x * 1.1).
T2T_BOUNDARIES_256 = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 24, 26, 28, 30, 33,
                      36, 39, 42, 46, 50, 55, 60, 66, 72, 79, 86, 94, 103, 113, 124, 136, 149,
                      163, 179, 196, 215, 236]
NUM_EXAMPLES = 600
MAX_LENGTH = 64


def test_bucket_boundaries_equal_tensor2tensor():
  assert batching.bucket_boundaries(256) == T2T_BOUNDARIES_256
  assert batching.bucket_boundaries(8) == []
  assert batching.bucket_boundaries(12) == [8, 9, 10, 11]


def test_batch_sizes_divide_the_token_budget_by_the_bucket_length():
  sizes = batching.bucket_batch_sizes(T2T_BOUNDARIES_256, 4096, 256)
  assert len(sizes) == len(T2T_BOUNDARIES_256) + 1
  assert sizes[:3] == [512, 455, 409] and sizes[-2:] == [4096 // 236, 16]
  assert batching.bucket_batch_sizes([8, 9], 4, 10) == [1, 1, 1]


def make_split(tmp_path, num_files=4):
  """A generated split of NUM_EXAMPLES records with lengths 1..~100; example i starts with i."""
  rng = np.random.default_rng(7)
  paths = records.shard_paths(str(tmp_path), "fake", "train", num_files)
  longest = collections.Counter()
  with records.ShardWriter(paths) as writer:
    for i in range(NUM_EXAMPLES):
      source_length, target_length = rng.integers(1, 100, size=2)
      inputs = [i + 3] + rng.integers(3, 50, size=source_length - 1).tolist() + [EOS_ID]
      targets = rng.integers(3, 50, size=target_length).tolist() + [EOS_ID]
      writer.write(records.serialize(inputs, targets))
      longest[max(len(inputs), len(targets))] += 1
    writer.commit()
  return records.SplitInfo(problem="fake", split="train", files=tuple(paths),
                           examples=NUM_EXAMPLES, length_counts=dict(longest))


@pytest.fixture(scope="module")
def split(tmp_path_factory):
  return make_split(tmp_path_factory.mktemp("records"))


def batches(info, training, batch_size=256, length_bucket_step=1.1, **kwargs):
  options = dict(shuffle=training, deterministic=True, num_shards=1, shard_index=0, seed=None,
                 repeat=False)
  options.update(kwargs)
  hparams = HParams(batch_size=batch_size, max_length=MAX_LENGTH,
                    length_bucket_step=length_bucket_step)
  return [{k: v.numpy() for k, v in batch.items()}
          for batch in pipeline.make_dataset(info, hparams, training=training, **options)]


def example_ids(batch_list):
  """The example index (first input token - 3) of every example in the batches."""
  return [int(row[0]) - 3 for batch in batch_list for row in batch["inputs"]]


def test_token_budget_is_respected_and_padding_is_zero(split):
  for training in (True, False):
    for batch in batches(split, training):
      rows, length = batch["inputs"].shape[0], max(batch["inputs"].shape[1],
                                                    batch["targets"].shape[1])
      assert rows * length <= 256 or rows == 1
      assert batch["inputs"].dtype == np.int32 and batch["targets"].dtype == np.int32
      for key in ("inputs", "targets"):
        for row in batch[key]:  # Ids, then EOS, then only padding.
          eos = list(row).index(EOS_ID)
          assert not row[eos + 1:].any() and row[:eos].all()


def test_long_examples_are_dropped_in_training_only_and_counted(split, caplog):
  lengths = {}
  for batch in batches(split, training=False):
    for inputs, targets in zip(batch["inputs"], batch["targets"]):
      lengths[int(inputs[0]) - 3] = max(np.count_nonzero(inputs), np.count_nonzero(targets))
  assert sorted(lengths) == list(range(NUM_EXAMPLES))  # Eval keeps all.
  too_long = {i for i, n in lengths.items() if n > MAX_LENGTH}
  assert 0 < len(too_long) < NUM_EXAMPLES
  with caplog.at_level(logging.WARNING):
    seen = example_ids(batches(split, training=True))
  assert sorted(seen) == sorted(set(range(NUM_EXAMPLES)) - too_long)
  assert split.count_longer_than(MAX_LENGTH) == len(too_long)
  assert f"skips {len(too_long)} of {NUM_EXAMPLES} examples" in caplog.text


def test_all_examples_too_long_is_a_user_error(split):
  with pytest.raises(UserError, match="raise it with --hparams=max_length"):
    pipeline.make_dataset(split, HParams(max_length=1), training=True, shuffle=False,
                          deterministic=True, num_shards=1, shard_index=0, seed=None,
                          repeat=False)


def test_deterministic_mode_repeats_and_seeds_matter(split):
  def run(seed):
    return [(b["inputs"].tobytes(), b["targets"].tobytes())
            for b in batches(split, training=True, seed=seed)]
  first = run(3)
  assert first == run(3)
  assert first != run(4)
  assert sorted(example_ids(batches(split, training=True, seed=3))) == sorted(
      example_ids(batches(split, training=True, seed=4)))


def test_training_repeats(split):
  hparams = HParams(batch_size=256, max_length=MAX_LENGTH)
  dataset = pipeline.make_dataset(split, hparams, training=True, shuffle=True,
                                  deterministic=True, num_shards=1, shard_index=0, seed=1,
                                  repeat=True)
  kept = NUM_EXAMPLES - split.count_longer_than(MAX_LENGTH)
  counts = collections.Counter()
  for batch in dataset.take(20 * kept):  # Batches hold several examples: ample.
    counts.update(int(row[0]) - 3 for row in batch["inputs"].numpy())
    if len(counts) == kept and min(counts.values()) >= 2:
      break
  assert len(counts) == kept and min(counts.values()) >= 2  # Every kept example, again.


# 4 files: whole files (as many each, then 1 or 2), then records (fewer files than shards).
@pytest.mark.parametrize("num_shards, read", [
    (2, "4 files for 2 input pipelines: each reads 2 whole files of its own"),
    (3, "4 files for 3 input pipelines: each reads 1 or 2 whole files of its own"),
    (5, "4 file(s) for 5 input pipelines: each pipeline reads every record and keeps 1 in 5")])
def test_shards_partition_the_examples_and_say_how(split, num_shards, read, caplog):
  caplog.set_level(logging.INFO)
  parts = [example_ids(batches(split, training=False, num_shards=num_shards, shard_index=i))
           for i in range(num_shards)]
  everything = [i for part in parts for i in part]
  assert sorted(everything) == list(range(NUM_EXAMPLES))  # Disjoint and complete.
  assert all(len(part) > NUM_EXAMPLES // (3 * num_shards) for part in parts)
  assert f"fake train: {read}" in caplog.text


def test_invalid_sharding_is_a_user_error(split):
  with pytest.raises(UserError, match="shard_index=2 is invalid"):
    batches(split, training=False, num_shards=2, shard_index=2)


@pytest.mark.parametrize("step", [1.1, 1.5])  # tensor2tensor's default; fewer XLA compiles.
def test_padding_to_bucket_boundaries_gives_few_shapes(split, step):
  boundaries = batching.bucket_boundaries(MAX_LENGTH, batching.MIN_BOUNDARY, step)
  lengths = {boundary - 1 for boundary in boundaries} | {MAX_LENGTH}
  shapes = set()
  for batch in batches(split, training=True, pad_to_bucket_boundary=True,
                       length_bucket_step=step):
    assert batch["inputs"].shape[1] == batch["targets"].shape[1]
    assert batch["inputs"].shape[1] in lengths
    shapes.add(batch["inputs"].shape)
    assert batch["inputs"].size <= 256
  # One shape per bucket; the last batch of a bucket (the data ran out) may be smaller.
  assert len({shape[1] for shape in shapes}) <= len(lengths)
  assert len(shapes) <= 2 * len(lengths)
  assert len(lengths) == {1.1: 27, 1.5: 7}[step]
