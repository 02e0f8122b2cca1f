"""Right-to-left runs (hparams right_to_left=True): targets read and written last token first.

Such a run trains on each target with its tokens reversed and EOS still last
("a b c EOS" becomes "c b a EOS"), and decodes in that order; t2t-decoder, the
SavedModel and the dev decodings turn its outputs back before they become text,
and --score_file reverses the targets it scores. Its use is reranking: a beam
searched left to right, scored again by runs of both directions
(t2t_lite.decoding.rerank), which err at opposite ends of a sentence.

    reversed_before_eos(ids)   # TensorFlow: [rows, length] -> [rows, length]
    reversed_ids([5, 7, 9])    # Python: [9, 7, 5] (an EOS and what follows stay in place)
    target_order(hparams)      # reversed_ids for a right-to-left model, else list
    check_rules(hparams, rule_tables)   # a right-to-left run decodes without rules
"""

import tensorflow as tf

from t2t_lite.constants import EOS_ID
from t2t_lite.errors import UserError


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


def check_rules(hparams, rule_tables):
  """UserError when a right-to-left model would decode under the problem's decoding rules
  (`rule_tables` not None: t2t_lite.decoding.token_counts), which build outputs left to
  right."""
  if hparams.right_to_left and rule_tables is not None:
    raise UserError("a right-to-left run decodes without this problem's decoding rules, "
                    "which build outputs left to right: pass --decode_hparams=count_rule="
                    "False (the other rules go with it), or decode a left-to-right run")
