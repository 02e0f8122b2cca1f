"""The count rule: an output holds as many tokens of a set as its source requires.

A problem whose target holds one token of a set per source word (a linearised
tree: one leaf, a POS tag, per word) decodes under it. The rule is a set C of
target ids and, for each example b, a required count n_b. While a hypothesis
of example b holds k < n_b tokens of C it cannot end (EOS gets log-prob -inf),
and when the tokens left before its length limit L_b (lengths.py) are only
enough for the n_b - k missing ones, it must emit one of C; once it holds n_b
it can emit no more of them. The limit still wins: its last token is EOS. So
every output of example b holds exactly n_b tokens of C when n_b < L_b, and
L_b - 1 of them otherwise.

Unconstrained, beam search prefers parses that stop before every word has its
leaf (shorter hypotheses lose less log-prob); under the rule, beam 21 raised a
small parser's test F1 from 27.5 to 37.3 (docs/results.md).
"""

import typing

from absl import logging
import numpy as np
from keras import ops

from t2t_lite.constants import EOS_ID, IMPOSSIBLE_LOG_PROB, PAD_ID
from t2t_lite.decoding.bracket_rule import BracketTables, apply_bracket_rule, bracket_tables
from t2t_lite.decoding.copy_rule import source_leaf_pieces


class CountRule(typing.NamedTuple):
  """counted: [vocab] int32, 1 for the ids of C (never PAD or EOS); required: [batch] int32;
  brackets: the `bracket_rule.BracketTables` of a bracket rule on top, or None;
  copied: with brackets, the copy rule's [batch, width] source leaf pieces
  (copy_rule.source_leaf_pieces), or None."""
  counted: typing.Any
  required: typing.Any
  brackets: typing.Any = None
  copied: typing.Any = None


def counted_ids_table(pieces, counts):
  """The `counted` table of a vocabulary: [vocab] int32, 1 where `counts(piece)` (a target
  form's `counts`: e.g. a piece that is one of its tokens, with or without SentencePiece's
  word-start mark); never PAD or EOS.

  pieces: every piece of the target vocabulary, by id (str).
  """
  table = np.array([int(counts(piece)) for piece in pieces], np.int32)
  table[[PAD_ID, EOS_ID]] = 0
  if not table.any():
    raise ValueError("no vocabulary piece is a counted token: the count rule cannot be met")
  return table


class RuleTables(typing.NamedTuple):
  """A target form's decoding rule over one vocabulary: `counted` ([vocab] int32), the
  bracket rule's `BracketTables` or None, and whether the copy rule holds (with brackets)."""
  counted: np.ndarray
  brackets: typing.Optional[BracketTables]
  copies: bool = False

  def rule(self, required, inputs):
    """The `CountRule` of these tables for [batch] int32 required counts and the [batch,
    width] int32 input ids they decode."""
    counted = ops.convert_to_tensor(self.counted)
    if self.brackets is None:
      return CountRule(counted, required)
    brackets = BracketTables(*map(ops.convert_to_tensor, self.brackets))
    copied = source_leaf_pieces(inputs, brackets.leaf_pieces) if self.copies else None
    return CountRule(counted, required, brackets, copied)


def rule_tables(target_form, vocabularies, settings):
  """The `RuleTables` of a target form's count rule (t2t_lite.data.target_form), with its bracket rule
  unless the settings lift that (`bracket_rule=False`), and on top its copy rule unless
  they lift that (`copy_rule=False`) or the (input, target) vocabularies differ (a
  warning); None when the form has no count rule or the settings lift it
  (`count_rule=False`)."""
  if not (target_form.count_rule and settings.count_rule):
    return None
  input_vocab, target_vocab = vocabularies
  pieces = target_vocab.pieces()
  counted = counted_ids_table(pieces, target_form.counts)
  if not (target_form.bracket_pairs and settings.bracket_rule):
    return RuleTables(counted, None)
  continues = np.array([int(target_form.continues(piece)) for piece in pieces], np.int32)
  brackets = bracket_tables(pieces, target_form.bracket_pairs, counted, continues)
  copies = target_form.copies_source and settings.copy_rule
  if copies and input_vocab.model_proto != target_vocab.model_proto:
    logging.warning("the copy rule needs one vocabulary for inputs and targets; decoding "
                    "without it")
    copies = False
  return RuleTables(counted, brackets, copies)


def apply_count_rule(log_probs, sequences, rule, step, limits, eos_id=EOS_ID):
  """log_probs with -inf (IMPOSSIBLE_LOG_PROB) where the rule forbids a token.

  log_probs: [batch, ..., vocab], the candidates for token number step + 1.
  sequences: [batch, ..., length + 1] int32, the ids so far (column 0 the initial
    PAD id, zeros after column `step`), the same leading axes as log_probs.
  rule: a `CountRule` (with brackets, the bracket rule, which holds this one);
  limits: [batch] (lengths.py).
  """
  def per_example(values):  # [batch] -> [batch, ..., 1], against [batch, ..., vocab].
    return ops.reshape(values, (-1,) + (1,) * (len(log_probs.shape) - 1))

  held = ops.sum(ops.take(rule.counted, sequences), axis=-1)[..., None]   # [batch, ..., 1]
  missing = per_example(ops.cast(rule.required, "int32")) - held          # [batch, ..., 1]
  limits = per_example(limits)
  if rule.brackets is not None:
    return apply_bracket_rule(log_probs, sequences, rule.brackets, rule.counted, missing, step,
                              limits, eos_id, rule.copied)
  # This is token number step + 1; the limit leaves limits - step - 2 before its EOS.
  below_limit = ops.less(step + 1, limits)
  must_count = ops.logical_and(below_limit, ops.greater(missing, limits - step - 2))
  may_not_end = ops.logical_and(below_limit, ops.greater(missing, 0))
  is_eos = ops.equal(ops.arange(log_probs.shape[-1]), eos_id)             # [vocab]
  is_counted = ops.cast(rule.counted, "bool")                             # [vocab]
  banned = ops.logical_or(
      ops.logical_or(ops.logical_and(may_not_end, is_eos),
                     ops.logical_and(must_count, ops.logical_not(is_counted))),
      ops.logical_and(ops.less_equal(missing, 0), is_counted))            # [batch, ..., vocab]
  return ops.where(banned, IMPOSSIBLE_LOG_PROB, log_probs)
