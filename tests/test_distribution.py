"""Replicas, workers and accumulated micro-batches all give one device's update."""

import os
import sys

import numpy as np
import pytest

import commands
from replica_runs import free_port

pytestmark = pytest.mark.slow
SCRIPT = os.path.join(commands.TESTS, "distribution_check.py")


def start(mode, out_dir, *args):
  return commands.start([sys.executable, SCRIPT, mode, str(out_dir), *map(str, args)])


def finish(process):
  out, err = process.communicate(timeout=600)
  assert process.returncode == 0, err[-3000:]
  return out


def run_result(path):
  """(initial weights, their updates, each step's loss sum, tokens per step) of a check."""
  with np.load(path) as saved:
    count = sum(name.startswith("update_") for name in saved.files)
    initial = [saved[f"initial_{i}"] for i in range(count)]
    updates = [saved[f"update_{i}"] for i in range(count)]
    return initial, updates, saved["losses"], float(saved["tokens"])


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory):
  """Directory of single/accumulate/mirrored/mirrored_xla results, from one process."""
  out_dir = tmp_path_factory.mktemp("local")
  finish(start("local", out_dir))
  return out_dir


# Why these bounds hold on any CPU: every mode computes the same float32 sums (over tokens,
# replicas, micro-batches and hidden units, at most a few hundred terms) in another order,
# with other SIMD widths or XLA fusions. Reordering such a sum moves it by a few ulps of its
# largest terms, ~1e-6 of a tensor's scale: 1e-4 leaves two orders of magnitude for that,
# while a lost, doubled or wrongly normalised replica half changes losses and updates by tens
# of percent. Plain SGD keeps the update proportional to the gradient (see the check's doc).
RELATIVE_ROUND_OFF = 1e-4
# Each of the 3 steps rounds a weight to float32 once, in each of the two runs compared.
WEIGHT_ROUNDINGS = 3 * 2


def assert_same_update(expected, actual):
  initial, expected_updates, expected_losses, expected_tokens = expected
  _, actual_updates, actual_losses, actual_tokens = actual
  assert actual_tokens == expected_tokens
  np.testing.assert_allclose(actual_losses, expected_losses, rtol=RELATIVE_ROUND_OFF)
  for index, (weight, a, b) in enumerate(zip(initial, expected_updates, actual_updates)):
    scale = np.abs(a).max()
    weight_ulp = np.spacing(np.abs(weight + a).max())
    np.testing.assert_allclose(
        b, a, rtol=0, atol=RELATIVE_ROUND_OFF * scale + WEIGHT_ROUNDINGS * weight_ulp,
        err_msg=f"weight {index}, largest update {scale:.3g}")


@pytest.mark.parametrize("mode", ["single_xla", "mirrored", "mirrored_xla", "accumulate"])
def test_same_update_as_one_device(local_runs, mode):
  assert_same_update(run_result(local_runs / "single.npz"),
                     run_result(local_runs / f"{mode}.npz"))


def test_two_workers_on_loopback(local_runs, tmp_path):
  ports = (free_port(), free_port())
  workers = [start("worker", tmp_path, index, *ports) for index in (0, 1)]
  for worker in workers:
    finish(worker)
  for index in (0, 1):
    assert_same_update(run_result(local_runs / "single.npz"),
                       run_result(tmp_path / f"worker{index}.npz"))
