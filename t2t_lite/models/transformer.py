"""The Transformer of "Attention Is All You Need" as a Keras 3 model.

Ids: 0 is padding (and the first decoder input, as in tensor2tensor), 1 is EOS.

Training uses `call({"inputs": ..., "targets": ...})`: the teacher-forced pass.
Inference uses the incremental API, which a decoder (greedy or beam) drives as a
pure function:

    memory, memory_bias = model.encode(inputs)
    cache = model.init_cache(memory, memory_bias, max_decode_length)
    for step in range(max_decode_length):
      logits, cache = model.decode_step(ids, step, cache)   # ids: [batch]

The cache is a nested structure of fixed-shape tensors, every one with the batch
first, so a beam search can tile and reorder it with one `keras.tree.map_structure`;
its PER_EXAMPLE entry (the encoder's keys and values) keeps one row per example,
which a search's k hypotheses of that example read together (ids then has batch * k
rows, example-major).
"""

import dataclasses

import keras
from keras import ops

from t2t_lite.built_in import model
from t2t_lite.constants import PER_EXAMPLE
from t2t_lite.errors import UserError
from t2t_lite.models.hyperparameters import HParams
from t2t_lite.layers.attention_bias import causal_bias, padding_bias, step_bias
from t2t_lite.layers.built_by_first_call import BuiltByFirstCall
from t2t_lite.layers.decoder import Decoder
from t2t_lite.layers.dropout import Dropout
from t2t_lite.layers.embedding import PositionalEncoding, TokenEmbedding
from t2t_lite.layers.encoder import Encoder
from t2t_lite.layers.symbol_dropout import SymbolDropout


