"""`python -m bench.gpu` (the GPU benchmark) works on a machine without TensorFlow.

A GPU run cannot happen here: `--smoke` runs the whole program on the CPU with
a tiny model, in a process where TensorFlow cannot be imported, and the tests
check its results and the document section it writes. Without a GPU and without
`--smoke` the program refuses, writing nothing.
"""

import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from commands import environment, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# As on the GPU machines: importing TensorFlow fails.
WITHOUT_TENSORFLOW = ("import runpy, sys; sys.modules['tensorflow'] = None; "
                      "sys.modules['tensorflow_text'] = None; "
                      "runpy.run_module('bench.gpu', run_name='__main__')")
DOCUMENT = ("# Benchmarks\n\nThe CPU tables.\n\n## GPU\n\n<!-- gpu:begin -->\nold numbers\n"
            "<!-- gpu:end -->\n\n## After\n\nkept\n")


def load(relative_path):
  """A module of bench/gpu/ by its file, without importing `bench` into this process."""
  spec = importlib.util.spec_from_file_location(
      relative_path.replace("/", "_")[:-3], os.path.join(ROOT, relative_path))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def run_bench(*args):
  return run([sys.executable, "-c", WITHOUT_TENSORFLOW, *args], cwd=ROOT, timeout=600,
             env=environment(KERAS_BACKEND="jax", JAX_PLATFORMS="cpu"))


def test_only_the_text_between_the_markers_is_replaced():
  document = load("bench/gpu/document.py")
  replaced = document.replace_section(DOCUMENT, "new numbers")
  assert replaced == DOCUMENT.replace("old numbers", "new numbers")


def test_a_gpu_section_without_markers_gets_them():
  document = load("bench/gpu/document.py")
  text = "# Benchmarks\n\n## GPU\n\nsome words\n\n## After\n\nkept\n"
  assert document.replace_section(text, "body") == (
      "# Benchmarks\n\n## GPU\n\n<!-- gpu:begin -->\nbody\n<!-- gpu:end -->\n\n## After\n\nkept\n")
  assert document.replace_section("# Benchmarks\n", "body") == (
      "# Benchmarks\n\n## GPU\n\n<!-- gpu:begin -->\nbody\n<!-- gpu:end -->\n")


def test_a_cpu_run_keeps_the_whole_gpu_section_notes_after_the_markers_too(tmp_path):
  document = load("bench/gpu/document.py")
  path = tmp_path / "benchmarks.md"
  assert document.current_section(str(path)) is None
  section = "## GPU\n\n<!-- gpu:begin -->\nnumbers\n<!-- gpu:end -->\n\n### Notes\n\nby hand\n"
  path.write_text("# Benchmarks\n\n## CPU\n\nx\n\n" + section + "\n## After\n\nnot it\n")
  assert document.current_section(str(path)) == section


def test_matmuls_go_to_cublas_unless_xla_flags_already_choose(monkeypatch):
  gpu = load("bench/gpu/__init__.py")
  # Set here so that monkeypatch restores them: use_jax_backend sets what is unset.
  monkeypatch.setenv("KERAS_BACKEND", os.environ.get("KERAS_BACKEND", "tensorflow"))
  monkeypatch.setenv("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=/tmp/x")
  gpu.use_jax_backend()
  assert os.environ["XLA_FLAGS"] == "--xla_dump_to=/tmp/x " + gpu.CUBLAS_MATMULS_FLAG
  monkeypatch.setenv("XLA_FLAGS", "--xla_gpu_enable_triton_gemm=true")
  gpu.use_jax_backend()
  assert os.environ["XLA_FLAGS"] == "--xla_gpu_enable_triton_gemm=true"
  monkeypatch.delenv("XLA_FLAGS")
  gpu.use_jax_backend()
  assert os.environ["XLA_FLAGS"] == gpu.CUBLAS_MATMULS_FLAG


@pytest.mark.slow
def test_smoke_run_without_tensorflow_writes_the_gpu_section(tmp_path):
  if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed (pip install -e '.[bench]'): the smoke run compares "
                "t2t_lite with its PyTorch peers")
  path, results = tmp_path / "benchmarks.md", tmp_path / "results.json"
  path.write_text(DOCUMENT, encoding="utf-8")
  result = run_bench("--smoke", f"--output={path}", f"--json={results}")
  assert result.returncode == 0, result.stderr[-3000:]

  text = path.read_text(encoding="utf-8")
  before, after = DOCUMENT.split("old numbers\n")
  assert text.startswith(before + "**Smoke run**") and text.endswith(after)
  assert "### Training step on the accelerator" in text and "### Decoding on" in text

  saved = json.loads(results.read_text(encoding="utf-8"))
  rows = {(job["kind"], job.get("compile")): outcome for job, outcome in saved["rows"]}
  assert sorted(rows) == sorted([("machine", None), ("train_t2t_lite", None),
                                 ("train_torch", False), ("train_torch", True),
                                 ("decode_t2t_lite", None), ("decode_torch", None)])
  assert not [outcome["error"] for outcome in rows.values() if "error" in outcome]
  for kind in ("train_t2t_lite", "train_torch"):
    assert rows[(kind, None if kind == "train_t2t_lite" else False)]["seconds"] > 0
    assert np.isfinite(rows[(kind, None if kind == "train_t2t_lite" else False)]["loss"])
  plan = saved["plan"]
  length = plan["input_length"] + plan["extra_length"]
  ours = {case["beam"]: case for case in rows[("decode_t2t_lite", None)]["cases"]}
  torch = {case["beam"]: case for case in rows[("decode_torch", None)]["cases"]}
  assert sorted(ours) == sorted(torch) == [1, 4]
  for beam, case in ours.items():
    assert case["tokens"] == case["batch"] * length  # EOS only at each sentence's limit.
    assert torch[beam]["tokens"] == case["tokens"]
  # The same weights in float32: greedy decoding gives the same ids.
  np.testing.assert_array_equal(torch[1]["ids"], ours[1]["ids"])


@pytest.mark.slow
def test_without_a_gpu_a_full_run_refuses_and_writes_nothing(tmp_path):
  path = tmp_path / "benchmarks.md"
  path.write_text(DOCUMENT, encoding="utf-8")
  result = run_bench("--only=decoding", f"--output={path}")
  assert result.returncode == 1
  assert "JAX sees no GPU" in result.stderr.strip().splitlines()[-1]
  assert path.read_text(encoding="utf-8") == DOCUMENT
