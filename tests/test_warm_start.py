"""--warm_start_from: rows of the pieces both vocabularies share are the old model's, the
others a fresh model's, every other weight the old one's; another architecture is refused."""

import dataclasses
import logging
import os

import numpy as np
import pytest

from commands import one_line_error
from model_fixtures import SMALL, VARIANTS, small_model
from t2t_lite.models.building import build
from t2t_lite.training.warm_start import copy_weights, piece_rows, vocabulary_weights
from tiny_runs import TINY_HPARAMS, tiny_run, tiny_train


def other_data(work):
  """A data_dir of translate_from_files whose vocabulary shares some of the tiny run's
  pieces (numbers, "the", "die") and not others (the other words)."""
  from t2t_lite.data.problem import Sources
  from t2t_lite.registry import PROBLEMS
  os.makedirs(work, exist_ok=True)
  for split, lines in (("train", 200), ("dev", 20)):
    with open(os.path.join(work, f"{split}.tsv"), "w", encoding="utf-8") as f:
      f.write("".join(f"the colour {i} was yellow\tdie Farbe {i} war gelb\n"
                      for i in range(lines)))
  data_dir = os.path.join(work, "data")
  PROBLEMS["translate_from_files"]().generate_data(
      data_dir, Sources(tmp_dir=work, tsv={split: os.path.join(work, f"{split}.tsv")
                                           for split in ("train", "dev")}),
      vocab_size=290, progress=False)
  return data_dir


def new_run(data_dir, output_dir):
  """A `Run` of transformer_test_small on `data_dir`, its model freshly built."""
  from t2t_lite.registry import HPARAMS, PROBLEMS
  from t2t_lite.run import Run
  hparams = HPARAMS["transformer_test_small"]().override(TINY_HPARAMS)
  run = Run.create(output_dir, PROBLEMS["translate_from_files"](), hparams, data_dir)
  run.build_model()
  return run


def test_shared_pieces_keep_their_rows_and_new_ones_their_fresh_values(tmp_path_factory,
                                                                       tmp_path, caplog):
  from t2t_lite.run import Run
  from t2t_lite.training.warm_start import warm_start
  _, source_dir = tiny_run(tmp_path_factory)
  source = Run.open(source_dir)
  run = new_run(other_data(str(tmp_path / "work")), str(tmp_path / "run"))
  fresh = {w.path.split("/", 1)[1]: w.numpy() for w in run.model.weights}
  with caplog.at_level(logging.INFO):
    warm_start(run, source_dir)

  new_pieces, old_pieces = run.target_vocab.pieces(), source.target_vocab.pieces()
  assert run.input_vocab is run.target_vocab and len(new_pieces) != len(old_pieces)
  shared = [(i, old_pieces.index(piece)) for i, piece in enumerate(new_pieces)
            if piece in old_pieces]
  new_only = [i for i, piece in enumerate(new_pieces) if piece not in old_pieces]
  assert shared and new_only
  old_rows = source.model.target_embedding.embeddings.numpy()   # [old vocab, d_model]
  rows = run.model.target_embedding.embeddings.numpy()          # [new vocab, d_model]
  for new_id, old_id in shared:
    np.testing.assert_array_equal(rows[new_id], old_rows[old_id])
  np.testing.assert_array_equal(rows[new_only], fresh["target_embedding/embeddings"][new_only])
  assert not np.isin(rows[new_only], old_rows).all(axis=1).any()  # No old row among them.
  for new, old in zip(run.model.weights, source.model.weights):
    if new is not run.model.target_embedding.embeddings:
      np.testing.assert_array_equal(new.numpy(), old.numpy())
  lines = [r.getMessage() for r in caplog.records if "warm-started" in r.getMessage()]
  assert lines == [f"model weights warm-started from {source_dir}/ckpt-3 on another vocabulary: "
                   f"{len(shared)} embedding rows of shared pieces kept, {len(new_only)} "
                   f"initialised"], lines


def test_the_same_vocabulary_restores_every_weight(tmp_path_factory, tmp_path, caplog):
  from t2t_lite.run import Run
  from t2t_lite.training.warm_start import warm_start
  data_dir, source_dir = tiny_run(tmp_path_factory)
  run = new_run(data_dir, str(tmp_path / "run"))
  with caplog.at_level(logging.INFO):
    warm_start(run, f"{source_dir}/ckpt-2")
  source = Run.open(source_dir, f"{source_dir}/ckpt-2")
  for new, old in zip(run.model.weights, source.model.weights):
    np.testing.assert_array_equal(new.numpy(), old.numpy())
  assert f"model weights warm-started from {source_dir}/ckpt-2\n" in caplog.text + "\n"


