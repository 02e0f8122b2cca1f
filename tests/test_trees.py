"""Trees: reading .mrg files, normalising, linearising, and repairing a model's output."""

import glob
import itertools
import os

import pytest

from t2t_lite.data.trees import (CLOSER_MISMATCH, EMPTY_CONSTITUENT, FEWER_LEAVES, LEFT_OPEN,
                                 MALFORMATIONS, NOT_ONE_ROOT, Tree, delinearize,
                                 linearize, malformations, normalize, parse_trees,
                                 read_mrg_file)
from t2t_lite.errors import UserError
from t2t_lite.metrics.evalb import COLLINS, ERROR, score_corpus


def is_well_formed(words, tokens):
  """Whether `tokens` are a tree over `words` as they stand: `delinearize` repairs nothing
  (balanced brackets, each closer naming what it closes, one root constituent, one leaf
  token per word, no empty constituent)."""
  return linearize(delinearize(words, tokens), tag_leaves=True)[1] == list(tokens)


MRG = """\
( (S
    (NP-SBJ-1 (DT The) (NN cat) )
    (VP (VBD sat)
      (SBAR (-NONE- 0)
        (S (-NONE- *T*-1) )))
    (. .) ))
((NP (-LRB- -LRB-) (NN aside) (-RRB- -RRB-)))
"""


def the(text):
  """The single tree in `text`."""
  (tree,) = parse_trees(text)
  return tree


def test_parse_trees_reads_each_wrapped_tree():
  first, second = parse_trees(MRG, source="two.mrg")
  assert first.label == "" and first.children[0].label == "S"
  assert first.words() == ["The", "cat", "sat", "0", "*T*-1", "."]
  assert first.tags() == ["DT", "NN", "VBD", "-NONE-", "-NONE-", "."]
  assert second.to_string() == "( (NP (-LRB- -LRB-) (NN aside) (-RRB- -RRB-)))"


def test_read_mrg_file_reads_a_file(tmp_path):
  path = tmp_path / "wsj_9999.mrg"
  path.write_text(MRG)
  assert read_mrg_file(str(path)) == parse_trees(MRG)


@pytest.mark.parametrize("trees, where, what", [
    ("(S (NP (DT a)) (VP (VB b)))\n( (S (NP (DT c) (VP (VB d))) )\n(S (X e))",
     "tree 2", "'(' left open"),
    ("(S (X a))\n(S (X b)))\n(S (X c))", "after tree 2", "closes nothing"),
    ("(S (X a))\n(S (X b) c)", "tree 2", "beside other children"),
    ("(S (X a))\n(S (X b c))", "tree 2", "beside other children"),
    ("(S (X a))\n(S (X b (Y c)))", "tree 2", "holds the word 'b' and a bracket"),
    ("stray (S (X a))", "before tree 1", "outside any bracket"),
])
def test_malformed_mrg_names_file_and_tree_in_one_line(tmp_path, trees, where, what):
  path = tmp_path / "bad.mrg"
  path.write_text(trees)
  with pytest.raises(UserError) as caught:
    read_mrg_file(str(path))
  message = str(caught.value)
  assert message.startswith(f"{path}: {where}: ")
  assert what in message
  assert "\n" not in message


def test_missing_mrg_file_is_one_line_user_error(tmp_path):
  with pytest.raises(UserError, match=r"treebank file .*nowhere\.mrg: no such file"):
    read_mrg_file(str(tmp_path / "nowhere.mrg"))


def test_normalize_removes_traces_function_tags_and_root_wrapper():
  original, parenthesised = parse_trees(MRG)
  before = original.to_string()
  assert normalize(original).to_string() == "(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))"
  assert original.to_string() == before  # The input is left as it was.
  assert normalize(parenthesised).to_string() == (
      "(NP (-LRB- -LRB-) (NN aside) (-RRB- -RRB-))")
  indexed = the("(TOP (S (PP-LOC=2 (IN in) (NP=3 (NN town))) (NP-SBJ-1 (PRP I))))")
  assert normalize(indexed).to_string() == "(S (PP (IN in) (NP (NN town))) (NP (PRP I)))"


def test_linearize_matches_grammar_as_a_foreign_language():
  tree = the("(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))")
  words, tokens = linearize(tree)
  assert words == ["The", "cat", "sat", "."]
  assert " ".join(tokens) == "(S (NP XX XX )NP (VP XX )VP XX )S"
  assert delinearize(words, tokens).to_string() == (
      "(S (NP (XX The) (XX cat)) (VP (XX sat)) (XX .))")
  with pytest.raises(ValueError, match="normalised"):
    linearize(the("( (S (X a)) )"))


def test_tag_leaves_stand_for_their_words_and_read_back():
  tree = the("(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))")
  words, tokens = linearize(tree, tag_leaves=True)
  assert " ".join(tokens) == "(S (NP DT NN )NP (VP VBD )VP . )S"
  assert delinearize(words, tokens) == tree
  assert is_well_formed(words, tokens)
  assert not is_well_formed(words, tokens[:-1] + ["VBD", ")S"])   # A word too many.
  # A tag outside the Penn Treebank's set is linearised as `XX`; tokens may mix both.
  assert linearize(the("(NP (ZZ odd) (NN cat))"), tag_leaves=True)[1] == ["(NP", "XX", "NN", ")NP"]
  assert delinearize(["a", "b"], ["(NP", "XX", "NN", ")NP"]).to_string() == "(NP (XX a) (NN b))"


