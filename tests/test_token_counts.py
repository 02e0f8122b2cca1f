"""The count rule (t2t_lite.decoding.token_counts): searches under it against exhaustive and
step-by-step oracles, a model's outputs, and the parser's outputs through the Translator."""

import numpy as np
import pytest
import tensorflow as tf

from decoding_fakes import EOS, VOCAB, padded, random_table, run
from t2t_lite.constants import PAD_ID as PAD
from model_fixtures import SENTENCES, small_model, untrained_parser
from t2t_lite.decoding import translate
from t2t_lite.decoding.beam_search import beam_search
from t2t_lite.decoding.decode_hparams import DecodeHParams
from t2t_lite.decoding.greedy import greedy_search
from t2t_lite.decoding.model_decoding import decode_ids, trim_after_eos
from t2t_lite.decoding.token_counts import CountRule, counted_ids_table, rule_tables
from t2t_lite.decoding.translate import Translator
from t2t_lite.export.saved_model import Exported

WRAPS = {"eager": None, "xla": lambda f: tf.function(f, jit_compile=True)}

COUNTED = (3, 4)  # The fake vocabulary's words the rule counts.
REQUIRED = [0, 1, 2]  # Per example.
LIMIT = 4


def fake_rule():
  counted = np.zeros(VOCAB, np.int32)
  counted[list(COUNTED)] = 1
  return CountRule(counted, np.array(REQUIRED, np.int32))


def held(sequence):
  return sum(token in COUNTED for token in sequence)


@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("alpha", [0.0, 1.5])
def test_a_beam_wide_enough_returns_the_allowed_part_of_the_exhaustive_n_best_list(alpha, wrap):
  # Limit 4: at most 4 ** 3 = 64 prefixes are ever alive, so a beam of 64 prunes nothing.
  fake = random_table(seed=5, depth=3)
  sequences, scores = run(beam_search, fake, len(REQUIRED), WRAPS[wrap], beam_size=64,
                          alpha=alpha, max_decode_length=LIMIT, vocab_size=VOCAB,
                          count_rule=fake_rule())
  for example, required in enumerate(REQUIRED):
    expected = [(score, sequence) for score, sequence in fake.all_finished(LIMIT, alpha)
                if held(sequence) == required]
    n = len(expected)
    np.testing.assert_array_equal(sequences[example][:n],
                                  [padded(sequence, LIMIT) for _, sequence in expected])
    np.testing.assert_allclose(scores[example][:n], [score for score, _ in expected], rtol=1e-5)
    # Any further hypothesis goes through padding, which the fake keeps barely possible.
    for k in np.flatnonzero(np.isfinite(scores[example][n:])):
      assert PAD in trim_after_eos(sequences[example][n + k])


def allowed_argmax_walk(fake, required, limit):
  """Greedy under the rule, walking the fake's table in numpy."""
  sentence, total, row = [], 0.0, 0
  while not sentence or sentence[-1] != EOS:
    log_probs = fake.log_probs[row].copy()
    missing = required - held(sentence)
    if len(sentence) == limit - 1:
      token = EOS
    else:
      if missing > limit - len(sentence) - 2:  # Only room for the missing ones.
        log_probs[[t for t in range(VOCAB) if t not in COUNTED]] = -np.inf
      log_probs[[EOS] if missing > 0 else list(COUNTED)] = -np.inf
      token = int(np.argmax(log_probs))
    sentence.append(token)
    total += float(fake.log_probs[row, token])
    row = fake.next_row[row, token]
  return sentence, total


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_greedy_takes_the_best_allowed_token_at_each_step(wrap):
  fake = random_table(seed=6, depth=4)
  limit = 5
  sequences, scores = run(greedy_search, fake, len(REQUIRED), WRAPS[wrap],
                          max_decode_length=limit, count_rule=fake_rule())
  for example, required in enumerate(REQUIRED):
    sentence, log_prob = allowed_argmax_walk(fake, required, limit)
    assert held(sentence) == required
    np.testing.assert_array_equal(sequences[example], padded(sentence, limit))
    np.testing.assert_allclose(scores[example], log_prob, rtol=1e-5)


