"""Replicas, workers and accumulated micro-batches all give one device's update."""

import os
import socket
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "distribution_check.py")


def start(mode, out_dir, *args):
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
  env.pop("TF_CONFIG", None)
  return subprocess.Popen([sys.executable, SCRIPT, mode, str(out_dir), *map(str, args)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish(process):
  out, err = process.communicate(timeout=600)
  assert process.returncode == 0, err[-3000:]
  return out


def weights(path):
  with np.load(path) as saved:
    return [saved[f"arr_{i}"] for i in range(len(saved.files) - 1)], float(saved["tokens"])


@pytest.fixture(scope="module")
def local_runs(tmp_path_factory):
  """Directory of single/accumulate/mirrored/mirrored_xla weights, from one process."""
  out_dir = tmp_path_factory.mktemp("local")
  finish(start("local", out_dir))
  return out_dir


def assert_same_weights(expected, actual, tolerance):
  (expected_weights, expected_tokens), (actual_weights, actual_tokens) = expected, actual
  assert actual_tokens == expected_tokens
  for a, b in zip(expected_weights, actual_weights):
    np.testing.assert_allclose(a, b, atol=tolerance)


@pytest.mark.parametrize("mode, tolerance", [
    ("mirrored", 1e-5),
    ("mirrored_xla", 2e-4),   # XLA fuses differently: float round-off only.
    ("accumulate", 1e-5),
])
def test_same_update_as_one_device(local_runs, mode, tolerance):
  assert_same_weights(weights(local_runs / "single.npz"), weights(local_runs / f"{mode}.npz"),
                      tolerance)


def free_port():
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def test_two_workers_on_loopback(local_runs, tmp_path):
  ports = (free_port(), free_port())
  workers = [start("worker", tmp_path, index, *ports) for index in (0, 1)]
  for worker in workers:
    finish(worker)
  for index in (0, 1):
    assert_same_weights(weights(local_runs / "single.npz"),
                        weights(tmp_path / f"worker{index}.npz"), 1e-5)
