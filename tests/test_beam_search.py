"""Beam search over fake step functions: known answers, tensor2tensor's length penalty,
early stopping, per-example limits, eager == tf.function == XLA."""

import math

import numpy as np
import pytest
import tensorflow as tf

from decoding_fakes import (EOS, GREEDY_TRAP, VOCAB, padded, random_table, run, table)
from t2t_lite.decoding.beam_search import beam_search

WRAPS = {"eager": None, "tf_function": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}


def beam(fake, batch=1, wrap=None, **kwargs):
  return run(beam_search, fake, batch, wrap, vocab_size=VOCAB, **kwargs)


def penalty(length, alpha):
  return ((5.0 + length) / 6.0) ** alpha


def test_beam_finds_the_sentence_greedy_misses():
  # "2 EOS" starts with the likelier word (0.55) but "3 EOS" is likelier in total.
  sequences, scores = beam(table(GREEDY_TRAP), beam_size=2, alpha=0.0, max_decode_length=4)
  np.testing.assert_array_equal(sequences[0], [[3, EOS, 0, 0], [2, EOS, 0, 0]])
  np.testing.assert_allclose(scores[0], [math.log(0.4 * 0.9), math.log(0.55 * 0.3)], rtol=1e-6)


@pytest.mark.parametrize("alpha", [0.0, 1.5])
def test_a_beam_wide_enough_returns_the_exhaustive_n_best_list(alpha):
  # Limit 4: at most 4 ** 3 = 64 prefixes are ever alive, so a beam of 64 prunes
  # nothing and its finished set is the best 64 of all 85 sentences.
  fake = random_table(seed=0, depth=3)
  expected = fake.all_finished(limit=4, alpha=alpha)[:64]
  sequences, scores = beam(fake, batch=2, beam_size=64, alpha=alpha, max_decode_length=4)
  for example in range(2):
    np.testing.assert_array_equal(sequences[example], [padded(s, 4) for _, s in expected])
    np.testing.assert_allclose(scores[example], [score for score, _ in expected], rtol=1e-5)


# "2 EOS" (0.6 * 0.5 = 0.3) is likelier than "3 4 5 EOS" (0.3 * 0.9 ** 3 = 0.219).
SHORT_OR_LONG = {
    (): {2: 0.6, 3: 0.3, EOS: 0.04, 4: 0.03, 5: 0.03},
    (2,): {EOS: 0.5},
    (3,): {4: 0.9},
    (3, 4): {5: 0.9},
    (3, 4, 5): {EOS: 0.9},
}


def test_the_length_penalty_counts_the_eos_and_can_prefer_the_longer_sentence():
  fake = table(SHORT_OR_LONG)
  short, long = (2, EOS), (3, 4, 5, EOS)
  short_log_prob, long_log_prob = math.log(0.6 * 0.5), math.log(0.3 * 0.9 ** 3)
  # alpha = 0: scores are log-probs, the short sentence wins.
  sequences, scores = beam(fake, beam_size=2, alpha=0.0, max_decode_length=6)
  np.testing.assert_array_equal(sequences[0], [padded(short, 6), padded(long, 6)])
  np.testing.assert_allclose(scores[0], [short_log_prob, long_log_prob], rtol=1e-5)
  # alpha = 2: log_prob / ((5 + len) / 6) ** 2 with len counting the EOS (2 and 4 tokens):
  # -1.204 / 1.361 = -0.885 for the short one, -1.520 / 2.25 = -0.676 for the long one.
  sequences, scores = beam(fake, beam_size=2, alpha=2.0, max_decode_length=6)
  np.testing.assert_array_equal(sequences[0], [padded(long, 6), padded(short, 6)])
  np.testing.assert_allclose(
      scores[0], [long_log_prob / penalty(4, 2.0), short_log_prob / penalty(2, 2.0)], rtol=1e-5)


# EOS first is likely (0.7); elsewhere EOS has 0.5 and the words 0.2, 0.15, 0.1, 0.05.
EARLY_END = {(): {EOS: 0.7, 2: 0.2, 3: 0.05, 4: 0.03, 5: 0.02}}


