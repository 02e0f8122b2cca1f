"""parsing_english_ptb16k: WSJ constituency parsing as translation (paper section 6.3).

Source: a sentence's words joined by spaces. Target: its normalised tree
linearised as in "Grammar as a Foreign Language" (Vinyals et al., 2015), each
word's POS tag standing for it where that paper writes `XX`:

    Pierre Vinken , 61 years old , will join the board ...
    (S (NP (NP NNP NNP )NP , (ADJP (NP CD NNS )NP JJ )ADJP , )NP (VP MD ...

Predicting each word's tag makes the decoder find that word in the source at
every leaf; with `XX` leaves, a few thousand trees taught a model the trees'
shapes but not to read the sentence (docs/results.md). Decoded `XX` leaves
(data made before tags) still read back.

The treebank is the user's own (LDC's Penn Treebank is licensed, never
shipped): --tmp_dir names a directory of `.mrg` files, searched recursively
(e.g. treebank_3/parsed/mrg/wsj). Which file goes to which split:
  - standard (when any file is a WSJ section 02-23 file, `wsj_SSNN.mrg`
    with SS the section): sections 02-21 train, 22 dev, 23 test; other
    files (sections 00, 01, 24, other names) are not used.
  - otherwise, any other directory of .mrg files: the files sorted by path,
    the last tenth (at least one file) test, the tenth before it dev, the
    rest train; with fewer than 3 files all of them are train. Whole files
    go to one split, as whole sections do in the standard split.
NLTK's sample of the treebank (its .mrg files directly in --tmp_dir, named as the
sample's) is checked file by file against the published files' SHA-256.

    t2t-datagen --problem=parsing_english_ptb16k --tmp_dir=treebank_3/parsed/mrg/wsj \\
        --data_dir=DIR

A decoded target goes back to a tree with `tree_string(source, decoded)`,
which repairs unbalanced output (see `t2t_lite.data.trees.delinearize`).
"""

import os
import re

import tensorflow as tf

from t2t_lite.constants import WORD_START
from t2t_lite.data.problem import DecodeDefaults, Drop, TextPairProblem
from t2t_lite.data.published_files import WSJ_SAMPLE, check_published
from t2t_lite.data.target_form import TargetForm
from t2t_lite.data.trees import (LEAF_TOKENS, PLACEHOLDER_TAG, POS_TAGS, delinearize,
                                  is_bracket, linearize, malformations, normalize,
                                  read_mrg_file)
from t2t_lite.errors import UserError

TRAIN_SECTIONS = range(2, 22)
DEV_SECTIONS = (22,)
TEST_SECTIONS = (23,)

# The PTB's constituent labels (Bies et al., 1995) once function tags are cut.
CONSTITUENT_LABELS = (
    "ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "LST", "NAC", "NP", "NX", "PP", "PRN", "PRT",
    "QP", "RRC", "S", "SBAR", "SBARQ", "SINV", "SQ", "UCP", "VP", "WHADJP", "WHADVP",
    "WHNP", "WHPP", "X")

DROP_NO_WORDS = "tree without words (only traces)"

_WSJ_FILE = re.compile(r"wsj_(\d\d)\d\d\.mrg", re.IGNORECASE)
_DECODED_TOKEN = re.compile(r"[()][^\s()]*|[^\s()]+")
_LABELS_LONGEST_FIRST = sorted(CONSTITUENT_LABELS, key=len, reverse=True)
_LEAVES_LONGEST_FIRST = sorted(LEAF_TOKENS, key=len, reverse=True)


def find_mrg_files(directory):
  """Every `.mrg` file under `directory` (recursively), sorted by path."""
  paths = []
  for root, _, names in os.walk(directory):
    paths.extend(os.path.join(root, name) for name in names if name.lower().endswith(".mrg"))
  return sorted(paths)


def check_wsj_sample(directory, paths):
  """UserError when `directory` holds the WSJ sample (its .mrg files lie directly in it and
  are named as the sample's) with a file that is not the published one."""
  directory = os.path.normpath(directory)
  if not all(os.path.normpath(os.path.dirname(path)) == directory
             and os.path.basename(path) in WSJ_SAMPLE for path in paths):
    return
  for path in paths:
    check_published(path, WSJ_SAMPLE, "the Penn Treebank sample")


