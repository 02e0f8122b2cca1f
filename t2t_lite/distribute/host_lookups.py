"""Host names looked up off the caller's thread: a slow or hung resolver (a DNS server that
does not answer, a pod's name not served yet) never holds up a loop that must answer
signals and deadlines, as the wait for a cluster must. Each round of that wait asks:

    lookups = HostLookups()
    found = lookups.resolved(["node1:2222", "node2:2222"], seconds=0.5)
    # {address: getaddrinfo's list} of those looked up within the time; [] when it failed

A lookup not done in time goes on in its own daemon thread (which never keeps the process
from ending) and is not started again while it runs; once done, its answer is given once,
and the next round looks the name up afresh (a name may come to resolve later).
"""

import socket
import threading
import time

from t2t_lite.distribute.cluster_addresses import split_address


class HostLookups:
  """The lookups of the module doc, one at a time for each address."""

  def __init__(self):
    self._running = {}  # address -> (its thread, the one-item list the thread fills)

  def resolved(self, addresses, seconds):
    """{address: [(family, type, protocol, name, sockaddr)]} of the `addresses` (host:port)
    whose lookup is done within `seconds`: started now, or left running by an earlier call."""
    deadline = time.monotonic() + seconds
    for address in addresses:
      if address not in self._running:
        self._running[address] = _started(address)
    answers = {}
    for address in addresses:
      thread, answer = self._running[address]
      thread.join(max(0.0, deadline - time.monotonic()))
      if not thread.is_alive():
        del self._running[address]
        answers[address] = answer[0]
    return answers


def _started(address):
  """(a daemon thread looking up `address`'s host, the list it puts its answer in)."""
  answer = []

  def look_up():
    host, port = split_address(address)
    try:
      answer.append(socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM))
    except (OSError, UnicodeError, ValueError):  # Not (yet) a name this machine resolves.
      answer.append([])

  thread = threading.Thread(target=look_up, name=f"looking up {address}", daemon=True)
  thread.start()
  return thread, answer
