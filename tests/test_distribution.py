"""Replicas, workers and accumulated micro-batches all give one device's update."""

import os
import pathlib
import sys

import pytest

import commands
from replica_runs import free_port
from same_update import assert_same_update, run_result

pytestmark = pytest.mark.slow
SCRIPT = os.path.join(commands.TESTS, "distribution_check.py")


def start(mode, out_dir, *args):
  return commands.start([sys.executable, SCRIPT, mode, str(out_dir), *map(str, args)])


def finish(process):
  out, err = process.communicate(timeout=600)
  assert process.returncode == 0, err[-3000:]
  return out


@pytest.fixture(scope="module")
def local_runs(two_replicas_check):
  """Directory of single/accumulate/mirrored/mirrored_xla results, from one process
  (tests/distribution_check.py's local mode, which bench.gpu.two_replicas --cpu runs)."""
  results = pathlib.Path(two_replicas_check["results_dir"])
  assert (results / "mirrored_xla.npz").is_file(), two_replicas_check["stderr"][-3000:]
  return results


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
