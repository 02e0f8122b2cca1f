"""Targets that are linearised trees ("Grammar as a Foreign Language", Vinyals et al.,
2015): the target form decoding's rules read, decoded tokens unglued, the vocabulary's
atomic pieces, and a decoded target back to a bracketed tree EVALB reads.

    (S (NP (NP NNP NNP )NP , (ADJP (NP CD NNS )NP JJ )ADJP , )NP (VP MD ...

Leaves are POS tags (or `XX`), or with `word_leaves` the words themselves.
"""

import re

import tensorflow as tf

from t2t_lite.constants import WORD_START
from t2t_lite.data.target_form import TargetForm
from t2t_lite.data.trees import (LEAF_TOKENS, PLACEHOLDER_TAG, POS_TAGS, delinearize,
                                  is_bracket, malformations)

# The PTB's constituent labels (Bies et al., 1995) once function tags are cut.
CONSTITUENT_LABELS = (
    "ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "LST", "NAC", "NP", "NX", "PP", "PRN", "PRT",
    "QP", "RRC", "S", "SBAR", "SBARQ", "SINV", "SQ", "UCP", "VP", "WHADJP", "WHADVP",
    "WHNP", "WHPP", "X")

_DECODED_TOKEN = re.compile(r"[()][^\s()]*|[^\s()]+")
_LABELS_LONGEST_FIRST = sorted(CONSTITUENT_LABELS, key=len, reverse=True)
_LEAVES_LONGEST_FIRST = sorted(LEAF_TOKENS, key=len, reverse=True)


def decoded_tokens(text, word_leaves=False):
  """The linearised tokens of a decoded target, also where the model glued them together
  (the vocabulary's plain pieces, "NN" beside "▁NN", decode without a space).

  Labels never hold brackets, so brackets split tokens apart: `)NP(VP` -> `)NP`, `(VP`.
  A token that is no label or leaf splits into leaves (POS tags or `XX`), after a
  bracket and a label: `XXXX` -> `XX`, `XX`; `(NPDTNN` -> `(NP`, `DT`, `NN`. Known
  labels and longer leaves are tried first (`PRP$` stays one tag); a token that
  does not split stays as it is. With `word_leaves` a leaf is a word, never split: only
  a bracket glued to a word splits, after its longest known label (`(NPThe` -> `(NP`,
  `The`).
  """
  unglue = _unglued_word if word_leaves else _unglued
  return [piece for token in _DECODED_TOKEN.findall(text) for piece in unglue(token)]


def _unglued_word(token):
  """One whitespace- and bracket-free token of a target with word leaves -> its tokens."""
  if token[0] not in "()" or token[1:] in CONSTITUENT_LABELS:
    return [token]
  label = next((known for known in _LABELS_LONGEST_FIRST if token[1:].startswith(known)), None)
  return [token] if label is None else [token[0] + label, token[1 + len(label):]]


def _unglued(token):
  """One whitespace- and bracket-free token -> the tokens glued in it (`decoded_tokens`)."""
  if token in LEAF_TOKENS:
    return [token]
  if token[0] not in "()":
    return _leaves(token) or [token]
  bracket, label = token[0], token[1:]
  if label in CONSTITUENT_LABELS:
    return [token]
  # A known label first, then the shortest unknown one, before the leaves.
  labels = [known for known in _LABELS_LONGEST_FIRST if label.startswith(known)]
  for head in labels + [label[:end] for end in range(1, len(label))]:
    leaves = _leaves(label[len(head):])
    if leaves:
      return [bracket + head] + leaves
  return [token]


def _leaves(text):
  """`text` as a sequence of leaf tokens (longest first, backtracking), or None."""
  if not text:
    return []
  for leaf in _LEAVES_LONGEST_FIRST:
    if text.startswith(leaf):
      rest = _leaves(text[len(leaf):])
      if rest is not None:
        return [leaf] + rest
  return None


# Penn Treebank tags of punctuation words, which EVALB (COLLINS.prm) deletes by tag.
PUNCTUATION_TAGS = {",": ",", ".": ".", "?": ".", "!": ".", ":": ":", ";": ":", "--": ":",
                    "-": ":", "...": ":", "``": "``", "''": "''"}


