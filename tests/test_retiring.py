"""The retiring beam search (finished examples leave the batch) gives beam_search's
results: over fake tables with known answers, real models, ensembles and the parsing
rules, eagerly and in tf.functions of static and open batch sizes; and its steps
really compute fewer rows."""

import numpy as np
import pytest
import tensorflow as tf

from decoding_fakes import VOCAB, random_table, run, table
from model_fixtures import SENTENCES, small_model, untrained_parser
from t2t_lite.decoding.beam_search import beam_search
from t2t_lite.decoding.decode_hparams import DecodeHParams
from t2t_lite.decoding.ensemble_model import EnsembleModel
from t2t_lite.decoding.model_decoding import decode_ids
from t2t_lite.decoding.retiring import retiring_beam_search
from t2t_lite.decoding.token_counts import CountRule, rule_tables
from t2t_lite.problems.parsing_ptb import ParsingEnglishPtb16kWords

# Rows of one example never mix with another's, but a batch of another size may sum in
# another order: float32 round-off of a log-prob summed over a few dozen steps.
SCORE_TOLERANCE = 1e-5

# Input lengths 9, 3, 6, 2 (EOS = 1 last, 0 padding): limits input length + EXTRA.
INPUTS = np.array([[5, 6, 7, 8, 9, 10, 11, 12, 1], [13, 14, 1, 0, 0, 0, 0, 0, 0],
                   [15, 16, 17, 18, 19, 1, 0, 0, 0], [20, 1, 0, 0, 0, 0, 0, 0, 0]], np.int32)
EXTRA = 5

WRAPS = {
    "eager": lambda f: f,
    "static_batch": lambda f: tf.function(f, autograph=False),
    "open_batch": lambda f: tf.function(
        f, autograph=False, input_signature=[tf.TensorSpec([None, INPUTS.shape[1]], tf.int32)]),
}


class RowCounting:
  """A fake table whose step records how many rows it was given (eager calls)."""

  def __init__(self, fake):
    self.fake, self.rows = fake, []

  def initial_cache(self, batch):
    return self.fake.initial_cache(batch)

  def step(self, ids, step, cache):
    self.rows.append(int(tf.shape(ids)[0]))
    return self.fake.step(ids, step, cache)


def assert_same_search(expected, got):
  np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(expected[0]))
  np.testing.assert_allclose(np.asarray(got[1]), np.asarray(expected[1]),
                             atol=SCORE_TOLERANCE)


@pytest.mark.parametrize("stop_early", [True, False])
def test_fake_tables_give_beam_searchs_n_best_lists_and_finished_examples_leave(stop_early):
  limits = np.array([2, 6, 4, 1, 5], np.int32)
  kwargs = dict(beam_size=3, alpha=0.6, max_decode_length=6, vocab_size=VOCAB,
                decode_lengths=limits, stop_early=stop_early)
  expected = run(beam_search, random_table(seed=3, depth=6), 5, **kwargs)
  counting = RowCounting(random_table(seed=3, depth=6))
  assert_same_search(expected, run(retiring_beam_search, counting, 5, **kwargs))
  # Without early stopping every example runs to its limit: after step s, the examples
  # with limits above s are left, 3 rows each.
  if not stop_early:
    assert counting.rows == [3 * int(np.sum(limits > s)) for s in range(6)]
  else:
    assert counting.rows[0] == 15 and np.all(np.diff(counting.rows) <= 0)
    assert sum(counting.rows) < 15 * len(counting.rows)


def test_a_search_that_stops_at_once_and_one_that_runs_to_the_end():
  # Very likely EOS: every example stops after a step or two; unlikely EOS: to the end.
  for fake, length in ((table({}, default_eos=0.9), 5), (table({}, default_eos=0.01), 3)):
    kwargs = dict(beam_size=2, alpha=1.0, max_decode_length=length, vocab_size=VOCAB)
    assert_same_search(run(beam_search, fake, 3, **kwargs),
                       run(retiring_beam_search, fake, 3, **kwargs))


@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_a_model_decodes_as_beam_search_does_eagerly_and_in_functions(wrap):
  model = small_model()

  def decode(retire_finished):
    return WRAPS[wrap](lambda inputs: decode_ids(
        model, inputs, beam_size=3, alpha=0.6, extra_length=EXTRA,
        retire_finished=retire_finished))(tf.constant(INPUTS))
  assert_same_search(decode(False), decode(True))


def test_an_ensemble_under_a_count_rule_decodes_as_beam_search_does():
  # The ensemble's cache nests its members' per-example entries; the rule is per example.
  ensemble = EnsembleModel([small_model(seed=0), small_model(seed=1)])
  counted = np.zeros(40, np.int32)
  counted[5:15] = 1
  rule = CountRule(counted, np.array([0, 3, 6, 2], np.int32))
  decoded = [decode_ids(ensemble, INPUTS, beam_size=3, alpha=0.6, extra_length=EXTRA + 6,
                        count_rule=rule, retire_finished=retire) for retire in (False, True)]
  assert_same_search(*decoded)


def test_the_parsing_rules_with_copied_words_hold_as_in_beam_search():
  problem, model, vocabulary = untrained_parser(ParsingEnglishPtb16kWords())
  settings = DecodeHParams(beam_size=3, alpha=0.3, extra_length=25)
  tables = rule_tables(problem.target_form, (vocabulary, vocabulary), settings)
  assert tables.copies and tables.brackets is not None
  encoded = vocabulary.encode(tf.constant(SENTENCES)).to_tensor()     # [3, width]
  required = problem.target_form.required_counts(tf.constant(SENTENCES))
  rule = tables.rule(required, encoded)
  assert rule.copied is not None

  @tf.function(autograph=False)
  def decode(inputs, retire_finished):
    return decode_ids(model, inputs, beam_size=3, alpha=0.3, extra_length=25,
                      count_rule=rule, retire_finished=retire_finished)
  assert_same_search(decode(encoded, False), decode(encoded, True))
