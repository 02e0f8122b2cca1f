"""t2t-trainer end to end on real text: learning, resuming, run directory, one-line errors."""

import json
import os
import re
import shutil

import pytest
import tensorflow as tf

from commands import call
from trainer_runs import run_trainer

pytestmark = pytest.mark.slow  # Trains through t2t-trainer.


def eval_losses(output):
  return [float(loss) for loss in re.findall(r"eval at step \d+: loss ([0-9.]+)", output)]


def test_dev_loss_falls(trained_run):
  _, _, output = trained_run
  losses = eval_losses(output)
  assert len(losses) == 4, output[-2000:]  # Steps 0 (the baseline), 20, 40, 60.
  assert losses[-1] < losses[0] - 1.0, losses
  assert "training cost:" in output and "MFU" in output
  # Each evaluation also decodes dev sentences and scores them with sacreBLEU.
  assert len(re.findall(r", bleu [0-9.]+ \(20 dev sentences, beam 2\)", output)) == 4


def test_run_directory_describes_itself(trained_run):
  _, output_dir, _ = trained_run
  with open(os.path.join(output_dir, "hparams.json")) as f:
    assert json.load(f)["hidden_size"] == 32
  with open(os.path.join(output_dir, "run.json")) as f:
    description = json.load(f)
  assert description["problem"] == "translate_from_files"
  assert description["flags"]["train_steps"] == 60
  assert os.path.exists(os.path.join(output_dir, description["vocab_files"][0]))
  state = tf.train.get_checkpoint_state(output_dir)
  assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == \
      ["ckpt-20", "ckpt-40", "ckpt-60"]
  assert os.listdir(os.path.join(output_dir, "train")) and \
      os.listdir(os.path.join(output_dir, "eval"))


def test_resume_continues_from_the_latest_checkpoint(trained_run, tmp_path):
  data_dir, shared_run, _ = trained_run
  output_dir = str(shutil.copytree(shared_run, tmp_path / "run"))  # Others read the shared one.
  result = run_trainer(data_dir, output_dir, "--train_steps=70", "--schedule=train",
                       "--save_checkpoints_steps=100")
  assert result.returncode == 0, result.stderr[-3000:]
  assert "resuming from" in result.stdout and "(step 60)" in result.stdout
  assert tf.train.latest_checkpoint(output_dir).endswith("ckpt-70")
  again = run_trainer(data_dir, output_dir, "--train_steps=70")
  assert again.returncode == 0 and "nothing to do" in again.stdout


def test_resuming_with_another_architecture_is_a_one_line_error(trained_run):
  data_dir, output_dir, _ = trained_run
  result = run_trainer(data_dir, output_dir, "--train_steps=80",
                       "--hparams=batch_size=1024,max_length=96,hidden_size=64")
  assert result.returncode == 2
  last_line = result.stderr.strip().splitlines()[-1]
  assert last_line.startswith("t2t-trainer: error:") and "hidden_size 32 -> 64" in last_line


def restored_weights(run, checkpoint_path):
  """The model weights of a run directory's checkpoint, as numpy arrays."""
  from t2t_lite.run import Run
  model = Run.read(run).build_model()
  tf.train.Checkpoint(model=model).restore(checkpoint_path).expect_partial()
  return [w.numpy() for w in model.weights]


def test_averaging_checkpoints_gives_a_usable_run_directory(trained_run, tmp_path):
  _, output_dir, _ = trained_run
  averaged = tmp_path / "averaged"
  result = call("t2t-avg-all", f"--model_dir={output_dir}", f"--output_dir={averaged}", "--n=2",
                "--window=1", "--dev_sentences=0")  # The mean of ckpt-40 and ckpt-60, whatever.
  assert result.returncode == 0, result.stderr[-2000:]
  assert "averaged 2 checkpoint(s)" in result.stdout
  last_two = tf.train.get_checkpoint_state(output_dir).all_model_checkpoint_paths[-2:]
  weights = [restored_weights(output_dir, path) for path in last_two]
  averaged_weights = restored_weights(str(averaged), tf.train.latest_checkpoint(str(averaged)))
  assert len(averaged_weights) == 61  # Every weight of the 2-layer test model.
  for first, second, mean in zip(*weights, averaged_weights):
    assert abs((first + second) / 2 - mean).max() < 1e-6
  assert os.path.exists(averaged / "hparams.json") and os.path.exists(averaged / "run.json")


def test_missing_flags_and_bad_data_dir_are_one_line_errors(tmp_path, small_translation_data):
  _, data_dir = small_translation_data
  result = run_trainer(str(tmp_path / "nothing"), str(tmp_path / "run"), "--train_steps=1")
  assert result.returncode == 2
  assert result.stderr.strip().splitlines()[-1].startswith("t2t-trainer: error:")
  assert "Traceback" not in result.stderr
