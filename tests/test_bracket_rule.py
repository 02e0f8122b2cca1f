"""The bracket rule (t2t_lite.decoding.bracket_rule) and the copy rule on top of it
(copy_rule.py): the tokens they allow against the prefixes of every well-formed tree that
fits, for tag leaves and for word leaves of several pieces, and the parser's outputs
through the Translator."""

import dataclasses
import itertools

import numpy as np
import pytest
import tensorflow as tf

from t2t_lite.constants import EOS_ID, IMPOSSIBLE_LOG_PROB
from model_fixtures import SENTENCES, SMALL, small_model, untrained_parser
from t2t_lite.data.linearised_trees import LinearisedTrees, decoded_tokens
from t2t_lite.data.vocabulary import Vocabulary, train_sentencepiece
from t2t_lite.decoding.bracket_rule import bracket_tables
from t2t_lite.decoding.copy_rule import source_leaf_pieces
from t2t_lite.decoding.decode_hparams import DecodeHParams
from t2t_lite.decoding.token_counts import CountRule, apply_count_rule, counted_ids_table
from t2t_lite.decoding.translate import Translator
from t2t_lite.export.saved_model import Exported
from t2t_lite.problems.parsing_ptb import ParsingEnglishPtb16kWords

LIMIT = 7   # Tokens, EOS included.
PAIRS = tuple(("(" + label, ")" + label) for label in ("NP", "VP", "PP"))
# Tag leaves: `XX` is the leaf; `▁the` no target token; the vocabulary has no `)PP`.
TAG_PIECES = ["<pad>", "</s>", "\u2581(NP", ")NP", "(VP", "\u2581)VP", "XX", "\u2581the", "(PP"]
# Word leaves: `▁w` starts a word, `x` continues one.
WORD_PIECES = ["<pad>", "</s>", "\u2581(NP", ")NP", "\u2581(VP", "\u2581)VP", "\u2581w", "x",
               "<unk>"]
FORMS = {"tags": (LinearisedTrees(), TAG_PIECES), "words": (LinearisedTrees(word_leaves=True),
                                                            WORD_PIECES)}


def text(pieces):
  """Pieces -> the text SentencePiece decodes them to."""
  return "".join(piece.replace("\u2581", " ") for piece in pieces).strip()


def trees_that_fit(form, pieces, words):
  """Every piece sequence (ids, EOS not included) that fits the limit and decodes to a
  well-formed tree over `words` words, each word starting with a counted piece."""
  counted = counted_ids_table(pieces, form.counts)
  symbols = [i for i, piece in enumerate(pieces)
             if counted[i] or form.continues(piece) or piece.lstrip("\u2581")[:1] in "()"
             and len(piece.lstrip("\u2581")) > 1]
  found = []
  for length in range(1, LIMIT):
    for ids in itertools.product(symbols, repeat=length):
      starts_words = all(counted[a] or form.continues(pieces[a])
                         for a, b in zip(ids, ids[1:]) if form.continues(pieces[b]))
      if starts_words and not form.continues(pieces[ids[0]]) and not form.malformations(
          " ".join(["w"] * words), text(pieces[i] for i in ids)):
        found.append(ids)
  return found


def allowed_by_the_rule(form, pieces, prefix, words, source=None):
  """The ids the rule allows after `prefix` (ids) for a source of `words` words; with
  `source` (its input ids), under the copy rule too."""
  counted = counted_ids_table(pieces, form.counts)
  continues = np.array([int(form.continues(piece)) for piece in pieces], np.int32)
  tables = bracket_tables(pieces, PAIRS, counted, continues)
  sequences = np.zeros((1, LIMIT + 1), np.int32)
  sequences[0, 1:len(prefix) + 1] = prefix
  copied = (None if source is None
            else source_leaf_pieces(np.array([source], np.int32), np.maximum(counted, continues)))
  rule = CountRule(counted, np.array([words], np.int32), tables, copied)
  log_probs = apply_count_rule(np.zeros((1, len(pieces)), np.float32), sequences, rule,
                               len(prefix), np.array([LIMIT], np.int32))
  return set(np.flatnonzero(np.asarray(log_probs)[0] > IMPOSSIBLE_LOG_PROB).tolist())


