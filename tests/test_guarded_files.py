"""Outputs never overwrite a run, files are what they claim to be: planted links and FIFOs,
outputs aimed at a run's own files, bytes that are not UTF-8, swapped vocabularies and
datasets, nan flags, commas in run directories, and a forgotten --t2t_usr_dir, each one
line and exit 2 through the commands, with nothing changed that the command did not
write."""

import json
import os
import threading

import pytest

from commands import call, error_line
from tiny_runs import TINY_HPARAMS, copy_run, snapshot, tiny_run, tiny_text


@pytest.fixture
def tiny(tmp_path_factory, tmp_path):
  """(data_dir, a copy of the session's tiny run to break) -> its paths."""
  data_dir, output_dir = tiny_run(tmp_path_factory)
  return data_dir, copy_run(output_dir, tmp_path / "run")


def refused(tool, *args, changes_nothing_in=()):
  """Runs `tool ARGS` in this process -> its error line, checked to be one line with exit
  status 2, and the directories `changes_nothing_in` unchanged."""
  before = [snapshot(directory, mtimes=True) for directory in changes_nothing_in]
  result = call(tool, *args)
  assert result.returncode == 2, result.stderr[-3000:]
  assert "Traceback" not in result.stderr
  assert [snapshot(directory, mtimes=True) for directory in changes_nothing_in] == before
  return error_line(result.stderr)


def train_args(data_dir, output_dir, *more):
  return ("--problem=translate_from_files", f"--data_dir={data_dir}",
          f"--output_dir={output_dir}", "--hparams_set=transformer_test_small",
          f"--hparams={TINY_HPARAMS}", "--schedule=train", "--train_steps=4", *more)


def rescue_after(seconds, path):
  """A timer that opens the FIFO `path` for writing after `seconds`: a reader that opened it
  then stops waiting, so that a test fails rather than hangs."""
  timer = threading.Timer(seconds, lambda: os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK)))
  timer.daemon = True
  timer.start()
  return timer


def test_a_link_planted_as_the_writer_lock_is_refused_not_written_through(tiny, tmp_path):
  data_dir, run = tiny
  victim = tmp_path / "victim.txt"
  victim.write_text("the user's own file\n")
  os.symlink(victim, os.path.join(run, ".t2t_writer.lock"))
  line = refused("t2t-trainer", *train_args(data_dir, run), changes_nothing_in=[run])
  assert line.startswith(f"t2t-trainer: error: {run}/.t2t_writer.lock is a symbolic link to "
                         f"{victim}: t2t_lite writes no file through a link")
  data = tmp_path / "data"
  data.mkdir()
  os.symlink(victim, data / ".t2t_writer.lock")
  (tmp_path / "train.tsv").write_text(tiny_text(50))
  line = refused("t2t-datagen", "--problem=translate_from_files", f"--data_dir={data}",
                 f"--train_tsv={tmp_path / 'train.tsv'}", "--vocab_size=100", "--noprogress",
                 changes_nothing_in=[data])
  assert "is a symbolic link to" in line
  assert victim.read_text() == "the user's own file\n"


def test_a_fifo_or_a_hard_link_as_the_writer_lock_is_refused(tmp_path):
  from t2t_lite.errors import UserError
  from t2t_lite.files import writer_lock
  fifo_dir, linked_dir = tmp_path / "fifo", tmp_path / "linked"
  fifo_dir.mkdir()
  linked_dir.mkdir()
  os.mkfifo(fifo_dir / writer_lock.LOCK_NAME)
  other = tmp_path / "other.txt"
  other.write_text("keep")
  os.link(other, linked_dir / writer_lock.LOCK_NAME)
  for directory, what in ((fifo_dir, "is a FIFO"), (linked_dir, r"has 2 names \(hard links\)")):
    with pytest.raises(UserError, match=what), writer_lock.holding(str(directory)):
      pass
  assert other.read_text() == "keep"


@pytest.mark.parametrize("name", ["hparams.json", "ckpt-3.index", "checkpoint",
                                  "vocab.translate_from_files.model", "train/notes.txt"])
def test_the_decoder_never_writes_over_a_runs_own_files(tiny, tmp_path, name):
  _, run = tiny
  os.makedirs(os.path.join(run, "train"), exist_ok=True)
  source = tmp_path / "source.en"
  source.write_text("the number 3 is here\n")
  target = os.path.join(run, name)
  line = refused("t2t-decoder", f"--output_dir={run}", f"--decode_from_file={source}",
                 f"--decode_to_file={target}", changes_nothing_in=[run])
  assert f"--decode_to_file={target} " in line and f"of the run in {run}" in line
  assert "writing there would destroy it" in line


