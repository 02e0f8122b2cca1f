"""Right-to-left runs (hparams right_to_left): trained on reversed targets, decoded back into
reading order, and reranking a left-to-right beam together with left-to-right runs."""

import dataclasses
import json
import os

import numpy as np
import pytest
import tensorflow as tf

from commands import call, error_line, one_line_error
from decoding_fakes import teacher_forced_log_prob
from helpers import read_all
from model_fixtures import SMALL, small_model
from t2t_lite.constants import EOS_ID
from t2t_lite.data.target_order import reversed_before_eos, reversed_ids
from t2t_lite.decoding.model_decoding import decode_ids, n_best
from t2t_lite.decoding.rerank import ROWS_PER_CALL, Reranker
from t2t_lite.decoding.right_to_left import check_rules
from t2t_lite.models.hyperparameters import HParams
from tiny_runs import TINY_HPARAMS, copy_run, tiny_run
from trainer_runs import BEAM_WITH_OUTPUTS

# A cached decoding step and a full teacher-forced pass sum the same log-probs in other
# orders: the tolerance of tests/test_model_decoding.py for the same comparison.
PASS_TOLERANCE = 1e-4
INPUTS = np.array([[5, 6, 7, 8, EOS_ID], [9, 10, EOS_ID, 0, 0], [11, 12, 13, EOS_ID, 0]],
                  np.int32)
ALPHA = 0.6


def test_the_tokens_before_eos_are_reversed_and_the_rest_stays():
  rows = [[5, 7, 9, EOS_ID, 0], [4, EOS_ID, 0, 0, 0], [0, 0, 0, 0, 0], [3, 4, 5, 6, 7],
          [EOS_ID, 0, 0, 0, 0]]
  expected = [[9, 7, 5, EOS_ID, 0], [4, EOS_ID, 0, 0, 0], [0, 0, 0, 0, 0], [7, 6, 5, 4, 3],
              [EOS_ID, 0, 0, 0, 0]]
  assert reversed_before_eos(tf.constant(rows)).numpy().tolist() == expected
  assert [reversed_ids(row) for row in rows] == expected
  assert reversed_ids([]) == [] and reversed_ids(reversed_ids([2, 3, 4])) == [2, 3, 4]


def targets_by_input(problem, data_dir, split, training, right_to_left):
  """Every example of `split` once, as the pipeline batches it: {inputs: targets}."""
  return {inputs: list(targets) for inputs, targets in
          read_all(problem, data_dir, split, training, right_to_left=right_to_left)}


@pytest.mark.parametrize("split, training", [("train", True), ("dev", False)])
def test_the_pipeline_reverses_the_targets_for_training_and_evaluation(
    small_translation_data, split, training):
  problem, data_dir = small_translation_data
  forward = targets_by_input(problem, data_dir, split, training, right_to_left=False)
  backward = targets_by_input(problem, data_dir, split, training, right_to_left=True)
  assert backward.keys() == forward.keys() and len(forward) >= 90  # Some inputs repeat.
  assert all(backward[k] == reversed_ids(forward[k]) and backward[k][-1] == EOS_ID
             for k in forward)
  assert sum(backward[k] != forward[k] for k in forward) >= len(forward) - 2


def beam(model, beam_size=3):
  """The model's beam over INPUTS: per sentence [(ids before EOS, score)], best first."""
  ids, scores = decode_ids(model, INPUTS, beam_size=beam_size, alpha=ALPHA, extra_length=4)
  return n_best(ids, scores, beam_size)


def test_the_searching_model_alone_keeps_its_beam_and_scores():
  model = small_model()
  hypotheses = beam(model)
  reranked = Reranker([model], ALPHA).rerank([list(row[row != 0]) for row in INPUTS],
                                             hypotheses)
  for before, after in zip(hypotheses, reranked):
    assert [ids for ids, _ in after] == [ids for ids, _ in before]
    for (ids, old), (_, new) in zip(before, after):
      raw = abs(old) * ((5.0 + len(ids) + 1) / 6.0) ** ALPHA
      assert new == pytest.approx(old, abs=PASS_TOLERANCE * max(raw, 1.0))


