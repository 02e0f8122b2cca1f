"""Additive attention biases: 0 where attention may look, a large negative where not.

Biases broadcast against attention logits of shape [batch, heads, queries, keys]
and are added in float32; their large negative value survives a cast to float16.
"""

from keras import ops

from t2t_lite.constants import MASKED_BIAS, PAD_ID


def padding_bias(ids):
  """[batch, length] ids -> [batch, 1, 1, length]: masks the padding keys (id 0)."""
  is_pad = ops.cast(ops.equal(ids, PAD_ID), "float32")
  return ops.expand_dims(ops.expand_dims(is_pad * MASKED_BIAS, 1), 1)


def causal_bias(length):
  """-> [1, 1, length, length]: query i may see keys 0..i only."""
  positions = ops.arange(length)
  future = ops.cast(ops.greater(positions[None, :], positions[:, None]), "float32")
  return ops.reshape(future * MASKED_BIAS, (1, 1, length, length))


def step_bias(step, cache_length):
  """-> [1, 1, 1, cache_length]: at decoding step `step`, keys 0..step are filled."""
  unfilled = ops.cast(ops.greater(ops.arange(cache_length), step), "float32")
  return ops.reshape(unfilled * MASKED_BIAS, (1, 1, 1, cache_length))
