"""A `Transformer` whose decoding emits a fixed number of tokens: the same work for every
implementation of a decoding benchmark, trained or not (Keras ops only: any backend).

`ForcedLength` has the model's incremental API (`encode`, `init_cache`,
`decode_step`), so the real `decode_ids` drives it; EOS is never chosen before
a sentence's limit (input length + extra_length), where `decode_ids` forces it.
"""

from keras import ops

from t2t_lite.constants import EOS_ID


def without_eos(logits):
  """[n, vocab] -> the same with EOS impossible (the search still forces it at the limit)."""
  return ops.where(ops.equal(ops.arange(ops.shape(logits)[-1]), EOS_ID), -1e9, logits)


class ForcedLength:
  """A `Transformer` whose decoding never chooses EOS before the limit."""

  def __init__(self, model):
    self.model = model
    self.hparams = model.hparams
    self.target_vocab_size = model.target_vocab_size

  def encode(self, inputs):
    return self.model.encode(inputs)

  def init_cache(self, memory, memory_bias, max_decode_length):
    return self.model.init_cache(memory, memory_bias, max_decode_length)

  def grow_cache(self, cache, max_decode_length):
    return self.model.grow_cache(cache, max_decode_length)

  def decode_step(self, ids, step, cache):
    logits, cache = self.model.decode_step(ids, step, cache)            # [n, vocab]
    return without_eos(logits), cache
