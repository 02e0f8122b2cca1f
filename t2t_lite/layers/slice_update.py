"""`keras.ops.slice_update` with an ordinary TensorFlow kernel: the decoding caches' writes.

Keras's TensorFlow backend writes a slice with `XlaDynamicUpdateSlice`, an op with no CPU
kernel of its own: outside an XLA cluster TensorFlow compiles it on demand, once for each
new shape, and runs it through XLA's runtime. A search whose batch shrinks as sentences
retire (t2t_lite/decoding/retiring.py) meets a new shape at nearly every step of its first
batches, and every later write pays the runtime's launch and copy. `TensorStridedSliceUpdate`
is TensorFlow's own kernel for the same write (XLA compiles it as well, inside a
`jit_compile` function). Other backends keep `keras.ops.slice_update`.

The writes stay in bounds by construction (a cache position below its capacity); unlike
XLA's op, this one does not clamp a start that would run past the end.
"""

import keras
from keras import ops


def slice_update(inputs, start_indices, updates):
  """`inputs` with `updates` written from `start_indices` (one int or scalar per axis)."""
  if keras.backend.backend() != "tensorflow":
    return ops.slice_update(inputs, start_indices, updates)
  import tensorflow as tf
  begin = tf.stack([tf.cast(start, tf.int32) for start in start_indices])  # [rank]
  return tf.raw_ops.TensorStridedSliceUpdate(
      input=inputs, begin=begin, end=begin + tf.shape(updates, out_type=tf.int32),
      strides=tf.ones_like(begin), value=updates)
