"""No command deletes or overwrites what it did not write, whatever it is pointed at."""

import contextlib
import os

from absl import flags
import pytest

from t2t_lite.bin import (t2t_avg_all, t2t_bleu, t2t_datagen, t2t_decoder, t2t_exporter,
                          t2t_trainer, t2t_visualize)
from t2t_lite.data.problem import Sources
from t2t_lite.errors import UserError
from t2t_lite.export.saved_model import export_run
from t2t_lite.files.atomic_files import replacing_directory
from t2t_lite.registry import load_registries
from t2t_lite.run import Run
from t2t_lite.training.averaging import average_checkpoints
from t2t_lite.training.checkpoint_choice import CheckpointChoice
from tiny_runs import snapshot, tiny_data, tiny_run, tiny_text, tiny_train

COMMANDS = [t2t_trainer, t2t_decoder, t2t_datagen, t2t_exporter, t2t_avg_all, t2t_bleu,
            t2t_visualize]


@contextlib.contextmanager
def command_line(*args):
  """absl flags parsed as for `prog ARGS`; yields argv (the program and what no flag took)."""
  load_registries()
  argv = flags.FLAGS(["prog", *args])
  try:
    yield argv
  finally:
    flags.FLAGS.unparse_flags()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda module: module.__name__.split(".")[-1])
def test_stray_positional_arguments_are_errors(command):
  with command_line("extra_arg") as argv, pytest.raises(UserError, match="unexpected arguments "
                                                                        "extra_arg"):
    command.main(argv)


def test_exporter_refuses_the_run_directory_and_the_users_files(run_copy, tmp_path):
  user_dir = tmp_path / "mine"
  user_dir.mkdir()
  (user_dir / "notes.txt").write_text("keep me")
  for export_dir in (run_copy, str(user_dir)):
    before = snapshot(export_dir)
    with pytest.raises(UserError, match="already holds files this command did not write"):
      export_run(run_copy, export_dir)
    assert snapshot(export_dir) == before
  with pytest.raises(UserError, match="not a directory"):
    export_run(run_copy, str(user_dir / "notes.txt"))


def test_a_directory_is_replaced_only_when_it_is_an_earlier_result(tmp_path):
  target = str(tmp_path / "out")

  def write(text):
    with replacing_directory(target, "marker.json", "{}", "--out") as staging:
      (tmp_path / "out.incomplete" / "result.txt").write_text(text)
      assert staging == target + ".incomplete"

  write("first")
  write("second")  # An earlier result: replaced.
  assert (tmp_path / "out" / "result.txt").read_text() == "second"
  with pytest.raises(RuntimeError), replacing_directory(target, "marker.json", "{}", "--out"):
    raise RuntimeError("the work failed")
  assert (tmp_path / "out" / "result.txt").read_text() == "second"
  assert sorted(os.listdir(tmp_path)) == ["out"]  # No staging or old directory left.
  os.remove(tmp_path / "out" / "marker.json")  # Now it is not recognisably ours.
  with pytest.raises(UserError, match="--out: .* already holds files"):
    write("third")
  assert (tmp_path / "out" / "result.txt").read_text() == "second"


def test_avg_all_refuses_another_run_and_the_model_dir_through_a_symlink(
    run_copy, tmp_path, tmp_path_factory):
  _, other_run = tiny_run(tmp_path_factory)
  before = snapshot(other_run)
  with pytest.raises(UserError, match="already holds files this command did not write"):
    average_checkpoints(run_copy, other_run, CheckpointChoice(n=2))
  assert snapshot(other_run) == before
  link = tmp_path / "link"
  link.symlink_to(run_copy)
  before = snapshot(run_copy)
  with pytest.raises(UserError, match="is --model_dir"):
    average_checkpoints(run_copy, str(link), CheckpointChoice(n=2))
  assert snapshot(run_copy) == before


