"""Token-based batching in length buckets, as tensor2tensor does it.

Bucket boundaries start at 8 and grow by a factor 1.1 (at least +1) while
below `max_length`; an example goes to the first bucket whose boundary
exceeds its length, the last bucket takes the rest. A bucket's batch holds
`batch_size // boundary` examples (`batch_size // max_length` in the last),
so a padded batch holds at most `batch_size` tokens whenever `batch_size`
is at least `max_length`.
"""

import tensorflow as tf

MIN_BOUNDARY = 8
BOUNDARY_STEP = 1.1


def bucket_boundaries(max_length, min_boundary=MIN_BOUNDARY, step=BOUNDARY_STEP):
  """tensor2tensor's `_bucket_boundaries`: [8, 9, 10, ..., 236] for max_length 256."""
  boundaries, x = [], min_boundary
  while x < max_length:
    boundaries.append(x)
    x = max(x + 1, int(x * step))
  return boundaries


def bucket_batch_sizes(boundaries, batch_size, max_length):
  """Examples per batch of each bucket (len(boundaries) + 1 of them), at least 1."""
  return [max(1, batch_size // length) for length in list(boundaries) + [max_length]]


def xla_bucket_note(hparams):
  """XLA compiles the step once per batch shape: with batches padded to their length
  bucket's boundary, once per bucket. -> that count, and how a larger bucket step cuts it."""
  def buckets(step):
    return len(bucket_boundaries(hparams.max_length, hparams.min_length_bucket, step)) + 1
  count = buckets(hparams.length_bucket_step)
  larger_step = round(hparams.length_bucket_step * 1.5, 2)
  larger_count = buckets(larger_step)
  fewer = (f"; fewer buckets: --hparams=length_bucket_step={larger_step} gives "
           f"{larger_count}" if larger_count < count else "")
  return (f"XLA: training batches are padded to their length bucket's boundary, so the step "
          f"compiles at most {count} times (once per bucket, as the buckets first occur)"
          f"{fewer}")


def example_length(example):
  """max(len(inputs), len(targets)) of one example: what buckets and `max_length` use."""
  return tf.maximum(tf.shape(example["inputs"])[0], tf.shape(example["targets"])[0])


def batch_by_tokens(dataset, batch_size, max_length, *, min_boundary=MIN_BOUNDARY,
                    boundary_step=BOUNDARY_STEP, pad_to_bucket_boundary=False):
  """Groups examples into 0-padded batches of at most about `batch_size` tokens.

  dataset: examples {"inputs": [s] int32, "targets": [t] int32}, none longer
    than `max_length` (filter them first).
  min_boundary, boundary_step: the buckets (see `bucket_boundaries`).
  pad_to_bucket_boundary: pad every batch of a bucket to the same length (the
    bucket's largest, max_length for the last) on both sides, so that batch
    shapes come from a small fixed set (XLA compiles each shape once).
  Returns batches {"inputs": [batch, s] int32, "targets": [batch, t] int32}.
  """
  boundaries = bucket_boundaries(max_length, min_boundary, boundary_step)
  batch_sizes = bucket_batch_sizes(boundaries, batch_size, max_length)
  if pad_to_bucket_boundary:
    # The last bucket's examples, up to max_length, pad to boundary - 1.
    boundaries = boundaries + [max_length + 1]
    batch_sizes = batch_sizes + [batch_sizes[-1]]
  return dataset.bucket_by_sequence_length(
      element_length_func=example_length,
      bucket_boundaries=boundaries,
      bucket_batch_sizes=batch_sizes,
      padded_shapes={"inputs": [None], "targets": [None]},
      padding_values={"inputs": 0, "targets": 0},
      pad_to_bucket_boundary=pad_to_bucket_boundary)
