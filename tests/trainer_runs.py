"""Running t2t-trainer as a user does, on the small real-data fixture."""

import os
import subprocess
import sys

TRAINER = os.path.join(os.path.dirname(sys.executable), "t2t-trainer")
SMALL_RUN = ("--hparams_set=transformer_test",
             "--hparams=batch_size=1024,max_length=96,learning_rate_warmup_steps=60,"
             "learning_rate_constant=2.0")


def trainer_command(data_dir, output_dir, *flags):
  return [TRAINER, "--problem=translate_from_files", f"--data_dir={data_dir}",
          f"--output_dir={output_dir}", *SMALL_RUN, "--save_checkpoints_secs=0", *flags]


def run_trainer(data_dir, output_dir, *flags, timeout=600):
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
  return subprocess.run(trainer_command(data_dir, output_dir, *flags), capture_output=True,
                        text=True, timeout=timeout, env=env)
