"""The order of a model's target ids: reading order, or last token first for a right-to-left
run (hparams right_to_left=True; t2t_lite.decoding.right_to_left).

Such a run's targets keep EOS last: "a b c EOS" becomes "c b a EOS". The pipeline
reverses the targets it reads for such a run; the decoders, the SavedModel and
the reranker turn its outputs back.

    reversed_before_eos(ids)   # TensorFlow: [rows, length] -> [rows, length]
    reversed_ids([5, 7, 9])    # Python: [9, 7, 5] (an EOS and what follows stay in place)
    target_order(hparams)      # reversed_ids for a right-to-left model, else list
"""

import tensorflow as tf

from t2t_lite.constants import EOS_ID


def reversed_before_eos(ids):
  """ids [rows, length] int -> the same with each row's tokens before its first EOS
  reversed; the EOS and everything after it (padding) stay in place."""
  before_eos = tf.math.cumprod(tf.cast(tf.not_equal(ids, EOS_ID), tf.int32), axis=1)
  lengths = tf.reduce_sum(before_eos, axis=1)                        # [rows]
  return tf.reverse_sequence(ids, lengths, seq_axis=1, batch_axis=0)


def reversed_ids(ids):
  """A list of ids -> the list with the ids before its first EOS reversed."""
  ids = list(ids)
  end = ids.index(EOS_ID) if EOS_ID in ids else len(ids)
  return ids[:end][::-1] + ids[end:]


def target_order(hparams):
  """The map between reading order and a model's order of target ids, a list of ids -> a
  new list (its own inverse): `reversed_ids` for a right-to-left model, else `list`."""
  return reversed_ids if hparams.right_to_left else list
