"""Mixed precision and the paper's base set train on CPU; the big set builds and runs."""

import json
import re

import numpy as np
import pytest

import keras

from t2t_lite.models.parameter_summary import format_summary
from t2t_lite.models.transformer import Transformer
from t2t_lite.registry import HPARAMS
from t2t_lite.data.batching import xla_bucket_note
from trainer_runs import SMALL_RUN, run_trainer


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["bfloat16", "float16"])
def test_mixed_precision_trains(small_translation_data, tmp_path, precision):
  _, data_dir = small_translation_data
  result = run_trainer(data_dir, str(tmp_path / "run"), "--train_steps=40",
                       "--local_eval_frequency=40", "--eval_steps=0",
                       "--eval_decode_sentences=4", f"--mixed_precision={precision}")
  assert result.returncode == 0, result.stderr[-3000:]
  assert keras.mixed_precision.dtype_policy().name == "float32"  # The process's, restored.
  losses = [float(x) for x in re.findall(r"eval at step \d+: loss ([0-9.]+)", result.stderr)]
  # The baseline and step 40, once each (float16 skips overflowing steps, not evaluations).
  assert len(losses) == 2 and losses[1] < losses[0] - 0.5, result.stderr[-2000:]
  # float16 starts at Keras's loss scale of 2^15 on a loss summed over ~1,000 tokens: the
  # softmax weights' gradient sums 2^15-sized terms over every occurrence of a token, past
  # float16's 65,504, so the first updates overflow, are skipped and reported.
  reported = "float16 loss scaling skipped" in result.stderr
  assert reported == (precision == "float16"), result.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("name, value", [("rdrop_alpha", 5.0), ("symbol_dropout", 0.1)])
def test_regularisers_train_through_the_trainer(small_translation_data, tmp_path, name, value):
  _, data_dir = small_translation_data
  run = tmp_path / "run"
  result = run_trainer(data_dir, str(run), "--train_steps=40", "--local_eval_frequency=40",
                       "--eval_steps=0", "--eval_decode_sentences=4",
                       f"{SMALL_RUN[1]},{name}={value:g}")  # A second --hparams replaces it.
  assert result.returncode == 0, result.stderr[-3000:]
  losses = [float(x) for x in re.findall(r"eval at step \d+: loss ([0-9.]+)", result.stderr)]
  assert len(losses) == 2 and losses[1] < losses[0] - 0.5, result.stderr[-2000:]
  assert json.loads((run / "hparams.json").read_text())[name] == value
  if name == "rdrop_alpha":
    assert "R-Drop alpha 5 (each batch trained twice)" in result.stderr


@pytest.mark.slow
def test_the_base_set_starts_training(small_translation_data, tmp_path):
  _, data_dir = small_translation_data
  result = run_trainer(data_dir, str(tmp_path / "run"), "--hparams_set=transformer_base",
                       "--hparams=batch_size=256,max_length=64", "--train_steps=2",
                       "--schedule=train")
  assert result.returncode == 0, result.stderr[-3000:]
  assert "step 2/2" in result.stderr and "training cost:" in result.stderr


@pytest.mark.slow
def test_xla_training_pads_batches_to_their_buckets(small_translation_data, tmp_path):
  """XLA compiles the step once per batch shape: batches padded to 3 bucket lengths (8, 16
  and max_length 32; each compile costs seconds)."""
  _, data_dir = small_translation_data
  result = run_trainer(data_dir, str(tmp_path / "run"), "--xla", "--train_steps=6",
                       "--schedule=train",
                       "--hparams=batch_size=1024,max_length=32,length_bucket_step=2.0")
  assert result.returncode == 0, result.stderr[-3000:]
  assert "XLA on" in result.stderr and "compiles at most 3 times" in result.stderr
  assert "going on without XLA" not in result.stderr and "step 6/6" in result.stderr


def test_the_xla_note_counts_the_buckets_and_names_a_step_that_makes_fewer():
  base = HPARAMS["transformer_base"]()  # max_length 256, tensor2tensor's step 1.1.
  assert "compiles at most 42 times" in xla_bucket_note(base)
  assert xla_bucket_note(base).endswith("--hparams=length_bucket_step=1.65 gives 9")
  # Buckets 8, 16 and 32; step 3.0 (1.5x) gives 3 too (8, 24, 32): nothing to suggest.
  short = base.override("max_length=32,length_bucket_step=2.0")
  assert xla_bucket_note(short).endswith("compiles at most 3 times (once per bucket, as the "
                                         "buckets first occur)")


@pytest.mark.slow
def test_the_big_set_builds_for_the_problem_and_runs_forward(small_translation_data):
  """transformer_big is too slow to train on a CPU: its shapes on the problem's
  vocabulary and one forward pass stand for it."""
  problem, data_dir = small_translation_data
  hparams = HPARAMS["transformer_big"]()
  input_vocab, target_vocab = problem.vocab_sizes(data_dir)
  model = Transformer(hparams, input_vocab, target_vocab)
  inputs, targets = random_ids(input_vocab, (2, 7)), random_ids(target_vocab, (2, 5))
  logits = np.asarray(model({"inputs": inputs, "targets": targets}, training=False))
  assert logits.shape == (2, 5, target_vocab) and np.isfinite(logits).all()
  summary = format_summary(model).splitlines()
  assert summary[-1] == f"total_params={model.count_params()}"
  assert sum(line.startswith("encoder/layer_") for line in summary) == 6


def random_ids(vocab_size, shape):
  return np.random.default_rng(0).integers(2, vocab_size, shape).astype("int32")
