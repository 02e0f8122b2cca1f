"""Multi-head scaled dot-product attention (paper section 3.2)."""

import keras
from keras import ops

from t2t_lite.layers.built_by_first_call import BuiltByFirstCall
from t2t_lite.layers.dropout import Dropout
from t2t_lite.layers.head_projection import HeadProjection
from t2t_lite.layers.slice_update import slice_update

# The backends whose keras.ops.dot_product_attention `attend` uses (see `_fused_context`).
FUSED_BACKENDS = ("jax",)


class MultiHeadAttention(BuiltByFirstCall, keras.layers.Layer):
  """Attention with separate total key and value depths (paper Table 3 rows A and B).

  Args:
    num_heads: h.
    key_channels: h * d_k (queries and keys).
    value_channels: h * d_v.
    output_size: d_model.
    dropout: dropout rate on the attention weights.
  """

  def __init__(self, num_heads, key_channels, value_channels, output_size, dropout=0.0,
               **kwargs):
    super().__init__(**kwargs)
    self.num_heads = num_heads
    self.key_depth = key_channels // num_heads
    self.value_depth = value_channels // num_heads
    self.query_dense = HeadProjection((output_size,), (num_heads, self.key_depth),
                                      name="query")
    self.key_dense = HeadProjection((output_size,), (num_heads, self.key_depth), name="key")
    self.value_dense = HeadProjection((output_size,), (num_heads, self.value_depth),
                                      name="value")
    self.output_dense = HeadProjection((num_heads, self.value_depth), (output_size,),
                                       name="output")
    self.dropout = Dropout(dropout)

  def project_memory(self, memory):
    """[batch, length, d_model] -> keys [batch, length, heads, d_k], values [..., d_v]."""
    return self.key_dense(memory), self.value_dense(memory)

  def attention_probabilities(self, query_input, keys, bias):
    """The weights `attend` puts on each key, before dropout: softmax(q k^T / sqrt(d_k) + bias).

    query_input: [batch, queries, d_model]; keys: [batch, keys, heads, d_k] (projected);
    `bias` broadcasts to [batch, heads, queries, keys].
    Returns [batch, heads, queries, keys] float32, each row summing to 1.
    """
    return self._probabilities(query_input, keys, bias, "bthk,bshk->bhts")

  def _probabilities(self, query_input, keys, bias, equation):
    """softmax(q k^T / sqrt(d_k) + bias) -> [batch, heads, queries, keys] float32, where
    `equation` multiplies queries [b, t, h, d_k] with keys in their layout."""
    queries = self.query_dense(query_input) * (self.key_depth ** -0.5)  # [b, t, h, d_k]
    logits = ops.einsum(equation, queries, keys)                         # [b, h, t, s]
    # Softmax in float32 whatever the compute dtype.
    # Keras casts a layer's float arguments to its compute dtype: add the bias in float32.
    return ops.softmax(ops.cast(logits, "float32") + ops.cast(bias, "float32"), axis=-1)

  def memory_probabilities(self, query_input, memory, bias):
    """The weights `call(query_input, memory, bias)` puts on each memory position.

    memory: [batch, s, d_model] (unprojected). Returns [batch, heads, queries, s] float32.
    """
    keys, _ = self.project_memory(memory)
    return self.attention_probabilities(query_input, keys, bias)

  def attend(self, query_input, keys, values, bias, training=None):
    """Attends from `query_input` [batch, queries, d_model] to projected keys and values.

    `bias` broadcasts to [batch, heads, queries, keys]. Returns [batch, queries, d_model].
    On a `FUSED_BACKENDS` backend, without dropout on the weights and with d_k == d_v,
    through keras.ops.dot_product_attention (`_fused_context`); else `_explicit_context`.
    """
    if (keras.backend.backend() in FUSED_BACKENDS and self.key_depth == self.value_depth
        and not (training and self.dropout.rate > 0)):   # as keras.layers.Dropout decides
      context = self._fused_context(query_input, keys, values, bias)
    else:
      context = self._explicit_context(query_input, keys, values, bias, training)
    return self.output_dense(context)                                    # [b, t, d_model]

  def _explicit_context(self, query_input, keys, values, bias, training):
    """The weights (float32 softmax), dropout on them, the values they average: [b, t, h, d_v]."""
    weights = self.attention_probabilities(query_input, keys, bias)      # [b, h, t, s]
    weights = self.dropout(ops.cast(weights, self.compute_dtype), training=training)
    return ops.einsum("bhts,bshv->bthv", weights, values)                # [b, t, h, d_v]

  def _fused_context(self, query_input, keys, values, bias):
    """`_explicit_context` without dropout, for d_k == d_v (jax.nn's need): [b, t, h, d_v].

    Keras 3.15's dot_product_attention (keras/src/backend/{jax,tensorflow}/nn.py):
      JAX: jax.nn.dot_product_attention, "cudnn" (flash attention) for float16/bfloat16 on an
        Ampere or later GPU, else "xla"; both softmax in float32, as `_explicit_context`
        does. cuDNN needs the bias's last two dims whole, else Keras quietly takes "xla":
        the bias is broadcast, heads too ([b, h, t, s] and [1, h, t, s] are the shapes
        JAX's cuDNN tests use). On a TPU Keras's flash path drops the bias (`_flash_attention`).
      TensorFlow: no fused kernel; the same einsums and float32 softmax (the same numbers up
        to round-off) but, forward and backward on CPU, ~40% slower: not used there.
    """
    queries = self.query_dense(query_input)                              # [b, t, h, d_k]
    shape = (ops.shape(bias)[0], self.num_heads, ops.shape(queries)[1], ops.shape(keys)[1])
    bias = ops.broadcast_to(ops.cast(bias, self.compute_dtype), shape)   # [b or 1, h, t, s]
    return ops.dot_product_attention(queries, keys, values, bias=bias,
                                     scale=self.key_depth ** -0.5,
                                     flash_attention=_flash_attention())  # [b, t, h, d_v]

  def call(self, query_input, memory, bias, training=None):
    """Full attention: queries [batch, t, d_model] over memory [batch, s, d_model]."""
    keys, values = self.project_memory(memory)
    return self.attend(query_input, keys, values, bias, training=training)

  def project_cache(self, memory):
    """[batch, length, d_model] -> keys [batch, heads, length, d_k], values [..., d_v].

    The decoding cache's layout: heads first, so that the batched products of
    `attend_cached` read it as it is; the layout of `project_memory` would make
    every decoding step transpose (copy) the whole cache.
    """
    keys, values = self.project_memory(memory)
    return ops.transpose(keys, (0, 2, 1, 3)), ops.transpose(values, (0, 2, 1, 3))

  def attend_cached(self, query_input, keys, values, bias):
    """`attend` at inference (no dropout) over heads-first keys and values (`project_cache`):
    query_input [batch, queries, d_model] -> [batch, queries, d_model]."""
    weights = self._probabilities(query_input, keys, bias, "bthk,bhsk->bhts")  # [b, h, t, s]
    context = ops.einsum("bhts,bhsv->bthv", ops.cast(weights, self.compute_dtype),
                         values)                                         # [b, t, h, d_v]
    return self.output_dense(context)                                    # [b, t, d_model]

  def attend_cached_per_example(self, query_input, keys, values, bias):
    """`attend_cached` for a search's hypotheses: query_input [batch * k, 1, d_model] (k
    per example, example-major) over keys and values [batch, heads, s, depth] that an
    example's k hypotheses share -> [batch * k, 1, d_model]. Each example's k queries are
    one product: the keys are neither copied k times nor reordered with the beams."""
    batch, d_model = ops.shape(keys)[0], query_input.shape[-1]
    queries = ops.reshape(query_input, (batch, -1, d_model))             # [batch, k, d_model]
    output = self.attend_cached(queries, keys, values, bias)             # [batch, k, d_model]
    return ops.reshape(output, (-1, 1, output.shape[-1]))                # [batch * k, 1, ...]

  def call_with_cache(self, query_input, step, cached_keys, cached_values, bias):
    """Self-attention of one new position over a cache of static size (inference only).

    query_input: [batch, 1, d_model], the input at position `step`.
    cached_keys: [batch, heads, cache_length, d_k]; cached_values likewise with d_v.
    Writes this position's key and value at index `step` (static shapes: XLA-ready)
    and returns (output [batch, 1, d_model], new keys, new values).
    """
    new_key, new_value = self.project_cache(query_input)  # [batch, heads, 1, depth]
    start = (0, 0, step, 0)
    cached_keys = slice_update(cached_keys, start, ops.cast(new_key, cached_keys.dtype))
    cached_values = slice_update(cached_values, start,
                                 ops.cast(new_value, cached_values.dtype))
    output = self.attend_cached(query_input, cached_keys, cached_values, bias)
    return output, cached_keys, cached_values


def _flash_attention():
  """dot_product_attention's `flash_attention`: None (Keras picks) except on a TPU, where
  Keras 3.15's flash path (the splash kernel) ignores `bias` and masks causally: False."""
  if keras.backend.backend() == "jax":
    import jax
    if jax.devices()[0].platform == "tpu":
      return False
  return None
