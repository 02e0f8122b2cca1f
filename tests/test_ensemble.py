"""Ensembles: the step's distribution is the mean of the members' probabilities, decoded by
the unchanged searches; runs of other vocabularies are refused in one line."""

import dataclasses
import os

import numpy as np
import pytest

from commands import call, error_line, one_line_error
from model_fixtures import SMALL, VOCAB, small_model
from t2t_lite.decoding.ensemble_model import EnsembleModel
from t2t_lite.decoding.lengths import EOS_ID
from t2t_lite.decoding.model_decoding import decode_ids, trim_after_eos
from t2t_lite.decoding.scoring import pair_losses
from t2t_lite.decoding.token_counts import CountRule
from t2t_lite.models import size
from tiny_runs import copy_run, tiny_run, tiny_text

EXTRA = 4
EPS32 = float(np.finfo(np.float32).eps)
# A cached decoding step and a full teacher-forced pass sum the same log-probs in other
# orders: the tolerance of tests/test_model_decoding.py for the same comparison.
PASS_TOLERANCE = 1e-4

INPUTS = np.array([[5, 6, 7, 8, EOS_ID], [9, 10, EOS_ID, 0, 0], [11, 12, 13, EOS_ID, 0]],
                  np.int32)


def member_probabilities(models, inputs, prefixes):
  """Per model, [n, t + 1, vocab] float64 next-token probabilities after each prefix
  (a full teacher-forced pass over prefix + one padding position)."""
  length = max(len(p) for p in prefixes) + 1
  targets = np.array([list(p) + [0] * (length - len(p)) for p in prefixes], np.int32)
  results = []
  for model in models:
    logits = np.asarray(model({"inputs": inputs, "targets": targets}, training=False), np.float64)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    results.append(probs / probs.sum(-1, keepdims=True))
  return results


def hand_greedy(models, inputs, limit):
  """Greedy decoding of one sentence computed in numpy, full passes at every step: the
  argmax of the mean of the members' probabilities, EOS forced at the limit ->
  (ids ending with EOS, sum of log mean probabilities, sum of mean log-probabilities)."""
  ids, log_mean, mean_log = [], 0.0, 0.0
  while True:
    probs = [p[0, len(ids)] for p in member_probabilities(models, inputs[None], [ids])]
    mean = np.mean(probs, axis=0)
    token = EOS_ID if len(ids) + 1 == limit else int(np.argmax(mean))
    ids.append(token)
    log_mean += float(np.log(mean[token]))
    mean_log += float(np.mean([np.log(p[token]) for p in probs]))
    if token == EOS_ID:
      return ids, log_mean, mean_log


# The first full pass has one target: its attention softmax has one key, which Keras warns about.
@pytest.mark.filterwarnings("ignore:You are using a softmax over axis -1")
def test_greedy_over_two_models_takes_the_argmax_of_their_mean_probabilities():
  models = [small_model(seed=0), small_model(seed=1)]
  ids, scores = (np.asarray(t) for t in decode_ids(EnsembleModel(models), INPUTS, beam_size=1,
                                                   alpha=0.0, extra_length=EXTRA))
  for example, sentence in enumerate(INPUTS):
    limit = int((sentence != 0).sum()) + EXTRA
    expected, log_mean, mean_log = hand_greedy(models, sentence, limit)
    assert trim_after_eos(ids[example, 0]) + [EOS_ID] == expected
    np.testing.assert_allclose(scores[example, 0], log_mean, atol=PASS_TOLERANCE)
    # What averaging log-probabilities instead would score: a test that can tell them apart.
    assert abs(log_mean - mean_log) > 100 * PASS_TOLERANCE


def test_beam_hypotheses_score_the_log_of_the_mean_probability_of_their_tokens():
  models = [small_model(seed=0), small_model(seed=2)]
  ids, scores = (np.asarray(t) for t in decode_ids(EnsembleModel(models), INPUTS, beam_size=3,
                                                   alpha=0.6, extra_length=EXTRA))
  for example, sentence in enumerate(INPUTS):
    hypotheses = [trim_after_eos(ids[example, k]) + [EOS_ID] for k in range(3)]
    probs = member_probabilities(models, np.repeat(sentence[None], 3, axis=0), hypotheses)
    for k, hypothesis in enumerate(hypotheses):
      mean = np.mean([p[k, np.arange(len(hypothesis)), hypothesis] for p in probs], axis=0)
      raw = scores[example, k] * ((5.0 + len(hypothesis)) / 6.0) ** 0.6
      np.testing.assert_allclose(raw, np.log(mean).sum(), atol=PASS_TOLERANCE)


