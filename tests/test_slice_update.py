"""The decoding caches' writes: TensorFlow's own kernel where no XLA compiles, keras's values."""

import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from model_fixtures import small_model
from t2t_lite.decoding.model_decoding import decode_ids
from t2t_lite.layers.slice_update import slice_update, tensorflow_kernel_writes


def kinds_of_ops(graph):
  """The op types of `graph` and of the functions it calls (a while loop's body)."""
  kinds = {op.type for op in graph.get_operations()}
  for function in graph._functions.values():  # pylint: disable=protected-access
    kinds |= {node.op for node in function.definition.node_def}
  return kinds


@pytest.mark.parametrize("start", [(0, 0, 0, 0), (0, 0, 5, 0), (0, 0, 7, 0), (1, 2, 3, 1)])
def test_the_write_gives_keras_values(start):
  rng = np.random.default_rng(0)
  cache = rng.normal(size=(3, 4, 8, 5)).astype("float32")
  update = rng.normal(size=(2, 2, 1, 4)).astype("float32")
  expected = ops.slice_update(cache, start, update)
  with tensorflow_kernel_writes():
    np.testing.assert_array_equal(slice_update(cache, start, update), expected)
    tensor_start = tuple(tf.constant(index) for index in start)
    np.testing.assert_array_equal(slice_update(cache, tensor_start, update), expected)


@pytest.mark.parametrize("kernel_writes", [False, True])
def test_a_function_of_open_batch_size_writes_with_the_kernel_it_asked_for(kernel_writes):
  """A retiring search's batch shrinks: one trace serves every batch size."""
  rng = np.random.default_rng(1)
  cache = rng.normal(size=(6, 2, 8, 3)).astype("float32")
  update = rng.normal(size=(6, 2, 1, 3)).astype("float32")

  def write(c, u, step):
    if kernel_writes:
      with tensorflow_kernel_writes():
        return slice_update(c, (0, 0, step, 0), u)
    return slice_update(c, (0, 0, step, 0), u)
  function = tf.function(write, input_signature=[tf.TensorSpec([None, 2, 8, 3]),
                                                 tf.TensorSpec([None, 2, 1, 3]),
                                                 tf.TensorSpec([], tf.int32)])
  for rows in (6, 2):
    np.testing.assert_array_equal(
        function(cache[:rows], update[:rows], tf.constant(4)),
        ops.slice_update(cache[:rows], (0, 0, 4, 0), update[:rows]))
  kinds = kinds_of_ops(function.get_concrete_function().graph)
  assert ("TensorStridedSliceUpdate" in kinds) == kernel_writes
  assert ("XlaDynamicUpdateSlice" in kinds) != kernel_writes


def test_xla_compiles_the_searches_writes_outside_the_kernels_scope():
  write = tf.function(lambda c, u, step: slice_update(c, (0, 0, step, 0), u), jit_compile=True)
  cache, update = tf.zeros([2, 1, 4, 3]), tf.ones([2, 1, 1, 3])
  np.testing.assert_array_equal(write(cache, update, tf.constant(3)),
                                ops.slice_update(cache, (0, 0, 3, 0), update))


@pytest.mark.parametrize("retire_finished", [False, True])
def test_only_the_retiring_search_writes_with_tensorflows_own_kernel(retire_finished):
  """XlaDynamicUpdateSlice has no CPU kernel: off XLA, TensorFlow compiles it for each new
  shape, which the retiring search meets at nearly every step (slice_update.py's doc)."""
  model = small_model()
  search = tf.function(lambda inputs: decode_ids(model, inputs, beam_size=2, alpha=0.6,
                                                 extra_length=3,
                                                 retire_finished=retire_finished))
  kinds = kinds_of_ops(search.get_concrete_function(tf.TensorSpec([None, 5], tf.int32)).graph)
  assert ("TensorStridedSliceUpdate" in kinds) == retire_finished
  assert ("XlaDynamicUpdateSlice" in kinds) != retire_finished
