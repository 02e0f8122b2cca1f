"""t2t-datagen supervises its encoding processes: one killed (kill -9) ends the command at
once with one line naming it, exit status 2, no staging folder left and the data directory
as it was before; also when it dies half-way through sending a result."""

import errno
import os
import signal
import subprocess
import time

import pytest

from commands import call, command_path, one_line_error, start
from encoders import DyingEncoder
from t2t_lite.data.encoding_workers import (PROCESSES_PER_CORE, EncodingWorkers,
                                            check_process_count, ending)
from t2t_lite.errors import UserError
from tiny_runs import snapshot, tiny_data, tiny_text

# A problem whose writing pass, once the encoding processes have started (after 16 batches
# of 1,024 pairs encoded in the command's own process), gives its pairs slowly: its
# processes are alive for as long as the test needs to find and kill one.
SLOW_PROBLEM = """
import time
from t2t_lite.data.problem import TextPairProblem
from t2t_lite.registry import PROBLEMS

@PROBLEMS.register
class SlowCorpus(TextPairProblem):
  vocab_size = 300
  passes = 0

  def text_pairs(self, split, sources):
    if split != "train":
      return
    SlowCorpus.passes += 1
    for i in range(60_000):
      if SlowCorpus.passes == 2 and i > 20_000:
        time.sleep(0.002)
      yield f"the number {i} is here", f"die Nummer {i} ist hier"
"""
WAIT_SECONDS = 120  # For the command to start its processes, and to end: never reached.


def encoding_processes(pid):
  """The pids of the encoding processes `pid` spawned (its children running spawn_main)."""
  try:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
      children = [int(child) for child in f.read().split()]
  except OSError:
    return []
  found = []
  for child in children:
    try:
      with open(f"/proc/{child}/cmdline", "rb") as f:
        if b"spawn_main" in f.read():
          found.append(child)
    except OSError:
      pass
  return found


def first_encoding_process(process):
  deadline = time.monotonic() + WAIT_SECONDS
  while time.monotonic() < deadline and process.poll() is None:
    found = encoding_processes(process.pid)
    if found:
      return found[0]
    time.sleep(0.1)
  process.kill()
  raise AssertionError("t2t-datagen started no encoding process: "
                       + process.communicate()[1][-3000:])


@pytest.mark.slow  # t2t-datagen as a subprocess, with its encoding processes.
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="finds processes in /proc")
def test_a_killed_encoding_process_ends_datagen_at_once_in_one_line(tmp_path):
  package = tmp_path / "slow_problem"
  package.mkdir()
  (package / "__init__.py").write_text(SLOW_PROBLEM, encoding="utf-8")
  data_dir = tiny_data(str(tmp_path / "earlier"))  # Data of another problem, kept.
  before = snapshot(data_dir)
  process = start([command_path("t2t-datagen"), f"--t2t_usr_dir={package}",
                   "--problem=slow_corpus", f"--data_dir={data_dir}", "--noprogress",
                   "--num_concurrent_processes=2"])
  victim = first_encoding_process(process)
  time.sleep(0.5)
  workers = encoding_processes(process.pid)
  os.kill(victim, signal.SIGKILL)
  try:
    _, stderr = process.communicate(timeout=WAIT_SECONDS)
  except subprocess.TimeoutExpired:
    process.kill()
    raise AssertionError("t2t-datagen went on after its encoding process was killed: "
                         + process.communicate()[1][-3000:]) from None
  assert process.returncode == 2, stderr[-3000:]
  assert "Traceback" not in stderr
  lines = [line for line in stderr.splitlines() if line.startswith("t2t-datagen:")]
  assert len(lines) == 1, stderr[-3000:]
  assert lines[0].startswith("t2t-datagen: error: encoding process ")
  assert f" of 2 (pid {victim}) ended unexpectedly (killed by SIGKILL, out of memory?); " \
         f"run t2t-datagen again" in lines[0]
  assert snapshot(data_dir) == before  # No staging folder, no shard of slow_corpus.
  assert not [pid for pid in workers if alive(pid)]  # The other one ended with it.


def alive(pid):
  try:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
      return f.read().rsplit(")", 1)[1].split()[0] != "Z"
  except OSError:
    return False


def test_more_encoding_processes_than_the_cores_carry_are_refused_in_one_line(tmp_path):
  check_process_count(2 * PROCESSES_PER_CORE, cores=2)  # At the bound: accepted.
  bound = 2 * PROCESSES_PER_CORE
  assert one_line_error(lambda: check_process_count(1000, cores=2)) == (
      f"--num_concurrent_processes=1000: more encoding processes than this machine's bound "
      f"of {bound} ({PROCESSES_PER_CORE} a core, 2 core(s)); pass "
      f"--num_concurrent_processes={bound} or fewer (the default is one a core)")
  (tmp_path / "train.tsv").write_text(tiny_text(10), encoding="utf-8")
  result = call("t2t-datagen", "--problem=translate_from_files",
                f"--data_dir={tmp_path / 'data'}", f"--train_tsv={tmp_path / 'train.tsv'}",
                "--num_concurrent_processes=100000", "--noprogress")
  assert result.returncode == 2 and result.stderr.strip().splitlines()[-1].startswith(
      "t2t-datagen: error: --num_concurrent_processes=100000: more encoding processes")
  assert not os.path.exists(tmp_path / "data")  # Refused before any work.


