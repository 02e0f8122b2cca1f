"""MBR selection (t2t_lite/decoding/mbr.py): its sentence BLEU is sacreBLEU's smoothed one, and
it picks the hypothesis the weighted beam agrees with most."""

import os

import pytest
import sacrebleu

from t2t_lite.decoding.mbr import NgramCounts, expected_bleus, mbr_order, sentence_bleu


def test_sentence_bleu_is_sacrebleus_add_one_smoothed_sentence_bleu(shared_data):
  with open(os.path.join(shared_data, "multi30k", "val.de"), encoding="utf-8") as f:
    lines = f.read().splitlines()[:100]
  pairs = list(zip(lines, lines[1:] + lines[:1]))  # Every line against the next,
  pairs += [("a b", "a c"), ("a b c", "a b d e"), ("a", "a b c d e"), ("x y", "a b")]  # short ones.
  for hypothesis, reference in pairs:
    theirs = sacrebleu.sentence_bleu(hypothesis, [reference], smooth_method="add-k",
                                     smooth_value=1).score
    # Both sum the same four logs of ratios of small counts: equal to float rounding.
    assert sentence_bleu(NgramCounts(hypothesis), NgramCounts(reference)) == pytest.approx(
        theirs, rel=1e-12, abs=1e-12)


def test_sentence_bleu_of_a_line_against_itself_is_100_and_of_empty_lines_0():
  line = NgramCounts("ein hund läuft über die wiese.")
  assert sentence_bleu(line, line) == pytest.approx(100.0, rel=1e-12)
  assert sentence_bleu(NgramCounts(""), line) == 0.0
  assert sentence_bleu(line, NgramCounts("")) == 0.0


def test_the_pick_is_the_hypothesis_the_beam_agrees_with_not_the_top_score():
  texts = ["ein hund läuft über die grüne wiese .",
           "ein hund läuft über die wiese .",
           "eine katze schläft in einer kiste ."]
  order = mbr_order(texts, [-1.0, -1.0, -0.9])  # The odd one out scores a little higher.
  assert order[-1] == 2 and sorted(order[:2]) == [0, 1]


def test_a_hypothesis_the_model_is_sure_of_wins():
  texts = ["ein hund läuft über die grüne wiese .",
           "ein hund läuft über die wiese .",
           "eine katze schläft in einer kiste ."]
  assert mbr_order(texts, [-30.0, -30.0, 0.0])[0] == 2  # Weights ~ (0, 0, 1).


def test_ties_keep_the_beams_order_and_short_lists_pass_through():
  same = ["ein hund .", "ein hund .", "ein hund ."]
  assert expected_bleus(same, [-1.0, -2.0, -3.0]) == pytest.approx([100.0] * 3, rel=1e-12)
  assert mbr_order(same, [-1.0, -2.0, -3.0]) == [0, 1, 2]
  assert mbr_order(["ein hund ."], [-1.0]) == [0]
  assert mbr_order([], []) == []
  with pytest.raises(ValueError, match="2 hypotheses but 1 scores"):
    mbr_order(["a", "b"], [0.0])