def test_both_directions_score_the_mean_log_prob_under_the_length_penalty():
  forward = small_model()
  backward = small_model(dataclasses.replace(SMALL, right_to_left=True), seed=1)
  hypotheses = beam(forward)
  inputs = [list(row[row != 0]) for row in INPUTS]
  reranked = Reranker([forward, backward], ALPHA).rerank(inputs, hypotheses)
  for source, before, after in zip(inputs, hypotheses, reranked):
    assert sorted(ids for ids, _ in after) == sorted(ids for ids, _ in before)
    assert [score for _, score in after] == sorted((score for _, score in after), reverse=True)
    for ids, score in after:
      mean = (teacher_forced_log_prob(forward, source, ids + [EOS_ID])
              + teacher_forced_log_prob(backward, source, ids[::-1] + [EOS_ID])) / 2
      penalty = ((5.0 + len(ids) + 1) / 6.0) ** ALPHA
      assert score == pytest.approx(mean / penalty, abs=PASS_TOLERANCE * max(abs(mean), 1.0))
  assert any(len(ids) > 1 for sentence in hypotheses for ids, _ in sentence)


def test_hypotheses_past_one_call_are_scored_in_chunks():
  model = small_model()
  inputs = [[5 + k % 7, 6, EOS_ID] for k in range(ROWS_PER_CALL + 5)]
  hypotheses = [[([7 + k % 11, 8], -1.0)] for k in range(len(inputs))]
  reranked = Reranker([model], ALPHA).rerank(inputs, hypotheses)
  penalty = ((5.0 + 3) / 6.0) ** ALPHA
  for k in (0, ROWS_PER_CALL - 1, ROWS_PER_CALL, len(inputs) - 1):
    ids = hypotheses[k][0][0]
    expected = teacher_forced_log_prob(model, inputs[k], ids + [EOS_ID]) / penalty
    assert reranked[k] == [(ids, pytest.approx(expected, abs=PASS_TOLERANCE))]


def test_decoding_rules_and_ctranslate2_refuse_a_right_to_left_run():
  from t2t_lite.export.ctranslate2 import check_expressible
  backward = HParams(right_to_left=True)
  check_rules(HParams(), object())
  check_rules(backward, None)
  assert "pass --decode_hparams=count_rule=False" in one_line_error(
      lambda: check_rules(backward, object()))
  assert "export it as a SavedModel" in one_line_error(lambda: check_expressible(backward))


def test_dev_decoding_refuses_settings_its_translator_cannot_decode_with_when_built():
  from t2t_lite.errors import UserError
  from t2t_lite.training.dev_decoding import DevDecoding

  class RightToLeftParsingTranslator:
    def check_settings(self):
      check_rules(HParams(right_to_left=True), object())

  with pytest.raises(UserError, match="count_rule=False"):
    DevDecoding(None, RightToLeftParsingTranslator(), ["a"], ["b"])


def test_a_run_resumes_only_in_its_own_direction():
  from t2t_lite.run.description import check_same_hparams
  message = one_line_error(lambda: check_same_hparams(HParams(), HParams(right_to_left=True),
                                                      "RUN"))
  assert "right_to_left False -> True" in message


# Runs on disk: the 60-step trained run of tests/conftest.py, and a copy of it made right to
# left by its hparams.json alone: the same weights, so the same search, read backwards.

def right_to_left_copy(output_dir, target):
  copy = copy_run(output_dir, target)
  path = os.path.join(copy, "hparams.json")
  with open(path, encoding="utf-8") as f:
    hparams = json.load(f)
  with open(path, "w", encoding="utf-8") as f:
    json.dump(dict(hparams, right_to_left=True), f)
  return copy


def news_source(shared_data, tmp_path, count, extra=()):
  """The first `count` English lines of newstest2014, then `extra`, also written to a file
  -> (lines, the file's path)."""
  with open(os.path.join(shared_data, "wmt14", "newstest2014-full.en-de.en"),
            encoding="utf-8") as f:
    lines = f.read().splitlines()[:count] + list(extra)
  source = tmp_path / "source.en"
  source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
  return lines, source


class IdsVocabulary:
  """A target vocabulary that writes the ids themselves: "5 9 12"."""

  def decode(self, ids):
    """ids: [batch, length], 0-padded, as the Translator detokenizes a batch."""
    return tf.constant([" ".join(str(i) for i in row if i) for row in ids.numpy().tolist()])