@model
class Transformer(BuiltByFirstCall, keras.Model):
  """Encoder-decoder Transformer built from `HParams` and vocabulary sizes."""

  def __init__(self, hparams, input_vocab_size, target_vocab_size, **kwargs):
    super().__init__(**kwargs)
    if isinstance(hparams, dict):
      hparams = HParams(**hparams)
    if hparams.shared_embedding and input_vocab_size != target_vocab_size:
      raise UserError(f"shared_embedding=True needs one vocabulary, but inputs have "
                      f"{input_vocab_size} ids and targets {target_vocab_size}; "
                      f"set --hparams=shared_embedding=False")
    self.hparams = hparams
    self.input_vocab_size = input_vocab_size
    self.target_vocab_size = target_vocab_size

    self.target_embedding = TokenEmbedding(target_vocab_size, hparams.hidden_size,
                                           name="target_embedding")
    self.input_embedding = (self.target_embedding if hparams.shared_embedding else
                            TokenEmbedding(input_vocab_size, hparams.hidden_size,
                                           name="input_embedding"))
    self.softmax = (None if hparams.shared_embedding_and_softmax_weights else
                    keras.layers.Dense(target_vocab_size, use_bias=False, name="softmax"))
    self.input_positions = PositionalEncoding(hparams.pos, hparams.hidden_size,
                                              hparams.max_length, name="input_positions")
    self.target_positions = PositionalEncoding(hparams.pos, hparams.hidden_size,
                                               hparams.max_length, name="target_positions")
    self.embedding_dropout = Dropout(hparams.layer_prepostprocess_dropout)
    self.symbol_dropout = SymbolDropout(hparams.symbol_dropout)
    self.encoder = Encoder(hparams, name="encoder")
    self.decoder = Decoder(hparams, name="decoder")

  def get_config(self):
    return {**super().get_config(), "hparams": dataclasses.asdict(self.hparams),
            "input_vocab_size": self.input_vocab_size,
            "target_vocab_size": self.target_vocab_size}

  def call(self, features, training=None):
    """{"inputs": [batch, s], "targets": [batch, t]} -> logits [batch, t, vocab] (float32).

    While training, hparams.symbol_dropout drops input ids and decoder-input ids (the
    targets the loss compares with stay whole)."""
    inputs = self.symbol_dropout(features["inputs"], training=training)
    decoder_inputs = shift_right(self.symbol_dropout(features["targets"], training=training))
    memory, memory_bias = self.encode(inputs, training=training)
    return self.decode(decoder_inputs, memory, memory_bias, training=training)

  def encode(self, inputs, training=None):
    """inputs [batch, s] -> (memory [batch, s, d_model], memory_bias [batch, 1, 1, s])."""
    bias = padding_bias(inputs)
    x = self._embed(self.input_embedding, self.input_positions, inputs, 0, training)
    return self.encoder(x, bias, training=training), bias

  def decode(self, decoder_inputs, memory, memory_bias, training=None):
    """Teacher-forced decoding: decoder_inputs [batch, t] -> logits [batch, t, vocab]."""
    x = self._embed(self.target_embedding, self.target_positions, decoder_inputs, 0, training)
    self_bias = causal_bias(ops.shape(decoder_inputs)[1])
    x = self.decoder(x, memory, self_bias, memory_bias, training=training)
    return self._logits(x)

  def attention_weights(self, inputs, targets):
    """Every attention weight of the teacher-forced pass `call` makes at inference (no dropout).

    inputs [batch, s], targets [batch, t], as for `call`. Returns float32 weights,
    each row summing to 1, a list over layers (bottom first) per kind:
      "encoder": [batch, heads, s, s]  encoder self-attention (padding keys get 0)
      "decoder": [batch, heads, t, t]  decoder self-attention (0 above the diagonal)
      "memory":  [batch, heads, t, s]  encoder-decoder attention (padding keys get 0)
    Decoder row i is the position that predicts targets[:, i]; decoder key j is its
    input, targets[:, j - 1] (0 for j = 0).
    """
    memory, memory_bias = self.encode(inputs, training=False)
    embedded_inputs = self._embed(self.input_embedding, self.input_positions, inputs, 0, False)
    decoder_inputs = shift_right(targets)
    embedded_targets = self._embed(self.target_embedding, self.target_positions,
                                   decoder_inputs, 0, False)
    self_weights, memory_weights = self.decoder.attention_weights(
        embedded_targets, memory, causal_bias(ops.shape(decoder_inputs)[1]), memory_bias)
    return {"encoder": self.encoder.attention_weights(embedded_inputs, memory_bias),
            "decoder": self_weights, "memory": memory_weights}

  def init_cache(self, memory, memory_bias, max_decode_length):
    """The decoding state before step 0, with room for `max_decode_length` steps.

    Encoder-decoder keys and values are computed once here. Shapes (heads first,
    the layout every step reads without copying: `MultiHeadAttention.project_cache`):
      layers[i].keys:     [batch, heads, max_decode_length, d_k]   (zeros)
      layers[i].values:   [batch, heads, max_decode_length, d_v]   (zeros)
      PER_EXAMPLE.memory_bias: [batch, 1, 1, s]
      PER_EXAMPLE.memory[i].keys / values: [batch, heads, s, d_k / d_v]
    """
    batch = ops.shape(memory)[0]
    layers, memory_layers = [], []
    for layer in self.decoder.blocks:
      attention = layer.self_attention
      layers.append({
          "keys": ops.zeros((batch, attention.num_heads, max_decode_length,
                             attention.key_depth), dtype=memory.dtype),
          "values": ops.zeros((batch, attention.num_heads, max_decode_length,
                               attention.value_depth), dtype=memory.dtype),
      })
      keys, values = layer.memory_attention.project_cache(memory)
      memory_layers.append({"keys": keys, "values": values})
    return {"layers": layers,
            PER_EXAMPLE: {"memory_bias": memory_bias, "memory": memory_layers}}

  def grow_cache(self, cache, max_decode_length):
    """The cache with room for `max_decode_length` steps (no fewer than it has): the
    self-attention keys and values zero-padded along their length axis."""
    def widened(t):  # [rows, heads, length, depth] -> [rows, heads, max_decode_length, depth]
      return ops.pad(t, [[0, 0], [0, 0], [0, max_decode_length - ops.shape(t)[2]], [0, 0]])
    layers = [{"keys": widened(layer["keys"]), "values": widened(layer["values"])}
              for layer in cache["layers"]]
    return dict(cache, layers=layers)

  def decode_step(self, ids, step, cache):
    """One decoding step at position `step` (a scalar, may be a tensor).

    ids: [rows] the token at position `step` of the decoder input (0 at step 0,
    then the previous output); rows = batch * k (k hypotheses per example, example-major)
    for the cache's batch rows of PER_EXAMPLE. Returns (logits [rows, vocab] float32,
    new cache).
    """
    cache_length = ops.shape(cache["layers"][0]["keys"])[2]
    x = self._embed(self.target_embedding, self.target_positions, ids[:, None], step, False)
    encoded = cache[PER_EXAMPLE]
    x, layers = self.decoder.step(x, step, cache["layers"], encoded["memory"],
                                  step_bias(step, cache_length), encoded["memory_bias"])
    return self._logits(x)[:, 0], dict(cache, layers=layers)

  def _embed(self, embedding, positions, ids, start, training):
    x = positions(embedding(ids), start=start)
    return self.embedding_dropout(x, training=training)

  def _logits(self, x):
    """[batch, t, d_model] -> [batch, t, vocab] in float32."""
    logits = self.target_embedding.logits(x) if self.softmax is None else self.softmax(x)
    return ops.cast(logits, "float32")


def shift_right(targets):
  """[batch, t] targets -> decoder inputs: 0 first, then targets[:, :-1]."""
  return ops.pad(targets, [[0, 0], [1, 0]])[:, :-1]