@pytest.mark.parametrize("alpha, steps", [(0.0, 2), (1.0, 4)])
def test_search_stops_once_no_alive_hypothesis_can_beat_the_worst_finished(alpha, steps):
  """By hand, beam 2, limit 10 (the largest penalty is (15 / 6) ** alpha):

  After step 1, finished = {EOS: log .7, "2 EOS": log .1} and the best alive is
  "2 2" with log .04 = -3.22. alpha = 0: -2.30 > -3.22, stop after 2 steps.
  alpha = 1: "2 EOS" scores -2.30 / (7/6) = -1.97 < -3.22 / 2.5 = -1.29, go on;
  after step 2 "2 2 2" (-4.83 / 2.5 = -1.93) still might, after step 3
  "2 2 2 2" (-6.44 / 2.5 = -2.58) cannot: stop after 4 steps.
  """
  early, full = table(EARLY_END, depth=6), table(EARLY_END, depth=6)
  sequences, scores = beam(early, beam_size=2, alpha=alpha, max_decode_length=10)
  assert early.calls == steps
  # Stopping early never changes the n-best list.
  all_sequences, all_scores = beam(full, beam_size=2, alpha=alpha, max_decode_length=10,
                                   stop_early=False)
  assert full.calls == 10
  np.testing.assert_array_equal(sequences, all_sequences)
  np.testing.assert_array_equal(scores, all_scores)
  np.testing.assert_array_equal(sequences[0, :, :2], [[EOS, 0], [2, EOS]])


def test_each_example_ends_with_eos_at_its_own_limit():
  # EOS is unlikely (0.02) everywhere, so hypotheses run to their limits.
  fake = table({}, depth=6, default_eos=0.02)
  limits = [1, 3, 9]  # 9 is past max_decode_length = 6: the limit is 6.
  sequences, scores = beam(fake, batch=3, beam_size=2, alpha=0.6, max_decode_length=6,
                           decode_lengths=np.array(limits))
  for example, limit in enumerate([1, 3, 6]):
    for k in range(2):
      if not np.isfinite(scores[example, k]):
        continue
      sentence = tuple(sequences[example, k][:limit])
      assert sentence[-1] == EOS and EOS not in sentence[:-1], (example, k, sentence)
      assert not sequences[example, k][limit:].any()
      np.testing.assert_allclose(scores[example, k],
                                 fake.log_prob(sentence) / penalty(len(sentence), 0.6), rtol=1e-5)
    # Each example alone, with its limit as the global one, gives the same n-best list.
    alone_sequences, alone_scores = beam(table({}, depth=6, default_eos=0.02), beam_size=2,
                                         alpha=0.6, max_decode_length=limit)
    np.testing.assert_array_equal(sequences[example, :, :limit], alone_sequences[0])
    np.testing.assert_allclose(scores[example], alone_scores[0], rtol=1e-6)
  # Limit 1 leaves one sentence, "EOS": the second slot is empty.
  np.testing.assert_array_equal(sequences[0, :, 0], [EOS, 0])
  assert np.isfinite(scores[0, 0]) and scores[0, 1] == -np.inf


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_eager_tf_function_and_xla_agree_and_scores_match_the_table(wrap):
  limits = np.array([2, 5, 4], "int32")
  sequences, scores = beam(random_table(seed=1), batch=3, wrap=WRAPS[wrap], beam_size=3,
                           alpha=0.6, max_decode_length=5, decode_lengths=limits)
  expected_sequences, expected_scores = beam(random_table(seed=1), batch=3, beam_size=3,
                                             alpha=0.6, max_decode_length=5,
                                             decode_lengths=limits)
  np.testing.assert_array_equal(sequences, expected_sequences)
  np.testing.assert_allclose(scores, expected_scores, rtol=1e-6)
  fake = random_table(seed=1)
  for example in range(3):
    assert np.all(np.diff(scores[example]) <= 0)  # Best first.
    for k in range(3):
      sentence = tuple(sequences[example, k][:list(sequences[example, k]).index(EOS) + 1])
      np.testing.assert_allclose(scores[example, k],
                                 fake.log_prob(sentence) / penalty(len(sentence), 0.6), rtol=1e-5)


def test_negative_alpha_is_refused():
  with pytest.raises(ValueError, match="alpha must be >= 0"):
    beam(table({}), beam_size=2, alpha=-0.5, max_decode_length=3)
