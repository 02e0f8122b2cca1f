"""t2t-exporter --export_format=ctranslate2: CTranslate2 computes t2t_lite's model.

The exported model gives t2t_lite's log-probabilities (up to float32 round-off) and its
greedy outputs, for every variant of the model CTranslate2 can express; a run directory
exports to a directory that `ctranslate2.Translator` and SentencePiece read alone.
"""

import dataclasses
import json
import os
import sys

import numpy as np
import pytest

from bench.ctranslate2_decoding import ctranslate2_translator
from commands import call, error_line, one_line_error
from model_fixtures import VARIANTS, VOCAB, small_model
from t2t_lite.export.ctranslate2 import (check_expressible, import_ctranslate2, save_spec,
                                         transformer_spec)
from t2t_lite.models.building import build
from t2t_lite.run.run_layout import EXPORT_MARKER
from tiny_runs import copy_run, tiny_run, tiny_text

# Every variant but unequal key and value depths (one depth per head in CTranslate2),
# and one with equal depths other than d_model / h (CTranslate2's head_dim).
EXPRESSIBLE = {**{name: hparams for name, hparams in VARIANTS.items()
                  if name != "key_value_depths"},
               "head_depth": dataclasses.replace(VARIANTS["paper"], attention_key_channels=16,
                                                 attention_value_channels=16)}

TOKENS = ["<pad>", "</s>", "<unk>"] + [f"t{i}" for i in range(3, VOCAB)]  # By id.

# Log-probabilities agree up to float32 round-off: a float32 dot product of n terms is off
# by at most about n * 2^-24 of the sum of its terms' magnitudes (n <= 64 here), and the
# logits (|logit| <= 5 for these models) pass through some ten such products and norms:
# 10 * 64 * 6e-8 * 5 = 2e-4.
LOG_PROB_TOLERANCE = 2e-4
EXTRA_LENGTH = 6


@pytest.fixture(scope="module")
def ctranslate2():
  return pytest.importorskip("ctranslate2", reason="the ctranslate2 package is not installed "
                             "(pip install -e \".[ctranslate2]\")")


def exported(ctranslate2, model, directory):
  """A CTranslate2 float32 translator of a t2t_lite model over TOKENS."""
  save_spec(transformer_spec(model, TOKENS, TOKENS), str(directory))
  return ctranslate2.Translator(str(directory), device="cpu", compute_type="float32")


def built_model(hparams):
  model = small_model(hparams)
  build(model)
  return model


def sources(count, length, seed):
  """`count` id lists of `length` ids in [3, VOCAB) (no special ids)."""
  rng = np.random.default_rng(seed)
  return [[int(i) for i in rng.integers(3, VOCAB, length)] for _ in range(count)]


def tokens(ids):
  return [TOKENS[i] for i in ids]


def log_probs(model, source, target):
  """t2t_lite's teacher-forced log-probability of each token of target + EOS -> [len + 1]."""
  import keras
  logits = model({"inputs": np.array([source + [1]], "int32"),
                  "targets": np.array([target + [1]], "int32")}, training=False)
  table = keras.ops.convert_to_numpy(keras.ops.log_softmax(logits, axis=-1))[0]  # [t, vocab]
  return table[np.arange(len(target) + 1), target + [1]]


@pytest.mark.parametrize("variant", sorted(EXPRESSIBLE))
def test_log_probs_equal_t2t_lite(ctranslate2, variant, tmp_path):
  model = built_model(EXPRESSIBLE[variant])
  translator = exported(ctranslate2, model, tmp_path)
  pairs = list(zip(sources(3, 7, seed=1) + sources(2, 3, seed=2),
                   sources(3, 5, seed=3) + sources(2, 9, seed=4)))
  results = translator.score_batch([tokens(s) for s, _ in pairs], [tokens(t) for _, t in pairs])
  for (source, target), result in zip(pairs, results):
    assert result.tokens == tokens(target) + ["</s>"]
    np.testing.assert_allclose(result.log_probs, log_probs(model, source, target),
                               rtol=0, atol=LOG_PROB_TOLERANCE)


# The weights' mapping is checked for every variant above; decoding step by step (the start
# token, positions from the step) on the two kinds of positions.
@pytest.mark.parametrize("variant", ["paper", "learned_positions"])
def test_greedy_outputs_equal_t2t_lite(ctranslate2, variant, tmp_path):
  from t2t_lite.decoding.model_decoding import decode_ids, n_best
  model = built_model(EXPRESSIBLE[variant])
  translator = exported(ctranslate2, model, tmp_path)
  length = 8
  batch = sources(8, length, seed=length)
  ids, scores = decode_ids(model, np.array([s + [1] for s in batch], "int32"), beam_size=1,
                           alpha=0.0, extra_length=EXTRA_LENGTH)
  expected = [hypotheses[0][0] for hypotheses in n_best(ids, scores, 1)]
  # The premise: each greedy choice wins by more than twice the round-off (no near ties).
  for source, output in zip(batch, expected):
    assert greedy_margin(model, source, output, length + EXTRA_LENGTH) > \
        2 * LOG_PROB_TOLERANCE
  # t2t_lite's limit: len(source) + EOS + EXTRA_LENGTH tokens, the last forced to be
  # EOS; CTranslate2 stops without EOS at max_decoding_length.
  results = translator.translate_batch([tokens(s) for s in batch], beam_size=1,
                                       max_decoding_length=length + EXTRA_LENGTH)
  assert [result.hypotheses[0] for result in results] == [tokens(e) for e in expected]


