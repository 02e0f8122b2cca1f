"""Making a registered model with its weights: what every command that needs one calls."""

import numpy as np

from t2t_lite.registry import MODELS


def build(model):
  """Creates the model's weights with a two-token forward pass."""
  dummy = np.ones((1, 2), dtype="int32")
  model({"inputs": dummy, "targets": dummy}, training=False)


def built_model(name, hparams, input_vocab_size, target_vocab_size):
  """The registered model `name` for these hparams and vocabulary sizes, its weights
  freshly initialised (in the caller's strategy scope)."""
  model = MODELS[name](hparams, input_vocab_size, target_vocab_size)
  build(model)
  return model