def ids_translation(output_dir, lines, settings):
  from t2t_lite.decoding.decode_hparams import decode_hparams_for
  from t2t_lite.decoding.translate import Translator
  from t2t_lite.run import Run
  run = Run.open(output_dir)
  translator = Translator(run.model, (run.input_vocab, IdsVocabulary()),
                          run.problem.target_form, decode_hparams_for(run.problem, settings),
                          run.strategy)
  return [line.split("\t") for line in translator.translate(lines, progress=False)]


def test_a_right_to_left_run_writes_its_outputs_in_reading_order(trained_run, shared_data,
                                                                 tmp_path):
  _, output_dir, _ = trained_run
  backward = right_to_left_copy(output_dir, tmp_path / "backward")
  lines, source = news_source(shared_data, tmp_path, 8)
  settings = f"{BEAM_WITH_OUTPUTS},n_best=2,write_scores=True"
  forward_lines = ids_translation(output_dir, lines, settings)
  backward_lines = ids_translation(backward, lines, settings)
  hypotheses = 0
  for forward_fields, backward_fields in zip(forward_lines, backward_lines):
    assert backward_fields[1::2] == forward_fields[1::2]  # The same search: the same scores.
    for forward_ids, backward_ids in zip(forward_fields[::2], backward_fields[::2]):
      assert backward_ids.split() == forward_ids.split()[::-1]
      hypotheses += forward_ids.split() != forward_ids.split()[::-1]
  assert hypotheses >= 8  # Not palindromes: the reversal shows.

  # The SavedModel turns them back in its graph, as t2t-decoder does in Python. (Inputs cut
  # to 16 tokens: widths 8 and 16, each one more traced search to export and to load.)
  export_dir = tmp_path / "export"
  narrow = f"{BEAM_WITH_OUTPUTS},max_input_length=16"  # The later setting counts.
  exported = call("t2t-exporter", f"--output_dir={backward}", f"--export_dir={export_dir}",
                  f"--decode_hparams={narrow}")
  assert exported.returncode == 0, exported.stderr[-3000:]
  decoded = call("t2t-decoder", f"--output_dir={backward}", f"--decode_from_file={source}",
                 f"--decode_hparams={narrow}")
  assert decoded.returncode == 0, decoded.stderr[-3000:]
  serve = tf.saved_model.load(str(export_dir)).signatures["serving_default"]
  served = serve(sentences=tf.constant(lines))["translations"].numpy()
  assert [line.decode("utf-8") for line in served] == decoded.stdout.split("\n")[:-1]


def test_runs_of_both_directions_rerank_the_left_to_right_beam(trained_run, shared_data,
                                                               tmp_path):
  _, output_dir, _ = trained_run
  backward = right_to_left_copy(output_dir, tmp_path / "backward")
  lines, source = news_source(shared_data, tmp_path, 6, extra=[""])
  settings = ("--decode_hparams=beam_size=4,n_best=4,write_scores=True,alpha=2.0,"
              "extra_length=5,max_input_length=40")
  alone = call("t2t-decoder", f"--output_dir={output_dir}", f"--decode_from_file={source}",
               settings)
  # The backward copy at step 40 of 60: other weights, so other scores than the beam's.
  both = call("t2t-decoder", f"--output_dir={output_dir},{backward}",
              f"--checkpoint_path=,{backward}/ckpt-40", f"--decode_from_file={source}",
              settings)
  assert alone.returncode == 0 and both.returncode == 0, both.stderr[-3000:]
  alone_lines, both_lines = alone.stdout.split("\n")[:-1], both.stdout.split("\n")[:-1]
  assert len(both_lines) == len(lines) and both_lines[-1] == ""
  rescored = 0
  for beam_line, reranked_line in zip(alone_lines[:-1], both_lines[:-1]):
    beam_fields, reranked_fields = beam_line.split("\t"), reranked_line.split("\t")
    assert sorted(reranked_fields[::2]) == sorted(beam_fields[::2])  # The beam's, reordered.
    scores = [float(score) for score in reranked_fields[1::2]]
    assert scores == sorted(scores, reverse=True)
    beam_scores = dict(zip(beam_fields[::2], beam_fields[1::2]))
    rescored += sum(beam_scores[text] != score
                    for text, score in zip(reranked_fields[::2], reranked_fields[1::2]))
  assert rescored >= 4 * (len(lines) - 1) - 2  # The right-to-left run's scores count.

  pairs = tmp_path / "pairs.tsv"
  pairs.write_text(f"{lines[0]}\t{lines[0]}\n", encoding="utf-8")
  for flags, message in [
      ((f"--decode_from_file={source}", "--decode_hparams=beam_size=1"),
       "beam_size=1 keeps one hypothesis"),
      (("--decode_interactive", "--decode_hparams=beam_size=1"),  # Before any line is read.
       "beam_size=1 keeps one hypothesis"),
      ((f"--score_file={pairs}",), "scores with runs of one direction")]:
    refused = call("t2t-decoder", f"--output_dir={output_dir},{backward}", *flags)
    assert refused.returncode == 2 and message in error_line(refused.stderr), \
        refused.stderr[-2000:]