WORDS = ["The", "cat", "sat", "."]


@pytest.mark.parametrize("tokens, expected", [
    # Unmatched closers are dropped; unclosed brackets close at the end.
    (")S )NP (S (NP XX XX )NP (VP XX XX", "(S (NP (XX The) (XX cat)) (VP (XX sat) (XX .)))"),
    # A closer with the wrong label closes the innermost open bracket.
    ("(S (NP XX XX )VP (VP XX )NP XX )S", "(S (NP (XX The) (XX cat)) (VP (XX sat)) (XX .))"),
    # Too few XX: the words left over end the root.
    ("(S (NP XX )NP )S", "(S (NP (XX The)) (XX cat) (XX sat) (XX .))"),
    # Too many XX: the extra ones are dropped, and so is the bracket left empty.
    ("(S (NP XX XX )NP (VP XX XX XX )VP (PP XX )PP )S",
     "(S (NP (XX The) (XX cat)) (VP (XX sat) (XX .)))"),
    # No tokens at all: a flat root.
    ("", "(S (XX The) (XX cat) (XX sat) (XX .))"),
    # Several top-level constituents, or bare XX: wrapped in a root S.
    ("(NP XX XX )NP (VP XX )VP XX", "(S (NP (XX The) (XX cat)) (VP (XX sat)) (XX .))"),
    # Tokens that are not brackets or XX are ignored.
    ("(S <pad> (NP XX ( XX )NP ) (VP XX )VP XX )S",
     "(S (NP (XX The) (XX cat)) (VP (XX sat)) (XX .))"),
])
def test_delinearize_repairs_malformed_output(tokens, expected):
  tree = delinearize(WORDS, tokens.split())
  assert tree.to_string() == expected
  assert tree.words() == WORDS


@pytest.mark.parametrize("words", [1, 2, 3])
def test_malformations_name_something_exactly_when_delinearize_repairs(words):
  words = ["w"] * words
  for length in range(6):
    for tokens in itertools.product(["(S", ")S", "(NP", ")NP", "XX", "DT", "the"],
                                    repeat=length):
      found = malformations(words, tokens)
      assert (not found) == is_well_formed(words, tokens), (tokens, found)
      assert len(set(found)) == len(found) and set(found) <= set(MALFORMATIONS)


def test_malformations_say_what_is_wrong():
  words = ["The", "cat", "sat"]
  assert malformations(words, "(S (NP DT NN )NP (VP VBD".split()) == (LEFT_OPEN,)
  assert malformations(words, "(S (NP DT NN )NP )S".split()) == (FEWER_LEAVES,)
  assert malformations(words, "(S (NP DT NN )VP VBD )S".split()) == (CLOSER_MISMATCH,)
  assert malformations(words, "(S (NP DT NN )NP )S (VP VBD )VP".split()) == (NOT_ONE_ROOT,)
  assert malformations(words, "(S (NP )NP DT NN VBD )S".split()) == (EMPTY_CONSTITUENT,)


def test_delinearize_of_nothing_is_an_empty_root():
  assert delinearize([], []).to_string() == "(S)"
  assert delinearize([], ["(NP", "XX", ")NP"]).to_string() == "(S)"


def test_delinearize_puts_given_tags_on_the_words():
  tree = delinearize(["Yes", "."], ["(INTJ", "XX", ")INTJ", "XX"], tags=["UH", "."])
  assert tree == Tree("S", [Tree("INTJ", [Tree("UH", ["Yes"])]), Tree(".", ["."])])
  with pytest.raises(ValueError, match="1 tags for 2 words"):
    delinearize(["Yes", "."], [], tags=["UH"])


@pytest.fixture(scope="module")
def ptb_trees(shared_data):
  paths = sorted(glob.glob(os.path.join(shared_data, "ptb_sample", "combined", "wsj_*.mrg")))
  return [tree for path in paths for tree in read_mrg_file(path)]


def test_every_ptb_sample_tree_round_trips_with_f1_100(ptb_trees):
  assert len(ptb_trees) == 3914
  gold, test = [], []
  for tree in ptb_trees:
    normal = normalize(tree)
    words, tokens = linearize(normal)
    assert words == normal.words()
    back = delinearize(words, tokens, tags=normal.tags())
    assert back.words() == words
    assert back.to_string() == normal.to_string()
    gold.append(normal.to_string())
    test.append(back.to_string())
  result = score_corpus(gold, test, COLLINS)
  assert result.all.valid_sentences == 3914
  assert result.all.gold_brackets > 70000
  assert (result.all.recall, result.all.precision, result.all.f1) == (100.0, 100.0, 100.0)


def test_ptb_normalisation_leaves_no_trace_or_function_tag(ptb_trees):
  labels = set()
  for tree in ptb_trees[:300]:
    labels.update(token[1:] for token in linearize(normalize(tree))[1] if token != "XX")
    assert "-NONE-" not in normalize(tree).tags()
  assert {"S", "NP", "VP", "PP", "SBAR"} <= labels
  assert not [label for label in labels if "-" in label or "=" in label]


def test_xx_tags_make_punctuation_a_length_error_under_collins(ptb_trees):
  normal = normalize(ptb_trees[0])  # Pierre Vinken, 61 years old, ... .
  words, tokens = linearize(normal)
  result = score_corpus([normal.to_string()], [delinearize(words, tokens).to_string()], COLLINS)
  assert result.sentences[0].status == ERROR
  assert result.sentences[0].message == "Length unmatch (15|18)"
