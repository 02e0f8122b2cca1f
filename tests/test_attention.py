"""MultiHeadAttention.attend: its fused path (keras.ops.dot_product_attention) gives what its
explicit path (float32 softmax, dropout, einsums) gives; dropout, d_k != d_v and backends
outside FUSED_BACKENDS (TensorFlow) keep the explicit path.

Run as a script (KERAS_BACKEND=jax; jax_checks.py does), it makes the same comparison on
Keras's JAX backend.
"""

import numpy as np
import pytest

import keras

from t2t_lite.layers import attention
from t2t_lite.layers.attention import MultiHeadAttention
from t2t_lite.layers.attention_bias import causal_bias, padding_bias

D_MODEL, HEADS, DEPTH = 32, 4, 12   # d_k = 12: the scale 12**-0.5 is inexact in float32
BATCH, QUERIES, KEYS = 3, 7, 9

# Both paths do the same float32 arithmetic in other orders (the scale multiplies the
# queries or the logits; the backends contract the einsums their own ways). A sum of n
# terms of size ~1 computed in two orders differs by at most ~n * eps (float32 eps 1.2e-7);
# the longest sums here have D_MODEL terms (projections) and each output is ~1, so a few
# times D_MODEL * eps covers the chain of projections, logits, softmax and average
# (4 * 32 * 1.2e-7 = 1.5e-5), while a wrong mask or scale moves outputs by ~0.1.
TOLERANCE = 4 * D_MODEL * np.finfo(np.float32).eps


def layer_and_inputs(kind, dropout=0.0, value_depth=DEPTH, seed=0):
  """-> (layer, query_input [b, t, d], keys [b, s, h, d_k], values [b, s, h, d_v], bias),
  `kind` "padding" (encoder-decoder: keys of other lengths, padding masked) or "causal"
  (self-attention: s == t, future positions masked)."""
  keras.utils.set_random_seed(seed)
  layer = MultiHeadAttention(HEADS, HEADS * DEPTH, HEADS * value_depth, D_MODEL, dropout,
                             dtype="float32")
  rng = np.random.default_rng(seed)
  query_input = rng.normal(size=(BATCH, QUERIES, D_MODEL)).astype("float32")
  if kind == "padding":
    memory = rng.normal(size=(BATCH, KEYS, D_MODEL)).astype("float32")
    ids = np.ones((BATCH, KEYS), "int32")
    ids[1, 5:] = 0   # keys 5.. of example 1 and 1.. of example 2 are padding
    ids[2, 1:] = 0
    bias = padding_bias(ids)                                        # [b, 1, 1, s]
  else:
    memory = query_input
    bias = causal_bias(QUERIES)                                     # [1, 1, t, t]
  keys, values = layer.project_memory(memory)
  return layer, query_input, keys, values, bias


def fused_and_explicit(kind):
  """The context [b, t, h, d_v] of the fused and of the explicit path, as numpy arrays."""
  layer, query_input, keys, values, bias = layer_and_inputs(kind)
  fused = layer._fused_context(query_input, keys, values, bias)
  explicit = layer._explicit_context(query_input, keys, values, bias, training=False)
  return np.asarray(fused), np.asarray(explicit)


@pytest.mark.parametrize("kind", ["padding", "causal"])
def test_the_fused_path_computes_the_explicit_paths_attention(kind):
  fused, explicit = fused_and_explicit(kind)
  assert fused.shape == (BATCH, QUERIES, HEADS, DEPTH)
  np.testing.assert_allclose(fused, explicit, rtol=0, atol=TOLERANCE)


def count_fused_calls(monkeypatch, fused_here=True):
  """-> the list `_fused_context` appends to when called; `fused_here`: this backend (the
  tests': TensorFlow) is one `attend` takes the fused path on, so as to test its choice."""
  if fused_here:
    monkeypatch.setattr(attention, "FUSED_BACKENDS", (keras.backend.backend(),))
  calls = []
  original = MultiHeadAttention._fused_context
  def counted(self, *args):
    calls.append(1)
    return original(self, *args)
  monkeypatch.setattr(MultiHeadAttention, "_fused_context", counted)
  return calls


def test_attention_dropout_in_training_takes_the_explicit_path(monkeypatch):
  calls = count_fused_calls(monkeypatch)
  layer, query_input, keys, values, bias = layer_and_inputs("padding", dropout=0.5)
  first = np.asarray(layer.attend(query_input, keys, values, bias, training=True))
  second = np.asarray(layer.attend(query_input, keys, values, bias, training=True))
  assert not calls
  assert not np.allclose(first, second)   # the weights' dropout masks differ
  inference = [np.asarray(layer.attend(query_input, keys, values, bias, training=False))
               for _ in range(2)]
  assert len(calls) == 2
  np.testing.assert_array_equal(*inference)


def test_key_depth_other_than_value_depth_takes_the_explicit_path(monkeypatch):
  calls = count_fused_calls(monkeypatch)
  layer, query_input, keys, values, bias = layer_and_inputs("causal", value_depth=20)
  output = layer.attend(query_input, keys, values, bias)
  assert not calls
  assert tuple(output.shape) == (BATCH, QUERIES, D_MODEL)


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="TensorFlow's choice")
def test_tensorflow_keeps_the_explicit_path(monkeypatch):
  calls = count_fused_calls(monkeypatch, fused_here=False)
  layer, query_input, keys, values, bias = layer_and_inputs("padding")
  output = layer.attend(query_input, keys, values, bias, training=False)
  assert not calls
  explicit = layer.output_dense(layer._explicit_context(query_input, keys, values, bias, False))
  np.testing.assert_array_equal(output, explicit)


def test_the_fused_path_computes_the_explicit_paths_attention_on_jax(jax_checks):
  """This file's `__main__` part, run by the `jax_checks` fixture."""
  assert "jax attention ok" in jax_checks["stdout"], jax_checks["stderr"][-3000:]


if __name__ == "__main__":
  assert keras.backend.backend() == "jax", keras.backend.backend()
  for kind in ("padding", "causal"):
    fused, explicit = fused_and_explicit(kind)
    np.testing.assert_allclose(fused, explicit, rtol=0, atol=TOLERANCE, err_msg=kind)
  # attend takes the fused path on JAX.
  layer, query_input, keys, values, bias = layer_and_inputs("padding")
  np.testing.assert_array_equal(
      layer.attend(query_input, keys, values, bias, training=True),
      layer.output_dense(layer._fused_context(query_input, keys, values, bias)))
  print("jax attention ok")
