"""Two t2t-trainer workers of one run on loopback (TF_CONFIG), started as a user would, that
differ in what they train: both end before the first step with the same one line, naming
worker 1 and what differs, and nothing is trained or written."""

import os
import re

import pytest

from commands import error_line, start
from replica_runs import finish, trainer_argv, worker_environments
from t2t_lite.registry import HPARAMS
from t2t_lite.training.auto_hparams import AUTO_SET
from tiny_runs import tiny_data

pytestmark = pytest.mark.slow  # Starts pairs of t2t-trainer processes.

ONE_BUCKET = "max_length=16,min_length_bucket=16,batch_size=1600"
FLAGS = ("--train_steps=3", "--schedule=train")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
  return tiny_data(str(tmp_path_factory.mktemp("tiny")))


def refused_lines(argvs, output_dir, environments=None):
  """Each worker's error line, once both have ended with exit status 2 having trained and
  written nothing."""
  processes = [start(argv, env=env, merge_stderr=True)
               for argv, env in zip(argvs, environments or worker_environments())]
  lines = []
  for status, output in finish(processes, timeout=300):
    assert status == 2 and "Traceback" not in output, output[-3000:]
    assert "step 1" not in output, output[-3000:]
    lines.append(error_line(output))
  assert not os.path.exists(output_dir)  # The chief's guard removed the directory it made.
  return lines


def test_workers_with_other_hparams_end_before_training(tiny, tmp_path):
  output_dir = str(tmp_path / "run")
  chiefs = HPARAMS["transformer_test_small"]().learning_rate_constant
  lines = refused_lines([trainer_argv(tiny, output_dir, ONE_BUCKET, *FLAGS),
                         trainer_argv(tiny, output_dir, f"{ONE_BUCKET},learning_rate_constant=10",
                                      *FLAGS)], output_dir)
  assert lines == 2 * [f"t2t-trainer: error: worker 1's hparams differ from the chief's "
                       f"(learning_rate_constant 10.0 against {chiefs!r}): start every worker "
                       f"with the same --hparams_set and --hparams"]


def test_a_worker_given_other_data_ends_every_worker_before_training(tiny, tmp_path):
  output_dir = str(tmp_path / "run")
  other = tiny_data(str(tmp_path / "other"), offset=1000)  # Other sentences, one problem.
  lines = refused_lines([trainer_argv(tiny, output_dir, ONE_BUCKET, *FLAGS),
                         trainer_argv(other, output_dir, ONE_BUCKET, *FLAGS)], output_dir)
  assert lines[0] == lines[1]
  assert re.fullmatch(r"t2t-trainer: error: worker 1's data differ from the chief's "
                      r"\(translate_from_files-\w+\.json SHA-256 [0-9a-f]{12}\.\.\. against "
                      r"[0-9a-f]{12}\.\.\.\): give every worker the same --data_dir \(one "
                      r"t2t-datagen output, on a file system they all share\)", lines[0]), lines[0]


def test_train_minutes_end_workers_before_the_handshake(tiny, tmp_path):
  """Under --train_minutes transformer_auto chooses by each machine's measured pace, so the
  workers' warmups may differ: what ends them is that the minutes are not supported across
  workers, not a difference of hparams."""
  output_dir = str(tmp_path / "run")
  argv = [f"--hparams_set={AUTO_SET}" if arg.startswith("--hparams_set=") else arg
          for arg in trainer_argv(tiny, output_dir, ONE_BUCKET, "--train_minutes=0.01",
                                  "--schedule=train")]
  lines = refused_lines([argv, argv], output_dir)
  assert lines == 2 * ["t2t-trainer: error: --train_minutes is not supported across several "
                       "workers; stop the run with --train_steps"]
