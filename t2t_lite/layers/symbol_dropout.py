"""Symbol dropout: token ids replaced by padding at random while training."""

import keras
from keras import ops

from t2t_lite.constants import PAD_ID


class SymbolDropout(keras.layers.Layer):
  """[batch, length] ids -> the same ids, each replaced by PAD_ID with probability `rate`
  while training (tensor2tensor's `symbol_dropout`; word dropout, Gal and Ghahramani 2016,
  which Sennrich and Zhang 2019 apply to low-resource translation).

  A dropped id embeds as the zero vector, as padding does; in the encoder's inputs it is
  also masked from attention (the padding bias reads the ids), as tensor2tensor masks
  tokens whose embedding is zero. Nothing is rescaled: an id is kept or dropped whole.
  """

  def __init__(self, rate, **kwargs):
    super().__init__(**kwargs)
    self.rate = rate
    # Only a layer that draws holds a seed's state: at rate 0 a model's variables, and
    # so its checkpoints, are those of a model without the layer.
    self.seed_generator = keras.random.SeedGenerator() if rate else None

  def call(self, ids, training=False):
    if not training or not self.rate:
      return ids
    kept = keras.random.uniform(ops.shape(ids), seed=self.seed_generator) >= self.rate
    return ops.where(kept, ids, ops.full_like(ids, PAD_ID))
