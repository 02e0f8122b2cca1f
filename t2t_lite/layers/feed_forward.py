"""Position-wise feed-forward network (paper section 3.3)."""

import keras

from t2t_lite.layers.built_by_first_call import BuiltByFirstCall
from t2t_lite.layers.dropout import Dropout


class FeedForward(BuiltByFirstCall, keras.layers.Layer):
  """[..., d_model] -> relu(x W1 + b1) W2 + b2, with dropout on the d_ff activations."""

  def __init__(self, filter_size, hidden_size, relu_dropout=0.0, **kwargs):
    super().__init__(**kwargs)
    self.filter_dense = keras.layers.Dense(filter_size, activation="relu", name="filter")
    self.dropout = Dropout(relu_dropout)
    self.output_dense = keras.layers.Dense(hidden_size, name="output")

  def call(self, x, training=None):
    return self.output_dense(self.dropout(self.filter_dense(x), training=training))
