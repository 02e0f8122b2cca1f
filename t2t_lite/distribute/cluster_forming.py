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
from t2t_lite.distribute.host_lookups import HostLookups
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
  lookups = HostLookups()  # Off this thread: a hung resolver holds up no signal, no deadline.
  with _Listening(cluster) as listening:
    while True:
      found = lookups.resolved(sorted(set(missing.values())), PROBE_SECONDS)
      answered = _answering(found, PROBE_SECONDS)
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
      except OSError:  # No file descriptor to accept it with: they wait in the queue.
        return
      connection.close()

  def __exit__(self, *exc):
    self.socket.close()


def _listener(port):
  """A socket listening on `port` of every interface: IPv6 and IPv4 where the machine can
  (an IPv6 socket that takes IPv4 too), else IPv4. Connections queue, SOMAXCONN of them,
  until `close_what_came` accepts and closes them."""
  try:
    return _listening(socket.AF_INET6, ("::", port))
  except OSError as error:  # No IPv6 here (or not both on one socket): IPv4, unless the
    if error.errno == errno.EADDRINUSE:  # port is taken, which IPv4 would not mend.
      raise
  return _listening(socket.AF_INET, ("0.0.0.0", port))


def _listening(family, where):
  """A non-blocking socket of `family` listening at `where`; closed again when a step fails."""
  listener = socket.socket(family, socket.SOCK_STREAM)
  try:
    if family == socket.AF_INET6:
      listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # IPv4 too.
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # As gRPC's server does.
    listener.bind(where)
    listener.listen(socket.SOMAXCONN)  # A probe of every other task each round, at once.
    listener.setblocking(False)
  except BaseException:
    listener.close()
    raise
  return listener


def _answering(found, seconds):
  """The addresses (host:port) of `found` ({address: what its host resolves to}) that accept
  a TCP connection within `seconds`, tried at once, each at every address its host resolves
  to; UserError when this process cannot open the connections."""
  try:
    return _probed(found, seconds)
  except OSError as error:
    remedy = ("raise this process's open-file limit (ulimit -n)"
              if error.errno in (errno.EMFILE, errno.ENFILE) else "check this machine's network")
    raise UserError(f"this task cannot open connections to see whether the other tasks of its "
                    f"cluster have started ({error.strerror or error}): {remedy}; {GUIDE}"
                    ) from None


def _probed(found, seconds):
  """`_answering`, whose OSError is raised with every socket it opened closed."""
  answered, opened = set(), []
  with selectors.DefaultSelector() as selector:
    try:
      for address, targets in found.items():
        connections = _connecting(targets)
        opened.extend(connections)
        for connecting in connections:
          selector.register(connecting, selectors.EVENT_WRITE, address)
      deadline = time.monotonic() + seconds
      while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(deadline - time.monotonic()):
          if key.fileobj.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            answered.add(key.data)
          selector.unregister(key.fileobj)
          key.fileobj.close()
    finally:
      for connecting in opened:  # Those closed already close again harmlessly.
        connecting.close()
  return answered


# What socket() says of an address family (or its protocol) this machine has no stack for,
# such as IPv6 on a host without it: that address is skipped, the host's others tried.
NO_STACK = (errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT)


def _connecting(targets):
  """Non-blocking sockets connecting to each of `targets` (getaddrinfo's list for a host;
  none when it resolves to nothing yet: a pod not yet scheduled, say); an OSError when a
  socket cannot be made, with none left open."""
  sockets = []
  try:
    for family, kind, protocol, _, target in targets:
      try:
        connecting = socket.socket(family, kind, protocol)
      except OSError as error:
        if error.errno in NO_STACK:
          continue
        raise
      sockets.append(connecting)
      connecting.setblocking(False)
      if connecting.connect_ex(target) not in (0, errno.EINPROGRESS):
        sockets.pop().close()
  except BaseException:
    for connecting in sockets:
      connecting.close()
    raise
  return sockets
