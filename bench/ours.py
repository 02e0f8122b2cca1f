"""t2t_lite's side of the benchmarks: models, `decode_ids`, and an uncached decoder (the real
`TrainStep` on a fixed batch is t2t_lite.training.step_pace.fixed_batch_step).

`ForcedLength` (bench/forced_length.py) and `Uncached` wrap a `Transformer` with the
same incremental API (`encode`, `init_cache`, `decode_step`), so the real `decode_ids`
drives them:
  ForcedLength: the model, but EOS is never chosen before a sentence's limit, so an
                untrained model emits exactly input length + extra_length tokens;
  Uncached:     the same, with no key/value cache: every step re-runs the decoder
                over the whole prefix (the cache holds only the prefix's ids).
"""

import numpy as np
import tensorflow as tf
import keras
from keras import ops

from bench.forced_length import ForcedLength, without_eos
from t2t_lite.constants import EOS_ID
from t2t_lite.decoding.lengths import write_column
from t2t_lite.decoding.model_decoding import decode_ids
from t2t_lite.models.building import build
from t2t_lite.models.transformer import Transformer


def build_model(hparams, vocab_size, seed=0):
  """A freshly initialised `Transformer` with its weights created."""
  keras.utils.set_random_seed(seed)
  model = Transformer(hparams, vocab_size, vocab_size)
  build(model)
  return model


class Uncached(ForcedLength):
  """Decoding without a key/value cache: each step runs `decode` over the prefix so far."""

  def init_cache(self, memory, memory_bias, max_decode_length):
    """{"memory" [n, s, d], "memory_bias" [n, 1, 1, s], "prefix" [n, max_decode_length]}."""
    prefix = ops.zeros((ops.shape(memory)[0], max_decode_length), "int32")
    return {"memory": memory, "memory_bias": memory_bias, "prefix": prefix}

  def grow_cache(self, cache, max_decode_length):
    """The cache with room for `max_decode_length` steps: the prefix zero-padded."""
    prefix = cache["prefix"]                                           # [n, length]
    return dict(cache, prefix=ops.pad(prefix, [[0, 0], [0, max_decode_length - prefix.shape[1]]]))

  def decode_step(self, ids, step, cache):
    prefix = write_column(cache["prefix"], step, ids)                  # [n, length]
    logits = self.model.decode(prefix[:, :step + 1], cache["memory"],
                               cache["memory_bias"])[:, -1]            # [n, vocab]
    return without_eos(logits), dict(cache, prefix=prefix)


def decoder(model, beam_size, alpha, extra_length, jit_compile):
  """-> fn(inputs [batch, width] int32 numpy) -> best ids [batch, length] numpy.

  `model` is a `Transformer` or one of the wrappers above. `decode_ids` runs in one
  `tf.function` (XLA-compiled with jit_compile), traced once per input shape.
  """
  @tf.function(jit_compile=jit_compile)
  def run(inputs):
    ids, _ = decode_ids(model, inputs, beam_size=beam_size, alpha=alpha,
                        extra_length=extra_length)
    return ids[:, 0]                                                   # [batch, length]
  return lambda inputs: run(tf.constant(inputs, tf.int32)).numpy()


def emitted_tokens(ids):
  """ids [batch, length] -> tokens emitted per sentence up to and including EOS: [batch]."""
  ids = np.asarray(ids)
  is_eos = ids == EOS_ID
  return np.where(is_eos.any(1), is_eos.argmax(1) + 1, ids.shape[1])
