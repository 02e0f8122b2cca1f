"""A library caller (Python, not the command line) giving a setting outside its range gets
the one line the command's flag gets (`command_line.check_declared`, `check_bounds` in a
dataclass's __post_init__), before any work: checkpoint choosing and averaging,
t2t-datagen's counts, the parameter summary's vocabulary size, t2t-serve's settings (whose
defaults are the command's too)."""

import dataclasses
import os

import pytest

from commands import one_line_error
from t2t_lite.cores import usable_cores
from t2t_lite.data.problem import Sources
from t2t_lite.models.parameter_summary import summary_for
from t2t_lite.registry import HPARAMS, PROBLEMS
from t2t_lite.serving.connections import ConnectionLimits, default_max_connections
from t2t_lite.serving.opening import RUNS, ModelSource
from t2t_lite.serving.predict_body import Limits
from t2t_lite.serving.request_batching import BatchingSettings
from t2t_lite.serving.serve_settings import SERVE
from t2t_lite.serving.server import ServerConfig
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


SOURCE = ModelSource(RUNS, "/runs/unread")  # Never opened: the config is refused first.


@pytest.mark.parametrize("build, message", [
    (lambda: BatchingSettings(max_batch_size=0), "--max_batch_size=0: it must be at least 1"),
    (lambda: BatchingSettings(batch_timeout_micros=-1),
     "--batch_timeout_micros=-1: it must be at least 0"),
    (lambda: BatchingSettings(max_enqueued_batches=0),
     "--max_enqueued_batches=0: it must be at least 1"),
    (lambda: BatchingSettings(num_batch_threads=-2),
     "--num_batch_threads=-2: it must be at least 0 (0: one per CPU core)"),
    (lambda: Limits(max_sentences_per_request=0),
     "--max_sentences_per_request=0: it must be at least 1"),
    (lambda: Limits(max_sentence_length=-1), "--max_sentence_length=-1: it must be at least 1"),
    (lambda: ConnectionLimits(max_connections=-1),
     "--max_connections=-1: it must be at least 0 (0: the default)"),
    (lambda: ConnectionLimits(idle_timeout_seconds=0.0),
     "--idle_timeout_seconds=0: it must be more than 0"),
    (lambda: ConnectionLimits(body_timeout_seconds=float("nan")),
     "--body_timeout_seconds=nan: it must be more than 0"),
    (lambda: ServerConfig(SOURCE, port=65536),
     "--port=65536: it must be at least 0 and at most 65535"),
    (lambda: ServerConfig(SOURCE, max_body_bytes=0), "--max_body_bytes=0: it must be at least 1"),
    (lambda: ServerConfig(SOURCE, drain_seconds=-0.5),
     "--drain_seconds=-0.5: it must be at least 0"),
    (lambda: BatchingSettings(max_batch_size="4"),
     "--max_batch_size='4': it must be a number, at least 1"),
    (lambda: ConnectionLimits(idle_timeout_seconds="75"),
     "--idle_timeout_seconds='75': it must be a number, more than 0"),
])
def test_serving_settings_out_of_range_are_one_line(build, message):
  assert one_line_error(build) == message


def test_a_server_config_refuses_a_request_the_queue_could_never_take():
  config = lambda: ServerConfig(SOURCE, batching=BatchingSettings(max_batch_size=4,
                                                                  max_enqueued_batches=2),
                                limits=Limits(max_sentences_per_request=9))
  assert one_line_error(config) == (
      "--max_sentences_per_request=9 exceeds what the queue holds (--max_enqueued_batches x "
      "--max_batch_size = 8): such a request could never be taken")
  ServerConfig(SOURCE, batching=BatchingSettings(max_batch_size=4, max_enqueued_batches=2),
               limits=Limits(max_sentences_per_request=8))  # As many as it holds: taken.


def test_a_server_config_refuses_a_model_name_clients_cannot_reach():
  assert one_line_error(lambda: ServerConfig(SOURCE, model_name="..")).startswith(
      "--model_name=.. cannot be served")


def test_the_serving_classes_take_t2t_serves_defaults():
  config = ServerConfig(SOURCE)
  for built in (config, config.batching, config.limits, config.connection_limits):
    for field in dataclasses.fields(built):
      default = SERVE.get(field.name, (0,))[0]
      if default != 0:  # 0: chosen when built.
        assert getattr(built, field.name) == default, field.name
  assert config.batching.num_batch_threads == usable_cores()  # One per CPU core.
  assert config.connection_limits.max_connections == default_max_connections()
