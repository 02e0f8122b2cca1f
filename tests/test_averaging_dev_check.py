"""t2t-avg-all never makes a model worse on dev: an average that decodes the dev sentences
worse than the last checkpoint gives way to that checkpoint alone."""

import json
import os
import re
import shutil

import numpy as np
import pytest

from commands import call
from t2t_lite.run import Run
from t2t_lite.run.checkpoints import checkpoint_paths, write_only_checkpoint, write_state
from t2t_lite.run.run_layout import AVERAGE_MARKER
from t2t_lite.training.dev_decoding import DevDecoding
from tiny_runs import copy_run, learned_tiny_run

# A tiny run trains 40 steps first.
pytestmark = pytest.mark.slow


def scores(line, last_step):
  """(sentences, the average's BLEU, the last checkpoint's, which one the output holds) of
  the dev check's line."""
  found = re.fullmatch(r"t2t-avg-all: on (\d+) dev sentences \(greedy\) the average of 2 "
                       rf"checkpoints scores bleu ([\d.]+), the last checkpoint \(step "
                       rf"{last_step}\) ([\d.]+): (.*)", line)
  assert found, line
  sentences, average, last, verdict = found.groups()
  return int(sentences), float(average), float(last), verdict


@pytest.fixture
def learned_copy(tmp_path_factory, tmp_path):
  """(data_dir, a copy of the learned tiny run: ckpt-20, ckpt-40)."""
  data_dir, output_dir = learned_tiny_run(tmp_path_factory)
  return data_dir, copy_run(output_dir, tmp_path / "run")


def add_untrained_checkpoint(run_dir):
  """Lists ckpt-0, the run's model before training, then the run's last checkpoint."""
  import keras
  last = checkpoint_paths(run_dir)[-1]
  keras.utils.set_random_seed(0)
  untrained = write_only_checkpoint(run_dir, 0, model=Run.read(run_dir).build_model())
  write_state(run_dir, [untrained, last])


def weights(run_dir, checkpoint=None):
  return [w.numpy() for w in Run.open(run_dir, checkpoint).model.weights]


def dev_score(run_dir, data_dir):
  run = Run.open(run_dir)
  return DevDecoding.from_data(run.problem, data_dir, run.translator("beam_size=1"),
                               200).evaluate()[1]


def test_an_average_worse_on_dev_gives_way_to_the_last_checkpoint(learned_copy, tmp_path):
  data_dir, run_dir = learned_copy
  add_untrained_checkpoint(run_dir)
  averaged = tmp_path / "averaged"
  result = call("t2t-avg-all", f"--model_dir={run_dir}", f"--output_dir={averaged}", "--n=2",
                "--window=1")  # Back to step 0: an average with the untrained model.
  assert result.returncode == 0, result.stderr[-2000:]
  sentences, average, last, verdict = scores(result.stdout.splitlines()[0], 40)
  assert sentences == 20 and average < last
  assert verdict == (f"{averaged} holds the last checkpoint (--dev_sentences=0 keeps the "
                     f"average regardless)")
  assert result.stdout.splitlines()[-1] == (
      f"wrote the last checkpoint alone into {averaged}/ckpt-40")
  marker = json.loads((averaged / AVERAGE_MARKER).read_text())
  assert marker["averaged"] == ["ckpt-0", "ckpt-40"] and marker["holds"] == ["ckpt-40"]
  assert marker["dev_check"]["average"] < marker["dev_check"]["last"]
  last = os.path.join(run_dir, "ckpt-40")
  for held, trained in zip(weights(str(averaged)), weights(run_dir, last)):
    np.testing.assert_array_equal(held, trained)
  assert dev_score(str(averaged), data_dir) >= marker["dev_check"]["last"]

  result = call("t2t-avg-all", f"--model_dir={run_dir}", f"--output_dir={averaged}", "--n=2",
                "--window=1", "--dev_sentences=0")
  assert result.returncode == 0, result.stderr[-2000:]
  assert result.stdout.splitlines() == [
      f"averaged 2 checkpoint(s) (ckpt-0, ckpt-40) into {averaged}/ckpt-40"]


def test_an_average_as_good_on_dev_is_kept(learned_copy, tmp_path):
  _, run_dir = learned_copy
  for name in os.listdir(run_dir):  # ckpt-41: ckpt-40 again, so the average is the same.
    if name.startswith("ckpt-40."):
      shutil.copy(os.path.join(run_dir, name), os.path.join(run_dir, "ckpt-41" + name[7:]))
  write_state(run_dir, checkpoint_paths(run_dir) + [os.path.join(run_dir, "ckpt-41")])
  averaged = tmp_path / "averaged"
  result = call("t2t-avg-all", f"--model_dir={run_dir}", f"--output_dir={averaged}", "--n=2")
  assert result.returncode == 0, result.stderr[-2000:]
  lines = result.stdout.splitlines()
  sentences, average, last, verdict = scores(lines[0], 41)
  assert sentences == 20 and average == last > 0 and verdict == f"{averaged} keeps the average"
  assert lines[-1] == f"averaged 2 checkpoint(s) (ckpt-40, ckpt-41) into {averaged}/ckpt-41"
  marker = json.loads((averaged / AVERAGE_MARKER).read_text())
  assert marker["holds"] == ["ckpt-40", "ckpt-41"]
  assert marker["dev_check"]["average"] == marker["dev_check"]["last"] > 0
