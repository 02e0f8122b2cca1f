"""Token embeddings (optionally the pre-softmax weights too) and positional encodings."""

import math

import keras
from keras import ops

from t2t_lite.constants import PAD_ID


class TokenEmbedding(keras.layers.Layer):
  """ids -> embeddings × sqrt(d_model) (paper section 3.4); `logits` reuses the matrix.

  Id 0 (padding, and the decoder's first input) embeds as the zero vector, as in
  tensor2tensor: row 0 is never read, so padding carries no token information
  and the decoder starts from the position signal alone.
  """

  def __init__(self, vocab_size, hidden_size, **kwargs):
    super().__init__(**kwargs)
    self.vocab_size = vocab_size
    self.hidden_size = hidden_size

  def build(self, input_shape=None):
    self.embeddings = self.add_weight(
        name="embeddings", shape=(self.vocab_size, self.hidden_size),
        initializer=keras.initializers.RandomNormal(stddev=self.hidden_size ** -0.5))
    self.built = True

  def call(self, ids):
    """[batch, length] -> [batch, length, d_model]."""
    vectors = ops.take(ops.cast(self.embeddings, self.compute_dtype), ids, axis=0)
    not_padding = ops.cast(ops.not_equal(ids, PAD_ID), vectors.dtype)[..., None]
    return vectors * math.sqrt(self.hidden_size) * not_padding

  def logits(self, outputs):
    """Pre-softmax projection with the shared matrix: [batch, t, d_model] -> [batch, t, vocab]."""
    if not self.built:
      self.build()
    return ops.matmul(outputs, ops.transpose(ops.cast(self.embeddings, self.compute_dtype)))


def sinusoids(positions, depth):
  """[length] positions -> [length, depth] sinusoidal encodings (paper section 3.5).

  Channel i < depth/2 holds sin(pos / 10000^(2i/depth)) and channel depth/2 + i the
  matching cos: the paper's frequencies, laid out in halves as tensor2tensor does.
  """
  half = depth // 2
  inverse_timescales = ops.exp(ops.arange(half, dtype="float32") * (-2.0 * math.log(1e4) / depth))
  angles = ops.cast(positions, "float32")[:, None] * inverse_timescales[None, :]  # [length, half]
  encodings = ops.concatenate([ops.sin(angles), ops.cos(angles)], axis=-1)
  if depth % 2:
    encodings = ops.pad(encodings, [[0, 0], [0, 1]])
  return encodings


class PositionalEncoding(keras.layers.Layer):
  """Adds position information: sinusoids (`pos="timing"`) or a learned table (`"emb"`).

  The learned table has `max_length` rows (paper Table 3 row E).
  """

  def __init__(self, pos, hidden_size, max_length, **kwargs):
    super().__init__(**kwargs)
    self.pos = pos
    self.hidden_size = hidden_size
    self.max_length = max_length

  def build(self, input_shape=None):
    if self.pos == "emb":
      self.table = self.add_weight(
          name="table", shape=(self.max_length, self.hidden_size),
          initializer=keras.initializers.RandomNormal(stddev=self.hidden_size ** -0.5))
    self.built = True

  def call(self, embeddings, start=0):
    """[batch, length, d_model] embeddings of positions start.. -> with positions added."""
    positions = ops.arange(ops.shape(embeddings)[1]) + start
    if self.pos == "emb":
      encodings = ops.take(self.table, positions, axis=0)
    else:
      encodings = sinusoids(positions, self.hidden_size)
    return embeddings + ops.cast(encodings, embeddings.dtype)[None]
