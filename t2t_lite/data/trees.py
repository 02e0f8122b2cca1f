"""Penn Treebank constituency trees: read, normalise, and linearise for seq2seq parsing.

    trees = read_mrg_file("wsj_0001.mrg")          # [Tree], each `( (S ...) )` as written
    tree = normalize(trees[0])                       # (S (NP (NNP Pierre) ...) ...)
    words, tokens = linearize(tree)                  # ["Pierre", ...], ["(S", "(NP", "XX", ...]
    linearize(tree, tag_leaves=True)[1]              # ["(S", "(NP", "NNP", ...]: tags, not XX
    linearize(tree, word_leaves=True)[1]             # ["(S", "(NP", "Pierre", ...]: the words
    back = delinearize(words, tokens)                # the same brackets, every POS tag `XX`
    malformations(words, tokens)                     # (): delinearize had nothing to repair
    back.to_string()                                 # "(S (NP (XX Pierre) ...) ...)", EVALB's input
    delinearize(words, tokens, tags=tree.tags())     # with the gold tags, to score against gold

A `Tree` is a label and a list of children. A preterminal's only child is its
word (a `str`); every other child is a `Tree`:

    Tree("NP", [Tree("DT", ["The"]), Tree("NN", ["cat"])])   # (NP (DT The) (NN cat))
"""

import re

from t2t_lite.errors import UserError
from t2t_lite.files.file_reading import read_text

# The preterminal placeholder of "Grammar as a Foreign Language": EVALB scores
# brackets, not POS tags, so the model need not predict them.
PLACEHOLDER_TAG = "XX"

# The label delinearize gives a root when the model produced none, or several
# top-level constituents: S is by far the most frequent root in the WSJ
# (about 90% of trees), so the guess usually earns its bracket.
DEFAULT_ROOT_LABEL = "S"

# Labels of the wrapper around each .mrg tree (empty in the PTB; TOP or ROOT
# in other dumps); normalize removes it.
ROOT_WRAPPER_LABELS = ("", "TOP", "ROOT")

TRACE_TAG = "-NONE-"

# The Penn Treebank's part-of-speech tags (Santorini, 1990; -LRB- and -RRB- as the WSJ
# writes brackets): the leaf tokens of `linearize(..., tag_leaves=True)`.
POS_TAGS = (
    "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP",
    "NNPS", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB",
    "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB", "#", "$", ".", ",", ":",
    "``", "''", "-LRB-", "-RRB-")
LEAF_TOKENS = frozenset(POS_TAGS + (PLACEHOLDER_TAG,))

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


class Tree:
  """A constituent: `label` (str) and `children`, a list of `Tree`, or `[word]` if preterminal."""

  __slots__ = ("label", "children")

  def __init__(self, label, children=None):
    self.label = label
    self.children = list(children) if children is not None else []

  def is_preterminal(self):
    return len(self.children) == 1 and isinstance(self.children[0], str)

  def preterminals(self):
    """The preterminals (POS tag + word) left to right."""
    if self.is_preterminal():
      return [self]
    return [leaf for child in self.children for leaf in child.preterminals()]

  def words(self):
    return [leaf.children[0] for leaf in self.preterminals()]

  def tags(self):
    return [leaf.label for leaf in self.preterminals()]

  def to_string(self):
    """One line, e.g. `(S (NP (DT The) (NN cat)) (VP (VBD sat)))`; what EVALB reads."""
    if self.is_preterminal():
      return f"({self.label} {self.children[0]})"
    inside = " ".join(child.to_string() for child in self.children)
    return f"({self.label} {inside})" if inside else f"({self.label})"

  def __eq__(self, other):
    return (isinstance(other, Tree) and self.label == other.label
            and self.children == other.children)

  def __repr__(self):
    return f"Tree({self.to_string()!r})"


