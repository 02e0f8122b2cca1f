"""t2t-serve in tests: its app on loopback in a thread of the test process, serving a model
loaded once per module; a model wrapper that holds or fails its batches; an HTTP client,
and a reader of an answer on a socket that sent raw bytes.

    with ServerThread(served, one_thread(max_batch_size=4)) as server:
      status, headers, answer = server.call("POST", "/v1/models/default:predict",
                                            {"instances": ["a sentence"]})
"""

import asyncio
import http.client
import json
import threading

from built_once import built_once
from commands import call as call_command
from tiny_runs import TINY_SERVING, tiny_run, tiny_text

from t2t_lite.serving.request_batching import Batcher, BatchingSettings
from t2t_lite.serving.connections import ConnectionLimits, Connections
from t2t_lite.serving.server_metrics import parse
from t2t_lite.serving.translation_page import page_html
from t2t_lite.serving.predict_body import Limits
from t2t_lite.serving.rest_api import ServerState
from t2t_lite.serving.server import Listening

TIMEOUT = 120  # Seconds: far above any answer's time here; reached only by a hang.
# What the tests send: sentences like the tiny run's, and a blank one.
SENTENCES = [line.split("\t")[0] for line in tiny_text(5, offset=3000).splitlines()]
# A sentence's scores decoded in batches of other sizes: float32 sums of log-probabilities
# whose matmuls block differently by batch size, equal up to round-off (about 1e-7 of each
# of some hundred terms of magnitude <= 10 here: 1e-4 of the score), not bit for bit; its
# texts are equal.
SCORE_TOLERANCE = 1e-4


def one_thread(**settings):
  """`BatchingSettings` decoding one batch at a time (by default, one a CPU core): the
  tests that hold a batch know which sentences wait."""
  return BatchingSettings(num_batch_threads=1, **settings)


def decoder_lines(tmp_path_factory):
  """t2t-decoder's output lines for SENTENCES and a blank line, with the tiny run and
  TINY_SERVING's decoding (two hypotheses a line, tab-separated), decoded once per test
  run."""
  def decode(work):
    _, output_dir = tiny_run(tmp_path_factory)
    source = work / "source.en"
    source.write_text("".join(line + "\n" for line in SENTENCES + [""]), encoding="utf-8")
    decoded = call_command("t2t-decoder", f"--output_dir={output_dir}",
                           f"--decode_from_file={source}", f"--decode_hparams={TINY_SERVING}")
    assert decoded.returncode == 0, decoded.stderr[-3000:]
    return decoded.stdout.split("\n")[:-1]
  return built_once(tmp_path_factory, "tiny_decoder_lines", decode)


def predict_decoders_lines(server, tmp_path_factory):
  """Asks `server` (a ServerThread) for SENTENCES and a blank one, checks that its answers
  are t2t-decoder's lines (n-best tab-joined; blank stays blank) -> the answer."""
  lines = decoder_lines(tmp_path_factory)
  status, answer = server.predict(SENTENCES + [""])
  assert status == 200
  assert ["\t".join(p["n_best"]) for p in answer["predictions"][:-1]] == lines[:-1]
  assert answer["predictions"][-1]["translations"] == lines[-1] == ""
  return answer


def same_answers(got, expected):
  """Whether two lists of predictions have equal texts and scores equal up to round-off."""
  import math
  if len(got) != len(expected):
    return False
  for a, b in zip(got, expected):
    if a["translations"] != b["translations"] or a["n_best"] != b["n_best"]:
      return False
    scores = [(a["scores"], b["scores"])] + list(zip(a["n_best_scores"], b["n_best_scores"]))
    if not all(x == y or math.isclose(x, y, rel_tol=SCORE_TOLERANCE) for x, y in scores):
      return False
  return True


