"""The bracket rule (t2t_lite.decoding.bracket_rule): the tokens it allows against the
prefixes of every well-formed tree that fits, and the parser's outputs through the
Translator."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

from t2t_lite.constants import EOS_ID, IMPOSSIBLE_LOG_PROB
from t2t_lite.data.trees import malformations
from t2t_lite.decoding.bracket_rule import bracket_tables
from t2t_lite.decoding.decode_hparams import DecodeHParams
from t2t_lite.decoding.token_counts import CountRule, apply_count_rule
from t2t_lite.decoding.translate import Translator
from test_token_counts import SENTENCES, untrained_parser

PIECES = ["<pad>", "</s>", "\u2581(A", ")A", "(B", "\u2581)B", "XX", "\u2581the", "(C"]
TOKENS = {piece.removeprefix("\u2581"): i for i, piece in enumerate(PIECES)}
PAIRS = (("(A", ")A"), ("(B", ")B"), ("(C", ")C"))   # The vocabulary has no `)C`.
LIMIT = 7   # Tokens, EOS included.


def trees_that_fit(leaves):
  """Every well-formed tree of A and B brackets over `leaves` words that fits the limit
  (as id tuples, EOS not included), found by trying every token sequence."""
  symbols = ["(A", ")A", "(B", ")B", "XX"]
  found = []
  for length in range(1, LIMIT):
    for tokens in itertools.product(symbols, repeat=length):
      if not malformations(["w"] * leaves, tokens):
        found.append(tuple(TOKENS[token] for token in tokens))
  return found


def allowed_by_the_rule(prefix, leaves):
  """The ids the rule allows after `prefix` (ids) for a source of `leaves` words."""
  counted = np.array([int(piece == "XX") for piece in PIECES], np.int32)
  tables = bracket_tables(PIECES, PAIRS, ("XX",))
  sequences = np.zeros((1, LIMIT + 1), np.int32)
  sequences[0, 1:len(prefix) + 1] = prefix
  rule = CountRule(counted, np.array([leaves], np.int32), tables)
  log_probs = apply_count_rule(np.zeros((1, len(PIECES)), np.float32), sequences, rule,
                               len(prefix), np.array([LIMIT], np.int32))
  return set(np.flatnonzero(np.asarray(log_probs)[0] > IMPOSSIBLE_LOG_PROB).tolist())


@pytest.mark.parametrize("leaves", [1, 2, 3])
def test_the_rule_allows_exactly_the_tokens_that_lead_to_a_tree_that_fits(leaves):
  trees = trees_that_fit(leaves)
  assert trees  # E.g. `(A XX XX XX )A` for three words.
  prefixes = {tree[:end] for tree in trees for end in range(len(tree) + 1)}
  for prefix in prefixes:
    if len(prefix) == LIMIT - 1:  # The limit's own token: the search ends it (not the rule).
      assert allowed_by_the_rule(prefix, leaves) == set(range(len(PIECES)))
      continue
    expected = {tree[len(prefix)] for tree in trees
                if tree[:len(prefix)] == prefix and len(tree) > len(prefix)}
    if prefix in trees:
      expected.add(EOS_ID)
    assert allowed_by_the_rule(prefix, leaves) == expected, [PIECES[i] for i in prefix]


def test_a_hypothesis_with_no_tree_left_may_end():
  # Seven words cannot fit in a limit of 7 tokens: the hypothesis may only end.
  assert allowed_by_the_rule((), 7) == {EOS_ID}
  assert allowed_by_the_rule((TOKENS["(A"], TOKENS[")A"]), 1) == {EOS_ID}


def test_the_tables_know_each_piece_with_and_without_the_word_start_mark():
  tables = bracket_tables(PIECES, PAIRS, ("XX",))
  np.testing.assert_array_equal(tables.opens, [0, 0, 1, 0, 2, 0, 0, 0, 0])  # No `)C`: no `(C`.
  np.testing.assert_array_equal(tables.closes, [0, 0, 0, 1, 0, 2, 0, 0, 0])
  np.testing.assert_array_equal(tables.allowed, [0, 1, 1, 1, 1, 1, 1, 0, 0])
  with pytest.raises(ValueError, match="no bracket piece"):
    bracket_tables(["<pad>", "</s>", "XX"], PAIRS, ("XX",))


@pytest.mark.parametrize("beam_size", [1, 3])
def test_an_untrained_parser_decodes_only_well_formed_trees(beam_size):
  problem, model, vocabulary = untrained_parser()
  settings = DecodeHParams(beam_size=beam_size, alpha=0.3, extra_length=25)
  translation = Translator(model, (vocabulary, vocabulary), problem.target_form, settings,
                           tf.distribute.get_strategy()).translation(SENTENCES, progress=False)
  assert (translation.decoded, translation.repaired) == (len(SENTENCES), 0)
  for source, tree in zip(SENTENCES, translation.lines):
    assert tree.startswith("(") and tree.count("(") == tree.count(")")
    assert [piece.rstrip(")") for piece in tree.split() if not piece.startswith("(")] == (
        source.split())
