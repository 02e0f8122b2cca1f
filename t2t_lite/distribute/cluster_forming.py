"""Waiting for the other tasks of a cluster, in Python, before MultiWorkerMirroredStrategy
connects them. TensorFlow waits for its peers inside its C++ runtime, holding the
interpreter: there a signal's handler never runs (scancel, a pod's deletion end in SIGKILL)
and a peer that never starts is waited for for ever. So each task first waits here, in a loop
a signal stops at once (the trainer's handler ends the start with its one line, 128 + the
signal) and a deadline ends:

    wait_for_the_cluster(cluster, timeout_seconds=600)   # every other task answers, or
    tf.distribute.MultiWorkerMirroredStrategy(...)        # UserError naming those that did not

- While it waits, this task listens on its own port (every interface, as TensorFlow's server
  does, so peers find it up whatever their name for it resolves to); a port another process
  holds is one line naming host:port.
- A task has answered once a TCP connection to its address opens: to its listener here, or
  to its TensorFlow server once it is past its own wait.
- timeout_seconds: a UserError naming every task that has not answered by then; 0 or None
  waits for ever (a signal still ends the wait).
"""

import errno
import selectors
import socket
import time

from absl import logging

from t2t_lite.distribute.cluster_addresses import GUIDE, TRAINING_JOBS, split_address, task_name
from t2t_lite.errors import UserError

CLUSTER_TIMEOUT_SECONDS = 600  # --cluster_timeout_seconds's default.
PROBE_SECONDS = 0.5  # How long each round of connections waits for answers.
LOG_EVERY_SECONDS = 60  # How often the log repeats who is still awaited.
LISTED = 8  # Tasks named in a line before "and N more".


def wait_for_the_cluster(cluster, timeout_seconds=CLUSTER_TIMEOUT_SECONDS):
  """Returns once every task of `cluster` (a `t2t_lite.distribute.cluster.Cluster`) but
  this one accepts a connection (module doc); UserError when `timeout_seconds` pass first."""
  started = time.monotonic()
  missing = {task_name(job, index): address for job in TRAINING_JOBS
             for index, address in enumerate(cluster.jobs.get(job, ()))
             if (job, index) != (cluster.task_type, cluster.task_id)}
  logged = None
  with _Listening(cluster) as listening:
    while True:
      answered = _answering(set(missing.values()), PROBE_SECONDS)
      listening.close_what_came()
      missing = {name: address for name, address in missing.items()
                 if address not in answered}
      waited = time.monotonic() - started
      if not missing:
        return
      if timeout_seconds and waited >= timeout_seconds:
        raise UserError(f"the cluster did not form within --cluster_timeout_seconds="
                        f"{timeout_seconds:g}: no answer from {listing(missing)}; start every "
                        f"task ({cluster.source} names {cluster.workers}), check that this "
                        f"machine reaches their addresses, or pass a larger "
                        f"--cluster_timeout_seconds (0: wait for ever); {GUIDE}")
      if logged is None or waited - logged >= LOG_EVERY_SECONDS:
        logged = waited
        limit = (f"up to --cluster_timeout_seconds={timeout_seconds:g}" if timeout_seconds
                 else "for ever: --cluster_timeout_seconds=0")
        logging.info("waiting for the cluster to form (%ds so far, %s): no answer yet from %s",
                     waited, limit, listing(missing))
      time.sleep(PROBE_SECONDS)


def listing(tasks):
  """{name: address} -> "worker 1 (node2:2222), worker 2 (node3:2222)" (LISTED at most)."""
  named = [f"{name} ({address})" for name, address in list(tasks.items())[:LISTED]]
  more = len(tasks) - LISTED
  return ", ".join(named) + (f" and {more} more" if more > 0 else "")


class _Listening:
  """Inside: this task's port is held by a listening socket (module doc)."""

  def __init__(self, cluster):
    self.cluster = cluster
    self.socket = None

  def __enter__(self):
    address = self.cluster.address
    _, port = split_address(address)
    this_task = task_name(self.cluster.task_type, self.cluster.task_id)
    try:
      self.socket = _listener(int(port))
    except OSError as error:
      why = (f"another process on this machine already listens on port {port}: stop it, or "
             f"give this task another port" if error.errno == errno.EADDRINUSE else
             f"it cannot listen on port {port} ({error.strerror}): give this task another port")
      raise UserError(f"{self.cluster.source} makes this process {this_task} at {address}, "
                      f"but {why}; {GUIDE}") from None
    return self

  def close_what_came(self):
    """Accepts and closes the connections the other tasks' probes opened (a full queue of
    them would turn the next ones away)."""
    while True:
      try:
        connection, _ = self.socket.accept()
      except BlockingIOError:
        return
      except ConnectionError:  # Gone before it was accepted.
        continue
      connection.close()

  def __exit__(self, *exc):
    self.socket.close()


def _listener(port):
  """A socket listening on `port` of every interface: IPv6 and IPv4 where the machine has
  IPv6, else IPv4. Connections are left unaccepted (the kernel completes them)."""
  try:
    listener = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
  except OSError:
    listener, where = socket.socket(socket.AF_INET, socket.SOCK_STREAM), ("0.0.0.0", port)
  else:
    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    where = ("::", port)
  try:
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # As gRPC's server does.
    listener.bind(where)
    listener.listen(64)
    listener.setblocking(False)
  except OSError:
    listener.close()
    raise
  return listener


def _answering(addresses, seconds):
  """The `addresses` (host:port) that accept a TCP connection within `seconds`, tried at once,
  each at every address its host resolves to."""
  answered = set()
  with selectors.DefaultSelector() as selector:
    try:
      for address in addresses:
        for connecting in _connecting(address):
          selector.register(connecting, selectors.EVENT_WRITE, address)
      deadline = time.monotonic() + seconds
      while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(deadline - time.monotonic()):
          if key.fileobj.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            answered.add(key.data)
          selector.unregister(key.fileobj)
          key.fileobj.close()
    finally:
      for key in list(selector.get_map().values()):
        key.fileobj.close()
  return answered


def _connecting(address):
  """Non-blocking sockets connecting to each address `address`'s host resolves to (none
  when it resolves to nothing yet: a pod not yet scheduled, say)."""
  host, port = split_address(address)
  try:
    targets = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
  except (OSError, UnicodeError):
    return []
  sockets = []
  for family, kind, protocol, _, target in targets:
    connecting = socket.socket(family, kind, protocol)
    connecting.setblocking(False)
    if connecting.connect_ex(target) in (0, errno.EINPROGRESS):
      sockets.append(connecting)
    else:
      connecting.close()
  return sockets
