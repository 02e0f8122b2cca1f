"""The command-line entry points as a user runs them."""

import signal

import pytest

from commands import (assert_quiet, command_path, error_line, newcomer_environment,
                      run_command, start, status_and_output)

pytestmark = pytest.mark.slow  # Whole commands, with models of the paper's size.


def run_process(tool, *args):
  """`tool ARGS` as a process of its own, as a user starts it."""
  result = run_command(tool, *args, env=newcomer_environment())
  return result.returncode, result.stdout, result.stderr


def test_summary_of_the_papers_base_model():
  code, out, _ = status_and_output(
      "t2t-trainer", "--hparams_set=transformer_base", "--vocab_size=37000",
      "--summary")
  assert code == 0
  lines = out.strip().splitlines()
  assert lines[-1] == "total_params=63045632"
  assert lines[0].startswith("target_embedding (shared: inputs, targets, softmax)")
  assert "18,944,000" in lines[0]
  assert sum(line.startswith("encoder/layer_") for line in lines) == 6


def test_summary_with_overrides():
  code, out, _ = status_and_output(
      "t2t-trainer", "--hparams_set=transformer_base", "--vocab_size=37000",
      "--hparams=num_hidden_layers=2,pos=emb", "--summary")
  assert code == 0
  assert "input_positions" in out
  assert out.strip().splitlines()[-1] == f"total_params={33644544 + 2 * 256 * 512}"


def test_registry_help_lists_everything_registered():
  code, out, _ = status_and_output("t2t-trainer", "--registry_help")
  assert code == 0
  for name in ("transformer_base", "transformer_big", "transformer_parsing",
               "transformer_base_v3", "transformer_tiny", "transformer"):
    assert name in out


@pytest.mark.parametrize("args, message", [
    (["--hparams_set=transformer_bas", "--vocab_size=10", "--summary"],
     "t2t-trainer: error: unknown hparams set 'transformer_bas'; closest: transformer_base"),
    (["--hparams_set=transformer_base", "--hparams=hiden_size=3", "--vocab_size=10",
      "--summary"],
     "t2t-trainer: error: --hparams: unknown name 'hiden_size'; valid names:"),
    (["--hparams_set=transformer_base", "--summary"],
     "t2t-trainer: error: --summary needs --vocab_size=N or --problem with --data_dir"),
    (["--hparams_set=transformer_base", "--vocab_size=10", "--summary", "--t2t_usr_dir=/nope"],
     "t2t-trainer: error: --t2t_usr_dir /nope: no such directory"),
    (["--hparams_set=transformer_tiny", "--problem=translate_ende_wmt32k", "--data_dir=/nope",
      "--output_dir=/nope", "--local_eval_frequency=0"],
     "t2t-trainer: error: --local_eval_frequency=0: it must be at least 1 (--schedule=train"),
    (["--hparams_set=transformer_base", "--train_step=5"],
     "t2t-trainer: error: Unknown command line flag 'train_step'. Did you mean: train_steps"),
    (["--hparams_set=transformer_base", "--schedule=trian"],
     "t2t-trainer: error: flag --schedule=trian: value should be one of <train|"),
])
def test_user_errors_are_one_line(args, message):
  code, _, err = status_and_output("t2t-trainer", *args)
  assert code == 2
  assert error_line(err).startswith(message)
  assert "Traceback" not in err


def test_tensor2tensors_schedule_and_xla_flag_names(tmp_path):
  code, _, err = status_and_output(
      "t2t-trainer", "--hparams_set=transformer_base", "--vocab_size=10",
      "--schedule=continuous_train_and_eval", "--xla_compile", "--summary")
  assert code == 0, err
  code, _, err = status_and_output(
      "t2t-trainer", "--problem=translate_from_files", f"--data_dir={tmp_path}",
      f"--output_dir={tmp_path / 'run'}", "--hparams_set=transformer_test_small",
      "--xla", "--noxla_compile")
  assert code == 2 and "Traceback" not in err
  assert error_line(err) == ("t2t-trainer: error: --xla and --xla_compile (tensor2tensor's "
                             "name for it) disagree; give one")


def test_usr_dir_adds_an_hparams_set(tmp_path):
  package = tmp_path / "my_sets"
  package.mkdir()
  (package / "__init__.py").write_text(
      "from dataclasses import replace\n"
      "from t2t_lite.registry import HPARAMS\n"
      "from t2t_lite.hparams_sets.transformer import transformer_tiny\n"
      "@HPARAMS.register\n"
      "def my_tiny_one_layer():\n"
      "  return replace(transformer_tiny(), num_hidden_layers=1)\n")
  code, out, _ = status_and_output("t2t-trainer", f"--t2t_usr_dir={package}", "--registry_help")
  assert code == 0 and "my_tiny_one_layer" in out
  code, out, _ = status_and_output(
      "t2t-trainer", f"--t2t_usr_dir={package}", "--vocab_size=100",
      "--hparams_set=my_tiny_one_layer", "--summary")
  assert code == 0 and "encoder/layer_1" not in out and "encoder/layer_0" in out


@pytest.mark.parametrize("tool", ["t2t-trainer", "t2t-decoder", "t2t-datagen", "t2t-exporter",
                                  "t2t-avg-all", "t2t-bleu", "t2t-visualize"])
def test_every_command_exists_parses_flags_and_is_quiet(tool):
  """The one subprocess of each command: the console script is installed, and a
  newcomer's screen shows no start-up chatter."""
  _, out, err = run_process(tool, "--helpfull")  # absl prints the help, exits with 1.
  assert "--t2t_usr_dir" in out and f"t2t_lite.bin.{tool.replace('-', '_')}:" in out
  assert_quiet(err)
  code, out, _ = run_process(tool, "--help")  # The command's own flags, and status 0.
  assert code == 0 and out.startswith(f"{tool}: ") and "--t2t_usr_dir" in out
  code, _, err = run_process(tool, "--no_such_flag=1")
  assert code == 2 and err.strip() == (
      f"{tool}: error: Unknown command line flag 'no_such_flag' (see {tool} --helpshort)")


def test_a_closed_output_pipe_ends_a_command_quietly(tmp_path):
  """`t2t-bleu ... | head -1`: the reader goes before the report is written; the command
  stops as Unix tools do (128 + SIGPIPE), without a traceback."""
  for name in ("out.de", "ref.de"):
    (tmp_path / name).write_text("Das Haus ist klein .\n", encoding="utf-8")
  process = start([command_path("t2t-bleu"), f"--translation={tmp_path / 'out.de'}",
                   f"--reference={tmp_path / 'ref.de'}"], env=newcomer_environment())
  process.stdout.close()  # Long before the command has imported what it needs.
  stderr = process.stderr.read()
  assert process.wait(timeout=300) == 128 + signal.SIGPIPE, stderr[-2000:]
  assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr[-2000:]