def parse_trees(text, source="<string>"):
  """Every bracketed tree in `text` (a whole .mrg file, or one line), in order.

  Each top-level `( ... )` is one tree; `( (S ...) )` gives a root with label "".
  Raises UserError, one line naming `source` and the 1-based tree number, when
  the brackets do not balance, a word stands outside any bracket, or a bracket
  holds a word beside anything else.
  """
  trees = []
  stack = []  # The open constituents, outermost first.
  tokens = _TOKEN.findall(text)
  position = 0

  def fail(what):
    if stack:
      where = f"tree {len(trees) + 1}"
    else:
      where = f"after tree {len(trees)}" if trees else "before tree 1"
    raise UserError(f"{source}: {where}: {what}; fix the bracketing there")

  while position < len(tokens):
    token = tokens[position]
    if token == "(":
      label = ""
      if position + 1 < len(tokens) and tokens[position + 1] not in ("(", ")"):
        label = tokens[position + 1]
        position += 1
      if stack and stack[-1].is_preterminal():
        fail(f"({stack[-1].label} holds the word '{stack[-1].children[0]}' and a bracket")
      node = Tree(label)
      if stack:
        stack[-1].children.append(node)
      stack.append(node)
    elif token == ")":
      if not stack:
        fail("unbalanced parentheses: a ')' that closes nothing")
      node = stack.pop()
      if not stack:
        trees.append(node)
    else:
      if not stack:
        fail(f"the word '{token}' stands outside any bracket")
      parent = stack[-1]
      if parent.children:
        fail(f"({parent.label} holds '{token}' beside other children; "
             "a word must be alone under its POS tag")
      parent.children.append(token)
    position += 1
  if stack:
    fail(f"unbalanced parentheses: {len(stack)} '(' left open at the end")
  return trees


def read_mrg_file(path):
  """The trees of one Penn Treebank .mrg file; one-line UserError if missing or malformed."""
  return parse_trees(read_text(path, what="treebank file"), source=path)


def strip_function_tags(label):
  """`NP-SBJ-1` -> `NP`, `PP-LOC=2` -> `PP`, `NP=3` -> `NP`; `-LRB-`, `-NONE-` stay whole."""
  if label.startswith("-"):
    return label
  return re.split(r"[-=]", label, maxsplit=1)[0]


def normalize(tree):
  """A new tree in the form the parsing task predicts and scores; `tree` is left as is.

  1. The root wrapper (label "", TOP or ROOT, one child) is removed.
  2. Traces (preterminals tagged `-NONE-`) are removed, then every constituent
     they leave empty, recursively: (SBAR (-NONE- 0) (S (-NONE- *T*-1))) vanishes.
  3. Function tags and indices are cut from every label: `NP-SBJ-1` -> `NP`,
     `PP-LOC=2` -> `PP`. Labels starting with "-" (`-LRB-`, `-RRB-`) stay whole.
  POS tags and words are kept. A tree that is nothing but traces becomes a
  root with no children.
  """
  while (tree.label in ROOT_WRAPPER_LABELS and len(tree.children) == 1
         and isinstance(tree.children[0], Tree)):
    tree = tree.children[0]
  return _without_traces(tree) or Tree(strip_function_tags(tree.label))


def _without_traces(tree):
  """`tree` without traces, emptied constituents and function tags; None if nothing is left."""
  if tree.is_preterminal():
    return None if tree.label == TRACE_TAG else Tree(strip_function_tags(tree.label), tree.children)
  children = [kept for kept in (_without_traces(child) for child in tree.children) if kept]
  return Tree(strip_function_tags(tree.label), children) if children else None


def is_bracket(token):
  """Whether a linearised token is an opener `(LABEL` or a closer `)LABEL`."""
  return len(token) > 1 and token[0] in "()"


def is_leaf(token, word_leaves=False):
  """Whether a linearised token is a leaf: a POS tag or `XX`; with `word_leaves`, any token
  but a bracket (the word itself)."""
  return not is_bracket(token) if word_leaves else token in LEAF_TOKENS


def linearize(tree, tag_leaves=False, word_leaves=False):
  """(words, tokens): a normalised tree as the target sequence of Vinyals et al. (2015).

  Each constituent becomes `(LABEL ... )LABEL` and each preterminal `XX`:
  (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)) ->
      words  ["The", "cat", "sat", "."]
      tokens ["(S", "(NP", "XX", "XX", ")NP", "(VP", "XX", ")VP", "XX", ")S"]
  With `tag_leaves`, each preterminal is its POS tag instead (`XX` where the tag is
  none of POS_TAGS): ["(S", "(NP", "DT", "NN", ")NP", "(VP", "VBD", ")VP", ".", ")S"].
  With `word_leaves`, its word: ["(S", "(NP", "The", "cat", ")NP", "(VP", "sat", ...].
  """
  words, tokens = [], []

  def walk(node):
    if node.is_preterminal():
      words.append(node.children[0])
      if word_leaves:
        tokens.append(node.children[0])
      else:
        tokens.append(node.label if tag_leaves and node.label in POS_TAGS else PLACEHOLDER_TAG)
      return
    if not node.label:
      raise ValueError("linearize needs a normalised tree (a constituent has no label)")
    tokens.append("(" + node.label)
    for child in node.children:
      walk(child)
    tokens.append(")" + node.label)

  walk(tree)
  return words, tokens


