"""Dropout whose keep mask draws half the random bits on TensorFlow."""

import keras

# The mask compares 16-bit random integers with a threshold: the drop rate is rounded to
# a multiple of 2^-16 (0.1 -> 0.1000061), and the kept values are scaled by the inverse of
# the rounded keep rate, so every output's expectation is its input, as in Keras's dropout.
_LEVELS = 1 << 16


class Dropout(keras.layers.Dropout):
  """`keras.layers.Dropout`, cheaper on TensorFlow (see module doc and `_tensorflow_dropout`).

  Keras's TensorFlow dropout draws a 32-bit random number per element and turns it into
  a float32 uniform; here one 32-bit draw serves two elements as two 16-bit integers. On
  a 2-core AVX-512 CPU, dropout over a million elements, forward and backward, took 2.9 ms
  against Keras's 3.9, and the transformer_base training step 1-3% less (interleaved
  A/B runs). Other backends, noise shapes and rates of 0 or 1 take Keras's path.
  """

  def call(self, inputs, training=False):
    if (training and 0.0 < self.rate < 1.0 and self.noise_shape is None
        and keras.backend.backend() == "tensorflow"):
      return _tensorflow_dropout(inputs, self.rate, self.seed_generator.next())
    return super().call(inputs, training=training)


def _tensorflow_dropout(inputs, rate, seed):
  """inputs with each element zeroed with probability ~rate, the rest scaled up."""
  import tensorflow as tf  # Only reached on the TensorFlow backend.
  threshold = max(1, min(_LEVELS - 1, round(rate * _LEVELS)))
  seed = tf.cast(tf.math.floormod(seed, tf.int32.max - 1), tf.int32)  # As Keras's dropout.
  count = tf.size(inputs)
  words = tf.random.stateless_uniform([(count + 1) // 2], seed, minval=None, maxval=None,
                                      dtype=tf.uint32)                 # [ceil(count / 2)]
  halves = tf.reshape(tf.bitcast(words, tf.uint16), [-1])[:count]     # [count]
  keep = tf.reshape(halves >= threshold, tf.shape(inputs))
  scale = tf.cast(_LEVELS / (_LEVELS - threshold), inputs.dtype)
  return tf.where(keep, inputs * scale, tf.zeros_like(inputs))
