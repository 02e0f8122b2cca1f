"""The tf.data input pipeline: shards of records -> shuffled, filtered, token-bucketed batches."""

from absl import logging
import tensorflow as tf

from t2t_lite.data import batching, records
from t2t_lite.data.target_order import reversed_before_eos
from t2t_lite.errors import UserError

SHUFFLE_EXAMPLES = 16384  # Examples in the shuffle buffer before bucketing.
SHUFFLE_BATCHES = 64      # Batches in the shuffle buffer after bucketing (mixes lengths).
DEFAULT_SEED = 0          # The seed of deterministic mode when none is given.


def make_dataset(info, hparams, *, training, shuffle, deterministic, num_shards, shard_index,
                 seed, repeat, pad_to_bucket_boundary=False, resegmenters=None):
  """Batches of one generated split; see `TextPairProblem.dataset` for the contract.

  info: the split's `records.SplitInfo`.
  resegmenters: (inputs function, targets function), each ids [length] -> ids [length'],
    applied to every training example as it is read (`Vocabulary.resegmenter`), so each
    epoch sees new segmentations; None leaves the records' ids as they are.
  Returns a tf.data.Dataset of {"inputs": [batch, s] int32, "targets": [batch, t] int32}.
  """
  _check_sharding(num_shards, shard_index)
  if info.examples == 0:
    raise UserError(f"split '{info.split}' of problem {info.problem} has no examples; give "
                    f"t2t-datagen text for it")
  if deterministic and seed is None:
    seed = DEFAULT_SEED
  max_length = hparams.max_length
  if training:
    _report_long_examples(info, max_length)
  else:
    max_length = max(max_length, info.longest)  # Eval keeps every example.

  files = tf.data.Dataset.from_tensor_slices(list(info.files))
  shard_files = shards_by_file(info, num_shards)
  if shard_files:  # Each pipeline reads whole files: cheaper than skipping records.
    files = files.shard(num_shards, shard_index)
  if shuffle:
    files = files.shuffle(len(info.files), seed=seed, reshuffle_each_iteration=True)
  serialized = records.read_serialized(files, deterministic=deterministic,
                                       cycle_length=min(len(info.files), 16))
  if not shard_files:
    serialized = serialized.shard(num_shards, shard_index)
  examples = records.parse_dataset(serialized, deterministic=deterministic)
  if training and resegmenters:
    inputs_of, targets_of = resegmenters
    examples = examples.map(
        lambda ex: {"inputs": inputs_of(ex["inputs"]), "targets": targets_of(ex["targets"])},
        num_parallel_calls=tf.data.AUTOTUNE, deterministic=deterministic)
  if hparams.right_to_left:  # Training and eval alike: the model's own order.
    examples = examples.map(
        lambda ex: dict(ex, targets=reversed_before_eos(ex["targets"][None])[0]),
        num_parallel_calls=tf.data.AUTOTUNE, deterministic=deterministic)
  if training:
    examples = examples.filter(lambda ex: batching.example_length(ex) <= max_length)
  if shuffle:
    examples = examples.shuffle(SHUFFLE_EXAMPLES, seed=seed, reshuffle_each_iteration=True)
  if repeat:
    examples = examples.repeat()
  batches = batching.batch_by_tokens(examples, hparams.batch_size, max_length,
                                     min_boundary=hparams.min_length_bucket,
                                     boundary_step=hparams.length_bucket_step,
                                     pad_to_bucket_boundary=pad_to_bucket_boundary)
  if shuffle:
    batches = batches.shuffle(SHUFFLE_BATCHES, seed=seed, reshuffle_each_iteration=True)
  batches = batches.prefetch(tf.data.AUTOTUNE)
  options = tf.data.Options()
  options.deterministic = deterministic
  return batches.with_options(options)


def shards_by_file(info, pipelines):
  """Whether `pipelines` input pipelines share the split's files (each reads whole files of
  its own: files i, i + pipelines, ...) rather than its records (each reads every file and
  keeps one record in `pipelines`); logs which, when several pipelines read."""
  files = len(info.files)
  if pipelines == 1:
    return True
  if files < pipelines:
    train = info.split == "train"  # The split t2t-datagen --num_shards sets.
    (logging.warning if train else logging.info)(
        "%s %s: %d file(s) for %d input pipelines: each pipeline reads every record and "
        "keeps 1 in %d%s", info.problem, info.split, files, pipelines, pipelines,
        f"; t2t-datagen --num_shards=N, N a multiple of {pipelines}, lets each read whole "
        f"files of its own" if train else "")
    return False
  fewest, most = files // pipelines, -(-files // pipelines)
  logging.info("%s %s: %d files for %d input pipelines: each reads %s whole files of its own",
               info.problem, info.split, files, pipelines,
               fewest if fewest == most else f"{fewest} or {most}")
  return True


def _check_sharding(num_shards, shard_index):
  if num_shards < 1 or not 0 <= shard_index < num_shards:
    raise UserError(f"input sharding num_shards={num_shards}, shard_index={shard_index} is "
                    f"invalid; need num_shards >= 1 and 0 <= shard_index < num_shards")


def _report_long_examples(info, max_length):
  """Logs how many training examples exceed max_length; UserError when all of them do."""
  dropped = info.count_longer_than(max_length)
  if dropped == info.examples:
    raise UserError(f"every '{info.split}' example of {info.problem} is longer than "
                    f"max_length={max_length} tokens; raise it with --hparams=max_length=N")
  if dropped:
    logging.warning("%s %s: training skips %d of %d examples (%.2f%%) longer than "
                    "max_length=%d tokens (in the whole split, before input sharding)",
                    info.problem, info.split, dropped, info.examples,
                    100.0 * dropped / info.examples, max_length)
