"""A worker waiting for the others of its cluster (t2t_lite.distribute.cluster_forming): it
goes on once every other task answers, ends with one line naming those that have not within
--cluster_timeout_seconds or when its own port is taken, and a signal ends the wait at once
with 128 + the signal, through t2t-trainer as a cluster manager starts it."""

import collections
import errno
import json
import os
import signal
import socket
import threading
import time

import pytest

from commands import command_path, environment, error_line, one_line_error, read_until, start
from replica_runs import free_port
from t2t_lite.distribute.cluster import Cluster
from t2t_lite.distribute.cluster_connecting import SHORTEST_CONNECT_SECONDS
from t2t_lite.distribute.cluster_forming import listing, wait_for_the_cluster

# A signal ends the wait within this (it takes a fraction of a second; a loaded machine
# slows the process's exit, never the signal's handling).
AT_ONCE_SECONDS = 20


def listening_socket():
  """A socket listening on a free port of loopback, as a started peer is."""
  peer = socket.socket()
  peer.bind(("127.0.0.1", 0))
  peer.listen()
  return peer


def worker(addresses, index):
  """Worker `index` of a TF_CONFIG cluster of `addresses`."""
  return Cluster("TF_CONFIG", {"worker": addresses}, "worker", index, resolver=None)


def test_the_wait_ends_once_every_other_task_answers():
  with listening_socket() as peer:
    other = f"127.0.0.1:{peer.getsockname()[1]}"
    started = time.monotonic()
    wait_for_the_cluster(worker([other, f"127.0.0.1:{free_port()}"], 1), timeout_seconds=60)
    assert time.monotonic() - started < AT_ONCE_SECONDS


def test_a_task_that_never_answers_is_named_after_the_timeout():
  with listening_socket() as peer:
    up, down = f"localhost:{peer.getsockname()[1]}", f"127.0.0.1:{free_port()}"
    cluster = worker([f"127.0.0.1:{free_port()}", up, down], 0)
    message = one_line_error(lambda: wait_for_the_cluster(cluster, timeout_seconds=1))
  assert message == (
      f"the cluster did not form within --cluster_timeout_seconds=1: no answer from worker 2 "
      f"({down}); start every task (TF_CONFIG names 3), check that this machine reaches their "
      f"addresses, or pass a larger --cluster_timeout_seconds (0: wait for ever); see "
      f"docs/clusters.md")


def test_a_port_another_process_holds_is_named():
  with listening_socket() as holder:
    address = f"127.0.0.1:{holder.getsockname()[1]}"
    cluster = worker([f"127.0.0.1:{free_port()}", address], 1)
    assert one_line_error(lambda: wait_for_the_cluster(cluster, timeout_seconds=60)) == (
        f"TF_CONFIG makes this process worker 1 at {address}, but another process on this "
        f"machine already listens on port {holder.getsockname()[1]}: stop it, or give this "
        f"task another port; see docs/clusters.md")


class MadeSockets:
  """socket.socket as the waiting task calls it, each socket it makes kept to check that it
  was closed, and each listen's backlog; `faults[(family, n)]`, an errno or "dual stack",
  fails the n-th socket of that family (0: every one) on its making, or on clearing
  IPV6_V6ONLY."""

  def __init__(self, monkeypatch):
    self.made, self.backlogs, self.faults = [], [], {}
    self._counts = collections.Counter()
    monkeypatch.setattr(socket, "socket", self._socket)

  def _socket(self, family=socket.AF_INET, kind=socket.SOCK_STREAM, protocol=0):
    self._counts[family] += 1
    fault = self.faults.get((family, self._counts[family]), self.faults.get((family, 0)))
    if isinstance(fault, int):
      raise OSError(fault, os.strerror(fault))
    made = _Recorded(family, kind, protocol)
    made.owner, made.dual_stack = self, fault != "dual stack"
    self.made.append(made)
    return made

  def all_closed(self):
    return all(made.fileno() == -1 for made in self.made)


class _Recorded(socket.socket):
  def setsockopt(self, level, option, value):
    if option == socket.IPV6_V6ONLY and not self.dual_stack:
      raise OSError(errno.ENOPROTOOPT, os.strerror(errno.ENOPROTOOPT))
    super().setsockopt(level, option, value)

  def listen(self, backlog):
    self.owner.backlogs.append((self.family, backlog))
    super().listen(backlog)


