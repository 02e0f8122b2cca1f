"""The benchmark's model on any Keras backend: t2t_lite's `Transformer`, seeded and built;
how many tokens its decoding emitted."""

import keras
import numpy as np

from t2t_lite.constants import EOS_ID
from t2t_lite.models.transformer import Transformer
from t2t_lite.models.building import build


def build_model(hparams, vocab_size, seed=0):
  """A freshly initialised `Transformer` (one shared vocabulary) with its weights created."""
  keras.utils.set_random_seed(seed)
  model = Transformer(hparams, vocab_size, vocab_size)
  build(model)
  return model


def emitted_tokens(ids):
  """ids [batch, length] -> tokens emitted per sentence up to and including EOS: [batch]."""
  ids = np.asarray(ids)
  is_eos = ids == EOS_ID
  return np.where(is_eos.any(1), is_eos.argmax(1) + 1, ids.shape[1])