def test_how_a_process_ended_is_said_in_words():
  assert ending(-signal.SIGKILL) == "killed by SIGKILL, out of memory?"
  assert ending(-signal.SIGTERM) == "killed by SIGTERM"
  assert ending(1) == "exit status 1"


BIG = "x" * 10_000_000  # A batch more than a pipe holds.


@pytest.mark.slow  # Starts encoding processes.
@pytest.mark.parametrize("batches, dead", [
    (["wait", "die while sending"], 2),  # Its result half-way through its pipe, unread.
    (["die", "wait", BIG, BIG], 1),      # While batches are sent to it.
])
def test_a_killed_process_is_named_without_waiting_for_the_others(batches, dead):
  """The results are taken in order, the first process waits a minute: the killed one is
  named at once, not a minute later (nor never, as when the processes shared queues)."""
  started = time.monotonic()
  with pytest.raises(UserError) as caught:
    with EncodingWorkers(DyingEncoder(), processes=2) as workers:
      list(workers.encode_in_order(batches))
  assert str(caught.value).startswith(f"encoding process {dead} of 2 (pid ")
  assert "ended unexpectedly (killed by SIGKILL, out of memory?)" in str(caught.value)
  assert time.monotonic() - started < 60  # The waiting one was not waited for.


def test_the_flags_help_gives_the_bound_of_encoding_processes():
  from t2t_lite.bin.t2t_datagen import DatagenFlags
  help_text = DatagenFlags.__dataclass_fields__["num_concurrent_processes"].metadata
  assert f"at most {PROCESSES_PER_CORE} a core" in str(help_text)


def open_pipes():
  """The pipes this process holds open, each by its inode ("pipe:[1234]"): files that other
  threads close meanwhile (garbage from earlier tests) do not count."""
  targets = set()
  for fd in os.listdir("/proc/self/fd"):
    try:
      targets.add(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # Closed since it was listed.
      pass
  return {target for target in targets if target.startswith("pipe:")}


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc")


@needs_proc
def test_a_process_that_cannot_start_is_one_line_leaving_no_pipe_open(monkeypatch):
  import multiprocessing.context

  def no_process_left(self):
    raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
  monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", no_process_left)
  before = open_pipes()
  assert one_line_error(lambda: EncodingWorkers(DyingEncoder(), processes=2)) == (
      f"encoding process 1 of 2 could not start ({os.strerror(errno.EAGAIN)}); run "
      f"t2t-datagen again, with --num_concurrent_processes=1 to encode in one process")
  assert open_pipes() - before == set()


class StartedProcess:
  """A process as EncodingWorkers starts and ends it, started by nothing; it records the
  SIGINT handler in force at its start (what a spawned process inherits)."""
  made = []

  def __init__(self, target, args, name, daemon):
    self.name, self.pid, self.exitcode, self.sentinel = name, None, None, None
    self.started = self.terminated = False
    self.sigint_at_start = None
    StartedProcess.made.append(self)

  def start(self):
    self.started, self.sigint_at_start = True, signal.getsignal(signal.SIGINT)

  def is_alive(self):
    return self.started and not self.terminated

  def terminate(self):
    self.terminated = True

  kill = terminate

  def join(self, timeout=None):
    pass


class InterruptedEncoder:
  """An encoder whose sending is interrupted by a Ctrl-C."""

  def __reduce__(self):
    raise KeyboardInterrupt


@needs_proc
def test_a_ctrl_c_after_the_starts_ends_every_process_leaving_no_pipe_open(monkeypatch):
  import multiprocessing.context
  monkeypatch.setattr(multiprocessing.context.SpawnContext, "Process", StartedProcess)
  monkeypatch.setattr(StartedProcess, "made", [])
  handler = signal.getsignal(signal.SIGINT)
  before = open_pipes()
  with pytest.raises(KeyboardInterrupt):
    EncodingWorkers(InterruptedEncoder(), processes=3)
  assert [(each.started, each.sigint_at_start, each.terminated)
          for each in StartedProcess.made] == 3 * [(True, signal.SIG_IGN, True)]
  assert open_pipes() - before == set()
  assert signal.getsignal(signal.SIGINT) is handler  # Ignored only while each started.


@pytest.mark.slow  # Starts encoding processes.
def test_the_processes_ignore_a_ctrl_c_from_their_start(capfd):
  """A terminal's Ctrl-C reaches every process of its group, those still starting up too:
  they ignore it (the parent, whose Ctrl-C it is, ends them)."""
  import multiprocessing
  with EncodingWorkers(DyingEncoder(), processes=2) as workers:
    started = multiprocessing.active_children()
    assert len(started) == 2
    for process in started:
      os.kill(process.pid, signal.SIGINT)
    assert list(workers.encode_in_order(["ab", "abc", "abcd"])) == [2, 3, 4]
  assert "Traceback" not in capfd.readouterr().err