def round_off_bound(largest_log_prob, tokens):
  """What an ensemble of a model with itself may add to a sum of `tokens` log-probs, each
  at most `largest_log_prob` in magnitude: per token, logsumexp of two equal values less
  log 2 and a second log_softmax, each a few float32 round-offs of a value of at most
  |log-prob| + log 2 + log(vocab)."""
  return tokens * 8 * EPS32 * (np.abs(largest_log_prob) + np.log(2.0) + np.log(VOCAB))


@pytest.mark.parametrize("beam_size", [1, 3])
def test_an_ensemble_of_a_model_with_itself_decodes_as_the_model(beam_size):
  model = small_model()
  alone = [np.asarray(t) for t in decode_ids(model, INPUTS, beam_size=beam_size, alpha=0.6,
                                             extra_length=EXTRA)]
  twice = [np.asarray(t) for t in decode_ids(EnsembleModel([model, model]), INPUTS,
                                             beam_size=beam_size, alpha=0.6,
                                             extra_length=EXTRA)]
  np.testing.assert_array_equal(twice[0], alone[0])
  length = INPUTS.shape[1] + EXTRA
  raw = alone[1] * ((5.0 + length) / 6.0) ** 0.6  # At least each hypothesis' log-prob.
  assert np.all(np.abs(twice[1] - alone[1]) <= round_off_bound(raw, length))


def test_the_count_rule_holds_for_an_ensemble():
  models = [small_model(seed=0), small_model(seed=1)]
  counted = np.zeros(VOCAB, np.int32)
  counted[5:15] = 1
  required = np.array([0, 3, 6], np.int32)
  ids, scores = decode_ids(EnsembleModel(models), INPUTS, beam_size=3, alpha=0.6,
                           extra_length=EXTRA + 6, count_rule=CountRule(counted, required))
  ids, scores = np.asarray(ids), np.asarray(scores)
  for example in range(3):
    for k in np.flatnonzero(np.isfinite(scores[example])):
      assert counted[trim_after_eos(ids[example, k])].sum() == required[example]


def test_learned_positions_cap_the_ensembles_decoding_length():
  short = dataclasses.replace(SMALL, pos="emb", max_length=8)
  ensemble = EnsembleModel([small_model(), small_model(short, seed=1)])
  assert ensemble.hparams.pos == "emb" and ensemble.hparams.max_length == 8
  ids, _ = decode_ids(ensemble, INPUTS, beam_size=2, alpha=0.6, extra_length=EXTRA)
  assert np.asarray(ids).shape[-1] == 8


def test_scoring_an_ensemble_of_a_model_with_itself_gives_the_models_losses():
  model = small_model()
  targets = np.array([[10, 11, EOS_ID], [12, EOS_ID, 0], [13, 14, EOS_ID]], np.int32)
  alone = np.asarray(pair_losses(model, INPUTS, targets))
  twice = np.asarray(pair_losses(EnsembleModel([model, model]), INPUTS, targets))
  # Label smoothing reads every log-prob: the bound takes the largest of them.
  logits = np.asarray(model({"inputs": INPUTS, "targets": targets}, training=False))
  largest = np.abs(logits - np.log(np.exp(logits).sum(-1, keepdims=True))).max()
  np.testing.assert_allclose(twice, alone, rtol=0, atol=round_off_bound(largest, 1))


def test_the_searches_see_normalised_log_probs():
  """The step's output is already a log-distribution: the searches' log_softmax keeps it."""
  models = [small_model(seed=0), small_model(seed=1)]
  ensemble = EnsembleModel(models)
  memories, biases = ensemble.encode(INPUTS)
  log_probs, _ = ensemble.decode_step(np.zeros(3, np.int32), 0,
                                      ensemble.init_cache(memories, biases, 4))
  total = np.exp(np.asarray(log_probs, np.float64)).sum(-1)
  np.testing.assert_allclose(total, 1.0, atol=VOCAB * 4 * EPS32)


