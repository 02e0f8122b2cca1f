"""The copy rule: leaves that are the source's own pieces, in order, on top of the
bracket rule.

A target form that `copies_source` (parsing with word leaves: each leaf is the word
itself) decodes under it unless the settings say `copy_rule=False`. Its leaf pieces
(the count rule's counted pieces and the pieces that continue them) must spell out the
source's leaf pieces, in order: with k of them written so far and s_k the source's k-th,
  - the only leaf piece the next token may be is s_k;
  - when s_k continues a word and the last token was a leaf piece, the next token is s_k
    (a word is never cut by a bracket).
Brackets and EOS stay as the bracket rule allows them. Which word comes next is not the
model's choice, only whether one starts now: s_k, when it starts a word, takes the
probability of every piece that starts one, and a piece continuing a word costs nothing
(its log-probability is 0). The source's leaf pieces are its input ids with the others
(EOS, padding, <unk>, byte pieces) dropped, so the rule needs the input and target
vocabularies to be one (`shared_vocab`).

Why: with word leaves, the tree takes the source's words whatever the model wrote, but a
small parser loses its place in the sentence (a word skipped, one written twice) and every
bracket after the slip lands beside the wrong word; docs/results.md measures how often.
"""

from keras import ops

from t2t_lite.constants import IMPOSSIBLE_LOG_PROB


def source_leaf_pieces(inputs, leaf_pieces):
  """inputs [batch, width] int32 (input ids) -> [batch, width] int32: each row's leaf pieces
  (where `leaf_pieces`, a [vocab] 0/1 table, is 1), moved to the front in order, zeros
  after them."""
  keep = ops.cast(ops.take(leaf_pieces, inputs) > 0, "int32")        # [batch, width]
  rank = ops.cumsum(keep, axis=-1) * keep - 1                          # -1: dropped.
  width = inputs.shape[-1]
  lands_at = ops.equal(rank[:, :, None], ops.arange(width)[None, None, :])  # [batch, from, to]
  return ops.sum(ops.where(lands_at, inputs[:, :, None], 0), axis=1)  # [batch, width]


def copy_constraint(log_probs, sequences, last, copied, counted, brackets):
  """-> (log_probs: [batch, ..., vocab], with the model's choice of a leaf given to the
  source's next one; allowed: bool [batch, ..., vocab], the tokens the copy rule allows
  next; pieces_left: int32 [batch, ..., 1], the source's leaf pieces not yet written).

  log_probs: [batch, ..., vocab], the candidates for the next token; sequences:
  [batch, ..., length + 1] int32, the ids so far; last: [batch, ..., 1] int32, the last of
  them; copied: [batch, width] int32 (`source_leaf_pieces`); counted: [vocab] 0/1, the
  pieces that start a leaf; brackets: the bracket rule's `BracketTables` (its
  `leaf_pieces` and `continues`).
  """
  leaf_pieces, continues = brackets.leaf_pieces, brackets.continues  # [vocab] each.
  written = ops.sum(ops.take(leaf_pieces, sequences), axis=-1, keepdims=True)  # [b, ..., 1]
  width = copied.shape[-1]
  total = ops.sum(ops.cast(copied > 0, "int32"), axis=-1)             # [batch]
  leading = (-1,) + (1,) * (len(sequences.shape) - 2)
  copied = ops.reshape(copied, leading + (width,))                    # [batch, 1..., width]
  # The source's next leaf piece; 0 (padding, never allowed) once all are written.
  upcoming = ops.sum(ops.where(ops.arange(width) == written, copied, 0), axis=-1,
                     keepdims=True)                                    # [batch, ..., 1]
  is_upcoming = ops.equal(ops.arange(log_probs.shape[-1]), upcoming)  # [batch, ..., vocab]
  inside_word = ops.logical_and(ops.take(leaf_pieces, last) > 0,
                                ops.take(continues, upcoming) > 0)    # [batch, ..., 1]
  allowed = ops.where(inside_word, is_upcoming,
                      ops.logical_or(ops.logical_not(ops.cast(leaf_pieces, "bool")),
                                     is_upcoming))
  # Which word comes next is the source's: the model only chooses whether a leaf starts
  # now (the mass of every piece that starts one), and a word's own pieces cost nothing.
  starts = ops.cast(counted, "bool")
  leaf_now = ops.logsumexp(ops.where(starts, log_probs, IMPOSSIBLE_LOG_PROB), axis=-1,
                           keepdims=True)                              # [batch, ..., 1]
  log_probs = ops.where(is_upcoming, ops.where(inside_word, 0.0, leaf_now), log_probs)
  return log_probs, allowed, ops.reshape(total, leading + (1,)) - written