@pytest.mark.parametrize("leaves", sorted(FORMS))
@pytest.mark.parametrize("words", [1, 2, 3])
def test_the_rule_allows_exactly_the_tokens_that_lead_to_a_tree_that_fits(leaves, words):
  form, pieces = FORMS[leaves]
  trees = trees_that_fit(form, pieces, words)
  assert trees  # E.g. `(NP XX XX XX )NP` for three words.
  prefixes = {tree[:end] for tree in trees for end in range(len(tree) + 1)}
  for prefix in prefixes:
    allowed = allowed_by_the_rule(form, pieces, prefix, words)
    if len(prefix) == LIMIT - 1:  # The limit's own token: the search ends it (not the rule).
      assert allowed == set(range(len(pieces)))
      continue
    expected = {tree[len(prefix)] for tree in trees
                if tree[:len(prefix)] == prefix and len(tree) > len(prefix)}
    if prefix in trees:
      expected.add(EOS_ID)
    assert allowed == expected, [pieces[i] for i in prefix]


def leaf_pieces(form, pieces, ids):
  return [i for i in ids if form.counts(pieces[i]) or form.continues(pieces[i])]


# Input ids (EOS last, padding after it): `wx w`, `w wx`, `wxx`, `w w w`, `w <unk> w`.
SOURCES = [(6, 7, 6, 1, 0), (6, 6, 7, 1), (6, 7, 7, 1), (6, 6, 6, 1), (6, 8, 6, 1, 0, 0)]


@pytest.mark.parametrize("source", SOURCES)
def test_the_copy_rule_allows_exactly_the_tokens_that_lead_to_a_tree_over_the_source(source):
  form, pieces = FORMS["words"]
  copied = leaf_pieces(form, pieces, source)
  words = sum(form.counts(pieces[i]) for i in copied)
  trees = [tree for tree in trees_that_fit(form, pieces, words)
           if leaf_pieces(form, pieces, tree) == copied]
  assert trees  # E.g. `(NP wx w )NP` for the first source, never `(NP w wx )NP`.
  for prefix in {tree[:end] for tree in trees for end in range(len(tree) + 1)}:
    allowed = allowed_by_the_rule(form, pieces, prefix, words, source)
    if len(prefix) == LIMIT - 1:
      continue  # The limit's own token (above).
    expected = {tree[len(prefix)] for tree in trees
                if tree[:len(prefix)] == prefix and len(tree) > len(prefix)}
    if prefix in trees:
      expected.add(EOS_ID)
    assert allowed == expected, [pieces[i] for i in prefix]


def test_the_copy_rule_gives_the_next_word_the_mass_of_every_word_start():
  form = FORMS["words"][0]
  pieces = WORD_PIECES + ["\u2581v"]  # `▁w` (6) and `▁v` (9) start words, `x` (7) continues.
  counted = counted_ids_table(pieces, form.counts)
  continues = np.array([int(form.continues(piece)) for piece in pieces], np.int32)
  tables = bracket_tables(pieces, PAIRS, counted, continues)
  probs = np.full(len(pieces), 0.05, np.float32)
  probs[[6, 9]] = 0.1, 0.3
  copied = source_leaf_pieces(np.array([[6, 7, 6, 1]], np.int32),
                              np.maximum(counted, continues))  # The source: `wx w`.

  def scores(prefix):
    sequences = np.zeros((1, 11), np.int32)
    sequences[0, 1:len(prefix) + 1] = prefix
    rule = CountRule(counted, np.array([2], np.int32), tables, copied)
    return np.asarray(apply_count_rule(np.log(probs)[None], sequences, rule, len(prefix),
                                       np.array([10], np.int32)))[0]
  after_opener = scores([2])  # `(NP`: an opener, or the next word with all starts' mass.
  assert set(np.flatnonzero(after_opener > IMPOSSIBLE_LOG_PROB).tolist()) == {2, 4, 6}
  np.testing.assert_allclose(after_opener[6], np.log(0.4), rtol=1e-6)
  inside_word = scores([2, 6])  # `(NP ▁w`: only the word's `x`, at no cost.
  assert np.flatnonzero(inside_word > IMPOSSIBLE_LOG_PROB).tolist() == [7]
  assert inside_word[7] == 0


def test_the_source_leaf_pieces_leave_out_the_others():
  counted = np.array([0, 0, 0, 1, 0])
  continues = np.array([0, 0, 0, 0, 1])
  inputs = np.array([[3, 2, 4, 3, 1, 0], [2, 3, 4, 4, 1, 0]], np.int32)  # 2: <unk>; 1: EOS.
  np.testing.assert_array_equal(source_leaf_pieces(inputs, np.maximum(counted, continues)),
                                [[3, 4, 3, 0, 0, 0], [3, 4, 4, 0, 0, 0]])


