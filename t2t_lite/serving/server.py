"""t2t-serve's process: listen, load and warm the model up, answer, and drain on SIGTERM.

    exit_status = serve(ServerConfig(source=model_source(...), ...))

The server listens at once, so that GET /v1/models/NAME can say LOADING; the model loads
and is warmed up (a sentence decoded at each input width: served_model.warm_up) in a
thread, and the status turns AVAILABLE only then. A model that fails to load stops the
server with its one-line error (a UserError, exit status 2).

SIGTERM (or SIGINT) stops accepting: the listening socket closes, a request that still
arrives on an open connection gets 503; every request already accepted is answered (its
batch goes at once, without waiting to fill), and the connections left (a stalled upload,
a request whose batch is still decoding) are closed, within --drain_seconds; then the
process exits 0 at once (a batch being decoded ends with its search: one cannot be cut).

`Listening` is that life of the app, from listening to the end of its drain, for the
process and for the tests' server in a thread alike.
"""

import asyncio
import dataclasses
import signal
import sys
import threading

from aiohttp import web

from t2t_lite.cli.command_line import declared
from t2t_lite.cli.flag_bounds import check_bounds
from t2t_lite.cli.shared_settings import SHARED
from t2t_lite.errors import UserError
from t2t_lite.serving.request_batching import Batcher, BatchingSettings
from t2t_lite.serving.connections import ConnectionLimits, Connections, listen
from t2t_lite.serving.translation_page import page_html
from t2t_lite.serving.predict_body import Limits
from t2t_lite.serving.rest_api import ServerState, check_model_name, make_app
from t2t_lite.serving.serve_settings import SERVE
from t2t_lite.serving.served_model import warm_up

# When a drain ends, what the answers still being written may take (the longest a
# connection is waited for then): the last of a drain's --drain_seconds.
CLOSING_SECONDS = 1.0


@dataclasses.dataclass(frozen=True)
class ServerConfig:
  """Everything t2t-serve's flags say: what to serve and how, with their defaults; a value
  outside a flag's range is refused in the flag's one line (`serve_settings`)."""
  source: object               # opening.ModelSource
  model_name: str = declared(SERVE, "model_name")
  host: str = declared(SERVE, "host")
  port: int = declared(SERVE, "port")
  batching: BatchingSettings = dataclasses.field(default_factory=BatchingSettings)
  limits: Limits = dataclasses.field(default_factory=Limits)
  max_body_bytes: int = declared(SERVE, "max_body_bytes")
  connection_limits: ConnectionLimits = dataclasses.field(default_factory=ConnectionLimits)
  drain_seconds: float = declared(SERVE, "drain_seconds")
  checkpoint_path: str = declared(SHARED, "checkpoint_path")
  decode_hparams: str = declared(SHARED, "decode_hparams")
  length_penalty: float = declared(SERVE, "length_penalty")

  def __post_init__(self):
    check_bounds(self)  # As t2t-serve checks its flags, in the same one line.
    check_model_name(self.model_name)
    capacity, asked = self.batching.capacity, self.limits.max_sentences_per_request
    if asked > capacity:
      raise UserError(f"--max_sentences_per_request={asked} exceeds what the queue holds "
                      f"(--max_enqueued_batches x --max_batch_size = {capacity}): such a "
                      f"request could never be taken")


def serve(config, out=sys.stdout):
  """Runs the server until SIGTERM or SIGINT -> 0 once drained (UserError when the model
  cannot be loaded or the port taken). Prints its address, then AVAILABLE, on `out`."""
  return asyncio.run(_serve(config, out))


def _say(out, line):
  print(f"t2t-serve: {line}", file=out, flush=True)


