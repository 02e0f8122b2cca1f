"""t2t-datagen's --num_shards bounds: at most the train pairs, at most the files this process
may open at once (its soft limit raised up to the hard one where needed). Each refusal is one
line, and leaves the data directory as it was."""

import os
import resource

import pytest

from commands import call, one_line_error
from encoders import Lengths
from t2t_lite.data import records
from t2t_lite.data.problem import Sources
from tiny_runs import snapshot, tiny_text

PROBLEM = "translate_from_files"
PAIRS = 200


def sources(tmp_path):
  (tmp_path / "train.tsv").write_text(tiny_text(PAIRS), encoding="utf-8")
  (tmp_path / "dev.tsv").write_text(tiny_text(10), encoding="utf-8")
  return Sources(tmp_dir=str(tmp_path), tsv={split: str(tmp_path / f"{split}.tsv")
                                             for split in ("train", "dev")})


def generate(tmp_path, num_shards):
  from t2t_lite.registry import PROBLEMS
  return PROBLEMS[PROBLEM]().generate_data(str(tmp_path / "data"), sources(tmp_path),
                                           vocab_size=300, progress=False,
                                           num_shards=num_shards)


@pytest.fixture
def file_limits(monkeypatch):
  """The open-file limits this process sees, faked: {"soft", "hard", "set": [what
  setrlimit was given]}; setting one raises the fake soft limit."""
  limits = {"soft": 1024, "hard": 4096, "set": []}

  def setrlimit(which, values):
    assert which == resource.RLIMIT_NOFILE
    limits["set"].append(values)
    limits["soft"] = values[0]
  monkeypatch.setattr(resource, "getrlimit", lambda which: (limits["soft"], limits["hard"]))
  monkeypatch.setattr(resource, "setrlimit", setrlimit)
  return limits


@pytest.mark.parametrize("num_shards, soft, hard, refusal", [
    (PAIRS + 1, 1024, 4096, f"--num_shards={PAIRS + 1} is more than the {PAIRS} train pairs "
     f"(a file would hold no record); pass --num_shards={PAIRS} or fewer"),
    (100_000, 1024, 4096, "--num_shards=100000: writing them needs "),
    (5000, 1024, 4096, "--num_shards=5000: writing them needs "),
])
def test_num_shards_past_a_bound_is_refused_in_one_line_leaving_the_data(
    tmp_path, file_limits, num_shards, soft, hard, refusal):
  file_limits.update(soft=soft, hard=hard)
  generate(tmp_path, num_shards=2)  # Earlier data, kept.
  before = snapshot(tmp_path / "data")
  message = one_line_error(lambda: generate(tmp_path, num_shards))
  assert message.startswith(refusal)
  if "open files" in message:
    assert (f"open files at once, but this process may open at most {hard} (its hard "
            f"limit, ulimit -Hn); pass --num_shards=") in message
  assert snapshot(tmp_path / "data") == before


@pytest.mark.parametrize("num_shards, soft, raised", [
    (PAIRS, 1024, False),   # One record a file; room enough.
    (150, 100, True),       # Past the soft limit, within the hard one: raised.
])
def test_num_shards_within_the_bounds_writes_them(tmp_path, file_limits, num_shards, soft,
                                                  raised):
  file_limits.update(soft=soft, hard=4096)
  generate(tmp_path, num_shards)
  info = records.read_split_info(str(tmp_path / "data"), PROBLEM, "train")
  assert len(info.files) == num_shards and info.examples == PAIRS
  assert bool(file_limits["set"]) == raised
  if raised:
    assert all(num_shards < new_soft <= 4096 for new_soft, _ in file_limits["set"])


def test_the_command_refuses_num_shards_past_the_bounds_in_one_line(tmp_path):
  sources(tmp_path)
  result = call("t2t-datagen", f"--problem={PROBLEM}", f"--data_dir={tmp_path / 'data'}",
                f"--train_tsv={tmp_path / 'train.tsv'}", "--vocab_size=300",
                "--num_shards=100000", "--noprogress")
  assert result.returncode == 2 and "Traceback" not in result.stderr
  errors = [line for line in result.stderr.splitlines() if line.startswith("t2t-datagen:")]
  assert len(errors) == 1 and errors[0].startswith(
      "t2t-datagen: error: --num_shards=100000"), result.stderr[-2000:]
  assert not os.path.exists(tmp_path / "data") or not [
      name for name in os.listdir(tmp_path / "data") if name.endswith(".tfrecord")]


@pytest.mark.parametrize("soft, raised_to", [
    (resource.RLIM_INFINITY, None),  # Unlimited already: left so, not lowered to the need.
    (1024, "needed"),                # Raised to the need, the unlimited hard limit kept.
])
def test_an_unlimited_hard_limit(file_limits, soft, raised_to):
  from t2t_lite.data import shard_bounds
  file_limits.update(soft=soft, hard=resource.RLIM_INFINITY)
  shard_bounds.make_room_for(5000, processes=2)
  if raised_to is None:
    assert file_limits["set"] == []
  else:
    [(new_soft, new_hard)] = file_limits["set"]
    assert new_soft >= 5000 + 2 * shard_bounds.PER_PROCESS + shard_bounds.OTHER_FILES
    assert new_hard == resource.RLIM_INFINITY


def test_a_soft_limit_the_system_will_not_raise_is_one_line(file_limits, monkeypatch):
  from t2t_lite.data import shard_bounds

  def refuse(which, values):
    raise ValueError("not allowed to raise maximum limit")
  file_limits.update(soft=1024, hard=resource.RLIM_INFINITY)
  monkeypatch.setattr(resource, "setrlimit", refuse)
  message = one_line_error(lambda: shard_bounds.make_room_for(5_000_000, processes=2))
  assert message.startswith("--num_shards=5000000: writing them needs ")
  assert "but this process may open at most 1024 (the system refused more); pass " \
         "--num_shards=" in message


@pytest.mark.slow  # Starts encoding processes.
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts files in /proc")
def test_each_encoding_process_keeps_at_most_per_process_files_open_here():
  from t2t_lite.data.encoding_workers import EncodingWorkers
  from t2t_lite.data.shard_bounds import PER_PROCESS
  processes = 3
  before = len(os.listdir("/proc/self/fd"))
  with EncodingWorkers(Lengths(), processes) as workers:
    assert list(workers.encode_in_order([[1], [1, 2], [1, 2, 3]])) == [1, 2, 3]
    opened = len(os.listdir("/proc/self/fd")) - before
  # Beside those, one pipe to multiprocessing's resource tracker, for all, on the first start.
  assert processes * PER_PROCESS <= opened <= processes * PER_PROCESS + 1
