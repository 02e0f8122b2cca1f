"""t2t-serve's connections: how many may be open, how long each may wait, and HTTP that
cannot be parsed answered as the API answers errors.

    connections = Connections(ConnectionLimits(max_connections=1024))
    server = await listen(runner, connections, host, port)   # an asyncio Server
    connections.close_all()                                  # a drain's deadline passed

A connection is in one of three states: waiting for a request (idle between keep-alive
requests, or its headers still arriving), reading a request's body, or being answered
(rest_api.py tells which). One that waits `idle_timeout_seconds` for a request's headers is
closed, however it trickles them in (a slowloris); a body that takes more than
`body_timeout_seconds` to arrive is answered 408 (rest_api.py). At `max_connections`, a new
connection closes the one that has waited longest for a request, else the one that has
read a body longest, else (every one is being answered) it is itself closed at once:
stalled connections, however many, cannot shut normal clients out, and the file
descriptors open stay bounded.

aiohttp answers a request it cannot parse (a negative or non-numeric Content-Length, a
broken request line) with 400 in plain text and logs a traceback; here the answer is
{"error": "one line"}, and the log gets one line.
"""

import asyncio
import collections
import dataclasses
import logging
import math
import resource
import time

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from t2t_lite.cli.command_line import declared
from t2t_lite.cli.flag_bounds import check_bounds
from t2t_lite.serving.serve_settings import SERVE

DEFAULT_MAX_CONNECTIONS = 1024
# File descriptors left to the rest of the process (the model's files, threads, pipes) when
# the default cap comes from a low file-descriptor limit.
FILE_DESCRIPTORS_KEPT = 128
BACKLOG = 1024  # Connections the kernel holds until accepted (asyncio's default: 100).
CAP_WARNING_SECONDS = 60  # The least time between two log lines saying the cap is reached.


@dataclasses.dataclass(frozen=True)
class ConnectionLimits:
  """How many connections may be open, and how long each may take (the module doc):
  t2t-serve's flags of those names (`serve_settings`); max_connections=0 is
  `default_max_connections()`, counted here."""
  max_connections: int = declared(SERVE, "max_connections")
  # Waiting for a request's headers: after opening, or after an answer.
  idle_timeout_seconds: float = declared(SERVE, "idle_timeout_seconds")
  body_timeout_seconds: float = declared(SERVE, "body_timeout_seconds")  # From its headers.

  def __post_init__(self):
    check_bounds(self)  # As t2t-serve checks its flags, in the same one line.
    if not self.max_connections:
      object.__setattr__(self, "max_connections", default_max_connections())  # Frozen.


def default_max_connections():
  """--max_connections's default: DEFAULT_MAX_CONNECTIONS, or the file-descriptor limit
  less FILE_DESCRIPTORS_KEPT where that is lower (connections beyond what the process can
  open would not be closed at once: accepting them would fail)."""
  soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
  if soft == resource.RLIM_INFINITY:
    return DEFAULT_MAX_CONNECTIONS
  return max(1, min(DEFAULT_MAX_CONNECTIONS, soft - FILE_DESCRIPTORS_KEPT))


