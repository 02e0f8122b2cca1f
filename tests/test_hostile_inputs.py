"""Hostile input to the newer paths: cut Multi30k files, directories and dangling links
given as files, translation files out of TensorBoard's step range, invalid UTF-8 sent to
the served SavedModel, and the decoder's warnings naming the right line."""

import io
import logging
import os
import sys

import pytest

from commands import newcomer_environment, one_line_error, run_command
from t2t_lite import quiet
from t2t_lite.data.text_files import read_lines, read_parallel_files
from t2t_lite.files.file_errors import require_file
from t2t_lite.metrics.bleu_dir import MAX_STEP, score_translations_dir
from t2t_lite.problems import translate_multi30k
from tiny_runs import tiny_export, tiny_run


def write_lines(path, count):
  with open(path, "w", encoding="utf-8") as f:
    f.write("".join(f"caption {i}\n" for i in range(count)))


@pytest.mark.parametrize("split, expected", [("train", 29000), ("dev", 1014), ("test", 1000)])
def test_a_cut_plain_multi30k_file_is_refused_with_its_line_count(tmp_path, split, expected):
  stem = translate_multi30k.SPLIT_FILES[split][0]
  path = tmp_path / f"{stem}.en"
  write_lines(path, 1000 if expected != 1000 else 999)
  message = one_line_error(lambda: translate_multi30k.split_file(str(tmp_path), split, "en",
                                                                 progress=False))
  found = 1000 if expected != 1000 else 999
  assert message.startswith(f"{path} has {found:,} lines, not the {expected:,} of the "
                            f"published file")
  assert path.exists()  # The user's file is left alone.


def test_a_whole_plain_multi30k_file_is_taken_as_it_is(shared_data, tmp_path):
  path = tmp_path / "val.de"
  path.symlink_to(os.path.join(shared_data, "multi30k", "val.de"))
  assert translate_multi30k.split_file(str(tmp_path), "dev", "de") == str(path)


def test_a_multi30k_file_of_the_right_length_but_another_language_is_refused(shared_data,
                                                                           tmp_path):
  """train.fr given as train.de: the same 29,000 lines, checked by content."""
  path = tmp_path / "train.de"
  path.symlink_to(os.path.join(shared_data, "multi30k", "train.fr"))
  message = one_line_error(lambda: translate_multi30k.split_file(str(tmp_path), "train", "de",
                                                                 progress=False))
  assert message.startswith(f"{path} is not Multi30k's published train.de (its SHA-256 ")
  assert "replace it with the published file" in message


@pytest.mark.parametrize("name", ["train.en", "train.en.gz"])
def test_a_multi30k_file_that_is_a_directory_is_named_as_such(tmp_path, name):
  (tmp_path / name).mkdir()
  message = one_line_error(lambda: translate_multi30k.split_file(str(tmp_path), "train", "en",
                                                                 progress=False))
  assert message.startswith(f"{tmp_path / name} is a directory, not the file {name}")
  assert "download" not in message.split(";")[0]


def test_a_directory_given_as_a_file_is_reported_as_a_directory(tmp_path):
  assert one_line_error(lambda: list(read_lines(str(tmp_path)))) == (
      f"{tmp_path}: is a directory, not a file; pass a file")
  (tmp_path / "a.txt").write_text("x\n")
  assert "is a directory, not a file" in one_line_error(
      lambda: list(read_parallel_files(str(tmp_path / "a.txt"), str(tmp_path))))
  assert one_line_error(lambda: require_file(str(tmp_path / "none"))).endswith(
      "no such file; check the path")


def test_a_dangling_translation_link_is_reported(tmp_path):
  (tmp_path / "ref").write_text("a b c\n")
  (tmp_path / "out-10").write_text("a b c\n")
  os.symlink(tmp_path / "gone", tmp_path / "out-20")
  message = one_line_error(lambda: list(score_translations_dir(str(tmp_path),
                                                               [str(tmp_path / "ref")])))
  assert message.startswith(f"translation file {tmp_path / 'out-20'}: is a symbolic link to ")
  assert "which does not exist" in message


