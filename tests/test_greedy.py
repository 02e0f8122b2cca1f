"""Greedy decoding over fake step functions: the argmax walk, limits, early end, eager == XLA."""

import math

import numpy as np
import pytest
import tensorflow as tf

from decoding_fakes import EOS, GREEDY_TRAP, random_table, run, table
from t2t_lite.decoding.greedy import greedy_search

WRAPS = {"eager": None, "tf_function": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}


def argmax_walk(fake, limit):
  """The greedy sentence and its log-prob, walking the fake's table in numpy."""
  sentence, total, row = [], 0.0, 0
  while not sentence or sentence[-1] != EOS:
    log_probs = fake.log_probs[row]
    token = EOS if len(sentence) == limit - 1 else int(np.argmax(log_probs))
    sentence.append(token)
    total += float(log_probs[token])
    row = fake.next_row[row, token]
  return sentence, total


def test_greedy_takes_the_locally_best_word():
  sequences, scores = run(greedy_search, table(GREEDY_TRAP), 1, max_decode_length=4)
  np.testing.assert_array_equal(sequences, [[2, EOS, 0, 0]])
  np.testing.assert_allclose(scores, [math.log(0.55 * 0.3)], rtol=1e-6)


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_greedy_follows_the_argmax_to_each_limit(wrap):
  fake = random_table(seed=2)
  limits = [1, 3, 5, 5]
  sequences, scores = run(greedy_search, fake, 4, WRAPS[wrap], max_decode_length=5,
                          decode_lengths=np.array(limits))
  assert sequences.shape == (4, 5) and sequences.dtype == np.int32
  for example, limit in enumerate(limits):
    sentence, log_prob = argmax_walk(fake, limit)
    np.testing.assert_array_equal(sequences[example],
                                  sentence + [0] * (5 - len(sentence)))
    np.testing.assert_allclose(scores[example], log_prob, rtol=1e-5)


def test_the_loop_ends_when_every_sentence_has_ended():
  # "2 3 EOS" is the argmax walk; the first example's limit 2 forces "2 EOS".
  fake = table({(): {2: 0.9}, (2,): {3: 0.9}, (2, 3): {EOS: 0.9}}, default_eos=0.05)
  sequences, scores = run(greedy_search, fake, 2, max_decode_length=10,
                          decode_lengths=np.array([2, 10]))
  assert fake.calls == 3
  np.testing.assert_array_equal(sequences[:, :4], [[2, EOS, 0, 0], [2, 3, EOS, 0]])
  assert not sequences[:, 4:].any()
  np.testing.assert_allclose(scores, [fake.log_prob([2, EOS]), fake.log_prob([2, 3, EOS])],
                             rtol=1e-6)
