"""The decoding caches' writes: ordinary TensorFlow kernels, the values of keras.ops.slice_update."""

import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from t2t_lite.layers.attention import MultiHeadAttention
from t2t_lite.layers.slice_update import slice_update


@pytest.mark.parametrize("start", [(0, 0, 0, 0), (0, 0, 5, 0), (0, 0, 7, 0), (1, 2, 3, 1)])
def test_the_write_gives_keras_values(start):
  rng = np.random.default_rng(0)
  cache = rng.normal(size=(3, 4, 8, 5)).astype("float32")
  update = rng.normal(size=(2, 2, 1, 4)).astype("float32")
  expected = ops.slice_update(cache, start, update)
  np.testing.assert_array_equal(slice_update(cache, start, update), expected)
  tensor_start = tuple(tf.constant(index) for index in start)
  np.testing.assert_array_equal(slice_update(cache, tensor_start, update), expected)


@pytest.mark.parametrize("jit_compile", [False, True])
def test_the_write_in_a_function_of_open_batch_size(jit_compile):
  """A search's tf.function (retiring shrinks its batch; XLA compiles the decoder on GPUs)."""
  rng = np.random.default_rng(1)
  cache = rng.normal(size=(6, 2, 8, 3)).astype("float32")
  update = rng.normal(size=(6, 2, 1, 3)).astype("float32")
  write = tf.function(lambda c, u, step: slice_update(c, (0, 0, step, 0), u),
                      input_signature=[tf.TensorSpec([None, 2, 8, 3]),
                                       tf.TensorSpec([None, 2, 1, 3]),
                                       tf.TensorSpec([], tf.int32)],
                      jit_compile=jit_compile)
  for rows in (6, 2):
    np.testing.assert_array_equal(
        write(cache[:rows], update[:rows], tf.constant(4)),
        ops.slice_update(cache[:rows], (0, 0, 4, 0), update[:rows]))


def test_a_cached_attention_step_holds_no_op_compiled_on_demand():
  """XlaDynamicUpdateSlice has no CPU kernel: off XLA, TensorFlow compiles it for each new
  shape (the module doc of t2t_lite/layers/slice_update.py)."""
  layer = MultiHeadAttention(num_heads=2, key_channels=8, value_channels=8, output_size=8)
  query = tf.zeros([3, 1, 8])
  cache = tf.zeros([3, 2, 6, 4])
  layer.call_with_cache(query, 0, cache, cache, tf.zeros([3, 1, 1, 6]))  # Builds it.
  step = tf.function(lambda q, s, k, v, b: layer.call_with_cache(q, s, k, v, b))
  graph = step.get_concrete_function(query, tf.constant(2), cache, cache,
                                     tf.zeros([3, 1, 1, 6])).graph
  kinds = {op.type for op in graph.get_operations()}
  assert "TensorStridedSliceUpdate" in kinds
  assert "XlaDynamicUpdateSlice" not in kinds