class Connections:
  """The open connections, each in its state (the module doc), within `limits`; `dropped`
  counts those closed to stay within max_connections."""

  def __init__(self, limits=ConnectionLimits()):
    self.limits = limits
    self.dropped = 0
    self._waiting = collections.OrderedDict()  # connection -> its idle timer, oldest first
    self._reading = collections.OrderedDict()  # connection -> None, oldest first
    self._answering = set()
    self._warned = -math.inf  # time.monotonic() of the last line saying the cap is reached.

  @property
  def open(self):
    return len(self._waiting) + len(self._reading) + len(self._answering)

  def opened(self, connection):
    """Counts a new connection in, waiting for a request; at max_connections, closes the
    one that has waited longest (or read longest), or else the new one."""
    if self.open >= self.limits.max_connections:
      self.dropped += 1
      self._say_the_cap_is_reached()
      oldest = next(iter(self._waiting or self._reading), None)
      if oldest is None:
        connection.force_close()
        return
      self.closed(oldest)
      oldest.force_close()
    self._wait(connection)

  def reading(self, connection):
    """A request's headers arrived on `connection`: its body is being read."""
    if connection in self._waiting:
      self._waiting.pop(connection).cancel()
      self._reading[connection] = None

  def answering(self, connection):
    """Its request's body arrived: it is being answered, and is not closed for room."""
    if connection in self._reading:
      del self._reading[connection]
      self._answering.add(connection)

  def answered(self, connection):
    """Its request was answered: it waits for the next one."""
    if connection in self._reading or connection in self._answering:
      self._reading.pop(connection, None)
      self._answering.discard(connection)
      self._wait(connection)

  def closed(self, connection):
    """`connection` is closed: no longer counted."""
    timer = self._waiting.pop(connection, None)
    if timer is not None:
      timer.cancel()
    self._reading.pop(connection, None)
    self._answering.discard(connection)

  def close_all(self):
    """Closes every connection at once, in whatever state."""
    for connection in [*self._waiting, *self._reading, *self._answering]:
      self.closed(connection)
      connection.force_close()

  def _wait(self, connection):
    loop = asyncio.get_running_loop()
    self._waiting[connection] = loop.call_later(self.limits.idle_timeout_seconds, self._too_long,
                                                connection)

  def _too_long(self, connection):
    """`connection` waited idle_timeout_seconds for a request: closed."""
    self._waiting.pop(connection, None)
    connection.force_close()

  def _say_the_cap_is_reached(self):
    now = time.monotonic()
    if now - self._warned >= CAP_WARNING_SECONDS:
      self._warned = now
      logging.warning("t2t-serve: %d connections are open (--max_connections): closing "
                      "the one that has waited longest for a request, or the new one",
                      self.open)


class Connection(RequestHandler):
  """aiohttp's handler of one connection, counted in `connections`, answering a request
  it cannot parse as the API answers errors."""

  def __init__(self, manager, connections, **kwargs):
    super().__init__(manager, **kwargs)
    self.connections = connections

  def connection_made(self, transport):
    super().connection_made(transport)
    self.connections.opened(self)

  def connection_lost(self, exc):
    self.connections.closed(self)
    super().connection_lost(exc)

  def handle_error(self, request, status=500, exc=None, message=None):
    if status >= 500:  # The server's fault, not the request's: aiohttp's answer and log.
      return super().handle_error(request, status, exc, message)
    reason = _first_line(message or str(exc or "")) or "unreadable"
    logging.warning("t2t-serve: refused a request from %s that is not valid HTTP: %s",
                    request.remote, reason)
    answer = web.json_response({"error": f"the request is not valid HTTP ({reason}); send "
                                         f"HTTP/1.1 with a Content-Length that is the "
                                         f"body's size in bytes"}, status=status)
    answer.force_close()
    return answer


def _first_line(text, most=200):
  """The first line of aiohttp's message (the rest quotes the bytes), `most` characters."""
  lines = text.strip().splitlines()
  return (lines[0].strip().rstrip(":") if lines else "")[:most]


async def listen(runner, connections, host, port):
  """Listens on host:port for `runner`'s app (set up), each connection a `Connection`
  counted in `connections` -> the asyncio Server; OSError when it cannot listen there."""
  loop = asyncio.get_running_loop()

  def connection():
    # aiohttp's keep-alive timeout agrees with the state's own (which also bounds headers
    # on the aiohttp versions that do not time them).
    return Connection(runner.server, connections, loop=loop, access_log=None,
                      keepalive_timeout=connections.limits.idle_timeout_seconds)
  return await loop.create_server(connection, host, port, backlog=BACKLOG)
