"""The decoder stack (paper section 3.1), teacher-forced or one step at a time."""

import keras

from t2t_lite.layers.built_by_first_call import BuiltByFirstCall
from t2t_lite.layers.encoder import (apply_final_norm, attention_layer, final_norm,
                                     sublayer_residual)
from t2t_lite.layers.feed_forward import FeedForward


class DecoderLayer(BuiltByFirstCall, keras.layers.Layer):
  """Masked self-attention, encoder-decoder attention, feed-forward network."""

  def __init__(self, hparams, **kwargs):
    super().__init__(**kwargs)
    self.self_attention = attention_layer(hparams, "self_attention")
    self.self_attention_residual = sublayer_residual(hparams, "self_attention_residual")
    self.memory_attention = attention_layer(hparams, "memory_attention")
    self.memory_attention_residual = sublayer_residual(hparams, "memory_attention_residual")
    self.feed_forward = FeedForward(hparams.filter_size, hparams.hidden_size,
                                    hparams.relu_dropout, name="feed_forward")
    self.feed_forward_residual = sublayer_residual(hparams, "feed_forward_residual")
    self.built = True

  def call(self, x, memory, self_bias, memory_bias, training=None):
    """Teacher-forced pass.

    x: [batch, t, d_model]; memory: [batch, s, d_model];
    self_bias: [1, 1, t, t] (causal); memory_bias: [batch, 1, 1, s]. -> [batch, t, d_model].
    """
    x = self._self_attend(x, self_bias, training)
    keys, values = self.memory_attention.project_memory(memory)
    y = self.memory_attention.attend(self.memory_attention_residual.preprocess(x), keys, values,
                                     memory_bias, training=training)
    return self._memory_residual_and_feed_forward(x, y, training)

  def attention_weights(self, x, memory, self_bias, memory_bias):
    """The weights `call` applies (inference mode, no dropout), inputs as for `call`:
    -> (self-attention [batch, heads, t, t], encoder-decoder [batch, heads, t, s]) float32."""
    y = self.self_attention_residual.preprocess(x)
    self_weights = self.self_attention.memory_probabilities(y, y, self_bias)
    y = self.memory_attention_residual.preprocess(self._self_attend(x, self_bias, False))
    return self_weights, self.memory_attention.memory_probabilities(y, memory, memory_bias)

  def _self_attend(self, x, self_bias, training):
    """The self-attention sublayer with its residual: [batch, t, d_model] -> same."""
    y = self.self_attention_residual.preprocess(x)
    y = self.self_attention(y, y, self_bias, training=training)
    return self.self_attention_residual.postprocess(x, y, training=training)

  def step(self, x, step, layer_cache, memory_cache, self_bias, memory_bias):
    """One position at inference: x [rows, 1, d_model] at index `step`, rows = batch * k
    (k hypotheses of each example, example-major).

    layer_cache holds "keys"/"values" [rows, heads, cache_length, depth] of this
    layer's self-attention; memory_cache "keys"/"values" [batch, heads, s, depth], which
    the k hypotheses of an example share (heads first: `MultiHeadAttention.project_cache`);
    memory_bias is [batch, 1, 1, s].
    Returns ([rows, 1, d_model], the updated layer cache).
    """
    y = self.self_attention_residual.preprocess(x)
    y, keys, values = self.self_attention.call_with_cache(
        y, step, layer_cache["keys"], layer_cache["values"], self_bias)
    x = self.self_attention_residual.postprocess(x, y, training=False)
    y = self.memory_attention.attend_cached_per_example(
        self.memory_attention_residual.preprocess(x), memory_cache["keys"],
        memory_cache["values"], memory_bias)
    x = self._memory_residual_and_feed_forward(x, y, False)
    return x, dict(layer_cache, keys=keys, values=values)

  def _memory_residual_and_feed_forward(self, x, y, training):
    """The encoder-decoder attention's residual (y: its output), then the feed-forward
    sublayer: [batch, t, d_model] -> same."""
    x = self.memory_attention_residual.postprocess(x, y, training=training)
    y = self.feed_forward(self.feed_forward_residual.preprocess(x), training=training)
    return self.feed_forward_residual.postprocess(x, y, training=training)


class Decoder(BuiltByFirstCall, keras.layers.Layer):
  """N decoder layers (and a final norm when pre-norm)."""

  def __init__(self, hparams, **kwargs):
    super().__init__(**kwargs)
    # Attributes, not a list: TensorFlow checkpoints track a layer's attributes only.
    self.num_layers = hparams.num_hidden_layers
    for i in range(self.num_layers):
      setattr(self, f"layer_{i}", DecoderLayer(hparams, name=f"layer_{i}"))
    self.final_norm = final_norm(hparams)
    self.built = True

  @property
  def blocks(self):
    """The N layers, bottom first."""
    return [getattr(self, f"layer_{i}") for i in range(self.num_layers)]

  def call(self, x, memory, self_bias, memory_bias, training=None):
    """x [batch, t, d_model] (embedded targets, shifted right) -> [batch, t, d_model]."""
    for layer in self.blocks:
      x = layer(x, memory, self_bias, memory_bias, training=training)
    return apply_final_norm(self.final_norm, x)

  def attention_weights(self, x, memory, self_bias, memory_bias):
    """Inference-mode weights of every layer, bottom first, inputs as for `call`:
    -> (self-attention [layers] of [batch, heads, t, t],
        encoder-decoder [layers] of [batch, heads, t, s])."""
    self_weights, memory_weights = [], []
    for layer in self.blocks:
      weights = layer.attention_weights(x, memory, self_bias, memory_bias)
      self_weights.append(weights[0])
      memory_weights.append(weights[1])
      x = layer(x, memory, self_bias, memory_bias, training=False)
    return self_weights, memory_weights

  def step(self, x, step, layer_caches, memory_caches, self_bias, memory_bias):
    """x [rows, 1, d_model] -> ([rows, 1, d_model], updated list of layer caches); the
    arguments as `DecoderLayer.step` takes them, the caches one per layer."""
    new_caches = []
    for layer, layer_cache, memory_cache in zip(self.blocks, layer_caches, memory_caches):
      x, layer_cache = layer.step(x, step, layer_cache, memory_cache, self_bias, memory_bias)
      new_caches.append(layer_cache)
    return apply_final_norm(self.final_norm, x), new_caches
