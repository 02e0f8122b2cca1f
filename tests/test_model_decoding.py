"""A small real Transformer decoded: cached search == uncached re-scoring, limits, XLA."""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from decoding_fakes import teacher_forced_log_prob
from model_fixtures import SMALL, VARIANTS, VOCAB, random_batch, small_model
from t2t_lite.decoding.beam_search import beam_search
from t2t_lite.decoding.cache_growth import CacheGrowth, doubling_capacities
from t2t_lite.decoding.greedy import greedy_search
from t2t_lite.decoding.lengths import EOS_ID
from t2t_lite.decoding.model_decoding import (decode_ids, decode_length, input_widths, n_best,
                                              trim_after_eos)

EXTRA = 3


def limits_of(inputs, length):
  """Each sentence's limit: its non-padding input ids + EXTRA, capped by the length."""
  return np.minimum((inputs != 0).sum(axis=1) + EXTRA, length)


def ended_sentence(ids):
  """A hypothesis [length] -> its ids up to and including EOS."""
  return list(ids[:list(ids).index(EOS_ID) + 1])


@pytest.mark.parametrize("variant", ["paper", "learned_positions"])
def test_beam_log_probs_equal_a_full_teacher_forced_pass(variant):
  model = small_model(VARIANTS[variant])
  inputs, _ = random_batch()
  ids, scores = (np.asarray(t) for t in decode_ids(model, inputs, beam_size=3, alpha=0.6,
                                                   extra_length=EXTRA))
  assert ids.shape == (3, 3, 7 + EXTRA) and scores.shape == (3, 3)
  for example, limit in enumerate(limits_of(inputs, 7 + EXTRA)):
    for k in range(3):
      sentence = ended_sentence(ids[example, k])
      assert len(sentence) <= limit and not ids[example, k, len(sentence):].any()
      raw = scores[example, k] * ((5.0 + len(sentence)) / 6.0) ** 0.6
      np.testing.assert_allclose(raw, teacher_forced_log_prob(model, inputs[example], sentence),
                                 atol=1e-4)


def test_sentences_that_end_before_their_limits_score_as_a_full_pass_too():
  """A real model whose EOS logit rises by 0.5 a step: hypotheses end on their own."""
  model = small_model()
  inputs, _ = random_batch()
  eos_bias = 0.5 * np.eye(VOCAB, dtype="float32")[EOS_ID]  # [vocab]

  def step_fn(ids, step, cache):
    logits, cache = model.decode_step(ids, step, cache)
    return logits + eos_bias * ops.cast(step, "float32"), cache
  memory, memory_bias = model.encode(inputs)
  ids, scores = (np.asarray(t) for t in beam_search(
      step_fn, np.zeros([3], "int32"), model.init_cache(memory, memory_bias, 10), beam_size=3,
      alpha=0.6, max_decode_length=10, vocab_size=VOCAB))
  lengths = [len(ended_sentence(h)) for h in ids.reshape(-1, 10)]
  assert max(lengths) < 10 and len(set(lengths)) > 1, lengths
  for example in range(3):
    for k in range(3):
      sentence = ended_sentence(ids[example, k])
      added = np.arange(len(sentence), dtype="float32")[:, None] * eos_bias  # [t, vocab]
      raw = scores[example, k] * ((5.0 + len(sentence)) / 6.0) ** 0.6
      np.testing.assert_allclose(
          raw, teacher_forced_log_prob(model, inputs[example], sentence, added), atol=1e-4)


@pytest.mark.slow
# The first full pass has one target: its attention softmax has one key, which Keras warns about.
@pytest.mark.filterwarnings("ignore:You are using a softmax over axis -1")
def test_greedy_equals_the_argmax_of_full_passes_over_the_growing_prefix():
  model = small_model()
  inputs, _ = random_batch()
  ids, scores = (np.asarray(t) for t in decode_ids(model, inputs, beam_size=1, alpha=0.0,
                                                   extra_length=EXTRA))
  assert ids.shape == (3, 1, 7 + EXTRA) and scores.shape == (3, 1)
  # With alpha, the same ids; the scores divided by the length penalty.
  penalized_ids, penalized_scores = (np.asarray(t) for t in decode_ids(
      model, inputs, beam_size=1, alpha=0.6, extra_length=EXTRA))
  np.testing.assert_array_equal(penalized_ids, ids)
  for example, limit in enumerate(limits_of(inputs, 7 + EXTRA)):
    penalty = ((5.0 + len(ended_sentence(ids[example, 0]))) / 6.0) ** 0.6
    np.testing.assert_allclose(penalized_scores[example], scores[example] / penalty, rtol=1e-6)
    prefix, total = [], 0.0
    while not prefix or prefix[-1] != EOS_ID:
      # The last position of a pass over prefix + [anything] predicts the next token.
      logits = model({"inputs": inputs[example:example + 1],
                      "targets": np.array([prefix + [0]], "int32")}, training=False)
      log_probs = np.asarray(ops.log_softmax(logits[0, -1]))
      token = EOS_ID if len(prefix) == limit - 1 else int(np.argmax(log_probs))
      prefix.append(token)
      total += float(log_probs[token])
    np.testing.assert_array_equal(ids[example, 0], prefix + [0] * (7 + EXTRA - len(prefix)))
    np.testing.assert_allclose(scores[example, 0], total, atol=1e-4)