# What `malformations` finds, in the order it reports them.
FEWER_LEAVES = "fewer leaves than words"
MORE_LEAVES = "more leaves than words"
LEFT_OPEN = "brackets left open"
CLOSES_NOTHING = "a closer with nothing open"
CLOSER_MISMATCH = "a closer naming another label"
EMPTY_CONSTITUENT = "an empty constituent"
NOT_ONE_ROOT = "not one root constituent"
UNKNOWN_TOKEN = "a token that is no bracket or leaf"
MALFORMATIONS = (FEWER_LEAVES, MORE_LEAVES, LEFT_OPEN, CLOSES_NOTHING, CLOSER_MISMATCH,
                 EMPTY_CONSTITUENT, NOT_ONE_ROOT, UNKNOWN_TOKEN)


def malformations(words, tokens, word_leaves=False):
  """What `delinearize` has to repair in `tokens` over `words` (leaves as `is_leaf` says):
  a tuple of MALFORMATIONS, in that order, each at most once. For one word or more and
  tag leaves, () exactly when `delinearize` gives back `tokens` as they stand."""
  found = set()
  leaves = 0
  stack = []      # Open constituents: [label, whether it holds anything yet].
  top = 0         # Top-level constituents and leaves.
  for token in tokens:
    if is_leaf(token, word_leaves):
      leaves += 1
      if stack:
        stack[-1][1] = True
      else:
        top += 1
    elif not is_bracket(token):
      found.add(UNKNOWN_TOKEN)
    elif token[0] == "(":
      if stack:
        stack[-1][1] = True
      else:
        top += 1
      stack.append([token[1:], False])
    else:
      if not stack:
        found.add(CLOSES_NOTHING)
        continue
      label, holds = stack.pop()
      if label != token[1:]:
        found.add(CLOSER_MISMATCH)
      if not holds:
        found.add(EMPTY_CONSTITUENT)
  if stack:
    found.add(LEFT_OPEN)
  if leaves != len(words):
    found.add(FEWER_LEAVES if leaves < len(words) else MORE_LEAVES)
  if top != 1 or (tokens and is_leaf(tokens[0], word_leaves)):
    found.add(NOT_ONE_ROOT)
  return tuple(kind for kind in MALFORMATIONS if kind in found)


def delinearize(words, tokens, tags=None, word_leaves=False):
  """The tree that `tokens` (a model's output, maybe malformed) describes over `words`.

  Words go back in order, one per leaf token (`XX` or a POS tag; with `word_leaves`,
  any token but a bracket), under that token (`XX` for word leaves; `tags[i]` for the
  i-th word when `tags` is given; words appended by a repair get `XX`). Malformed
  output is repaired so that the result always holds every word exactly once:
    - a closer with nothing open is dropped; any closer closes the innermost
      open constituent, whatever its label;
    - constituents still open at the end are closed there;
    - constituents with no words are dropped;
    - a leaf token beyond the last word is dropped; words left over when the
      tokens end are appended to the root as preterminals;
    - with tag leaves, tokens that are none of `(LABEL`, `)LABEL`, `XX`, POS_TAGS are
      ignored;
    - without exactly one top-level constituent (none, several, or a bare
      `XX`), everything is wrapped in a root labelled `S` (DEFAULT_ROOT_LABEL).

  Pass `tags` (e.g. the gold POS tags) before scoring against a gold tree with
  EVALB: it deletes punctuation by its tag (COLLINS.prm: , : `` '' .), so a
  punctuation word tagged `XX` makes the sentence a "Length unmatch" error.
  """
  if tags is not None and len(tags) != len(words):
    raise ValueError(f"delinearize got {len(tags)} tags for {len(words)} words")
  next_word = 0

  def leaf(token=PLACEHOLDER_TAG):
    nonlocal next_word
    tag = tags[next_word] if tags is not None else (
        PLACEHOLDER_TAG if word_leaves else token)
    node = Tree(tag, [words[next_word]])
    next_word += 1
    return node

  top = []     # Finished top-level constituents and preterminals.
  stack = []   # Open constituents, outermost first.

  def close():
    node = stack.pop()
    if node.children:
      (stack[-1].children if stack else top).append(node)

  for token in tokens:
    if is_leaf(token, word_leaves):
      if next_word < len(words):
        (stack[-1].children if stack else top).append(leaf(token))
    elif token.startswith("(") and len(token) > 1:
      stack.append(Tree(token[1:]))
    elif token.startswith(")") and len(token) > 1:
      if stack:
        close()
  while stack:
    close()

  if len(top) == 1 and not top[0].is_preterminal():
    root = top[0]
  else:
    root = Tree(DEFAULT_ROOT_LABEL, top)
  while next_word < len(words):
    root.children.append(leaf())
  return root
