"""The same Transformer composed from keras-hub's layers and trained the Keras way.

`keras_hub.layers.TransformerEncoder` / `TransformerDecoder` (post-norm; dropout
on the attention weights and on each sublayer's output, none inside the
feed-forward network), one `keras.layers.Embedding` for inputs, targets and the
pre-softmax projection, scaled by sqrt(d_model), plus
`keras_hub.layers.SinePositionEncoding`; t2t_lite's label-smoothed loss and Adam
with the paper's schedule; `compile(jit_compile=...)` and `train_on_batch`.
"""

import math

import keras
import keras_hub
import tensorflow as tf
from keras import ops

from t2t_lite.layers.losses import SmoothedCrossEntropy
from t2t_lite.training.optimization import build_optimizer


class KerasHubTransformer(keras.Model):
  """{"inputs": [batch, s], "targets": [batch, t]} -> logits [batch, t, vocab]."""

  def __init__(self, hparams, vocab_size, **kwargs):
    super().__init__(**kwargs)
    d, dropout = hparams.hidden_size, hparams.layer_prepostprocess_dropout
    self.hidden_size = d
    self.embedding = keras.layers.Embedding(
        vocab_size, d, embeddings_initializer=keras.initializers.RandomNormal(stddev=d ** -0.5))
    self.positions = keras_hub.layers.SinePositionEncoding()
    self.dropout = keras.layers.Dropout(dropout)
    layer_args = dict(intermediate_dim=hparams.filter_size, num_heads=hparams.num_heads,
                      dropout=dropout, layer_norm_epsilon=hparams.norm_epsilon)
    self.encoder_layers = [keras_hub.layers.TransformerEncoder(**layer_args)
                           for _ in range(hparams.num_hidden_layers)]
    self.decoder_layers = [keras_hub.layers.TransformerDecoder(**layer_args)
                           for _ in range(hparams.num_hidden_layers)]

  def embed(self, ids, training):
    x = self.embedding(ids) * math.sqrt(self.hidden_size)  # [batch, length, d]
    return self.dropout(x + self.positions(x), training=training)

  def call(self, features, training=None):
    inputs, targets = features["inputs"], features["targets"]
    padding_mask = ops.not_equal(inputs, 0)                             # [batch, s]
    memory = self.embed(inputs, training)
    for layer in self.encoder_layers:
      memory = layer(memory, padding_mask=padding_mask, training=training)
    x = self.embed(ops.pad(targets, [[0, 0], [1, 0]])[:, :-1], training)  # Shifted right.
    for layer in self.decoder_layers:
      x = layer(x, memory, encoder_padding_mask=padding_mask, use_causal_mask=True,
                training=training)
    return ops.matmul(x, ops.transpose(self.embedding.embeddings))     # [batch, t, vocab]


class KerasHubTrainer:
  """`__call__()`: one `train_on_batch` (forward, backward, Adam update) on one fixed batch."""

  def __init__(self, hparams, vocab_size, inputs, targets, jit_compile):
    keras.utils.set_random_seed(0)
    self.model = KerasHubTransformer(hparams, vocab_size)
    self.model.compile(optimizer=build_optimizer(hparams),
                       loss=SmoothedCrossEntropy(hparams.label_smoothing),
                       jit_compile=jit_compile)
    self.features = {"inputs": tf.constant(inputs, tf.int32),
                     "targets": tf.constant(targets, tf.int32)}

  def __call__(self):
    """-> the step's loss (a float: the step has finished)."""
    return float(self.model.train_on_batch(self.features, self.features["targets"]))