def wsj_section(path):
  """The WSJ section of `wsj_SSNN.mrg` (SS as an int), or None for other names."""
  match = _WSJ_FILE.fullmatch(os.path.basename(path))
  return int(match.group(1)) if match else None


def split_files(paths):
  """{"train": [...], "dev": [...], "test": [...]} of `paths` (see the module docstring)."""
  paths = sorted(paths)
  sections = {path: wsj_section(path) for path in paths}
  standard = set(TRAIN_SECTIONS) | set(DEV_SECTIONS) | set(TEST_SECTIONS)
  if any(section in standard for section in sections.values()):
    return {split: [path for path in paths if sections[path] in chosen]
            for split, chosen in (("train", TRAIN_SECTIONS), ("dev", DEV_SECTIONS),
                                  ("test", TEST_SECTIONS))}
  if len(paths) < 3:
    return {"train": paths, "dev": [], "test": []}
  tenth = max(1, len(paths) // 10)
  train_end = len(paths) - 2 * tenth
  return {"train": paths[:train_end], "dev": paths[train_end:train_end + tenth],
          "test": paths[train_end + tenth:]}


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


class ParsingEnglishPtb16k(TextPairProblem):
  """Words -> linearised tree on the WSJ Penn Treebank; 16k shared vocabulary."""

  vocab_size = 16384
  shared_vocab = True
  user_defined_symbols = target_symbols()
  # Paper: beam 21, alpha 0.3, max output length input + 300.
  decode_defaults = DecodeDefaults(beam_size=21, alpha=0.3, extra_length=300)
  target_form = LinearisedTrees()

  def linearised(self, tree):
    """(words, tokens) of a normalised tree: each leaf its POS tag."""
    return linearize(tree, tag_leaves=True)

  def text_pairs(self, split, sources):
    """Yields (words, linearised tree) for each tree of the split's files."""
    if sources.files or sources.tsv:
      raise UserError(f"{self.name} reads Penn Treebank .mrg files from --tmp_dir, not "
                      f"--{{train,dev,test}}_{{source,target,tsv}} files")
    paths = find_mrg_files(sources.tmp_dir)
    if not paths:
      raise UserError(f"{self.name}: no .mrg files under {sources.tmp_dir}; pass "
                      f"--tmp_dir=<your Penn Treebank's directory of .mrg files, e.g. "
                      f"treebank_3/parsed/mrg/wsj>")
    check_wsj_sample(sources.tmp_dir, paths)
    for path in split_files(paths)[split]:
      for number, tree in enumerate(read_mrg_file(path), start=1):
        try:
          words, tokens = self.linearised(normalize(tree))
        except ValueError as error:  # E.g. a wrapper holding several trees.
          raise UserError(f"{path}: tree {number}: {error}; fix the bracketing there") from None
        if not words:
          yield Drop(DROP_NO_WORDS)
          continue
        yield " ".join(words), " ".join(tokens)

  decoding_metric_name = "bracket_f1"

  def decoding_metric(self, sources, outputs, references):
    """Bracket F1 in percent of decoded trees against the reference trees, by the
    EVALB-compatible scorer with COLLINS.prm."""
    from t2t_lite.metrics.evalb import score_corpus
    gold = [self.target_form.output_text(source, reference)
            for source, reference in zip(sources, references)]
    return score_corpus(gold, outputs).all.f1


class ParsingEnglishPtb16kWords(ParsingEnglishPtb16k):
  """As parsing_english_ptb16k, each leaf the word itself: `(S (NP Pierre Vinken )NP ...`.

  Writing each word, the decoder sees where in the sentence it is; with tag leaves a small
  parser's leaves drift off their words (docs/results.md)."""

  user_defined_symbols = target_symbols(word_leaves=True)
  target_form = LinearisedTrees(word_leaves=True)

  def linearised(self, tree):
    """(words, tokens) of a normalised tree: each leaf its word."""
    return linearize(tree, word_leaves=True)