def test_attention_maps_show_the_target_in_the_models_order(trained_run, tmp_path):
  from t2t_lite.run import Run
  from t2t_lite.visualization.attention_maps import sentence_attention
  _, output_dir, _ = trained_run
  forward = Run.open(output_dir).translator("beam_size=1")
  backward = Run.open(right_to_left_copy(output_dir, tmp_path / "backward")).translator(
      "beam_size=1")
  sentence = "Resumption of the session"
  forced = [sentence_attention(t, sentence, "Wiederaufnahme der Sitzung")
            for t in (forward, backward)]
  assert forced[1].target[:-1] == forced[0].target[:-1][::-1]
  assert forced[0].target[:-1] != forced[1].target[:-1]  # The reversal shows.
  assert forced[1].target[-1] == forced[0].target[-1]    # EOS last in both.
  # Greedy: the same search (the same weights), so the same tokens in the model's order,
  # and the text read back into reading order.
  decoded = [sentence_attention(t, sentence) for t in (forward, backward)]
  assert decoded[1].target == decoded[0].target
  piece_ids = {piece: i for i, piece in enumerate(forward.target_vocab.pieces())}
  ids = [piece_ids[piece] for piece in decoded[0].target]  # The model's order, EOS last.
  assert decoded[1].target_text == forward.target_vocab.decode(
      tf.constant(reversed_ids(ids), tf.int32)).numpy().decode("utf-8")


def test_t2t_trainer_trains_evaluates_and_resumes_a_right_to_left_run(tmp_path_factory,
                                                                     tmp_path):
  data_dir, _ = tiny_run(tmp_path_factory)
  output_dir = tmp_path / "backward"

  def trainer(hparams, steps):
    return call("t2t-trainer", "--problem=translate_from_files", f"--data_dir={data_dir}",
                f"--output_dir={output_dir}", "--hparams_set=transformer_test_small",
                f"--hparams={hparams}", f"--train_steps={steps}", "--local_eval_frequency=3",
                "--eval_decode_sentences=5", "--save_checkpoints_secs=0",
                "--save_checkpoints_steps=3", "--random_seed=1")

  trained = trainer(f"{TINY_HPARAMS},right_to_left=True", 3)
  assert trained.returncode == 0, trained.stderr[-3000:]
  assert "bleu" in trained.stderr and "5 dev sentences" in trained.stderr  # Dev decoding ran.
  with open(output_dir / "hparams.json", encoding="utf-8") as f:
    assert json.load(f)["right_to_left"] is True
  source = tmp_path / "source.en"
  source.write_text("the number 7 is here\n\nthe number 12 is here\n", encoding="utf-8")
  decoded = call("t2t-decoder", f"--output_dir={output_dir}", f"--decode_from_file={source}",
                 "--decode_hparams=beam_size=2")
  assert decoded.returncode == 0 and len(decoded.stdout.split("\n")) == 4, decoded.stderr[-2000:]
  refused = trainer(TINY_HPARAMS, 6)  # Resumed left to right: refused, nothing changed.
  assert refused.returncode == 2 and "right_to_left True -> False" in error_line(
      refused.stderr), refused.stderr[-2000:]
