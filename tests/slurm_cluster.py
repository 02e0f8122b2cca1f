"""A real one-node Slurm cluster for a test: Debian's slurm-wlm daemons (slurmctld and
slurmd) and munge, started from a generated slurm.conf in a temporary directory, then
`srun` as a user types it. When something is missing or will not start, the test skips
and says what.

    with one_node_slurm(directory) as slurm:
      result = slurm.srun(["--ntasks=2", "--resv-ports=2", "t2t-trainer", ...])

What the container needs (no systemd, no cgroup controllers for Slurm): process tracking
by /proc (proctrack/linuxproc), no task binding (task/none), no accounting; the node may
differ from its configured CPUs (SlurmdParameters=config_overrides); every daemon runs as
this user with its files and sockets in the directory, on free ports.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import time

import pytest

from commands import environment
from replica_runs import free_port

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "srun", "sinfo", "squeue")
INSTALL = "apt-get install slurm-wlm (it brings munge)"
START_TIMEOUT_S = 60

SLURM_CONF = """\
ClusterName=t2ttest
SlurmctldHost=localhost
SlurmUser={user}
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={munge_socket}
CredType=cred/munge
SlurmctldPort={controller_port}
SlurmdPort={node_port}
StateSaveLocation={directory}/state
SlurmdSpoolDir={directory}/spool
SlurmctldPidFile={directory}/slurmctld.pid
SlurmdPidFile={directory}/slurmd.pid
SlurmctldLogFile={directory}/slurmctld.log
SlurmdLogFile={directory}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MpiParams=ports={first_port}-{last_port}
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
"""


class OneNodeSlurm:
  """The running cluster: `srun` and where its configuration is."""

  def __init__(self, directory):
    self.directory = directory
    self.conf = os.path.join(directory, "slurm.conf")

  def environment(self, **extra):
    """The test's environment (without TF_CONFIG) pointed at this cluster."""
    return environment(SLURM_CONF=self.conf, **extra)

  def srun(self, args, timeout=600):
    """`srun ARGS` -> CompletedProcess (stdout and stderr as text)."""
    return subprocess.run(["srun", *args], capture_output=True, text=True, timeout=timeout,
                          env=self.environment())


@contextlib.contextmanager
def one_node_slurm(directory):
  """Starts munged, slurmctld and slurmd in `directory` -> OneNodeSlurm; stops them after.
  Skips the test, naming what is missing, where Slurm cannot run."""
  missing = [name for name in DAEMONS if not shutil.which(name)]
  if missing:
    pytest.skip(f"Slurm is not installed here (no {', '.join(missing)}): {INSTALL}")
  if os.geteuid() != 0:
    pytest.skip("slurmd must run as root to start tasks as their user; this test is not root")
  directory = str(directory)
  for name in ("state", "spool", "munge"):
    os.makedirs(os.path.join(directory, name), exist_ok=True)
  slurm = OneNodeSlurm(directory)
  processes = []
  try:
    munge_socket = _start_munge(directory, processes)
    first_port = free_port()
    with open(slurm.conf, "w", encoding="utf-8") as f:
      f.write(SLURM_CONF.format(
          user="root", munge_socket=munge_socket, controller_port=free_port(),
          node_port=free_port(), directory=directory, first_port=first_port,
          last_port=first_port + 15, cpus=os.cpu_count()))
    env = slurm.environment()
    processes.append(_start(["slurmctld", "-D", "-i", "-f", slurm.conf], directory,
                            "slurmctld", env))
    processes.append(_start(["slurmd", "-D", "-N", "localhost", "-f", slurm.conf], directory,
                            "slurmd", env))
    _wait_for_the_node(slurm, processes)
    yield slurm
    _wait_for_the_jobs(slurm)  # Stopped before, a step's slurmstepd would wait on forever.
  finally:
    for process in reversed(processes):
      if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    for process in reversed(processes):
      try:
        process.wait(timeout=30)
      except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    _end_what_is_left(slurm.conf)


def _start_munge(directory, processes):
  """munged with a key of its own in `directory` -> its socket's path."""
  munge = os.path.join(directory, "munge")
  key = os.path.join(munge, "munge.key")
  subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True,
                 capture_output=True)
  os.chmod(key, 0o400)
  socket = os.path.join(munge, "munge.socket")
  processes.append(_start(
      ["munged", "--foreground", "--force", f"--socket={socket}", f"--key-file={key}",
       f"--pid-file={munge}/munged.pid", f"--log-file={munge}/munged.log",
       f"--seed-file={munge}/munged.seed"], directory, "munged", environment()))
  _wait(lambda: os.path.exists(socket), processes, "munged", directory)
  return socket


def _start(argv, directory, name, env):
  log = open(os.path.join(directory, f"{name}.out"), "w", encoding="utf-8")
  with log:
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def _wait_for_the_node(slurm, processes):
  def idle():
    result = subprocess.run(["sinfo", "--noheader", "--format=%T"], capture_output=True,
                            text=True, env=slurm.environment())
    return result.stdout.strip() == "idle"
  _wait(idle, processes, "slurmd", slurm.directory)


def _wait_for_the_jobs(slurm, timeout=30):
  """Waits until the controller lists no job (each step's slurmstepd has reported)."""
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    result = subprocess.run(["squeue", "--noheader"], capture_output=True, text=True,
                            env=slurm.environment())
    if result.returncode == 0 and not result.stdout.strip():
      return
    time.sleep(0.2)


def _end_what_is_left(conf):
  """Kills what this cluster started and left (a slurmstepd, a task): the processes whose
  environment names its slurm.conf, which no other cluster has."""
  mark = f"SLURM_CONF={conf}".encode()
  for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) == os.getpid():
      continue
    try:
      with open(f"/proc/{name}/environ", "rb") as f:
        if mark in f.read().split(b"\0"):
          os.kill(int(name), signal.SIGKILL)
    except OSError:
      continue


def _wait(ready, processes, name, directory):
  """Waits until `ready()`; skips the test, with the last lines the daemons wrote, when one
  of them ends or START_TIMEOUT_S pass first."""
  deadline = time.monotonic() + START_TIMEOUT_S
  while time.monotonic() < deadline:
    if ready():
      return
    ended = [process for process in processes if process.poll() is not None]
    if ended:
      break
    time.sleep(0.2)
  pytest.skip(f"Slurm could not start here ({name} not ready): {_last_lines(directory)}")


def _last_lines(directory, count=3):
  """The last lines of each daemon's output in `directory`, on one line."""
  lines = []
  for name in sorted(os.listdir(directory)):
    if name.endswith((".out", ".log")):
      with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as f:
        tail = [line.strip() for line in f.read().splitlines()[-count:] if line.strip()]
      lines += [f"{name}: {line}" for line in tail]
  return " | ".join(lines) or "no output"