def test_words_of_several_pieces_fit_the_rule():
  form, pieces = FORMS["words"]
  trees = {text(pieces[i] for i in tree) for tree in trees_that_fit(form, pieces, 2)}
  assert {"(NP wx w)NP", "(NP wxx w)NP", "(NP w wx)NP", "(VP wx wx )VP"} <= trees
  assert decoded_tokens("(NP wx w)NP", word_leaves=True) == ["(NP", "wx", "w", ")NP"]


def test_a_hypothesis_with_no_tree_left_may_end():
  form, pieces = FORMS["tags"]
  # Seven words cannot fit in a limit of 7 tokens: the hypothesis may only end.
  assert allowed_by_the_rule(form, pieces, (), 7) == {EOS_ID}
  assert allowed_by_the_rule(form, pieces, (2, 3), 1) == {EOS_ID}   # `(NP )NP`: no room.


def test_the_tables_know_each_piece_with_and_without_the_word_start_mark():
  form, pieces = FORMS["tags"]
  counted = counted_ids_table(pieces, form.counts)
  tables = bracket_tables(pieces, PAIRS, counted, np.zeros(len(pieces), np.int32))
  np.testing.assert_array_equal(tables.opens, [0, 0, 1, 0, 2, 0, 0, 0, 0])  # No `)PP`: no `(PP`.
  np.testing.assert_array_equal(tables.closes, [0, 0, 0, 1, 0, 2, 0, 0, 0])
  np.testing.assert_array_equal(tables.allowed, [0, 1, 1, 1, 1, 1, 1, 0, 0])
  with pytest.raises(ValueError, match="no bracket piece"):
    bracket_tables(["<pad>", "</s>", "XX"], PAIRS, np.array([0, 0, 1]), np.zeros(3, np.int32))


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


class _DecodedText(LinearisedTrees):
  """Word leaves whose output line is the decoded target itself (no tree repair)."""

  def output_text(self, source_text, decoded_text):
    return decoded_text


def untrained_word_parser():
  """-> (model, vocabulary): an untrained parser with word leaves, a small real vocabulary."""
  size = 400
  model = small_model(hparams=dataclasses.replace(SMALL, max_length=64), input_vocab=size,
                      target_vocab=size, seed=1)
  trees = ["(S (NP The cat )NP (VP sat (PP on (NP the mat )NP )PP )VP . )S",
           "(S (NP Stocks )NP (VP fell )VP . )S"]
  vocabulary = Vocabulary(train_sentencepiece(
      (SENTENCES + trees) * 20, size,
      user_defined_symbols=ParsingEnglishPtb16kWords.user_defined_symbols))
  return model, vocabulary


def assert_the_source_words_in_order(decoded_lines):
  for source, decoded in zip(SENTENCES, decoded_lines):
    tokens = decoded_tokens(decoded, word_leaves=True)
    assert [token for token in tokens if token[0] not in "()"] == source.split(), decoded
    assert not _DecodedText(word_leaves=True).malformations(source, decoded)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_an_untrained_word_leaf_parser_writes_the_source_words_in_order(beam_size):
  model, vocabulary = untrained_word_parser()
  settings = DecodeHParams(beam_size=beam_size, alpha=0.3, extra_length=25)
  translation = Translator(model, (vocabulary, vocabulary), _DecodedText(word_leaves=True),
                           settings, tf.distribute.get_strategy()).translation(
                               SENTENCES, progress=False)
  assert_the_source_words_in_order(translation.lines)


def test_the_exported_word_leaf_parser_writes_the_source_words_in_order(tmp_path):
  model, vocabulary = untrained_word_parser()
  model({"inputs": tf.ones([1, 3], tf.int32), "targets": tf.ones([1, 3], tf.int32)})  # Built.
  settings = DecodeHParams(beam_size=2, alpha=0.3, extra_length=25)
  exported = Exported(model, LinearisedTrees(word_leaves=True), vocabulary, vocabulary,
                      settings, max_input_length=20)
  tf.saved_model.save(exported, str(tmp_path), signatures={"serving_default": exported.translate})
  served = tf.saved_model.load(str(tmp_path)).signatures["serving_default"]
  outputs = served(sentences=tf.constant(SENTENCES))["translations"].numpy()
  assert_the_source_words_in_order([output.decode("utf-8") for output in outputs])