def resolving_to(monkeypatch, targets):
  """Every host name resolves to `targets`: [(family, sockaddr)]."""
  monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: [
      (family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr)
      for family, sockaddr in targets])


def test_an_address_family_this_machine_lacks_is_skipped_for_the_hosts_others(monkeypatch):
  """No IPv6 here (socket() says EAFNOSUPPORT): the task listens on IPv4, and finds the peer
  at its IPv4 address, its IPv6 one skipped."""
  with listening_socket() as peer:
    port, this = peer.getsockname()[1], f"127.0.0.1:{free_port()}"
    resolving_to(monkeypatch, [(socket.AF_INET6, ("::1", port, 0, 0)),
                               (socket.AF_INET, ("127.0.0.1", port))])
    sockets = MadeSockets(monkeypatch)
    sockets.faults[socket.AF_INET6, 0] = errno.EAFNOSUPPORT
    wait_for_the_cluster(worker([this, f"peer:{port}"], 0), timeout_seconds=60)
  assert sockets.backlogs == [(socket.AF_INET, socket.SOMAXCONN)]
  assert sockets.all_closed()


def test_a_listener_without_dual_stack_listens_on_ipv4_leaving_nothing_open(monkeypatch):
  with listening_socket() as peer:
    other, this = f"127.0.0.1:{peer.getsockname()[1]}", f"127.0.0.1:{free_port()}"
    sockets = MadeSockets(monkeypatch)
    sockets.faults[socket.AF_INET6, 0] = "dual stack"
    wait_for_the_cluster(worker([this, other], 0), timeout_seconds=60)
  assert sockets.backlogs == [(socket.AF_INET, socket.SOMAXCONN)]
  assert sockets.all_closed()  # The IPv6 socket too, closed when it could not take IPv4.


def test_connections_this_process_cannot_open_are_one_line_leaving_nothing_open(monkeypatch):
  """The second socket of a host's two addresses fails (no file descriptor left): one line,
  and the first, already connecting, is closed."""
  with listening_socket() as peer:
    port, this = peer.getsockname()[1], f"127.0.0.1:{free_port()}"
    resolving_to(monkeypatch, 2 * [(socket.AF_INET, ("127.0.0.1", port))])
    sockets = MadeSockets(monkeypatch)
    sockets.faults[socket.AF_INET6, 0] = errno.EAFNOSUPPORT  # Listening on IPv4: the first.
    sockets.faults[socket.AF_INET, 3] = errno.EMFILE
    message = one_line_error(lambda: wait_for_the_cluster(worker([this, f"peer:{port}"], 0),
                                                          timeout_seconds=60))
  assert message == ("this task cannot open connections to see whether the other tasks of "
                     "its cluster have started (Too many open files): raise this process's "
                     "open-file limit (ulimit -n); see docs/clusters.md")
  assert len(sockets.made) == 2 and sockets.all_closed()


def test_a_resolver_that_hangs_holds_up_neither_the_deadline_nor_the_other_tasks(monkeypatch):
  """The name of worker 2 never resolves (its lookup hangs): worker 1's answer is still seen,
  and the timeout ends the wait on time, naming worker 2 alone."""
  released = threading.Event()
  looked_up = socket.getaddrinfo

  def hanging_for_slow(host, *args, **kwargs):
    if host == "slow":
      released.wait(60)
      raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    return looked_up(host, *args, **kwargs)

  monkeypatch.setattr(socket, "getaddrinfo", hanging_for_slow)
  try:
    with listening_socket() as peer:
      up, down = f"127.0.0.1:{peer.getsockname()[1]}", f"slow:{free_port()}"
      cluster = worker([f"127.0.0.1:{free_port()}", up, down], 0)
      started = time.monotonic()
      message = one_line_error(lambda: wait_for_the_cluster(cluster, timeout_seconds=2))
      waited = time.monotonic() - started
  finally:
    released.set()
  assert message.startswith(f"the cluster did not form within --cluster_timeout_seconds=2: no "
                            f"answer from worker 2 ({down}); ")
  assert waited < 2 + 3 * 0.5 + AT_ONCE_SECONDS / 4  # Three half-second steps a round at most.


