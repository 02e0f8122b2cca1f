"""A library caller (Python, not the command line) giving a setting outside its range gets
the one line the command's flag gets (`command_line.check_declared`, `check_bounds` in a
dataclass's __post_init__), before any work: checkpoint choosing and averaging,
t2t-datagen's counts, the parameter summary's vocabulary size."""

import os

import pytest

from commands import one_line_error
from t2t_lite.data.problem import Sources
from t2t_lite.models.parameter_summary import summary_for
from t2t_lite.registry import HPARAMS, PROBLEMS
from t2t_lite.training.averaging import average_checkpoints
from t2t_lite.training.checkpoint_choice import CheckpointChoice
from t2t_lite.training.rolling_average import average_as_they_appear

WINDOW = "it must be more than 0 and at most 1 (1: the whole run)"
DEV = "it must be at least 0 (0: no dev check)"


@pytest.mark.parametrize("settings, message", [
    (dict(n=0), "--n=0: it must be at least 1"),
    (dict(window=0.0), f"--window=0: {WINDOW}"),
    (dict(window=-0.5), f"--window=-0.5: {WINDOW}"),
    (dict(window=1.5), f"--window=1.5: {WINDOW}"),
    (dict(window=float("nan")), f"--window=nan: {WINDOW}"),
    (dict(min_steps=-1), "--min_steps=-1: it must be at least 0"),
])
def test_a_checkpoint_choice_out_of_range_is_one_line(settings, message):
  assert one_line_error(lambda: CheckpointChoice(**settings)) == message


def test_a_checkpoint_choice_at_its_bounds_is_taken():
  assert CheckpointChoice(n=1, window=1, min_steps=0).first_step(100) == 0


@pytest.mark.parametrize("average, message", [
    (lambda model_dir, output_dir: average_checkpoints(
        model_dir, output_dir, CheckpointChoice(), dev_sentences=-1),
     f"--dev_sentences=-1: {DEV}"),
    (lambda model_dir, output_dir: average_as_they_appear(
        model_dir, output_dir, CheckpointChoice(), dev_sentences=-5),
     f"--dev_sentences=-5: {DEV}"),
    (lambda model_dir, output_dir: average_as_they_appear(
        model_dir, output_dir, CheckpointChoice(), wait_minutes=-1),
     "--wait_minutes=-1: it must be at least 0"),
], ids=["average_checkpoints dev_sentences", "average_as_they_appear dev_sentences",
        "average_as_they_appear wait_minutes"])
def test_averaging_refuses_a_setting_out_of_range_before_reading_the_run(tmp_path, average,
                                                                       message):
  # No run there: the setting is refused first, without waiting for a checkpoint.
  output_dir = tmp_path / "average"
  assert one_line_error(lambda: average(str(tmp_path / "no_run"), str(output_dir))) == message
  assert not output_dir.exists()


@pytest.mark.parametrize("settings, message", [
    (dict(num_shards=0), "--num_shards=0: it must be at least 1"),
    (dict(num_shards=-1), "--num_shards=-1: it must be at least 1"),
    (dict(processes=0), "--num_concurrent_processes=0: it must be at least 1"),
    (dict(processes=-1), "--num_concurrent_processes=-1: it must be at least 1"),
    (dict(vocab_size=1), "--vocab_size=1: it must be at least 2 (padding and EOS)"),
])
def test_datagen_refuses_a_count_out_of_range_before_any_work(tmp_path, settings, message):
  data_dir = tmp_path / "data"
  problem = PROBLEMS["translate_from_files"]()
  assert one_line_error(lambda: problem.generate_data(
      str(data_dir), Sources(tmp_dir=str(tmp_path / "raw")), progress=False,
      **settings)) == message
  assert not os.path.exists(data_dir)


def test_datagen_refuses_a_vocabulary_size_that_is_not_a_whole_number(tmp_path):
  problem = PROBLEMS["translate_from_files"]()
  assert one_line_error(lambda: problem.generate_data(
      str(tmp_path / "data"), Sources(tmp_dir=str(tmp_path)), progress=False,
      vocab_size=8000.5)) == "vocab_size=8000.5: pass a whole number of subwords"


@pytest.mark.parametrize("vocab_size", [1, 0, -3])
def test_the_parameter_summary_refuses_a_vocabulary_too_small_for_padding_and_eos(vocab_size):
  hparams = HPARAMS["transformer_tiny"]()
  assert one_line_error(lambda: summary_for("transformer", hparams, vocab_size)) == (
      f"--vocab_size={vocab_size}: it must be at least 2 (padding and EOS)")
