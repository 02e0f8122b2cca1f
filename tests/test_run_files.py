"""A run directory's files validated when read, and a run's vocabulary held to its data's:
every damaged file is one line naming the file and the field, before any model is built,
and a refused start or resume changes no file."""

import os

import pytest

from commands import one_line_error
from helpers import edit_json
from t2t_lite.errors import UserError
from t2t_lite.files.json_files import DamagedFile
from t2t_lite.models import size
from t2t_lite.run import Run
from t2t_lite.run import description as run_files
from t2t_lite.run.checkpoints import checkpoint_paths
from tiny_runs import copy_run, snapshot, tiny_data, tiny_run, tiny_train

VOCAB = "vocab.translate_from_files.model"


def write(path, text):
  with open(path, "w") as f:
    f.write(text)


def no_model_built(monkeypatch):
  """Makes building a model fail the test: the checks must come first."""
  def refuse(self):
    raise AssertionError("a model was built before the run's files were checked")
  monkeypatch.setattr(Run, "build_model", refuse)


# (name, file, damage, words the one line holds besides the file's path)
DAMAGES = [
    ("hparams invalid JSON", "hparams.json", lambda p: write(p, "{bad"), "is not valid JSON"),
    ("hparams empty", "hparams.json", lambda p: write(p, ""), "is empty"),
    ("hparams a list", "hparams.json", lambda p: write(p, "[1, 2]"),
     "holds a JSON list, not an object"),
    ("hparams string size", "hparams.json",
     lambda p: edit_json(p, lambda v: v.update(hidden_size="32")),
     "field 'hidden_size' is \"32\", not an integer"),
    ("hparams float layers", "hparams.json",
     lambda p: edit_json(p, lambda v: v.update(num_hidden_layers=2.5)),
     "field 'num_hidden_layers' is 2.5, not an integer"),
    ("hparams bool as int", "hparams.json",
     lambda p: edit_json(p, lambda v: v.update(pre_norm=1)), "field 'pre_norm' is 1"),
    ("hparams out of range", "hparams.json",
     lambda p: edit_json(p, lambda v: v.update(num_heads=0)), "hparams num_heads=0: it must be at least 1"),
    ("run invalid JSON", "run.json", lambda p: write(p, "{bad"), "is not valid JSON"),
    ("run vocab_files missing", "run.json",
     lambda p: edit_json(p, lambda v: v.pop("vocab_files")), "field 'vocab_files' is missing"),
    ("run vocab_files ints", "run.json",
     lambda p: edit_json(p, lambda v: v.update(vocab_files=[1, 2])),
     "field 'vocab_files' is [1, 2]"),
    ("run vocab_files a path", "run.json",
     lambda p: edit_json(p, lambda v: v.update(vocab_files=["../x", "../x"])),
     "field 'vocab_files'"),
    ("run size a string", "run.json",
     lambda p: edit_json(p, lambda v: v.update(target_vocab_size="300")),
     "field 'target_vocab_size' is \"300\", not an integer"),
    ("vocabulary damaged", VOCAB, lambda p: write(p, "not a model"),
     "is not a SentencePiece vocabulary"),
    ("vocabulary missing", VOCAB, os.remove, "the vocabulary file is missing"),
    ("checkpoint state damaged", "checkpoint", lambda p: write(p, "garbage ::: {"),
     "is not a checkpoint list"),
]


@pytest.mark.parametrize("name, file_name, damage, words", DAMAGES,
                         ids=[case[0] for case in DAMAGES])
def test_a_damaged_run_file_is_one_line_naming_it(run_copy, monkeypatch, name, file_name,
                                                  damage, words):
  del name
  path = os.path.join(run_copy, file_name)
  damage(path)
  if file_name != "checkpoint":
    no_model_built(monkeypatch)
  with pytest.raises(UserError) as caught:
    Run.open(run_copy)
  message = str(caught.value)
  assert "\n" not in message
  assert message.startswith(f"{path}: ") and words in message, message
  assert "restore it" in message
  if file_name != "checkpoint":
    assert isinstance(caught.value, DamagedFile) and caught.value.path == path


def test_a_directory_for_hparams_json_is_named_as_such(run_copy):
  path = os.path.join(run_copy, "hparams.json")
  os.remove(path)
  os.mkdir(path)
  assert one_line_error(lambda: Run.read(run_copy)).startswith(
      f"{path}: is a directory, not a file")