def test_a_step_beyond_int64_is_one_line_before_any_score(tmp_path):
  (tmp_path / "ref").write_text("a b c\n")
  (tmp_path / "out-10").write_text("a b c\n")
  (tmp_path / f"out-{MAX_STEP + 1}").write_text("a b c\n")
  scores = score_translations_dir(str(tmp_path), [str(tmp_path / "ref")])
  message = one_line_error(lambda: next(scores))  # Not even out-10 is scored first.
  assert f"its step {MAX_STEP + 1} is beyond the largest step TensorBoard records" in message
  (tmp_path / f"out-{MAX_STEP + 1}").rename(tmp_path / f"out-{MAX_STEP}")
  assert [step for step, _, _ in score_translations_dir(
      str(tmp_path), [str(tmp_path / "ref")])] == [10, MAX_STEP]


@pytest.mark.slow
def test_bleu_event_dir_prints_no_tensorflow_chatter(tmp_path):
  (tmp_path / "ref").write_text("a b c\n")
  (tmp_path / "out-10").write_text("a b c\n")
  result = run_command("t2t-bleu", f"--translations_dir={tmp_path}",
                       f"--reference={tmp_path / 'ref'}", f"--event_dir={tmp_path / 'events'}",
                       env=newcomer_environment())
  assert result.returncode == 0, result.stderr
  assert result.stderr == ""  # A process of its own: TensorFlow's start-up lines included.
  assert os.listdir(tmp_path / "events")


def test_the_exporters_signature_input_lists_are_hidden():
  line = ("Function `_translate` contains input name(s) sp_handle, resource, input_19 with "
          "unsupported characters which will be renamed to ...")
  assert quiet.RUNTIME_CHATTER.search(line)
  assert not quiet.RUNTIME_CHATTER.search("exported /tmp/export")


def test_invalid_utf8_is_refused_by_the_served_graph():
  import tensorflow as tf
  from t2t_lite.export.saved_model import assert_utf8
  assert_utf8(tf.constant(["ok", "süß", ""]))
  assert_utf8(tf.constant([], tf.string))
  for bad, index in (([b"ok", b"bad\xff"], 1), ([b"\xc0\xaf"], 0)):  # \xc0\xaf: overlong "/".
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
      assert_utf8(tf.constant(bad))
    assert "is not valid UTF-8 text" in caught.value.message
    assert f"\n{index}\n" in caught.value.message or f" {index} " in caught.value.message


@pytest.mark.slow
def test_the_exported_model_refuses_invalid_utf8(tmp_path_factory):
  import tensorflow as tf
  _, export_dir = tiny_export(tmp_path_factory)
  serve = tf.saved_model.load(export_dir).signatures["serving_default"]
  assert serve(sentences=tf.constant(["the number 3 is here"]))["translations"].shape == [1]
  with pytest.raises(tf.errors.InvalidArgumentError, match="is not valid UTF-8 text"):
    serve(sentences=tf.constant([b"the number \xff"]))


def test_the_truncation_warning_names_the_line_of_its_file(tmp_path_factory, caplog):
  from t2t_lite.run import Run
  _, output_dir = tiny_run(tmp_path_factory)
  translator = Run.open(output_dir).translator("beam_size=1,max_input_length=3,extra_length=2")
  with caplog.at_level(logging.WARNING):
    translator.first_line_number = 5
    translator.translate(["the number 7 is here"], progress=False)
  assert "line 5 has" in caplog.text and "truncated to max_input_length=3" in caplog.text


def test_the_interactive_decoder_numbers_its_lines(monkeypatch, capsys):
  from t2t_lite.bin import t2t_decoder

  class Echo:
    numbers = []

    def translate(self, lines, progress=False):
      self.numbers.append(self.first_line_number)
      return lines

  monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a\n\xff\nc\n")))
  translator = Echo()
  t2t_decoder._decode_interactively(translator)
  assert translator.numbers == [1, 3]
  assert capsys.readouterr().out == "a\n\nc\n"
