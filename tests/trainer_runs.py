"""Running t2t-trainer as a user does, on the small real-data fixture."""

from commands import call, command_path

SMALL_RUN = ("--hparams_set=transformer_test_small",
             "--hparams=batch_size=1024,max_length=96,learning_rate_warmup_steps=60,"
             "learning_rate_constant=2.0")

# Beam settings for tests that read what the trained run decodes: the 60-step model's best
# beam hypothesis under the paper's alpha=0.6 is the empty line, so a length reward
# (alpha=2) keeps its outputs as long as extra_length allows and different between lines.
BEAM_WITH_OUTPUTS = "beam_size=2,alpha=2.0,extra_length=5,max_input_length=40"


def trainer_args(data_dir, output_dir, *flags):
  return ["--problem=translate_from_files", f"--data_dir={data_dir}",
          f"--output_dir={output_dir}", *SMALL_RUN, "--save_checkpoints_secs=0", *flags]


def trainer_command(data_dir, output_dir, *flags):
  """The command line of a trainer process (for tests that signal or kill it)."""
  return [command_path("t2t-trainer"), *trainer_args(data_dir, output_dir, *flags)]


def run_trainer(data_dir, output_dir, *flags):
  """t2t-trainer in this process -> CompletedProcess."""
  return call("t2t-trainer", *trainer_args(data_dir, output_dir, *flags))
