"""Dropout whose keep mask draws a half or a quarter of Keras's random bits."""

import keras

# The mask compares 16-bit random integers with a threshold: the drop rate is rounded to
# a multiple of 2^-16 (0.1 -> 0.1000061), and the kept values are scaled by the inverse of
# the rounded keep rate, so every output's expectation is its input, as in Keras's dropout.
_LEVELS = 1 << 16


class Dropout(keras.layers.Dropout):
  """`keras.layers.Dropout`, cheaper on TensorFlow and JAX: each element's keep mask
  compares a 16-bit random integer with a threshold (see `_threshold_and_scale`).

  TensorFlow: Keras draws a 32-bit random number per element and turns it into a
  float32 uniform; here one 32-bit draw serves two elements. On a 2-core AVX-512 CPU,
  dropout over a million elements, forward and backward, took 2.9 ms against Keras's
  3.9, and the transformer_base training step 1-3% less (interleaved A/B runs).
  JAX: Keras's Bernoulli draw hashes (Threefry-2x32) once per element; here one hash
  gives 64 bits, four elements' worth (`_jax_dropout`).
  Other backends, noise shapes and rates of 0 or 1 take Keras's path.
  """

  def call(self, inputs, training=False):
    if training and 0.0 < self.rate < 1.0 and self.noise_shape is None:
      backend = keras.backend.backend()
      if backend == "tensorflow":
        return _tensorflow_dropout(inputs, self.rate, self.seed_generator.next())
      if backend == "jax":
        return _jax_dropout(inputs, self.rate, self.seed_generator.next())
    return super().call(inputs, training=training)


def _threshold_and_scale(rate):
  """-> (16-bit integers below this are dropped, the kept values' scale)."""
  threshold = max(1, min(_LEVELS - 1, round(rate * _LEVELS)))
  return threshold, _LEVELS / (_LEVELS - threshold)


def _tensorflow_dropout(inputs, rate, seed):
  """inputs with each element zeroed with probability ~rate, the rest scaled up."""
  import tensorflow as tf  # Only reached on the TensorFlow backend.
  threshold, scale = _threshold_and_scale(rate)
  seed = tf.cast(tf.math.floormod(seed, tf.int32.max - 1), tf.int32)  # As Keras's dropout.
  count = tf.size(inputs)
  words = tf.random.stateless_uniform([(count + 1) // 2], seed, minval=None, maxval=None,
                                      dtype=tf.uint32)                 # [ceil(count / 2)]
  halves = tf.reshape(tf.bitcast(words, tf.uint16), [-1])[:count]     # [count]
  keep = tf.reshape(halves >= threshold, tf.shape(inputs))
  return tf.where(keep, inputs * tf.cast(scale, inputs.dtype), tf.zeros_like(inputs))


def _jax_dropout(inputs, rate, seed):
  """As `_tensorflow_dropout`; seed: the uint32 [2] key Keras's seed generator gives.

  Threefry-2x32 hashes counters in pairs (two 32-bit words in, two out), so hashing
  ceil(count / 2) counters takes ceil(count / 4) hashes for count 16-bit integers.
  """
  import jax  # Only reached on the JAX backend.
  from jax.extend.random import threefry_2x32
  threshold, scale = _threshold_and_scale(rate)
  count = inputs.size
  counters = jax.lax.iota(jax.numpy.uint32, (count + 1) // 2)         # [ceil(count / 2)]
  words = threefry_2x32(seed, counters)                               # [ceil(count / 2)]
  halves = jax.lax.bitcast_convert_type(words, jax.numpy.uint16).reshape(-1)[:count]
  keep = (halves >= threshold).reshape(inputs.shape)
  return jax.lax.select(keep, inputs * jax.numpy.asarray(scale, inputs.dtype),
                        jax.numpy.zeros_like(inputs))
