"""The bracket rule: outputs that are well-formed trees, on top of the count rule.

A target form with `bracket_pairs` (parsing: `(NP` ... `)NP`) decodes under it unless
the settings say `bracket_rule=False`. For each hypothesis, with D its open brackets,
m the counted tokens (leaves) it still misses (token_counts.py) and R the tokens that
may follow this one before the length limit's EOS, the next token may be:
  - an opener: when the root is not yet closed, m > 0 and m + D + 1 <= R;
  - a leaf: inside the root (D > 0), m > 0 and m - 1 + D <= R;
  - a piece continuing a leaf (`TargetForm.continues`: a word of several pieces): right
    after a leaf or another such piece, and m + D <= R;
  - a closer: only the one of the innermost open bracket, never right after its
    opener (no empty constituent), the root's only once m = 0, and m + D - 1 <= R;
  - EOS: once the root is closed and m = 0;
  - nothing else (no other piece). At the limit itself, EOS wins as always.
So every output is a well-formed tree over its source's words (one leaf per word, one
root, balanced and matching brackets, no empty constituent) when the limit leaves room
for one; where it does not, a hypothesis left with no allowed token may end. The copy
rule (copy_rule.py) narrows the leaves to the source's own pieces, and as it knows them,
m counts the leaf pieces left to write in its room checks (a continuing piece then takes
one of them: m - 1 + D <= R).

Why: beam search keeps the hypotheses it finds likeliest, and small parsers rate
unbalanced ones (a bracket left open, a closer naming another label) high enough to win;
`delinearize` then has to guess their tree (docs/results.md measures how often).
"""

import typing

import numpy as np
from keras import ops

from t2t_lite.constants import EOS_ID, IMPOSSIBLE_LOG_PROB, PAD_ID, WORD_START
from t2t_lite.decoding.copy_rule import copy_constraint


class BracketTables(typing.NamedTuple):
  """[vocab] int32 tables of the target vocabulary.

  opens: k + 1 for the opener of pair k (with or without SentencePiece's word-start
    mark), else 0. closes: k + 1 for the closer of pair k, else 0.
  continues: 1 for the pieces that continue a leaf (`TargetForm.continues`), else 0.
  leaf_pieces: 1 for the pieces of a leaf: counted ones and their continuations.
  allowed: 1 for the ids an output may hold at all: brackets, leaves, their
    continuations, EOS.
  """
  opens: typing.Any
  closes: typing.Any
  continues: typing.Any
  leaf_pieces: typing.Any
  allowed: typing.Any


def bracket_tables(pieces, bracket_pairs, counted, continues):
  """The `BracketTables` of a vocabulary (pieces: every piece, by id) for a target form's
  bracket_pairs; counted and continues: [vocab] int32, its leaves (the count rule's
  table) and the pieces continuing them. A pair without a piece for its closer never
  opens."""
  tokens = {piece.removeprefix(WORD_START) for piece in pieces}
  pairs = [pair for pair in bracket_pairs if pair[1] in tokens]

  def pair_index(side):
    index = {pair[side]: k + 1 for k, pair in enumerate(pairs)}
    return np.array([index.get(piece.removeprefix(WORD_START), 0) for piece in pieces],
                    np.int32)
  opens, closes = pair_index(0), pair_index(1)
  continues = np.array(continues, np.int32)
  continues[[PAD_ID, EOS_ID]] = 0
  leaf_pieces = np.maximum(counted, continues).astype(np.int32)
  allowed = np.sign(leaf_pieces + opens + closes).astype(np.int32)
  opens[PAD_ID] = closes[PAD_ID] = allowed[PAD_ID] = 0
  allowed[EOS_ID] = 1
  if not opens.any() or not closes.any():
    raise ValueError("the target vocabulary has no bracket piece: the bracket rule cannot "
                     "be met")
  return BracketTables(opens, closes, continues, leaf_pieces, allowed)


