"""Small helpers tests share: files written and edited, a problem's examples as its pipeline
batches them, the checkpoints a run lists, a training step that signals this process, a
clock that moves only when slept on, a copy of the checkout as a clone holds it."""

import json
import os
import shutil
import subprocess

import pytest

from t2t_lite.constants import PAD_ID

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # The checkout.
# Long enough that no real sentence is dropped, however finely it is split.
MAX_LENGTH = 2048


def write(path, data):
  """Writes `data` (bytes, or text as UTF-8) to the pathlib.Path `path` -> str(path)."""
  path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
  return str(path)


def edit_json(path, change):
  """Rewrites the JSON file `path` with `change(values)` applied to its values."""
  with open(path) as f:
    values = json.load(f)
  change(values)
  with open(path, "w") as f:
    json.dump(values, f)


def read_all(problem, data_dir, split, training, **fields):
  """Every example of `split` once, as the pipeline batches it under HParams with `fields`
  set: [(inputs ids, targets ids)], padding left out."""
  from t2t_lite.models.hyperparameters import HParams
  hparams = HParams(batch_size=4 * MAX_LENGTH, max_length=MAX_LENGTH, **fields)
  dataset = problem.dataset(split, data_dir, hparams, training=training, shuffle=False,
                            repeat=False, deterministic=True)
  return [tuple(tuple(int(i) for i in row if i != PAD_ID) for row in (inputs, targets))
          for batch in dataset
          for inputs, targets in zip(batch["inputs"].numpy(), batch["targets"].numpy())]


def listed_steps(output_dir):
  """The steps of the checkpoints a run's state file lists, oldest first."""
  from t2t_lite.run.checkpoints import checkpoint_paths
  from t2t_lite.run.run_layout import checkpoint_step
  return [checkpoint_step(path) for path in checkpoint_paths(output_dir)]


def signal_at_step(monkeypatch, signum, at_step):
  """The training step sends `signum` to this process once the step reaches `at_step`."""
  from t2t_lite.training import train_step
  original = train_step.TrainStep.__call__

  def step_then_signal(self, *args):
    stats = original(self, *args)
    if int(self.optimizer.iterations) == at_step:
      os.kill(os.getpid(), signum)
    return stats
  monkeypatch.setattr(train_step.TrainStep, "__call__", step_then_signal)


class FakeTime:
  """A clock that moves only when slept on; `on_sleep` runs at each sleep."""

  def __init__(self, on_sleep=None):
    self.now, self.sleeps, self.on_sleep = 0.0, 0, on_sleep

  def clock(self):
    return self.now

  def sleep(self, seconds):
    self.now += seconds
    self.sleeps += 1
    if self.on_sleep:
      self.on_sleep(self.sleeps)


def uninstalled_checkout(target):
  """A copy in `target` of the files a clone of this checkout would hold (those git tracks,
  and new ones it does not ignore), never installed."""
  try:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
  except (OSError, subprocess.CalledProcessError):
    pytest.skip("not a git checkout")
  for name in filter(None, listed.stdout.decode("utf-8").split("\0")):
    if os.path.isfile(os.path.join(ROOT, name)):  # Not one deleted since its commit.
      os.makedirs(os.path.join(target, os.path.dirname(name)), exist_ok=True)
      shutil.copy2(os.path.join(ROOT, name), os.path.join(target, name))
  return str(target)