def test_the_decoder_writes_a_new_file_beside_the_run_but_not_through_a_link(tiny, tmp_path):
  from t2t_lite.errors import UserError
  from t2t_lite.run.output_paths import check_output_file
  _, run = tiny
  check_output_file(os.path.join(run, "test.out.de"), "--decode_to_file")  # The user's own.
  victim = tmp_path / "victim.txt"
  victim.write_text("keep")
  os.symlink(victim, tmp_path / "out.de")
  with pytest.raises(UserError, match="is a symbolic link to"):
    check_output_file(str(tmp_path / "out.de"), "--decode_to_file")
  os.symlink(victim, tmp_path / "probe.de.incomplete")  # Planted at the probe's name.
  check_output_file(str(tmp_path / "probe.de"), "--decode_to_file")
  assert victim.read_text() == "keep"


@pytest.mark.parametrize("tool", ["t2t-trainer", "t2t-decoder", "t2t-exporter", "t2t-avg-all",
                                  "t2t-visualize"])
def test_a_checkpoint_list_of_other_bytes_than_utf8_is_one_line(tiny, tmp_path, tool):
  data_dir, run = tiny
  state = b'model_checkpoint_path: "ckpt-3\xff"\n'
  with open(os.path.join(run, "checkpoint"), "wb") as f:
    f.write(state)
  (tmp_path / "in.en").write_text("the number 3 is here\n")
  args = {"t2t-trainer": train_args(data_dir, run),
          "t2t-decoder": (f"--output_dir={run}", f"--decode_from_file={tmp_path / 'in.en'}"),
          "t2t-exporter": (f"--output_dir={run}", f"--export_dir={tmp_path / 'export'}"),
          "t2t-avg-all": (f"--model_dir={run}", f"--output_dir={tmp_path / 'avg'}"),
          "t2t-visualize": (f"--output_dir={run}", "--sentence=the number 3",
                            f"--visualize_dir={tmp_path / 'maps'}")}[tool]
  line = refused(tool, *args, changes_nothing_in=[run])
  bad_byte = state.index(b"\xff")
  assert line.startswith(f"{tool}: error: {run}/checkpoint: is not UTF-8 text (byte "
                         f"{bad_byte}); ")
  assert sorted(os.listdir(tmp_path)) == ["in.en", "run"]


@pytest.fixture
def other_vocabulary(tiny):
  """The bytes of another SentencePiece model of the tiny run's vocabulary size."""
  from t2t_lite.data.vocabulary import Vocabulary, train_sentencepiece
  _, run = tiny
  size = Vocabulary.load(os.path.join(run, "vocab.translate_from_files.model"), "x").size
  text = [f"ein ganz anderer Satz Nummer {i} mit Wörtern" for i in range(300)]
  return train_sentencepiece(text, size)


def test_a_swapped_vocabulary_copy_is_refused_by_every_reader_of_the_run(tiny, tmp_path,
                                                                         other_vocabulary):
  _, run = tiny
  copy = os.path.join(run, "vocab.translate_from_files.model")
  with open(copy, "wb") as f:
    f.write(other_vocabulary)
  (tmp_path / "in.en").write_text("the number 3 is here\n")
  for tool, *args in (("t2t-decoder", f"--decode_from_file={tmp_path / 'in.en'}"),
                      ("t2t-exporter", "--export_format=ctranslate2",
                       f"--export_dir={tmp_path / 'ct2'}")):
    line = refused(tool, f"--output_dir={run}", *args, changes_nothing_in=[run])
    assert line.startswith(f"{tool}: error: {copy} is not the vocabulary its run was trained "
                           f"with (SHA-256 ")
    assert "put the run's own file back" in line
  assert not os.path.exists(tmp_path / "ct2")


def test_a_run_without_digests_still_opens(tiny):
  from t2t_lite.run import Run
  _, run = tiny
  path = os.path.join(run, "run.json")
  with open(path) as f:
    values = json.load(f)
  assert set(values["vocab_sha256"]) == {"vocab.translate_from_files.model"}
  assert set(values["data_sha256"]) == {"translate_from_files-train.json"}
  del values["vocab_sha256"], values["data_sha256"]  # As a run of an earlier version.
  with open(path, "w") as f:
    json.dump(values, f)
  assert Run.read(run).description.vocab_sha256 == {}


def test_resuming_on_data_generated_anew_is_refused(tiny):
  data_dir, run = tiny
  path = os.path.join(run, "run.json")
  with open(path) as f:
    values = json.load(f)
  values["data_sha256"]["translate_from_files-train.json"] = "0" * 64
  with open(path, "w") as f:
    json.dump(values, f)
  line = refused("t2t-trainer", *train_args(data_dir, run), changes_nothing_in=[run])
  assert (f"{data_dir}/translate_from_files-train.json is not the data the run in {run} "
          f"trained on") in line


