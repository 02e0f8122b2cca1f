"""t2t_lite's `decode_ids` (cached incremental decoding, t2t's beam search) under `jax.jit`.

The weights are arguments of the jitted function (through `keras.StatelessScope`),
not constants folded into the program, so a big model compiles like a small one.
The model is untrained: `ForcedLength` never lets it choose EOS before a
sentence's limit (input length + extra_length, where `decode_ids` forces EOS),
so every implementation emits the same number of tokens.
"""

import jax
import keras
import numpy as np

from bench.forced_length import ForcedLength
from bench.gpu.model import emitted_tokens  # noqa: F401 (rows.py counts through here)
from t2t_lite.decoding.model_decoding import decode_ids


def decoder(model, beam_size, alpha, extra_length):
  """-> fn(inputs [batch, width] int32 numpy) -> best ids [batch, width + extra_length] numpy.

  One jitted function per (beam_size, input shape): the first call compiles.
  """
  forced = ForcedLength(model)
  variables = list(model.variables)
  values = [v.value for v in variables]

  @jax.jit
  def run(values, inputs):
    with keras.StatelessScope(state_mapping=list(zip(variables, values))):
      ids, _ = decode_ids(forced, inputs, beam_size=beam_size, alpha=alpha,
                          extra_length=extra_length)
    return ids[:, 0]                                                   # [batch, length]

  def decode(inputs):
    return np.asarray(run(values, jax.numpy.asarray(inputs, "int32")))  # Blocks.
  return decode