async def _serve(config, out):
  source = config.source
  state = ServerState(config.model_name, source.version, config.limits, config.max_body_bytes,
                      page_html(config.model_name, source.description),
                      connections=Connections(config.connection_limits))
  try:
    listening = await Listening.start(state, config.host, config.port)
  except OSError as error:
    raise UserError(f"cannot listen on {config.host}:{config.port} ({error.strerror}); pass "
                    f"another --port or --host") from None
  port = listening.port  # The one chosen for --port=0.
  _say(out, f"listening on http://{config.host}:{port}/ ; loading {source.description}")
  stop = asyncio.Event()
  loop = asyncio.get_running_loop()
  for number in (signal.SIGTERM, signal.SIGINT):
    loop.add_signal_handler(number, stop.set)
  loading = _in_thread(loop, lambda: _load(config))
  stopping = asyncio.ensure_future(stop.wait())
  try:
    await asyncio.wait([loading, stopping], return_when=asyncio.FIRST_COMPLETED)
    if loading.done():
      state.served = loading.result()  # Raises the loading's UserError.
      state.batcher = Batcher(state.served.decode, config.batching, state.metrics)
      _say(out, f"model \"{config.model_name}\" version {source.version} is AVAILABLE at "
                f"http://{config.host}:{port}/v1/models/{config.model_name}")
      await stopping
    listening.stop_listening()
    _say(out, "stopping: no longer listening; answering the requests already accepted")
    cut_off = await listening.drain(config.drain_seconds)
  finally:
    stopping.cancel()
    await listening.close()  # At once, after an error; after a drain, nothing is left.
    state.tokenizing.shutdown(wait=False)
    state.drawing.shutdown(wait=False)
  if cut_off:
    _say(out, f"stopped at the --drain_seconds={config.drain_seconds:g} deadline: {cut_off} "
              f"request(s) not yet answered were cut off")
  else:
    _say(out, "stopped; every accepted request was answered")
  return 0


class Listening:
  """`state`'s app answering on a host and port, from `start` to the end of its drain."""

  def __init__(self, state, runner, server):
    self.state = state
    self._runner, self._server = runner, server
    self._closed = False

  @classmethod
  async def start(cls, state, host, port):
    """-> the `Listening` of `state`'s app on host:port; OSError when it cannot listen."""
    runner = web.AppRunner(make_app(state), handle_signals=False, access_log=None,
                           shutdown_timeout=CLOSING_SECONDS)
    await runner.setup()
    try:
      server = await listen(runner, state.connections, host, port)
    except OSError:
      await runner.cleanup()
      raise
    return cls(state, runner, server)

  @property
  def port(self):
    return self._server.sockets[0].getsockname()[1]

  def stop_listening(self):
    """Closes the listening socket; a request that arrives on an open connection gets 503,
    and no batch waits to fill (no more sentences will come)."""
    self.state.draining = True
    self._server.close()
    if self.state.batcher is not None:
      self.state.batcher.drain()

  async def drain(self, seconds):
    """Stops listening, waits for every request accepted to be answered, then closes, all
    within `seconds` (the last CLOSING_SECONDS of them are the closing's) -> how many
    requests were cut off at the deadline (0: none)."""
    self.stop_listening()
    try:
      await asyncio.wait_for(_answered(self.state), max(0.0, seconds - CLOSING_SECONDS))
    except asyncio.TimeoutError:
      pass
    cut_off = self.state.in_flight
    await self.close()
    return cut_off

  async def close(self):
    """Stops listening and closes every connection: gracefully where every request is
    answered, at once otherwise. Once only: later calls do nothing."""
    if self._closed:
      return
    self._closed = True
    self.stop_listening()
    state, batcher = self.state, self.state.batcher
    answered = not state.in_flight and not (batcher and (batcher.waiting or batcher.decoding))
    if not answered:
      state.connections.close_all()
    if batcher is not None:
      await batcher.close(wait=answered)
    await self._runner.cleanup()


async def _answered(state):
  """Returns once every request accepted is answered (and its batch decoded)."""
  while state.in_flight:
    await asyncio.sleep(0.01)
  if state.batcher is not None:
    await state.batcher.idle()


def _load(config):
  """The served model, loaded and warmed up."""
  batching = config.batching
  served = config.source.open(config.checkpoint_path, config.decode_hparams,
                              config.length_penalty, batching.max_batch_size,
                              batching.num_batch_threads)
  warm_up(served)
  return served


def _in_thread(loop, function):
  """An asyncio future of `function()` run in a daemon thread (a process stopped while the
  model loads does not wait for it)."""
  future = loop.create_future()

  def run():
    try:
      outcome = (function(), None)
    except BaseException as error:  # pylint: disable=broad-except
      outcome = (None, error)
    try:
      loop.call_soon_threadsafe(_settle, future, *outcome)
    except RuntimeError:  # The loop has closed: the server stopped while this loaded.
      pass
  threading.Thread(target=run, name="loading", daemon=True).start()
  return future


def _settle(future, result, error):
  if future.cancelled():
    return
  if error is not None:
    future.set_exception(error)
  else:
    future.set_result(result)