def apply_bracket_rule(log_probs, sequences, brackets, counted, missing, step, limits,
                       eos_id=EOS_ID, copied=None):
  """log_probs with -inf (IMPOSSIBLE_LOG_PROB) where the rule forbids a token.

  log_probs: [batch, ..., vocab], the candidates for token number step + 1.
  sequences: [batch, ..., length + 1] int32, the ids so far (column 0 the initial PAD
    id, zeros after column `step`), the same leading axes as log_probs.
  brackets: `BracketTables`; counted: [vocab] int32 (token_counts.CountRule.counted);
  missing: [batch, ..., 1] int32, the counted tokens each hypothesis still needs;
  limits: [batch, ..., 1] int32 (lengths.py);
  copied: the copy rule's [batch, width] source leaf pieces (copy_rule.py), or None.
  """
  opens = ops.take(brackets.opens, sequences)                       # [batch, ..., length+1]
  closes = ops.take(brackets.closes, sequences)
  depth_after = ops.cumsum(ops.sign(opens) - ops.sign(closes), axis=-1)
  depth = depth_after[..., -1:]                                     # [batch, ..., 1]
  # The innermost open bracket is the last opener after which the depth is today's.
  positions = ops.arange(sequences.shape[-1])                       # [length+1]
  innermost_at = ops.argmax(ops.where(ops.logical_and(opens > 0, depth_after == depth),
                                      positions, -1), axis=-1)[..., None]
  innermost = ops.take_along_axis(opens, innermost_at, axis=-1)     # [batch, ..., 1]
  last = ops.sum(ops.where(positions == step, sequences, 0), axis=-1, keepdims=True)
  after_opener = ops.take(brackets.opens, last) > 0                 # [batch, ..., 1]
  after_leaf = ops.take(brackets.leaf_pieces, last) > 0
  started = ops.sum(ops.sign(opens), axis=-1, keepdims=True) > 0
  room = limits - step - 2  # Tokens that may follow this one before the limit's EOS.
  # The tokens the leaves still need: a leaf each, and for the copy rule (which knows
  # them) every piece; a continuing piece needs no leaf but takes a token.
  needed, needed_after_continuing = missing, missing
  if copied is not None:
    log_probs, copy_allowed, pieces_left = copy_constraint(
        log_probs, sequences, last, copied, counted, brackets)
    needed, needed_after_continuing = pieces_left, pieces_left - 1

  is_opener = ops.cast(brackets.opens, "bool")                      # [vocab]
  is_leaf = ops.cast(counted, "bool")
  is_continuation = ops.cast(brackets.continues, "bool")
  is_eos = ops.equal(ops.arange(log_probs.shape[-1]), eos_id)
  closer_of = brackets.closes                                       # [vocab]
  inside = depth > 0
  may_open = ops.logical_and(ops.logical_or(inside, ops.logical_not(started)),
                             ops.logical_and(missing > 0, needed + depth + 1 <= room))
  may_leaf = ops.logical_and(inside, ops.logical_and(missing > 0, needed - 1 + depth <= room))
  may_continue = ops.logical_and(after_leaf, needed_after_continuing + depth <= room)
  may_close = ops.logical_and(
      ops.logical_and(inside, ops.logical_not(after_opener)),
      ops.logical_and(ops.logical_or(depth > 1, missing <= 0), needed + depth - 1 <= room))
  may_end = ops.logical_and(ops.logical_and(started, ops.logical_not(inside)), missing <= 0)
  allowed = ops.logical_or(
      ops.logical_or(ops.logical_and(may_open, is_opener), ops.logical_and(may_leaf, is_leaf)),
      ops.logical_or(ops.logical_and(may_close, ops.equal(closer_of, innermost)),
                     ops.logical_and(may_end, is_eos)))             # [batch, ..., vocab]
  allowed = ops.logical_or(allowed, ops.logical_and(may_continue, is_continuation))
  allowed = ops.logical_and(allowed, ops.cast(brackets.allowed, "bool"))
  if copied is not None:
    allowed = ops.logical_and(allowed, copy_allowed)
  # No token left (a limit too short for a tree): the hypothesis may end.
  stuck = ops.logical_not(ops.any(allowed, axis=-1, keepdims=True))
  allowed = ops.logical_or(allowed, ops.logical_and(stuck, is_eos))
  at_limit = ops.greater_equal(step + 1, limits)
  return ops.where(ops.logical_or(allowed, at_limit), log_probs, IMPOSSIBLE_LOG_PROB)