def punctuation_tags(words):
  """Each word's tag for scoring: its Penn Treebank tag if it is punctuation, else `XX`.

  The model predicts no tags, but EVALB deletes punctuation by tag: without these,
  a decoded tree's length differs from the gold tree's wherever punctuation occurs.
  A single quote "`" opens a quotation (tag ``); "'" closes the one open (tag ''), and
  with none open is a possessive (POS, which EVALB keeps: `investors '`).
  """
  tags, quote_open = [], False
  for word in words:
    if word == "`":
      quote_open = True
      tags.append("``")
    elif word == "'" and quote_open:
      quote_open = False
      tags.append("''")
    else:
      tags.append(PUNCTUATION_TAGS.get(word, PLACEHOLDER_TAG))
  return tags


def target_symbols(word_leaves=False):
  """The vocabulary's atomic pieces: every bracket token, and (unless the leaves are
  words) every POS tag and `XX`, with and without "▁".

  SentencePiece marks a word start with "▁" and, for a plain symbol, spends a
  piece of its own on that mark: `▁ (NP ▁ XX`. The marked forms make each
  linearised token a single piece, halving the target length; the plain
  forms still cover tokens glued together without a space. (SentencePiece cuts a
  symbol out of any text it appears in, words too: with word leaves, tags are no
  symbols, so that `CNN` stays whole.)
  """
  plain = (tuple("(" + label for label in CONSTITUENT_LABELS)
           + tuple(")" + label for label in CONSTITUENT_LABELS))
  if not word_leaves:
    plain += POS_TAGS + (PLACEHOLDER_TAG,)
  return tuple(WORD_START + symbol for symbol in plain) + plain


class LinearisedTrees(TargetForm):
  """Targets that are linearised trees over the source words: one leaf per source word is
  the count rule, `(LABEL ... )LABEL` the bracket rule; an output line is the bracketed
  tree, repaired by `delinearize` when the decoded target is malformed (possible only when
  decoding lifts a rule).

  Leaves are POS tags (or `XX`), each one piece; with `word_leaves`, the words themselves,
  a word-start piece ("▁" first) then the pieces that continue it.
  """

  count_rule = True
  bracket_pairs = tuple(("(" + label, ")" + label) for label in CONSTITUENT_LABELS)
  repairs = True

  def __init__(self, word_leaves=False):
    self.word_leaves = word_leaves
    self.copies_source = word_leaves
    self.counted_tokens = () if word_leaves else tuple(sorted(LEAF_TOKENS))

  def counts(self, piece):
    if not self.word_leaves:
      return super().counts(piece)
    return piece.startswith(WORD_START) and not is_bracket(piece.removeprefix(WORD_START))

  def continues(self, piece):
    return (self.word_leaves and not piece.startswith(WORD_START) and not is_bracket(piece)
            and not (piece.startswith("<") and piece.endswith(">")))  # <pad>, </s>, <unk>.

  def required_counts(self, sources):
    """One leaf per word of each source ([batch] string -> [batch] int32)."""
    return tf.cast(tf.strings.split(sources).row_lengths(), tf.int32)

  def output_text(self, source_text, decoded_text):
    """A decoded target -> the tree over the source words, punctuation tagged for EVALB."""
    return tree_string(source_text, decoded_text, punctuation_tags(source_text.split()),
                       self.word_leaves)

  def malformations(self, source_text, decoded_text):
    """What is wrong with the decoded target as a tree over the source words
    (`trees.malformations`); () when it is well-formed."""
    return malformations(source_text.split(), decoded_tokens(decoded_text, self.word_leaves),
                         self.word_leaves)


def tree_string(source_text, decoded_text, tags=None, word_leaves=False):
  """The bracketed tree (one line, EVALB's input) of a decoded target over the source words.

  Every source word appears exactly once, in order, under `XX` (or under `tags[i]`, e.g.
  gold POS tags, which EVALB needs to delete punctuation); malformed output is repaired
  by `delinearize`. With `word_leaves`, the decoded leaves are words, and the source's
  words stand in the tree whatever the model wrote for them.
  """
  return delinearize(source_text.split(), decoded_tokens(decoded_text, word_leaves), tags,
                     word_leaves).to_string()