def test_an_absurd_vocabulary_is_refused_before_any_weight_is_allocated(run_copy, monkeypatch):
  """A 10^9 vocabulary in run.json: refused for the memory its embedding would need (the
  machine's memory is set to 16 GiB here, so the test does not depend on the host)."""
  monkeypatch.setattr(size, "physical_memory", lambda: 16 * 2 ** 30)
  edit_json(os.path.join(run_copy, "run.json"),
            lambda v: v.update(input_vocab_size=10 ** 9, target_vocab_size=10 ** 9))
  no_model_built(monkeypatch)
  message = one_line_error(lambda: Run.open(run_copy))
  hidden_size = run_files.read_hparams(run_copy).hidden_size
  weights = size.weight_count(run_files.read_hparams(run_copy), 10 ** 9, 10 ** 9)
  assert weights >= 10 ** 9 * hidden_size  # The shared embedding alone.
  assert "describe a model of" in message and "more than this machine's 16 GiB" in message
  assert "vocabulary sizes 1000000000 and 1000000000" in message


def test_the_weight_count_matches_the_built_model(run_copy):
  """`weight_count` leaves out biases and layer norms only: within 5% of the real count."""
  run = Run.read(run_copy)
  built = run.build_model().count_params()
  estimate = size.weight_count(run.hparams, run.description.input_vocab_size,
                                    run.description.target_vocab_size)
  assert 0.95 * built <= estimate <= built


def test_a_damaged_split_marker_names_the_file_and_field(tmp_path_factory):
  from t2t_lite.registry import PROBLEMS
  data_dir, _ = tiny_run(tmp_path_factory)
  problem = PROBLEMS["translate_from_files"]()
  data_copy = copy_run(data_dir, tmp_path_factory.mktemp("data") / "data")
  marker = os.path.join(data_copy, "translate_from_files-train.json")
  edit_json(marker, lambda v: v.update(examples="many"))
  message = one_line_error(lambda: problem.split_info("train", data_copy))
  assert message.startswith(f"{marker}: field 'examples' is \"many\", not an integer")
  assert "run t2t-datagen --problem=translate_from_files" in message
  edit_json(marker, lambda v: v.update(examples=200, file_sizes=["big"]))
  assert one_line_error(lambda: problem.split_info("train", data_copy)).startswith(
      f"{marker}: field 'file_sizes' is not a size in bytes for each file")
  write(marker, "[]")
  assert "holds a JSON list" in one_line_error(lambda: problem.split_info("train", data_copy))
  os.remove(marker)  # Missing: the data is incomplete, as before.
  assert "no complete 'train' data" in one_line_error(
      lambda: problem.split_info("train", data_copy))


def unchanged(before, directory):
  """Whether every file of `before` (a `snapshot`) is in directory as it was (files the
  command created, such as new event files, are not looked at)."""
  after = snapshot(directory, mtimes=True)
  return {name: after.get(name) for name in before} == before


def test_resuming_on_a_regenerated_vocabulary_is_refused_and_changes_nothing(
    tmp_path_factory, tmp_path):
  data_dir, output_dir = tiny_run(tmp_path_factory)
  run = copy_run(output_dir, tmp_path / "run")
  # The same problem's data, generated anew with another vocabulary.
  other_data = tiny_data(str(tmp_path / "other"), vocab_size=320)
  before = snapshot(run, mtimes=True)
  message = one_line_error(lambda: tiny_train(other_data, run, train_steps=5))
  assert message.startswith(f"the data's vocabulary {other_data}/{VOCAB} differs from "
                            f"{run}/{VOCAB}")
  assert "300 pieces against 320" in message and "new --output_dir" in message
  assert unchanged(before, run)
  del data_dir


def test_a_run_with_nothing_to_do_or_refused_changes_no_file(tmp_path_factory, tmp_path):
  data_dir, output_dir = tiny_run(tmp_path_factory)
  run = copy_run(output_dir, tmp_path / "run")
  before = snapshot(run, mtimes=True)
  tiny_train(data_dir, run, train_steps=3)  # Already at step 3: nothing to do.
  # Nothing rewritten, and no new file (no event files either).
  assert unchanged(before, run) and set(snapshot(run)) == set(before)
  # A resume with another architecture is refused before anything is written.
  from t2t_lite.registry import HPARAMS, PROBLEMS
  from t2t_lite.training.config import TrainConfig
  from t2t_lite.training.trainer import train
  hparams = HPARAMS["transformer_test_small"]().override("batch_size=256,max_length=32,"
                                                         "hidden_size=64")
  with pytest.raises(UserError, match="hidden_size 32 -> 64"):
    train(PROBLEMS["translate_from_files"](), hparams,
          TrainConfig(output_dir=run, train_steps=5, schedule="train"), data_dir)
  assert unchanged(before, run)


def test_a_resume_with_the_same_settings_rewrites_no_run_file(tmp_path_factory, tmp_path):
  data_dir, output_dir = tiny_run(tmp_path_factory)
  run = copy_run(output_dir, tmp_path / "run")
  files = snapshot(run, mtimes=True)
  described = {name: files[name] for name in ("hparams.json", "run.json", VOCAB)}
  tiny_train(data_dir, run, train_steps=4)
  assert [os.path.basename(p) for p in checkpoint_paths(run)][-1] == "ckpt-4"
  assert unchanged(described, run)
