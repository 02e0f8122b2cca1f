"""Residual connection, dropout and layer normalisation around one sublayer."""

import keras

from t2t_lite.layers.dropout import Dropout


class ResidualNorm(keras.layers.Layer):
  """Wraps a sublayer f as post-norm (paper) or pre-norm (tensor2tensor v3).

    post-norm: y = LayerNorm(x + Dropout(f(x)))
    pre-norm:  y = x + Dropout(f(LayerNorm(x)))

  Use as `residual.postprocess(x, f(residual.preprocess(x)))`.
  """

  def __init__(self, pre_norm, dropout, epsilon, **kwargs):
    super().__init__(**kwargs)
    self.pre_norm = pre_norm
    self.norm = keras.layers.LayerNormalization(epsilon=epsilon, dtype="float32", name="norm")
    self.dropout = Dropout(dropout)

  def _normalize(self, x):
    # Normalised in float32, returned in the compute dtype.
    return keras.ops.cast(self.norm(x), x.dtype)

  def preprocess(self, x):
    return self._normalize(x) if self.pre_norm else x

  def postprocess(self, x, sublayer_output, training=None):
    y = x + self.dropout(sublayer_output, training=training)
    return y if self.pre_norm else self._normalize(y)