def test_a_long_list_of_missing_tasks_is_cut_short():
  tasks = {f"worker {index}": f"node{index}:2222" for index in range(10)}
  assert listing(tasks) == (", ".join(f"worker {index} (node{index}:2222)"
                                      for index in range(8)) + " and 2 more")


def waiting_trainer(tmp_path, addresses, index, *flags):
  """t2t-trainer as worker `index` of `addresses` (stdout and stderr merged), whose others
  were never started."""
  tf_config = json.dumps({"cluster": {"worker": addresses},
                          "task": {"type": "worker", "index": index}})
  return start([command_path("t2t-trainer"), "--problem=translate_from_files",
                f"--data_dir={tmp_path / 'data'}", f"--output_dir={tmp_path / f'run{index}'}",
                "--hparams_set=transformer_tiny", *flags],
               env=dict(environment(), TF_CONFIG=tf_config), merge_stderr=True)


@pytest.mark.slow
@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_wait_at_once(tmp_path, sent):
  missing = f"127.0.0.1:{free_port()}"
  process = waiting_trainer(tmp_path, [missing, f"127.0.0.1:{free_port()}"], 1)
  try:
    read_until(process, rf"waiting for the cluster to form .*no answer yet from worker 0 "
                        rf"\({missing}\)")
    process.send_signal(sent)
    signalled = time.monotonic()
    output, _ = process.communicate(timeout=AT_ONCE_SECONDS)
  finally:
    process.kill()
  assert time.monotonic() - signalled < AT_ONCE_SECONDS
  assert process.returncode == 128 + sent, output[-3000:]
  assert error_line(output) == (f"t2t-trainer: {signal.Signals(sent).name} before training "
                                f"began: nothing to save yet")
  assert "Traceback" not in output


@pytest.mark.slow
def test_the_trainer_names_the_worker_that_never_started(tmp_path):
  missing = f"127.0.0.1:{free_port()}"
  process = waiting_trainer(tmp_path, [f"127.0.0.1:{free_port()}", missing], 0,
                            "--cluster_timeout_seconds=2")
  output, _ = process.communicate(timeout=120)
  assert process.returncode == 2, output[-3000:]
  assert error_line(output).startswith(
      f"t2t-trainer: error: the cluster did not form within --cluster_timeout_seconds=2: no "
      f"answer from worker 1 ({missing}); ")
  assert "Traceback" not in output
  assert not (tmp_path / "run0").exists()  # The chief's failed start is undone.


@pytest.mark.slow
def test_a_peer_lost_before_tensorflow_connects_ends_the_trainer_with_one_line(tmp_path):
  """Worker 1's port answers the wait but is no TensorFlow server (as a worker lost right
  after answering): TensorFlow's connection would hang for ever; its watcher ends it."""
  with listening_socket() as peer:
    process = waiting_trainer(tmp_path, [f"127.0.0.1:{free_port()}",
                                         f"127.0.0.1:{peer.getsockname()[1]}"], 0,
                              "--cluster_timeout_seconds=2")
    output, _ = process.communicate(timeout=SHORTEST_CONNECT_SECONDS + 120)
  assert process.returncode == -signal.SIGKILL, output[-3000:]
  assert error_line(output).startswith(
      f"t2t-trainer: error: every task of the cluster answered, but TensorFlow did not connect "
      f"the workers within {SHORTEST_CONNECT_SECONDS} seconds (--cluster_timeout_seconds, ")
  assert "Traceback" not in output
  assert not (tmp_path / "run0").exists()  # Nothing written before the strategy exists.


@pytest.mark.slow
def test_the_trainer_names_its_port_in_use(tmp_path):
  with listening_socket() as holder:
    port = holder.getsockname()[1]
    process = waiting_trainer(tmp_path, [f"127.0.0.1:{free_port()}", f"127.0.0.1:{port}"], 1)
    output, _ = process.communicate(timeout=120)
  assert process.returncode == 2, output[-3000:]
  assert error_line(output) == (
      f"t2t-trainer: error: TF_CONFIG makes this process worker 1 at 127.0.0.1:{port}, but "
      f"another process on this machine already listens on port {port}: stop it, or give "
      f"this task another port; see docs/clusters.md")