@pytest.mark.parametrize("beam_size", [1, 3])
def test_a_models_outputs_hold_the_required_counts(beam_size):
  model = small_model()
  counted = np.zeros(40, np.int32)
  counted[5:15] = 1
  required = np.array([0, 3, 25, 40], np.int32)
  inputs = np.random.default_rng(0).integers(2, 40, (4, 6)).astype("int32")
  ids, scores = decode_ids(model, inputs, beam_size=beam_size, alpha=0.6, extra_length=20,
                           count_rule=CountRule(counted, required))
  ids, scores = np.asarray(ids), np.asarray(scores)
  limit = 6 + 20  # Tokens, EOS included: at most 25 counted ones.
  for example in range(4):
    for k in np.flatnonzero(np.isfinite(scores[example])):
      assert counted[trim_after_eos(ids[example, k])].sum() == min(required[example], limit - 1)


def test_the_table_counts_pieces_with_and_without_the_word_start_mark():
  pieces = ["<pad>", "</s>", "<unk>", "\u2581NN", "NN", "\u2581(NP", "\u2581the", "XX", "NNS"]
  tokens = ("NN", "XX", "</s>")
  np.testing.assert_array_equal(
      counted_ids_table(pieces, lambda piece: piece.removeprefix("\u2581") in tokens),
      [0, 0, 0, 1, 1, 0, 0, 1, 0])
  with pytest.raises(ValueError, match="no vocabulary piece"):
    counted_ids_table(pieces, lambda piece: piece == "VBZ")


@pytest.mark.parametrize("count_rule", [True, False])
def test_the_translator_decodes_the_parser_under_its_rule(monkeypatch, count_rule):
  problem, model, vocabulary = untrained_parser()
  searches = []

  def recording_decode_ids(*args, **kwargs):
    ids, scores = decode_ids(*args, **kwargs)
    searches.append((kwargs["count_rule"], np.asarray(ids), np.asarray(scores)))
    return ids, scores
  monkeypatch.setattr(translate, "decode_ids", recording_decode_ids)
  settings = DecodeHParams(beam_size=2, alpha=0.3, extra_length=25, count_rule=count_rule)
  tf.config.run_functions_eagerly(True)  # The recording sees the searches' results.
  try:
    Translator(model, (vocabulary, vocabulary), problem.target_form, settings,
               tf.distribute.get_strategy()).translate(SENTENCES, progress=False)
  finally:
    tf.config.run_functions_eagerly(False)
  (rule, ids, scores), = searches
  if not count_rule:
    assert rule is None
    return
  counted = np.asarray(rule.counted)
  pieces = vocabulary.pieces()
  assert {pieces[i] for i in np.flatnonzero(counted)} >= {"NN", "\u2581NN", "XX", "\u2581PRP$"}
  # Shortest first: the batch is sorted by input length.
  assert sorted(np.asarray(rule.required).tolist()) == [3, 6, 7]
  for example, required in enumerate(np.asarray(rule.required)):
    for k in np.flatnonzero(np.isfinite(scores[example])):
      assert counted[trim_after_eos(ids[example, k])].sum() == required


def test_the_exported_parser_decodes_under_its_rule(tmp_path):
  """decode_ids holds each output to the counts it is given; serving_default counts each
  sentence's words in its graph and gives what decode_ids gives for those counts."""
  problem, model, vocabulary = untrained_parser()
  model({"inputs": tf.ones([1, 3], tf.int32), "targets": tf.ones([1, 3], tf.int32)})  # Built.
  settings = DecodeHParams(beam_size=2, alpha=0.3, extra_length=25)
  exported = Exported(model, problem.target_form, vocabulary, vocabulary, settings,
                      max_input_length=20)
  tf.saved_model.save(exported, str(tmp_path), signatures={
      "serving_default": exported.translate, "decode_ids": exported.decode_ids})
  served = tf.saved_model.load(str(tmp_path)).signatures
  ids = [vocabulary.encode(tf.constant([sentence])).to_list()[0] for sentence in SENTENCES]
  padded_ids = tf.constant([row + [PAD] * (20 - len(row)) for row in ids], tf.int32)
  counted = rule_tables(problem.target_form, (vocabulary, vocabulary), settings).counted
  for required in ([2, 0, 5], [len(sentence.split()) for sentence in SENTENCES]):
    decoded = served["decode_ids"](ids=padded_ids, required_counts=tf.constant(required))
    best = [trim_after_eos(row[0]) for row in decoded["ids"].numpy()]
    assert [counted[ids].sum() for ids in best] == required
  outputs = served["serving_default"](sentences=tf.constant(SENTENCES))["translations"]
  assert outputs.numpy().tolist() == vocabulary.decode(tf.ragged.constant(best)).numpy().tolist()
