"""`python -m bench.gpu` (the GPU benchmark) works on a machine without TensorFlow.

A GPU run cannot happen here: `--smoke` runs the whole program on the CPU with
a tiny model, in a process where TensorFlow cannot be imported (its TensorFlow
rows run in processes of their own, on Keras's TensorFlow backend), and the
tests check its results and the document section it writes. Without a GPU and
without `--smoke` the program refuses, writing nothing. The two-replica check
(bench/gpu/two_replicas.py) runs here on two logical CPUs. A checkout that was
never installed (as on the GPU machines) loads the full run's settings.
"""

import importlib.util
import json
import os
import sys
import sysconfig
import time

import numpy as np
import pytest

from bench import report
from commands import environment, run
from helpers import uninstalled_checkout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# As on the GPU machines: importing TensorFlow fails.
NO_TENSORFLOW = ("import runpy, sys; sys.modules['tensorflow'] = None; "
                 "sys.modules['tensorflow_text'] = None; ")
WITHOUT_TENSORFLOW = NO_TENSORFLOW + "runpy.run_module('bench.gpu', run_name='__main__')"
# Checks that no installed t2t_lite is in sight, prints the full run's plan as JSON on one
# line, then runs the command with the arguments given.
FULL_PLAN_THEN_COMMAND = NO_TENSORFLOW + (
    "import json, os, t2t_lite; from importlib import metadata; "
    "assert os.path.dirname(t2t_lite.__path__[0]) == os.getcwd(), t2t_lite.__path__; "
    "assert not metadata.entry_points(group='t2t_lite.hparams_sets'); "
    "from bench.gpu import settings; print(json.dumps(settings.full().to_dict()), flush=True); "
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


def site_packages_without_t2t_lite(target):
  """A folder of links to this Python's site-packages entries but t2t_lite's own (its
  dist-info with the entry points, an editable install's finder and .pth)."""
  site = sysconfig.get_paths()["purelib"]
  os.makedirs(target)
  for name in os.listdir(site):
    if "t2t_lite" not in name:
      os.symlink(os.path.join(site, name), os.path.join(target, name))
  return str(target)


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


def test_tensorflow_rows_follow_the_jax_rows_and_run_in_their_own_process(monkeypatch, tmp_path):
  from bench.gpu import __main__ as command, rows, settings
  plan = settings.smoke()
  without = [job["kind"] for job in command.jobs(plan, ["training", "decoding"], None)]
  assert not set(without) & set(rows.TENSORFLOW_KINDS)
  planned = command.jobs(plan, ["training", "decoding"], "/opt/bundle")
  kinds = [job["kind"] for job in planned]
  for ours in ("train_t2t_lite", "decode_t2t_lite"):
    assert kinds[kinds.index(ours) + 1] == ours + "_tf"
  job = next(job for job in planned if job["kind"] == "train_t2t_lite_tf")
  assert job["tf_target"] == "/opt/bundle"

  started = {}

  def fake_run(argv, env, **unused):
    started.update(argv=argv, env=env)
    return type("Done", (), {"returncode": 1, "stderr": "stopped here"})()
  monkeypatch.setattr(rows.subprocess, "run", fake_run)
  monkeypatch.setenv("KERAS_BACKEND", "jax")
  result = rows.run_isolated(job, str(tmp_path / "job0"))
  assert result == {"error": "exit status 1: stopped here"}
  assert started["env"]["KERAS_BACKEND"] == "tensorflow"
  assert started["env"]["PYTHONPATH"].split(":")[0] == "/opt/bundle/site"


@pytest.mark.slow
def test_smoke_run_without_tensorflow_writes_the_gpu_section(tmp_path):
  have_torch = importlib.util.find_spec("torch") is not None
  path, results = tmp_path / "benchmarks.md", tmp_path / "results.json"
  path.write_text(DOCUMENT, encoding="utf-8")
  result = run_bench("--smoke", f"--output={path}", f"--json={results}")
  assert result.returncode == 0, result.stderr[-3000:]

  text = path.read_text(encoding="utf-8")
  before, after = DOCUMENT.split("old numbers\n")
  assert text.startswith(before + "**Smoke run**") and text.endswith(after)
  assert "### Training step on the accelerator" in text and "### Decoding on" in text
  assert "TrainStep on TensorFlow" in text
  record = json.loads((tmp_path / "figures" / "bench_gpu_jax.json").read_text(encoding="utf-8"))
  assert len(record["tables"]) == 2 and record["command"].startswith("KERAS_BACKEND=jax")
  assert "smoke run" in record["source"]
  for fields in record["tables"]:
    assert report.Table(**fields).markdown() in text

  saved = json.loads(results.read_text(encoding="utf-8"))
  rows = {(job["kind"], job.get("compile")): outcome for job, outcome in saved["rows"]}
  expected = [("machine", None), ("train_t2t_lite", None), ("train_t2t_lite_tf", None),
              ("decode_t2t_lite", None), ("decode_t2t_lite_tf", None)]
  if have_torch:
    expected += [("train_torch", False), ("train_torch", True), ("decode_torch", None)]
  assert sorted(rows) == sorted(expected)
  assert not [outcome["error"] for outcome in rows.values() if "error" in outcome]
  for key in expected:
    if key[0].startswith("train") and key[1] is not True:
      assert rows[key]["seconds"] > 0
      assert np.isfinite(rows[key]["loss"])
  assert rows[("train_t2t_lite_tf", None)]["precision"] == "float32, XLA"
  plan = saved["plan"]
  length = plan["input_length"] + plan["extra_length"]
  decoders = [kind for kind, _ in expected if kind.startswith("decode")]
  cases = {kind: {case["beam"]: case for case in rows[(kind, None)]["cases"]}
           for kind in decoders}
  for kind in decoders:
    assert sorted(cases[kind]) == [1, 4]
    for case in cases[kind].values():
      assert case["tokens"] == case["batch"] * length  # EOS only at each sentence's limit.
  if have_torch:
    # The same weights in float32: greedy decoding gives the same ids.
    np.testing.assert_array_equal(cases["decode_torch"][1]["ids"],
                                  cases["decode_t2t_lite"][1]["ids"])


@pytest.mark.slow
def test_a_checkout_never_installed_loads_the_full_plan_and_its_help(tmp_path):
  """As on a GPU machine: no TensorFlow, no installed t2t_lite, no entry points (Python
  without its `site` module, so no .pth file runs; site-packages named on PYTHONPATH)."""
  from bench.gpu import settings
  checkout = uninstalled_checkout(tmp_path / "checkout")
  site = site_packages_without_t2t_lite(tmp_path / "site")
  result = run([sys.executable, "-S", "-c", FULL_PLAN_THEN_COMMAND, "--help"], cwd=checkout,
               timeout=120, env=environment(PYTHONPATH=site, KERAS_BACKEND="jax"))
  assert result.returncode == 0, result.stderr[-3000:]
  plan, help_text = result.stdout.split("\n", 1)
  assert json.loads(plan) == json.loads(json.dumps(settings.full().to_dict()))
  assert help_text.startswith("usage:") and "--smoke" in help_text


def test_two_replicas_give_one_devices_update_on_logical_cpus(two_replicas_check):
  """`python -m bench.gpu.two_replicas --cpu`, run by the `two_replicas_check` fixture
  (test_distribution.py reads the updates it kept)."""
  result = two_replicas_check
  assert result["returncode"] == 0, result["stderr"][-3000:]
  lines = result["stdout"].strip().splitlines()[-3:]
  assert lines == ["mirrored (2 logical CPUs): same update as one device",
                   "mirrored_xla (2 logical CPUs): same update as one device",
                   "accumulate (one device): same update as one device"]


@pytest.mark.slow
def test_without_a_gpu_a_full_run_refuses_and_writes_nothing(tmp_path):
  path = tmp_path / "benchmarks.md"
  path.write_text(DOCUMENT, encoding="utf-8")
  result = run_bench("--only=decoding", f"--output={path}")
  assert result.returncode == 1
  assert "JAX sees no GPU" in result.stderr.strip().splitlines()[-1]
  assert path.read_text(encoding="utf-8") == DOCUMENT
  assert not (tmp_path / "figures").exists()


def test_rows_not_started_by_the_deadline_are_left_out(monkeypatch):
  from bench.gpu import __main__ as command, rows, settings
  plan = settings.smoke()
  planned = command.jobs(plan, ["training"], None, torch_modes=("compile",))
  if importlib.util.find_spec("torch") is not None:
    torch_rows = [job for job in planned if job["kind"] == "train_torch"]
    assert [job["compile"] for job in torch_rows] == [True]
  timeouts = []

  def slow_row(job, name, timeout):  # The first row takes the whole second.
    timeouts.append(timeout)
    time.sleep(1.1)
    return {"seconds": 1.0}
  monkeypatch.setattr(rows, "run_isolated", slow_row)
  done = command.run_jobs(planned, in_process=False, timeout=480, stop_without_gpu=False,
                          deadline_minutes=1 / 60)
  assert timeouts == [1]
  assert [result for _, result in done[1:]] == [
      {"error": "not run: past --deadline_minutes=0.0166667"}] * (len(planned) - 1)