class ServerThread:
  """t2t-serve's app for `served` (a ServedModel, loaded) on 127.0.0.1, a free port, in an
  event loop of its own thread; a context manager (stops it at exit, after answering what
  it accepted)."""

  def __init__(self, served, batching=one_thread(), limits=Limits(),
               max_body_bytes=1 << 20, model_name="default", version=1, loaded=True,
               connection_limits=ConnectionLimits()):
    self.served, self.batching = served, batching
    self.state = ServerState(model_name, version, limits, max_body_bytes,
                             page_html(model_name, "a model under test"),
                             connections=Connections(connection_limits))
    self.loaded = loaded  # False: as while the model loads.
    self.loop = asyncio.new_event_loop()
    self.port = None
    self._started = threading.Event()
    self._stop = None
    self._thread = threading.Thread(target=self.loop.run_until_complete, args=(self._run(),),
                                    name="server", daemon=True)

  async def _run(self):
    self._stop = asyncio.Event()
    if self.loaded:
      self.state.served = self.served
      self.state.batcher = Batcher(self.served.decode, self.batching, self.state.metrics)
    listening = await Listening.start(self.state, "127.0.0.1", 0)
    self.port = listening.port
    self._started.set()
    await self._stop.wait()
    await listening.drain(TIMEOUT)

  def __enter__(self):
    self._thread.start()
    assert self._started.wait(TIMEOUT), "the server did not start"
    return self

  def __exit__(self, *unused):
    self.loop.call_soon_threadsafe(self._stop.set)
    self._thread.join(TIMEOUT)

  def in_loop(self, function):
    """`function()`'s result, called in the server's event loop (to read its state)."""
    async def call():
      return function()
    return asyncio.run_coroutine_threadsafe(call(), self.loop).result(TIMEOUT)

  def call(self, method, path, body=None, raw=None, headers=None):
    return call(self.port, method, path, body, raw, headers)

  def predict(self, sentences, **fields):
    """POSTs {"instances": sentences, **fields} -> (status, answer)."""
    status, _, answer = self.call("POST", "/v1/models/default:predict",
                                  dict(fields, instances=sentences))
    return status, answer

  def metrics(self):
    """{sample: value} of GET /monitoring/prometheus/metrics."""
    status, _, text = self.call("GET", "/monitoring/prometheus/metrics")
    assert status == 200
    return parse(text)


def call(port, method, path, body=None, raw=None, headers=None):
  """One HTTP request to 127.0.0.1:port -> (status, headers, the JSON answer or the text).
  body: a JSON-able value to send; raw: bytes to send as they are."""
  connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
  try:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    connection.request(method, path, body=data, headers=headers or {})
    response = connection.getresponse()
    text = response.read().decode("utf-8")
    kind = response.getheader("Content-Type", "")
    return (response.status, dict(response.getheaders()),
            json.loads(text) if kind.startswith("application/json") else text)
  finally:
    connection.close()


def answer_on(sock):
  """The HTTP answer read from `sock` (which sent a request as raw bytes) -> (status,
  headers, the JSON answer)."""
  response = http.client.HTTPResponse(sock)
  response.begin()
  body = response.read()
  assert response.getheader("Content-Type", "").startswith("application/json"), body
  return response.status, dict(response.getheaders()), json.loads(body)


class Held:
  """A served model whose batches wait for `release()` (or fail, once `failing` is set):
  what a slow or failing search does, on demand. `batches` lists each batch's sentences."""

  def __init__(self, served):
    self.served = served
    self.n_best, self.widths = served.n_best, served.widths
    self.attention_unavailable = served.attention_unavailable
    self.batches = []
    self.failing = False
    self._open = threading.Event()
    self._entered = threading.Semaphore(0)

  def input_lengths(self, sentences):
    return self.served.input_lengths(sentences)

  def decode(self, sentences):
    self.batches.append(list(sentences))
    self._entered.release()
    assert self._open.wait(TIMEOUT)
    if self.failing:
      raise MemoryError("the search ran out of memory")
    return self.served.decode(sentences)

  def wait_for_batch(self):
    """Returns once a batch has entered `decode`."""
    assert self._entered.acquire(timeout=TIMEOUT), "no batch was decoded"

  def hold(self):
    self._open.clear()

  def release(self):
    self._open.set()
