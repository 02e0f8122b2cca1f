"""The encoder stack (paper section 3.1)."""

import keras

from t2t_lite.layers.attention import MultiHeadAttention
from t2t_lite.layers.built_by_first_call import BuiltByFirstCall
from t2t_lite.layers.feed_forward import FeedForward
from t2t_lite.layers.residual import ResidualNorm


def sublayer_residual(hparams, name):
  return ResidualNorm(hparams.pre_norm, hparams.layer_prepostprocess_dropout,
                      hparams.norm_epsilon, name=name)


def attention_layer(hparams, name):
  return MultiHeadAttention(hparams.num_heads, hparams.key_channels, hparams.value_channels,
                            hparams.hidden_size, hparams.attention_dropout, name=name)


def final_norm(hparams):
  """Pre-norm stacks end with a layer norm; post-norm stacks are already normalised."""
  if not hparams.pre_norm:
    return None
  return keras.layers.LayerNormalization(epsilon=hparams.norm_epsilon, dtype="float32",
                                         name="final_norm")


def apply_final_norm(norm, x):
  """Applies `final_norm`'s layer (if any) in float32; returns x's dtype."""
  return x if norm is None else keras.ops.cast(norm(x), x.dtype)


class EncoderLayer(BuiltByFirstCall, keras.layers.Layer):
  """Self-attention, then the feed-forward network, each inside a `ResidualNorm`."""

  def __init__(self, hparams, **kwargs):
    super().__init__(**kwargs)
    self.self_attention = attention_layer(hparams, "self_attention")
    self.self_attention_residual = sublayer_residual(hparams, "self_attention_residual")
    self.feed_forward = FeedForward(hparams.filter_size, hparams.hidden_size,
                                    hparams.relu_dropout, name="feed_forward")
    self.feed_forward_residual = sublayer_residual(hparams, "feed_forward_residual")
    self.built = True

  def call(self, x, bias, training=None):
    """x [batch, length, d_model], bias [batch, 1, 1, length] -> [batch, length, d_model]."""
    y = self.self_attention_residual.preprocess(x)
    y = self.self_attention(y, y, bias, training=training)
    x = self.self_attention_residual.postprocess(x, y, training=training)
    y = self.feed_forward(self.feed_forward_residual.preprocess(x), training=training)
    return self.feed_forward_residual.postprocess(x, y, training=training)

  def attention_weights(self, x, bias):
    """The self-attention weights `call(x, bias)` applies (no dropout):
    x [batch, length, d_model] -> [batch, heads, length, length] float32."""
    y = self.self_attention_residual.preprocess(x)
    return self.self_attention.memory_probabilities(y, y, bias)


class Encoder(BuiltByFirstCall, keras.layers.Layer):
  """N encoder layers (and a final norm when pre-norm)."""

  def __init__(self, hparams, **kwargs):
    super().__init__(**kwargs)
    # Attributes, not a list: TensorFlow checkpoints track a layer's attributes only.
    self.num_layers = hparams.num_hidden_layers
    for i in range(self.num_layers):
      setattr(self, f"layer_{i}", EncoderLayer(hparams, name=f"layer_{i}"))
    self.final_norm = final_norm(hparams)
    self.built = True

  @property
  def blocks(self):
    """The N layers, bottom first."""
    return [getattr(self, f"layer_{i}") for i in range(self.num_layers)]

  def call(self, x, bias, training=None):
    """x [batch, length, d_model] (embedded), bias [batch, 1, 1, length] -> same shape as x."""
    for layer in self.blocks:
      x = layer(x, bias, training=training)
    return apply_final_norm(self.final_norm, x)

  def attention_weights(self, x, bias):
    """Inference-mode self-attention weights of every layer, bottom first:
    x [batch, length, d_model] (embedded) -> [layers] of [batch, heads, length, length]."""
    weights = []
    for layer in self.blocks:
      weights.append(layer.attention_weights(x, bias))
      x = layer(x, bias, training=False)
    return weights
