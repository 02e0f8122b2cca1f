"""Broken checkpoints and diverging runs: a readable older checkpoint is used, and every
failure is one line that names the checkpoint or the fields."""

import json
import logging
import math
import os

import pytest
import tensorflow as tf

from helpers import edit_json
from t2t_lite.errors import UserError
from t2t_lite.run import Run
from t2t_lite.run import checkpoints as checkpoints_module
from t2t_lite.run import description as run_dir
from t2t_lite.run.checkpoints import Checkpoints, checkpoint_paths, restore_newest
from t2t_lite.run.run_layout import AVERAGE_MARKER
from t2t_lite.training.averaging import average_checkpoints
from t2t_lite.training.checkpoint_choice import CheckpointChoice
from t2t_lite.training.divergence import check_loss, divergence_bound
from t2t_lite.training.evaluation import perplexity
from t2t_lite.training.optimization import build_optimizer
from tiny_runs import copy_run, tiny_run, truncate

DATA = "ckpt-3.data-00000-of-00001"


def corrupt(path):
  with open(path, "r+b") as f:
    data = bytearray(f.read())
    for i in range(0, len(data), 7):
      data[i] ^= 0xFF
    f.seek(0)
    f.write(data)


BREAKAGES = {
    "truncated": lambda run: truncate(os.path.join(run, DATA)),
    "corrupted": lambda run: corrupt(os.path.join(run, DATA)),
    "data file deleted": lambda run: os.remove(os.path.join(run, DATA)),
    "index deleted": lambda run: os.remove(os.path.join(run, "ckpt-3.index")),
}


def training_checkpoints(output_dir):
  """A `Checkpoints` of the run's model and optimizer, as t2t-trainer makes it."""
  run = Run.read(output_dir)
  model = run.build_model()
  optimizer = build_optimizer(run.hparams)
  optimizer.build(model.trainable_variables)
  return Checkpoints(tf.distribute.get_strategy(), output_dir, 5, 1, 0, model=model,
                     optimizer=optimizer), optimizer


@pytest.fixture(scope="module")
def model(tmp_path_factory):
  """The tiny run's model, built once: each test restores into it."""
  _, output_dir = tiny_run(tmp_path_factory)
  return Run.read(output_dir).build_model()


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_the_newest_readable_checkpoint_is_used(run_copy, model, breakage, caplog):
  BREAKAGES[breakage](run_copy)
  with caplog.at_level(logging.WARNING):
    path, _ = restore_newest(tf.train.Checkpoint(model=model), run_copy)
  assert path == os.path.join(run_copy, "ckpt-2")
  assert f"checkpoint {run_copy}/ckpt-3 cannot be read" in caplog.text
  assert "using the next older checkpoint" in caplog.text


def test_decoding_falls_back_to_the_newest_readable_checkpoint(run_copy, caplog):
  BREAKAGES["truncated"](run_copy)
  with caplog.at_level(logging.WARNING):
    Run.open(run_copy)
  assert f"checkpoint {run_copy}/ckpt-3 cannot be read: Read less bytes" in caplog.text


def test_training_resumes_from_the_older_checkpoint_and_saves_over_the_broken_one(run_copy):
  BREAKAGES["truncated"](run_copy)
  os.makedirs(os.path.join(run_copy, "ckpt-4_temp"))  # A save killed midway.
  checkpoints, optimizer = training_checkpoints(run_copy)
  assert not os.path.exists(os.path.join(run_copy, "ckpt-4_temp"))
  assert checkpoints.restore_latest() == os.path.join(run_copy, "ckpt-2")
  assert int(optimizer.iterations) == 2
  assert [os.path.basename(p) for p in checkpoint_paths(run_copy)] == ["ckpt-1", "ckpt-2"]
  optimizer.iterations.assign(3)
  assert checkpoints.save(3) == os.path.join(run_copy, "ckpt-3")
  reader = tf.train.load_checkpoint(os.path.join(run_copy, "ckpt-3"))
  for name in reader.get_variable_to_shape_map():
    reader.get_tensor(name)


def test_no_readable_checkpoint_is_one_line(run_copy):
  for step in (1, 2, 3):
    os.remove(os.path.join(run_copy, f"ckpt-{step}.index"))
  with pytest.raises(UserError, match="none of the checkpoints listed in .* can be read"):
    Run.open(run_copy)


def test_an_explicit_broken_checkpoint_is_named(run_copy):
  BREAKAGES["corrupted"](run_copy)
  with pytest.raises(UserError, match=f"checkpoint {run_copy}/ckpt-3 cannot be read: .*; pass "
                                      f"another --checkpoint_path"):
    Run.open(run_copy, os.path.join(run_copy, "ckpt-3"))


def test_averaging_skips_an_unreadable_checkpoint_and_replaces_its_earlier_average(
    run_copy, tmp_path, capsys):
  BREAKAGES["truncated"](run_copy)
  averaged = tmp_path / "averaged"
  averaged.mkdir()
  (averaged / AVERAGE_MARKER).write_text("{}")  # An earlier average.
  (averaged / "ckpt-1.index").write_text("stale")
  average_checkpoints(run_copy, str(averaged), CheckpointChoice(n=2, window=1))
  assert "averaged 2 checkpoint(s) (ckpt-1, ckpt-2)" in capsys.readouterr().out
  assert tf.train.latest_checkpoint(str(averaged)) == str(averaged / "ckpt-2")
  assert "ckpt-1.index" not in os.listdir(averaged)