def test_datagen_keeps_the_old_data_when_the_new_input_fails(tmp_path):
  from t2t_lite.registry import PROBLEMS
  data_dir = tiny_data(str(tmp_path))
  before = snapshot(data_dir)
  problem = PROBLEMS["translate_from_files"]()
  (tmp_path / "a.en").write_text(tiny_text(3))
  (tmp_path / "b.de").write_text(tiny_text(2))
  (tmp_path / "bad.tsv").write_bytes(tiny_text(5).encode() + b"caf\xe9\tKaffee\n")
  (tmp_path / "two_tabs.tsv").write_text(tiny_text(5) + "a\tb\tc\n")
  good_train = str(tmp_path / "train.tsv")
  cases = [
      ({"files": {"train": (str(tmp_path / "a.en"), str(tmp_path / "b.de"))}},
       "line counts differ"),
      ({"tsv": {"train": str(tmp_path / "bad.tsv")}}, r"bad.tsv:6: invalid UTF-8"),
      ({"tsv": {"train": str(tmp_path / "two_tabs.tsv")}}, r"two_tabs.tsv:6: expected source"),
      ({"tsv": {"train": good_train, "dev": str(tmp_path / "bad.tsv")}},
       r"bad.tsv:6: invalid UTF-8"),
      ({"tsv": {"train": good_train, "test": str(tmp_path / "missing.tsv")}}, "no such file"),
  ]
  for given, message in cases:
    with pytest.raises(UserError, match=message):
      problem.generate_data(data_dir, Sources(tmp_dir=str(tmp_path), **given), vocab_size=300,
                            progress=False)
    assert snapshot(data_dir) == before, message
  assert problem.split_info("train", data_dir).examples == 200


@pytest.fixture
def no_model(monkeypatch):
  """Loading a model fails the test: the checks must come before it."""
  def fail(*args, **kwargs):
    raise AssertionError("the model was loaded before the command line was checked")
  monkeypatch.setattr(Run, "open", fail)


def test_decoder_checks_the_output_file_before_decoding(tmp_path, no_model):
  source = tmp_path / "source.en"
  source.write_text("Hello\n")
  (tmp_path / "a_dir").mkdir()
  cases = [
      (str(source), "is the input file"),
      (str(tmp_path / "missing" / "out.de"), "does not exist; create it first"),
      (str(tmp_path / "a_dir"), "is a directory"),
  ]
  for output, message in cases:
    with command_line(f"--output_dir={tmp_path}", f"--decode_from_file={source}",
                      f"--decode_to_file={output}") as argv:
      with pytest.raises(UserError, match=message):
        t2t_decoder.main(argv)
  assert source.read_text() == "Hello\n"


def test_decoder_reads_the_whole_input_before_loading_the_model(tmp_path, no_model):
  source = tmp_path / "source.en"
  source.write_bytes(b"Hello\ncaf\xe9\n")
  with command_line(f"--output_dir={tmp_path}", f"--decode_from_file={source}") as argv:
    with pytest.raises(UserError, match="source.en:2: invalid UTF-8"):
      t2t_decoder.main(argv)


def test_interactive_decoding_reports_a_bad_line_and_goes_on(tmp_path, monkeypatch, capsys):
  import io
  import sys

  class Echo:
    chosen_decoding = ""  # No decoding.json.

    def translator(self, decode_hparams=""):
      return self

    def check_settings(self):
      pass

    def translate(self, lines, progress=True):
      return [line.upper() for line in lines]

  monkeypatch.setattr(Run, "open", lambda *args: Echo())
  monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"one\ncaf\xe9\nthree\n")))
  with command_line(f"--output_dir={tmp_path}", "--decode_interactive") as argv:
    assert t2t_decoder.main(argv) == 0
  out, err = capsys.readouterr()
  assert out == "ONE\n\nTHREE\n"
  assert "<stdin>:2: invalid UTF-8" in err


def test_visualize_refuses_a_file_as_its_directory(tmp_path, no_model):
  existing = tmp_path / "file.html"
  existing.write_text("mine")
  with command_line(f"--output_dir={tmp_path}", "--sentence=Hello",
                    f"--visualize_dir={existing}") as argv:
    with pytest.raises(UserError, match="is a file, not a directory"):
      t2t_visualize.main(argv)
  assert existing.read_text() == "mine"


def test_evaluate_without_a_checkpoint_is_an_error_and_writes_nothing(tmp_path_factory,
                                                                      tmp_path):
  data_dir, _ = tiny_run(tmp_path_factory)
  output_dir = str(tmp_path / "new_run")
  with pytest.raises(UserError, match="--schedule=evaluate needs a trained model"):
    tiny_train(data_dir, output_dir, schedule="evaluate")
  assert not os.path.exists(output_dir)
  (tmp_path / "a_file").write_text("mine")
  with pytest.raises(UserError, match="is a file, not a directory"):
    tiny_train(data_dir, str(tmp_path / "a_file"))