# Runs on disk: the tiny run of tests/tiny_runs.py.

LINES = ["the number 7 is here", "", "the number 123 is here", "the number 45 is"]


def test_an_ensemble_of_a_run_with_itself_translates_as_the_run(tmp_path_factory):
  from t2t_lite.run import Run
  from t2t_lite.run.ensemble import RunEnsemble, open_runs
  _, output_dir = tiny_run(tmp_path_factory)
  settings = "beam_size=2,n_best=2,extra_length=5"
  alone = Run.open(output_dir).translate(LINES, settings)
  ensemble = open_runs(f"{output_dir},{output_dir}")
  assert isinstance(ensemble, RunEnsemble) and len(ensemble.runs) == 2
  assert ensemble.translate(LINES, settings) == alone
  assert alone[1] == "" and all(line.count("\t") == 1 for i, line in enumerate(alone) if i != 1)


def other_vocabulary_run(output_dir, target):
  """A copy of the run whose vocabulary file holds another SentencePiece model of the same
  size (other sentences), its digest in run.json as a run trained on it records it: the
  sizes agree, the contents do not."""
  import json
  from t2t_lite.data.vocabulary import Vocabulary, train_sentencepiece
  from t2t_lite.run import Run
  from t2t_lite.run.digests import vocab_digests
  copy = copy_run(output_dir, target)
  run = Run.read(copy)
  size = run.description.input_vocab_size
  proto = train_sentencepiece(tiny_text(200, offset=5000).replace("\t", "\n").splitlines(),
                              size)
  assert Vocabulary(proto).size == size
  for name in set(run.description.vocab_files):
    with open(os.path.join(copy, name), "wb") as f:
      f.write(proto)
  with open(os.path.join(copy, "run.json")) as f:
    values = json.load(f)
  values["vocab_sha256"] = vocab_digests(
      [os.path.join(copy, name) for name in run.description.vocab_files])
  with open(os.path.join(copy, "run.json"), "w") as f:
    json.dump(values, f)
  return copy


def test_runs_of_other_vocabularies_are_refused_in_one_line(tmp_path_factory, tmp_path):
  from t2t_lite.run.ensemble import open_runs
  _, output_dir = tiny_run(tmp_path_factory)
  other = other_vocabulary_run(output_dir, tmp_path / "other")
  message = one_line_error(lambda: open_runs(f"{output_dir},{other}"))
  assert message.startswith(f"cannot ensemble {output_dir} and {other}: their input "
                            f"vocabularies differ (piece "), message
  source = tmp_path / "source.en"
  source.write_text("the number 7 is here\n", encoding="utf-8")
  for flags, expected in [
      ((f"--output_dir={output_dir},{other}",), "their input vocabularies differ"),
      ((f"--output_dir={output_dir},{output_dir}", f"--checkpoint_path={output_dir}/ckpt-1"),
       "--checkpoint_path names 1 checkpoints for 2 runs"),
      ((f"--output_dir={output_dir},",), "has an empty entry")]:
    result = call("t2t-decoder", *flags, f"--decode_from_file={source}")
    assert result.returncode == 2, result.stderr[-2000:]
    line = error_line(result.stderr)
    assert line.startswith("t2t-decoder: error: ") and expected in line, line
    assert "Traceback" not in result.stderr


def test_runs_that_fit_alone_but_not_together_are_refused_before_loading(tmp_path_factory,
                                                                          monkeypatch):
  """Memory is set to exactly what one copy of the tiny run needs to load (its weights
  twice), so each run passes its own check and the ensemble of three does not."""
  from t2t_lite.run import Run
  from t2t_lite.run.ensemble import open_runs
  _, output_dir = tiny_run(tmp_path_factory)
  run = Run.read(output_dir)
  weights = size.weight_count(run.hparams, run.description.input_vocab_size,
                                   run.description.target_vocab_size)
  monkeypatch.setattr(size, "physical_memory", lambda: 2 * 4 * weights)
  monkeypatch.setattr(Run, "restore", lambda *args: pytest.fail("weights loaded"))
  message = one_line_error(lambda: open_runs(",".join([output_dir] * 3)))
  assert message.startswith("the 3 runs to ensemble hold"), message
  assert "ensemble fewer runs" in message
  Run.read(output_dir)  # One alone still passes its own check.
