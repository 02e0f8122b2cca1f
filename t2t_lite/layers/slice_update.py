"""`keras.ops.slice_update`, or TensorFlow's own kernel where no XLA compiles the code.

Keras's TensorFlow backend writes a slice with `XlaDynamicUpdateSlice`: right under XLA
(a `jit_compile` function), but an op without a CPU kernel of its own. Outside XLA,
TensorFlow compiles it on demand, once for each new shape, and runs it through XLA's
runtime. The retiring beam search (t2t_lite/decoding/retiring.py) is never compiled by XLA
and its batch shrinks as sentences finish: it meets a new shape at nearly every step of its
first batches (a served SavedModel's first minute ran at 0.6x its later speed), and every
later write pays the runtime's launch and copy. Code traced within `tensorflow_kernel_writes()`
writes with `TensorStridedSliceUpdate`, TensorFlow's ordinary kernel for the same write,
which XLA cannot compile with a start that is not a constant: only code that XLA never
compiles may ask for it.

The writes stay in bounds by construction (a cache position below its capacity); unlike
XLA's op, TensorFlow's does not clamp a start that would run past the end.
"""

import contextlib
import threading

import keras
from keras import ops

_tracing = threading.local()  # .kernel_writes: set within tensorflow_kernel_writes().


@contextlib.contextmanager
def tensorflow_kernel_writes():
  """Within: `slice_update` traces TensorFlow's own kernel on the TensorFlow backend (for
  code that XLA never compiles: the module doc)."""
  before = getattr(_tracing, "kernel_writes", False)
  _tracing.kernel_writes = True
  try:
    yield
  finally:
    _tracing.kernel_writes = before


def slice_update(inputs, start_indices, updates):
  """`inputs` with `updates` written from `start_indices` (one int or scalar per axis)."""
  if not (getattr(_tracing, "kernel_writes", False)
          and keras.backend.backend() == "tensorflow"):
    return ops.slice_update(inputs, start_indices, updates)
  import tensorflow as tf
  begin = tf.stack([tf.cast(start, tf.int32) for start in start_indices])  # [rank]
  return tf.raw_ops.TensorStridedSliceUpdate(
      input=inputs, begin=begin, end=begin + tf.shape(updates, out_type=tf.int32),
      strides=tf.ones_like(begin), value=updates)