def greedy_margin(model, source, output, limit):
  """The smallest gap between the best and second-best log-prob of the choices along a
  greedy output (its EOS too, unless the output reached `limit` tokens, where it is forced)."""
  import keras
  logits = model({"inputs": np.array([source + [1]], "int32"),
                  "targets": np.array([output + [1]], "int32")}, training=False)
  table = np.sort(keras.ops.convert_to_numpy(keras.ops.log_softmax(logits, axis=-1))[0])
  chosen = table[:len(output) if len(output) == limit else len(output) + 1]  # [choices, vocab]
  return float(np.min(chosen[:, -1] - chosen[:, -2]))


def test_beam_search_finds_what_t2t_lite_scores_no_better(ctranslate2, tmp_path):
  """Without length penalties (alpha=0, length_penalty=0) both searches rank by
  log-probability and keep the same alive hypotheses (the best `beam` not ending in EOS);
  t2t_lite also lets an EOS candidate ranked beam..2*beam-1 finish, CTranslate2 only
  those ranked below beam. So CTranslate2's best is never better than t2t_lite's, and its
  score is t2t_lite's log-probability of its hypothesis."""
  from t2t_lite.decoding.model_decoding import decode_ids, n_best
  model = built_model(EXPRESSIBLE["paper"])
  translator = exported(ctranslate2, model, tmp_path)
  batch = sources(6, 5, seed=5)
  ids, scores = decode_ids(model, np.array([s + [1] for s in batch], "int32"), beam_size=4,
                           alpha=0.0, extra_length=EXTRA_LENGTH)
  best = [hypotheses[0] for hypotheses in n_best(ids, scores, 1)]
  results = translator.translate_batch([tokens(s) for s in batch], beam_size=4,
                                       length_penalty=0, return_scores=True,
                                       max_decoding_length=5 + EXTRA_LENGTH)
  for source, (_, t2t_score), result in zip(batch, best, results):
    output = [TOKENS.index(token) for token in result.hypotheses[0]]
    assert result.scores[0] <= t2t_score + LOG_PROB_TOLERANCE * (len(output) + 1)
    if len(output) < 5 + EXTRA_LENGTH:  # Ended with EOS, whose log-prob counts.
      assert result.scores[0] == pytest.approx(
          float(np.sum(log_probs(model, source, output))),
          abs=LOG_PROB_TOLERANCE * (len(output) + 1))


def test_exported_run_translates_as_t2t_decoder(ctranslate2, tmp_path_factory, tmp_path):
  from t2t_lite.run import Run
  output_dir = copy_run(tiny_run(tmp_path_factory)[1], tmp_path / "run")
  export_dir = tmp_path / "ct2"
  result = call("t2t-exporter", f"--output_dir={output_dir}", f"--export_dir={export_dir}",
                "--export_format=ctranslate2")
  assert result.returncode == 0, result.stderr[-3000:]
  assert {"model.bin", "config.json", "shared_vocabulary.json", "sentencepiece.model",
          EXPORT_MARKER} <= set(os.listdir(export_dir))
  assert json.loads((export_dir / EXPORT_MARKER).read_text())["quantization"] == "float32"

  lines = [line.split("\t")[0] for line in tiny_text(6, offset=1000).splitlines()] + [""]
  expected = Run.open(output_dir).translate(lines, decode_hparams="beam_size=1")
  # The README's use (SentencePiece, Translator, translate_batch), with t2t-decoder's limit
  # on each sentence's length.
  translated = ctranslate2_translator(str(export_dir), "float32", beam_size=1,
                                      length_penalty=0.0, threads=1)(lines)
  assert translated == expected
  assert translated[-1] == ""  # A blank line stays blank, as in t2t-decoder.

  # int8 weights: by default in the run directory, read by CTranslate2.
  result = call("t2t-exporter", f"--output_dir={output_dir}", "--export_format=ctranslate2",
                "--quantization=int8")
  assert result.returncode == 0, result.stderr[-3000:]
  int8 = ctranslate2_translator(os.path.join(output_dir, "ctranslate2_int8"), "int8",
                                beam_size=2, length_penalty=0.0, threads=1)
  assert len(int8(lines)) == len(lines)


def test_missing_package_says_how_to_install(monkeypatch):
  monkeypatch.setitem(sys.modules, "ctranslate2", None)  # `import ctranslate2` fails.
  message = one_line_error(import_ctranslate2)
  assert 'pip install -e ".[ctranslate2]"' in message


def test_unexpressible_setting_is_named():
  message = one_line_error(lambda: check_expressible(VARIANTS["key_value_depths"]))
  assert "attention_key_channels=16" in message and "attention_value_channels=48" in message


@pytest.mark.parametrize("flags, named", [
    (["--quantization=int8"], "--quantization=int8 needs --export_format=ctranslate2"),
    (["--export_format=ctranslate2", "--decode_hparams=beam_size=2"], "--decode_hparams"),
])
def test_settings_of_the_other_format_are_refused(flags, named, tmp_path):
  result = call("t2t-exporter", f"--output_dir={tmp_path}", *flags)
  assert result.returncode == 2
  assert named in error_line(result.stderr)
