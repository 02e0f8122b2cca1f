"""One writer per directory (t2t_lite.files.writer_lock) and the directory swap that survives a kill
between its renames (t2t_lite.files.atomic_files.replacing_directory)."""

import fcntl
import json
import os
import signal
import sys

import pytest

from commands import start
from tiny_runs import snapshot
from t2t_lite.errors import UserError
from t2t_lite.files import writer_lock
from t2t_lite.files.atomic_files import replacing_directory

LOCK = writer_lock.LOCK_NAME


def foreign_lock(directory, pid=4242, host="elsewhere", command="t2t-trainer"):
  """Locks directory's lock file through a descriptor of its own, as another process holding
  it would (flock locks belong to an open file, not to a process) -> the descriptor."""
  os.makedirs(directory, exist_ok=True)
  fd = os.open(os.path.join(directory, LOCK), os.O_RDWR | os.O_CREAT)
  fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
  os.write(fd, json.dumps({"pid": pid, "host": host, "command": command}).encode())
  return fd


def lock_is_free(directory):
  fd = os.open(os.path.join(directory, LOCK), os.O_RDWR | os.O_CREAT)
  try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return True
  except BlockingIOError:
    return False
  finally:
    os.close(fd)


def test_the_holder_is_named_and_the_second_writer_changes_nothing(tmp_path):
  directory = tmp_path / "run"
  directory.mkdir()
  (directory / "hparams.json").write_text("{}")
  fd = foreign_lock(str(directory))
  before = snapshot(str(directory))
  with pytest.raises(UserError) as caught:
    with writer_lock.holding(str(directory)):
      (directory / "hparams.json").write_text("changed")  # Must not run.
  message = str(caught.value)
  assert "t2t-trainer (pid 4242 on host elsewhere)" in message and "\n" not in message
  assert snapshot(str(directory)) == before
  os.close(fd)


def test_the_lock_records_its_holder_and_leaves_nothing_behind(tmp_path):
  directory = str(tmp_path / "new")
  with writer_lock.holding(directory):
    with open(os.path.join(directory, LOCK), encoding="utf-8") as f:
      record = json.load(f)
    assert record["pid"] == os.getpid() and record["host"]
    assert not lock_is_free(directory)
    with writer_lock.holding(directory):  # Nested in one process: the same lock.
      assert writer_lock.holds(directory)
    assert writer_lock.holds(directory)
    (tmp_path / "new" / "result.txt").write_text("kept")
  assert os.listdir(directory) == ["result.txt"]
  assert not writer_lock.holds(directory)
  with writer_lock.holding(str(tmp_path / "unused")):
    pass
  assert sorted(os.listdir(tmp_path)) == ["new"]  # The directory it created, empty: removed.


def test_a_stale_lock_file_locks_nothing(tmp_path):
  """What kill -9 leaves: the file, with a dead holder's pid, and no lock on it."""
  directory = tmp_path / "run"
  directory.mkdir()
  (directory / LOCK).write_text(json.dumps({"pid": 1, "host": "gone", "command": "x"}))
  with writer_lock.holding(str(directory)):
    assert json.loads((directory / LOCK).read_text())["pid"] == os.getpid()
  assert os.listdir(directory) == []


def test_the_lock_outlives_the_directory_swap(tmp_path):
  target = str(tmp_path / "out")
  with writer_lock.holding(target):
    for text in ("first", "second"):
      with replacing_directory(target, "marker.json", "{}", "--out") as staging:
        with open(os.path.join(staging, "result.txt"), "w") as f:
          f.write(text)
      assert not lock_is_free(target), "the new directory's lock file is not held"
  assert lock_is_free(target)
  with open(os.path.join(target, "result.txt")) as f:
    assert f.read() == "second"


def test_a_second_writer_is_refused_before_the_swap_starts(tmp_path):
  target = str(tmp_path / "out")
  with replacing_directory(target, "marker.json", "{}", "--out") as staging:
    (tmp_path / "out.incomplete" / "result.txt").write_text("first")
  fd = foreign_lock(target, pid=77)
  before = snapshot(str(tmp_path))
  with pytest.raises(UserError, match=r"pid 77 on host elsewhere"):
    with replacing_directory(target, "marker.json", "{}", "--out") as staging:
      (tmp_path / "out.incomplete" / "result.txt").write_text("second")
  assert snapshot(str(tmp_path)) == before and not os.path.exists(staging)
  os.close(fd)