def test_multi30k_of_another_language_is_refused_by_t2t_datagen(shared_data, tmp_path):
  raw = tmp_path / "raw"
  raw.mkdir()
  for name, real in (("train.en", "train.en"), ("train.de", "train.fr")):
    os.symlink(os.path.join(shared_data, "multi30k", real), raw / name)
  line = refused("t2t-datagen", "--problem=translate_ende_multi30k", f"--tmp_dir={raw}",
                 f"--data_dir={tmp_path / 'data'}", "--noprogress")
  assert f"{raw / 'train.de'} is not Multi30k's published train.de" in line
  assert not os.path.exists(tmp_path / "data")


@pytest.mark.parametrize("flag", ["--train_minutes=nan", "--train_minutes=inf",
                                  "--eval_every_minutes=nan",
                                  "--eval_early_stopping_metric_delta=nan",
                                  "--hparams=learning_rate_constant=nan"])
def test_nan_and_inf_are_refused_by_every_float_flag(tmp_path, flag):
  line = refused("t2t-trainer", "--problem=translate_from_files", f"--data_dir={tmp_path}",
                 f"--output_dir={tmp_path / 'run'}", "--hparams_set=transformer_test_small",
                 flag)
  assert "not a finite number" in line
  assert not os.path.exists(tmp_path / "run")


def test_a_run_directory_with_a_comma_is_refused_when_it_is_created(tiny, tmp_path):
  data_dir, run = tiny
  line = refused("t2t-trainer", *train_args(data_dir, tmp_path / "a,b"))
  assert f"--output_dir={tmp_path / 'a,b'}: a run directory's path cannot hold a comma" in line
  line = refused("t2t-avg-all", f"--model_dir={run}", f"--output_dir={tmp_path / 'x,y'}")
  assert "cannot hold a comma" in line
  assert sorted(os.listdir(tmp_path)) == ["run"]


def test_a_fifo_for_hparams_json_is_refused_not_waited_on(tiny, tmp_path):
  _, run = tiny
  path = os.path.join(run, "hparams.json")
  os.remove(path)
  os.mkfifo(path)
  rescue = rescue_after(60, path)  # Were the decoder to open the FIFO.
  (tmp_path / "in.en").write_text("the number 3 is here\n")
  try:
    line = refused("t2t-decoder", f"--output_dir={run}",
                   f"--decode_from_file={tmp_path / 'in.en'}")
  finally:
    rescue.cancel()
  assert line == (f"t2t-decoder: error: {path}: is a FIFO (named pipe), not a regular file; "
                  f"restore it from a copy of the run, or train anew in another --output_dir")


def test_a_fifo_among_a_checkpoints_files_is_refused_not_waited_on(tiny):
  import glob
  import tensorflow as tf
  from t2t_lite.run.checkpoints import UnreadableCheckpoint, restore_checkpoint
  _, run = tiny
  data, = glob.glob(os.path.join(run, "ckpt-3.data-*"))
  os.remove(data)
  os.mkfifo(data)
  rescue = rescue_after(60, data)
  try:
    with pytest.raises(UnreadableCheckpoint, match=f"{data} is a FIFO"):
      restore_checkpoint(tf.train.Checkpoint(), os.path.join(run, "ckpt-3"))
  finally:
    rescue.cancel()


def test_an_export_is_never_written_inside_a_directory_replaced_whole(tiny, tmp_path):
  _, run = tiny
  best = os.path.join(run, "best")
  os.rename(copy_run(run, tmp_path / "best"), best)
  with open(os.path.join(best, "best.json"), "w") as f:
    json.dump({"metric": "loss", "minimize": True, "value": 5.0, "step": 3}, f)
  line = refused("t2t-exporter", f"--output_dir={best}", changes_nothing_in=[run])
  assert line.startswith(f"t2t-exporter: error: --export_dir={best}/export lies inside {best}, "
                         f"a run's best checkpoint, which is replaced whole at the run's next "
                         f"better evaluation")
  line = refused("t2t-trainer", *train_args(tiny[0], best), changes_nothing_in=[run])
  assert f"--output_dir={best} is a run's best checkpoint, replaced whole" in line


def test_usr_dir_mistakes_are_named(tiny, tmp_path):
  line = refused("t2t-bleu", "--t2t_usr_dir=/nope", f"--translation={tmp_path}",
                 f"--reference={tmp_path}")
  assert line == "t2t-bleu: error: --t2t_usr_dir /nope: no such directory"
  _, run = tiny
  path = os.path.join(run, "run.json")
  with open(path) as f:
    values = json.load(f)
  values["problem"] = "my_own_translation"
  values["flags"]["t2t_usr_dir"] = "/home/me/usr"
  with open(path, "w") as f:
    json.dump(values, f)
  (tmp_path / "in.en").write_text("the number 3 is here\n")
  line = refused("t2t-decoder", f"--output_dir={run}", f"--decode_from_file={tmp_path / 'in.en'}")
  assert line == (f"t2t-decoder: error: {run} is a run of problem 'my_own_translation', which "
                  f"is not registered; it was trained with --t2t_usr_dir=/home/me/usr: pass "
                  f"that flag here too")
