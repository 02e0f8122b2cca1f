"""Shared fixtures: the real data beside the project, and quiet TensorFlow.

Tiers: `make test-fast` runs the unit tier (`-m "not slow"`); tests marked `slow`
(subprocesses, training runs beyond a few steps) run only in the full `make test`.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# Test processes side by side (pytest-xdist's workers) share the cores: each one's ops
# compute on its share of them (the commands it starts too), rather than every process's
# threads spinning on every core. (Inter-op threads stay: two replicas' collectives wait
# on each other.)
os.environ.setdefault("TF_NUM_INTRAOP_THREADS", str(max(
    1, (os.cpu_count() or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", 1)))))

import pytest  # noqa: E402

from built_once import built_once  # noqa: E402
from tier_record import finish, start  # noqa: E402
from t2t_lite.quiet import import_tensorflow  # noqa: E402


# Fixtures that train or run commands: a test that uses one is in the full tier
# (`europarl`: test_datagen's t2t-datagen run; `jax_checks`: a process on the JAX backend;
# `two_replicas_check`: bench.gpu.two_replicas's process).
SLOW_FIXTURES = {"trained_run", "europarl", "jax_checks", "two_replicas_check"}


def pytest_configure(config):
  config.addinivalue_line(
      "markers", "slow: starts a subprocess or trains beyond a few steps (full tier only)")
  config.addinivalue_line(
      "markers", "gpu_rehearsal: the GPU session's script rehearsed on the CPU, minutes "
      "(make rehearse-gpu only: a GPU session runs it before its device time)")
  # TensorFlow is loaded once per process that runs tests, here (quietly, as the commands
  # load it): its first import runs a helper command (`uname -p`), which the unit tier's
  # guard below would refuse inside a test. pytest-xdist's controller (`-n N`) runs none:
  # its workers start that much sooner.
  if not config.getoption("numprocesses", None) or hasattr(config, "workerinput"):
    import_tensorflow()


def pytest_sessionstart(session):
  start(session)


def pytest_sessionfinish(session):
  finish(session)  # The tier's record, where T2T_TEST_RECORD asks for one.


def pytest_collection_modifyitems(items):
  for item in items:
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
      item.add_marker(pytest.mark.slow)
  # Files with slow tests first: pytest-xdist (`make test` passes --no-loadscope-reorder)
  # then hands out the long files first and the short unit files fill the gaps at the end,
  # so that the workers finish together.
  slow_files = {item.path for item in items if item.get_closest_marker("slow")}
  items.sort(key=lambda item: item.path not in slow_files)


@pytest.fixture(autouse=True)
def unit_tier_starts_no_subprocess(request, monkeypatch):
  """In the unit tier (`-m "not slow"`), a test that starts a subprocess fails and says
  to mark it `slow`."""
  if request.config.getoption("markexpr") != "not slow":
    return
  import subprocess

  def refuse(self, args, *unused, **kwargs):
    raise AssertionError(f"{request.node.nodeid} starts a subprocess ({args!r}): mark it "
                         f"@pytest.mark.slow (the unit tier runs none)")
  monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


SHARED_DATA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))


@pytest.fixture(scope="session")
def shared_data():
  """Path of `../shared/data`: skips the test when absent, fails when under CI."""
  if not os.path.isdir(SHARED_DATA):
    if os.environ.get("CI"):
      pytest.fail(f"CI is set but the real data folder {SHARED_DATA} is missing")
    pytest.skip(f"real data folder {SHARED_DATA} is absent (it sits beside the project)")
  return SHARED_DATA


@pytest.fixture(scope="session")
def jax_checks(tmp_path_factory):
  """What tests/jax_checks.py (every check on Keras's JAX backend, in one process) printed,
  and the folder it saved arrays in: {"stdout", "stderr", "out_dir"}; run once per test run,
  each JAX test reads its own lines (or files)."""
  from commands import environment, run_script

  def check(directory):
    result = run_script("jax_checks.py", directory,
                        env=environment(KERAS_BACKEND="jax", JAX_PLATFORMS="cpu"))
    return {"stdout": result.stdout, "stderr": result.stderr, "out_dir": str(directory)}

  return built_once(tmp_path_factory, "jax_checks", check)


@pytest.fixture(scope="session")
def two_replicas_check(tmp_path_factory):
  """`python -m bench.gpu.two_replicas --cpu` (tests/distribution_check.py's one-device,
  accumulated and two-logical-CPU updates, compared), run once per test run and keeping
  the updates: {"returncode", "stdout", "stderr", "results_dir"} (results_dir holds
  <mode>.npz for single, single_xla, accumulate, mirrored and mirrored_xla)."""
  from commands import environment, run
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

  def check(directory):
    results_dir = str(directory / "results")
    result = run([sys.executable, "-m", "bench.gpu.two_replicas", "--cpu",
                  f"--results_dir={results_dir}"], cwd=root, env=environment())
    return {"returncode": result.returncode, "stdout": result.stdout,
            "stderr": result.stderr, "results_dir": results_dir}

  return built_once(tmp_path_factory, "two_replicas_check", check)


@pytest.fixture(scope="session")
def small_translation_data(shared_data, tmp_path_factory):
  """A data_dir of `translate_from_files` made from 1,200 real Europarl pairs (vocab 1,000),
  with 100 newstest2013 pairs as dev (each evaluation reads them all): (problem, data_dir)."""
  from problems_for_tests import translate_from_files
  data_dir = built_once(tmp_path_factory, "small_translation",
                        lambda work: _generate_small_translation_data(shared_data, work))
  return translate_from_files(), data_dir


def _generate_small_translation_data(shared_data, work):
  from t2t_lite.data.problem import Sources
  from problems_for_tests import translate_from_files
  europarl = os.path.join(shared_data, "europarl", "europarl-v7.de-en.first20k")
  newstest = os.path.join(shared_data, "wmt14", "newstest2013")
  files = {}
  for split, stem, count in (("train", europarl, 1200), ("dev", newstest, 100)):
    for side, language in (("source", "en"), ("target", "de")):
      with open(f"{stem}.{language}", encoding="utf-8") as f:
        lines = [next(f) for _ in range(count)]
      path = work / f"{split}.{side}"
      path.write_text("".join(lines), encoding="utf-8")
      files.setdefault(split, []).append(str(path))
  data_dir = str(work / "data")
  translate_from_files().generate_data(
      data_dir, Sources(tmp_dir=str(work / "tmp"), files={k: tuple(v) for k, v in files.items()}),
      vocab_size=1000, progress=False)
  return data_dir


@pytest.fixture
def run_copy(tmp_path_factory, tmp_path):
  """A copy of the tiny run (tiny_runs.py) for the test to break: its output_dir."""
  from tiny_runs import copy_run, tiny_run
  _, output_dir = tiny_run(tmp_path_factory)
  return copy_run(output_dir, tmp_path / "run")


@pytest.fixture(scope="session")
def trained_run(small_translation_data, tmp_path_factory):
  """A 60-step t2t-trainer run on the small data: evaluations (with decoding) every 20
  steps, a checkpoint every 20. -> (data_dir, output_dir, printed output)."""
  from trainer_runs import run_trainer
  _, data_dir = small_translation_data

  def train(output_dir):
    result = run_trainer(data_dir, str(output_dir), "--train_steps=60",
                         "--local_eval_frequency=20", "--eval_steps=0",
                         "--save_checkpoints_steps=20", "--random_seed=1",
                         "--eval_decode_sentences=20",
                         "--decode_hparams=beam_size=2,extra_length=10")
    assert result.returncode == 0, result.stderr[-3000:]
    return [str(output_dir), result.stdout + result.stderr]

  output_dir, printed = built_once(tmp_path_factory, "trained_run", train)
  return data_dir, output_dir, printed