def test_a_failed_save_leaves_no_partial_files(tmp_path, monkeypatch):
  output_dir = str(tmp_path)
  checkpoints = Checkpoints(tf.distribute.get_strategy(), output_dir, 5, 1, 0,
                            weights=tf.Variable(tf.zeros([10])))
  checkpoints.save(1)

  def full_disk(prefix):
    os.makedirs(prefix + "_temp")
    raise tf.errors.ResourceExhaustedError(None, None, f"{prefix}_temp/part-0; No "
                                                       f"space left on device")

  monkeypatch.setattr(checkpoints.checkpoint, "write", full_disk)
  with pytest.raises(UserError, match="could not save checkpoint .*ckpt-2: .*No space left on "
                                      "device; the last checkpoint .*ckpt-1 is intact"):
    checkpoints.save(2)
  assert not [name for name in os.listdir(output_dir) if name.startswith("ckpt-2")]


def test_a_save_killed_while_deleting_old_checkpoints_lists_only_whole_ones(tmp_path,
                                                                            monkeypatch):
  """The state file drops a checkpoint before its files go: a kill between the two leaves
  stray files, which the next start removes, never a listed checkpoint without files."""
  output_dir = str(tmp_path)

  def checkpoints():
    return Checkpoints(tf.distribute.get_strategy(), output_dir, 2, 1, 0,
                       weights=tf.Variable(tf.zeros([10])))

  first = checkpoints()
  first.save(1)
  first.save(2)

  def killed(prefix):
    raise SystemExit(f"killed before deleting {prefix}")

  monkeypatch.setattr(checkpoints_module, "_remove_checkpoint_files", killed)
  with pytest.raises(SystemExit):
    first.save(3)
  monkeypatch.undo()
  assert [os.path.basename(p) for p in checkpoint_paths(output_dir)] == ["ckpt-2", "ckpt-3"]
  assert os.path.exists(os.path.join(output_dir, "ckpt-1.index"))  # The sweep did not run.
  checkpoints()
  assert sorted(name for name in os.listdir(output_dir) if name.startswith("ckpt-")) == [
      f"ckpt-{step}.{kind}" for step in (2, 3) for kind in ("data-00000-of-00001", "index")]


def test_a_checkpoint_of_another_model_is_one_line(run_copy, tmp_path):
  other = copy_run(run_copy, tmp_path / "other")
  hidden_size = run_dir.read_hparams(run_copy).hidden_size
  edit_json(os.path.join(other, "run.json"),
            lambda v: v.update(input_vocab_size=400, target_vocab_size=400))
  edit_json(os.path.join(other, "hparams.json"), lambda v: v.update(hidden_size=2 * hidden_size))
  with pytest.raises(UserError, match=rf"belongs to a run with another model than .*"
                                      rf"input_vocab_size 400 -> 300; target_vocab_size 400 -> "
                                      rf"300; hidden_size {2 * hidden_size} -> {hidden_size}"):
    Run.open(run_copy, os.path.join(other, "ckpt-1"))
  # Without a run description beside it, the differing shapes are named.
  for name in ("hparams.json", "run.json"):
    os.remove(os.path.join(other, name))
  edit_json(os.path.join(run_copy, "run.json"),
            lambda v: v.update(input_vocab_size=400, target_vocab_size=400))
  with pytest.raises(UserError, match=rf"ckpt-1 does not fit this model \(.*shape \(300, "
                                      rf"{hidden_size}\).*another vocabulary or architecture"):
    Run.open(run_copy, os.path.join(other, "ckpt-1"))


@pytest.mark.parametrize("loss", [math.nan, math.inf, 1e6, divergence_bound(300) + 0.1])
def test_a_diverging_loss_stops_training_with_step_loss_and_checkpoint(loss):
  with pytest.raises(UserError) as error:
    check_loss(17, loss, 300, "/runs/a/ckpt-16")
  message = str(error.value)
  assert message.startswith(f"the loss became {loss:.6g} at step 17")
  assert "the last good checkpoint /runs/a/ckpt-16 is intact" in message
  with pytest.raises(UserError, match="no checkpoint was saved yet"):
    check_loss(1, loss, 300, None)


def test_a_normal_loss_and_huge_perplexities_pass():
  check_loss(5, math.log(300) * 1.5, 300, None)
  assert perplexity(1e30) == math.exp(700) and math.isinf(perplexity(math.inf)) is False


def test_resuming_with_allowed_changes_keeps_the_hparams_history(run_copy):
  hparams = run_dir.read_hparams(run_copy)
  description = run_dir.read_description(run_copy)
  vocab = [os.path.join(run_copy, name) for name in description.vocab_files]
  hparams_file = os.path.join(run_copy, run_dir.HPARAMS_FILE)
  before = os.stat(hparams_file)
  run_dir.describe(run_copy, hparams, description, vocab)  # Unchanged: not rewritten.
  assert os.stat(hparams_file).st_ino == before.st_ino
  with pytest.raises(UserError, match=f"hidden_size {hparams.hidden_size} -> 64"):
    run_dir.describe(run_copy, hparams.override("hidden_size=64"), description, vocab)
  changed = hparams.override("learning_rate_constant=1e30")
  run_dir.describe(run_copy, changed, description, vocab)
  assert run_dir.read_hparams(run_copy) == changed
  with open(os.path.join(run_copy, run_dir.HISTORY_FILE)) as f:
    history = json.load(f)
  assert history == [{"until": "ckpt-3", "hparams": json.loads(hparams.to_json())}]