def interrupted_swap(tmp_path, with_staging=True):
  """What a process killed between the swap's two renames leaves: no `out`, the previous
  result in out.old and (with_staging) the complete new one in out.incomplete."""
  results = {"out.old": "previous"}
  if with_staging:
    results["out.incomplete"] = "new"
  for name, text in results.items():
    (tmp_path / name).mkdir()
    (tmp_path / name / "marker.json").write_text("{}")
    (tmp_path / name / "result.txt").write_text(text)
  return str(tmp_path / "out")


@pytest.mark.parametrize("with_staging, kept", [(True, "new"), (False, "previous")])
def test_a_failed_rerun_after_a_kill_mid_swap_loses_no_result(tmp_path, with_staging, kept):
  target = interrupted_swap(tmp_path, with_staging)
  with pytest.raises(RuntimeError), replacing_directory(target, "marker.json", "{}", "--out"):
    raise RuntimeError("the rerun failed")
  assert (tmp_path / "out" / "result.txt").read_text() == kept
  assert sorted(os.listdir(tmp_path)) == ["out"]
  with replacing_directory(target, "marker.json", "{}", "--out") as staging:  # And it goes on.
    (tmp_path / "out.incomplete" / "result.txt").write_text("third")
  assert (tmp_path / "out" / "result.txt").read_text() == "third"
  assert sorted(os.listdir(tmp_path)) == ["out"] and os.listdir(staging.rsplit(".", 1)[0])


def test_a_live_swap_is_not_taken_for_an_interrupted_one(tmp_path):
  """A process between its two renames holds the new directory's lock: a second process
  is refused and changes nothing."""
  target = interrupted_swap(tmp_path)
  fd = foreign_lock(str(tmp_path / "out.incomplete"), pid=99)
  before = snapshot(str(tmp_path))
  with pytest.raises(UserError, match="pid 99"):
    with replacing_directory(target, "marker.json", "{}", "--out"):
      pass
  assert snapshot(str(tmp_path)) == before and not os.path.exists(target)
  os.close(fd)


HOLD_SCRIPT = """
import sys, time
from t2t_lite.files.writer_lock import holding
with holding(sys.argv[1]):
  print("held", flush=True)
  time.sleep(600)
"""


@pytest.mark.slow  # A process holding the lock, killed with -9.
def test_kill_9_leaves_no_stale_lock(tmp_path):
  directory = str(tmp_path / "run")
  holder = start([sys.executable, "-c", HOLD_SCRIPT, directory])
  try:
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(UserError, match=rf"pid {holder.pid} on host "):
      with writer_lock.holding(directory):
        pass
  finally:
    holder.send_signal(signal.SIGKILL)
    holder.communicate()
  with writer_lock.holding(directory):
    assert writer_lock.holds(directory)


def refused_while_held(directory, tool, *args):
  """Runs `tool` while another process holds `directory` -> its error line; checks it
  exits 2 and changes nothing there."""
  from commands import call, error_line
  fd = foreign_lock(directory, pid=31337, command="t2t-something")
  before = snapshot(directory)
  try:
    result = call(tool, *args)
  finally:
    os.close(fd)
  assert result.returncode == 2, result.stderr[-2000:]
  assert snapshot(directory) == before
  line = error_line(result.stderr)
  assert line == (f"{tool}: error: {os.path.abspath(directory)} is being written by "
                  f"t2t-something (pid 31337 on host elsewhere); wait for it to finish or stop "
                  f"it, or pass another directory")
  return line


def test_every_writing_command_is_refused_while_another_writes(tmp_path_factory, tmp_path):
  from tiny_runs import TINY_HPARAMS, copy_run, tiny_run, tiny_text
  data_dir, shared_run = tiny_run(tmp_path_factory)
  run_dir = copy_run(shared_run, tmp_path / "run")
  refused_while_held(run_dir, "t2t-trainer", "--problem=translate_from_files",
                     f"--data_dir={data_dir}", f"--output_dir={run_dir}",
                     "--hparams_set=transformer_test_small", f"--hparams={TINY_HPARAMS}",
                     "--train_steps=5")
  refused_while_held(str(tmp_path / "average"), "t2t-avg-all", f"--model_dir={run_dir}",
                     f"--output_dir={tmp_path / 'average'}", "--n=2")
  refused_while_held(str(tmp_path / "export"), "t2t-exporter", f"--output_dir={run_dir}",
                     f"--export_dir={tmp_path / 'export'}")
  (tmp_path / "train.tsv").write_text(tiny_text(50))
  refused_while_held(str(tmp_path / "data"), "t2t-datagen", "--problem=translate_from_files",
                     f"--data_dir={tmp_path / 'data'}", f"--train_tsv={tmp_path / 'train.tsv'}",
                     "--vocab_size=100", "--noprogress")
