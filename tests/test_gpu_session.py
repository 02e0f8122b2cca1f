"""The GPU session's script (bench/gpu/run_tf_on_device.sh), rehearsed on the CPU.

`SMOKE=1 ... run_tf_on_device.sh all` runs every stage a GPU session runs, in the
same order and through the same commands, on this machine's Python: the checkout
installed into a site folder, Multi30k generated, t2t-trainer with two replicas
stopped and resumed (bench/gpu/logical_gpus.py on logical CPUs), the run exported,
served and timed on "the GPU" and on 2 cores (bench/gpu/serving.py), then the training
rows (bench.gpu --smoke) within the minutes left. As on the GPU machine, the Python has
the packages but no t2t_lite of its own (this one's editable install would hide what the
checkout lacks there). A GPU's minutes are few: a script that fails there loses them.
"""

import json
import os
import subprocess
import sys
import sysconfig

import pytest

from commands import environment, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "bench", "gpu", "run_tf_on_device.sh")
STAGES = ["unpack", "replicas_train", "serving", "bench_training"]
# Six minutes on 2 cores: `make rehearse-gpu` runs it, before a GPU session; `make test` not.
pytestmark = [pytest.mark.slow, pytest.mark.gpu_rehearsal]


def python_without_t2t_lite(folder):
  """A virtual environment in `folder` whose Python sees this one's packages (a .pth file
  naming its site-packages, whose own .pth files then do not run: no editable t2t_lite)
  -> its python."""
  subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(folder)],
                 check=True)
  python = folder / "bin" / "python"
  site = subprocess.run([str(python), "-c", "import sysconfig; "
                         "print(sysconfig.get_paths()['purelib'])"],
                        check=True, capture_output=True, text=True).stdout.strip()
  with open(os.path.join(site, "project_packages.pth"), "w", encoding="utf-8") as f:
    f.write(sysconfig.get_paths()["purelib"] + "\n")
  found = subprocess.run([str(python), "-c", "import importlib.util; "
                          "print(importlib.util.find_spec('t2t_lite'))"], cwd=folder,
                         check=True, capture_output=True, text=True).stdout.strip()
  assert found == "None", found
  return str(python)


@pytest.fixture(scope="module")
def smoke_session(shared_data, tmp_path_factory):
  """(the completed `all` stage, its results folder, its runs folder)."""
  work = tmp_path_factory.mktemp("gpu_session")
  results, runs = work / "out", work / "runs"
  # The TensorFlow training row is left out: test_bench_gpu.py's smoke run has it.
  done = run(["bash", SCRIPT, "all"], cwd=ROOT, timeout=1200, env=environment(
      SMOKE="1", PYTHON=python_without_t2t_lite(work / "python"), TARGET=str(work / "target"),
      MULTI30K=os.path.join(shared_data, "multi30k"), RUNS=str(runs), OUT=str(results),
      ALL_BENCH_ARGS="--smoke --no_tf --torch_modes=compile"))
  return done, results, runs


def test_the_smoke_session_runs_every_stage_in_order(smoke_session):
  done, results, _ = smoke_session
  assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
  lines = (results / "stages.tsv").read_text(encoding="utf-8").splitlines()
  assert lines[0] == "stage\tseconds\texit status"
  stages = [line.split("\t") for line in lines[1:]]
  assert [stage for stage, _, _ in stages] == STAGES
  assert all(status == "0" for _, _, status in stages)


def test_the_two_replica_run_resumes_and_is_exported(smoke_session):
  _, results, runs = smoke_session
  log = (results / "replicas_train.log").read_text(encoding="utf-8")
  assert log.count("logical_gpus: 2 replicas on logical CPUs (no GPU)") == 2
  assert "Using MirroredStrategy with devices" in log
  assert 'model_checkpoint_path: "ckpt-2"' in log
  assert "resuming from" in log and "(step 2)" in log
  assert 'model_checkpoint_path: "ckpt-4"' in log
  assert (runs / "replicas" / "export" / "saved_model.pb").exists()
  assert (runs / "replicas" / "ctranslate2" / "model.bin").exists()


def test_serving_times_the_export_on_both_devices(smoke_session):
  _, results, _ = smoke_session
  [table] = json.loads((results / "serving.json").read_text(encoding="utf-8"))
  names = [row[0] for row in table["rows"]]
  assert names == ["SavedModel, one sentence at a time",
                   "SavedModel, batches of 64 sorted by length", "t2t-serve, 64 clients"]
  for row in table["rows"]:
    gpu, cores, gain = float(row[1].replace(",", "")), float(row[5].replace(",", "")), row[6]
    assert gpu > 0 and cores > 0 and gain.endswith("x")
  serve = table["rows"][2]
  assert serve[3] == "0"  # No request failed.
  assert serve[4] == "100.0%"  # Served answers are the offline batch's, on one machine.


def test_the_training_rows_run_within_the_minutes_left(smoke_session):
  _, results, _ = smoke_session
  saved = json.loads((results / "tf_training.json").read_text(encoding="utf-8"))
  kinds = [job["kind"] for job, _ in saved["rows"]]
  assert kinds[:2] == ["machine", "train_t2t_lite"]
  assert not [result["error"] for _, result in saved["rows"] if "error" in result]
  assert "--deadline_minutes=" in saved["command"]