def test_the_other_target_order_is_warm_started_with_a_warning(tmp_path_factory, tmp_path,
                                                               caplog):
  from t2t_lite.training.warm_start import warm_start
  data_dir, source_dir = tiny_run(tmp_path_factory)
  run = new_run(data_dir, str(tmp_path / "run"))
  with caplog.at_level(logging.INFO):
    warm_start(run, source_dir)
  assert "other order" not in caplog.text
  run.hparams = dataclasses.replace(run.hparams, right_to_left=True)
  caplog.clear()
  with caplog.at_level(logging.INFO):
    warm_start(run, source_dir)
  warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
  assert warnings == ["--warm_start_from warm-starts a right-to-left run from a left-to-right "
                      "one: its decoder learned targets in the other order"], warnings


def test_the_trainer_warm_starts_on_another_vocabulary(tmp_path_factory, tmp_path, caplog):
  _, source_dir = tiny_run(tmp_path_factory)
  data_dir = other_data(str(tmp_path / "work"))
  with caplog.at_level(logging.INFO):
    tiny_train(data_dir, str(tmp_path / "run"), train_steps=1, warm_start_from=source_dir)
  assert "on another vocabulary: " in caplog.text and "initialised" in caplog.text


def test_every_vocabulary_weight_is_matched_by_pieces():
  """Untied input embedding, target embedding and softmax (columns), two vocabularies."""
  hparams = VARIANTS["unshared"]
  old, new = small_model(hparams, 30, 20, seed=0), small_model(hparams, 25, 35, seed=1)
  build(old), build(new)
  assert len(vocabulary_weights(new)) == 3
  fresh = {id(w): w.numpy() for w in new.weights}
  rows = {"input": piece_rows([f"p{i}" for i in range(25)], [f"p{i}" for i in range(5, 35)]),
          "target": piece_rows([f"q{i}" for i in range(35)], [f"q{i}" for i in range(10, 30)])}
  copy_weights(new, old, rows, "OLD")
  for variable, old_variable, side, axis in [
      (new.input_embedding.embeddings, old.input_embedding.embeddings, "input", 0),
      (new.target_embedding.embeddings, old.target_embedding.embeddings, "target", 0),
      (new.softmax.kernel, old.softmax.kernel, "target", 1)]:
    value = np.moveaxis(variable.numpy(), axis, 0)
    old_value = np.moveaxis(old_variable.numpy(), axis, 0)
    initial = np.moveaxis(fresh[id(variable)], axis, 0)
    for new_id, old_id in enumerate(rows[side]):
      np.testing.assert_array_equal(value[new_id], old_value[old_id] if old_id >= 0
                                    else initial[new_id])
  assert list(rows["input"][:7]) == [-1] * 5 + [0, 1]


@pytest.mark.parametrize("change, message", [
    (dict(filter_size=48), "weight encoder/layer_0/feed_forward/filter/kernel has shape "
                           "(32, 48), this model's (32, 64)"),
    (dict(num_hidden_layers=3), "where this model has weight decoder/layer_0/self_attention/"
                                "query/kernel, it has encoder/layer_2/self_attention/query/"
                                "kernel"),
    (dict(hidden_size=48, num_heads=4), "weight target_embedding/embeddings has shape "
                                        "(40, 48), this model's (40, 32)"),
])
def test_another_architecture_is_one_line_naming_the_first_weight(change, message):
  old, new = small_model(dataclasses.replace(SMALL, **change)), small_model(seed=1)
  build(old), build(new)
  before = [w.numpy() for w in new.weights]
  identity = {side: np.arange(40) for side in ("input", "target")}
  error = one_line_error(lambda: copy_weights(new, old, identity, "OLD/ckpt-1"))
  assert error.startswith("--warm_start_from: OLD/ckpt-1 holds another architecture: ")
  assert message in error, error
  for weight, value in zip(new.weights, before):  # Nothing assigned.
    np.testing.assert_array_equal(weight.numpy(), value)


def test_a_checkpoint_outside_a_run_directory_is_restored_as_it_is(tmp_path_factory, tmp_path):
  import shutil
  from t2t_lite.run import Run
  from t2t_lite.training.warm_start import warm_start
  data_dir, source_dir = tiny_run(tmp_path_factory)
  bare = tmp_path / "bare"
  bare.mkdir()
  for name in os.listdir(source_dir):
    if name.startswith("ckpt-3."):
      shutil.copy(os.path.join(source_dir, name), bare / name)
  run = new_run(data_dir, str(tmp_path / "run"))
  warm_start(run, str(bare / "ckpt-3"))
  source = Run.open(source_dir)
  for new, old in zip(run.model.weights, source.model.weights):
    np.testing.assert_array_equal(new.numpy(), old.numpy())
  for missing in (str(bare / "ckpt-9"), str(tmp_path)):
    error = one_line_error(lambda: warm_start(run, missing))
    assert error == f"--warm_start_from={missing}: no checkpoint there"