@pytest.mark.slow
def test_examples_decode_as_they_would_alone_within_their_own_limits():
  model = small_model()
  inputs, _ = random_batch()
  inputs[1, 3:] = 0  # Input lengths 5, 3, 7: limits 8, 6, 10.
  ids, scores = (np.asarray(t) for t in decode_ids(model, inputs, beam_size=2, alpha=0.6,
                                                   extra_length=EXTRA))
  for example, limit in enumerate(limits_of(inputs, 7 + EXTRA)):
    assert all(len(ended_sentence(h)) <= limit for h in ids[example])
    alone_ids, alone_scores = decode_ids(model, inputs[example:example + 1], beam_size=2,
                                         alpha=0.6, extra_length=EXTRA)
    np.testing.assert_array_equal(ids[example], np.asarray(alone_ids)[0])
    np.testing.assert_allclose(scores[example], np.asarray(alone_scores)[0], atol=1e-5)


@pytest.mark.slow
def test_beam_decoding_under_xla_equals_eager():
  model = small_model(VARIANTS["pre_norm"])
  inputs, _ = random_batch()

  def decode(inputs):
    return decode_ids(model, inputs, beam_size=3, alpha=0.6, extra_length=EXTRA)
  eager_ids, eager_scores = decode(inputs)
  xla_ids, xla_scores = tf.function(decode, jit_compile=True)(tf.constant(inputs))
  np.testing.assert_array_equal(xla_ids.numpy(), np.asarray(eager_ids))
  np.testing.assert_allclose(xla_scores.numpy(), np.asarray(eager_scores), atol=1e-5)


@pytest.mark.parametrize("beam_size", [1, 3])
@pytest.mark.parametrize("jit_compile", [False, True])
def test_a_cache_grown_in_segments_decodes_as_one_allocated_whole(beam_size, jit_compile):
  """Capacities 2, 4, 8, 10: three widenings before the limit of 10 positions."""
  model = small_model(VARIANTS["pre_norm"])
  inputs, _ = random_batch()
  growth = CacheGrowth(doubling_capacities(10, first=2), model.grow_cache)
  assert growth.capacities == (2, 4, 8, 10)

  def decode(inputs, growth):
    memory, memory_bias = model.encode(inputs)
    cache = model.init_cache(memory, memory_bias, growth.capacities[0] if growth else 10)
    initial_ids = tf.zeros([3], tf.int32)
    if beam_size == 1:
      ids, scores = greedy_search(model.decode_step, initial_ids, cache, max_decode_length=10,
                                  growth=growth)
      return ids, scores
    return beam_search(model.decode_step, initial_ids, cache, beam_size=beam_size, alpha=0.6,
                       max_decode_length=10, vocab_size=VOCAB, stop_early=False, growth=growth)
  whole_ids, whole_scores = decode(inputs, None)
  grown_ids, grown_scores = tf.function(decode, jit_compile=jit_compile)(tf.constant(inputs),
                                                                         growth)
  assert (np.asarray(whole_ids) != 0).sum(axis=-1).max() > 4  # Outputs past two widenings.
  np.testing.assert_array_equal(np.asarray(grown_ids), np.asarray(whole_ids))
  np.testing.assert_allclose(np.asarray(grown_scores), np.asarray(whole_scores), atol=1e-5)


def test_input_widths_are_multiples_of_8_growing_by_the_step_then_the_widest():
  assert input_widths(128, step=2) == [8, 16, 32, 64, 128]
  assert input_widths(128, step=1.25) == [8, 16, 24, 32, 40, 56, 72, 96, 120, 128]
  assert input_widths(40, step=2) == [8, 16, 32, 40]
  assert input_widths(5, step=2) == [5]


def test_decoding_length_is_the_input_width_plus_extra_within_the_caps():
  learned = dataclasses.replace(SMALL, pos="emb")  # max_length = 32 rows of positions.
  assert decode_length(SMALL, 7, 50) == 57
  assert decode_length(SMALL, 7, 50, max_decode_length=20) == 20
  assert decode_length(learned, 7, 50) == 32
  assert decode_length(learned, 7, 10) == 17
  with pytest.raises(ValueError, match="decoding length 0"):
    decode_length(SMALL, 7, -7)
  # A learned-positions model decodes to its last position and no further.
  model = small_model(learned)
  inputs, _ = random_batch()
  ids, _ = decode_ids(model, inputs, beam_size=1, alpha=0.6, extra_length=50)
  assert ids.shape == (3, 1, 32)


def test_trim_after_eos_and_the_n_best_list():
  assert trim_after_eos(np.array([5, 7, EOS_ID, 0, 0])) == [5, 7]
  assert trim_after_eos([EOS_ID, 4]) == []
  assert trim_after_eos([4, 6]) == [4, 6]
  ids = np.array([[[5, EOS_ID, 0], [6, 7, EOS_ID]], [[EOS_ID, 0, 0], [0, 0, 0]]])
  scores = np.array([[-1.0, -2.5], [-0.5, -np.inf]])
  assert n_best(ids, scores, 2) == [[([5], -1.0), ([6, 7], -2.5)], [([], -0.5)]]
  assert n_best(ids, scores, 1) == [[([5], -1.0)], [([], -0.5)]]
