"""TensorFlow Serving's REST API on aiohttp, with the page at / and Prometheus's metrics.

  GET  /                                       the page (translation_page.py)
  GET  /v1/models/NAME[/versions/N]            the model's status: LOADING, then AVAILABLE
  GET  /v1/models/NAME[/versions/N]/metadata   its serving_default signature
  POST /v1/models/NAME[/versions/N]:predict    sentences in, translations out (predict_body.py)
  GET  /monitoring/prometheus/metrics          the counters of server_metrics.py
  POST /page/attention                         {"sentence", "target"} -> the page's maps

Status codes: 400 for a request predict_body.py refuses, a verb other than :predict, or
HTTP that cannot be parsed (connections.py); 404 for a model name, version or path not
served; 405 for a method a path does not take; 408 for a body that takes longer than
--body_timeout_seconds to arrive; 413 for a body over --max_body_bytes; 500 for a batch
that failed (the server goes on); 503, with Retry-After, while the model loads, when the
queue is full, and once the server is shutting down. Every error is {"error": "one line"}.
A client that hangs up before its body has arrived is counted apart (not as an error of
the server's, and not logged); one that hangs up later is answered into the void: its
batch goes on for the others.

The model name is one path segment of those URLs: `check_model_name` refuses a name that
cannot be one as clients send it.
"""

import asyncio
import concurrent.futures
import dataclasses
import functools
import json
import logging
import re
import time

from aiohttp import web

from t2t_lite.errors import UserError
from t2t_lite.serving import attention_pictures
from t2t_lite.serving.request_batching import BatchFailed, QueueFull
from t2t_lite.serving.connections import Connections
from t2t_lite.serving.server_metrics import Metrics
from t2t_lite.serving.predict_body import (BadRequest, check_sentence, parse_json_object,
                                           parse_predict, predict_answer)
from t2t_lite.serving.served_model import signature_def

STATE = web.AppKey("state", object)
LOADING_RETRY_SECONDS = 5
# A model name as one URL path segment: what clients send unescaped, with no ":" (the
# verb's separator) nor "/", and not "." or ".." (which clients resolve away).
MODEL_NAME = re.compile(r"(?!\.{1,2}$)[A-Za-z0-9_.-]+")


@dataclasses.dataclass
class ServerState:
  """What the handlers share: the model served (None while it loads), its batcher, the
  limits, the counters and the connections."""
  model_name: str
  version: int
  limits: object           # predict_body.Limits
  max_body_bytes: int
  page: str                # The page's HTML.
  served: object = None    # The ServedModel, once loaded and warmed up.
  batcher: object = None   # Its Batcher.
  metrics: Metrics = dataclasses.field(default_factory=Metrics)
  draining: bool = False   # Set by SIGTERM: new requests are refused.
  in_flight: int = 0       # Requests being answered.
  tokenizing: concurrent.futures.Executor = dataclasses.field(
      default_factory=lambda: concurrent.futures.ThreadPoolExecutor(1, "lengths"))
  drawing: concurrent.futures.Executor = dataclasses.field(
      default_factory=lambda: concurrent.futures.ThreadPoolExecutor(1, "drawing"))
  drawing_busy: bool = False
  connections: Connections = dataclasses.field(default_factory=Connections)

  @property
  def available(self):
    return self.batcher is not None


class ClientGone(Exception):
  """The client hung up (or its connection was closed for room) before its body arrived."""


def check_model_name(name):
  """UserError unless `name` can be served at /v1/models/NAME (MODEL_NAME)."""
  if not MODEL_NAME.fullmatch(name):
    raise UserError(f"--model_name={name} cannot be served: clients reach it at "
                    f"/v1/models/NAME:predict, where it must be letters, digits, \"_\", \"-\" "
                    f"and \".\" (not \".\" or \"..\" alone); pick such a name")


class ApiError(Exception):
  """An answer other than 200: status, a one-line message, extra headers; `close`: the
  connection is closed after it."""

  def __init__(self, status, message, headers=None, close=False):
    super().__init__(message)
    self.status, self.headers, self.close = status, headers or {}, close


def make_app(state):
  """The aiohttp Application answering the module doc's paths from `state`."""
  app = web.Application(middlewares=[_errors_and_draining],
                        client_max_size=state.max_body_bytes)
  app[STATE] = state
  app.router.add_get("/", _page)
  app.router.add_get("/monitoring/prometheus/metrics", _metrics)
  app.router.add_post("/page/attention", _attention)
  for prefix in ("/v1/models/{model}", "/v1/models/{model}/versions/{version}"):
    app.router.add_get(prefix, _status)
    app.router.add_post(prefix, _predict)
    app.router.add_get(prefix + "/metadata", _metadata)
  return app


def _json(answer, status=200, headers=None):
  return web.json_response(answer, status=status, headers=headers,
                           dumps=functools.partial(json.dumps, ensure_ascii=False))


@web.middleware
async def _errors_and_draining(request, handler):
  """Every error as {"error": ...}; new requests refused once the server drains; the
  connection's state (connections.py) kept."""
  state = request.app[STATE]
  if state.draining:
    refused = _json({"error": "the server is shutting down; send the request to another "
                              "one"}, 503, {"Retry-After": str(LOADING_RETRY_SECONDS)})
    refused.force_close()  # And the connection with it.
    return refused
  state.in_flight += 1
  state.connections.reading(request.protocol)
  try:
    response = await handler(request)
  except ClientGone:  # Nobody to answer; counted, not logged.
    state.metrics.client_disconnected()
    response = _json({"error": "the client hung up before its body arrived"}, 400)
  except ApiError as error:
    response = _json({"error": str(error)}, error.status, error.headers)
    if error.close:
      response.force_close()
  except BadRequest as error:
    response = _json({"error": str(error)}, 400)
  except web.HTTPException as error:  # The router's 404 and 405.
    reason = {404: f"no such path: {request.path}",
              405: f"{request.method} is not taken by {request.path}"}.get(error.status,
                                                                          error.reason)
    response = _json({"error": reason}, error.status)
  except Exception as error:  # pylint: disable=broad-except
    logging.exception("answering %s %s", request.method, request.path)
    response = _json({"error": f"internal error: {type(error).__name__}: {error}"}, 500)
  finally:
    state.in_flight -= 1
    state.connections.answered(request.protocol)
  return response


def _target(request, state):
  """The model and version a /v1/models/... path names -> its verb (None, or e.g.
  "predict"); ApiError 404 when another model or version is named."""
  model = request.match_info["model"]
  version = request.match_info.get("version")
  last = version if version is not None else model
  last, _, verb = last.partition(":")
  if version is not None:
    version = last
  else:
    model = last
  if model != state.model_name:
    raise ApiError(404, f"model \"{model}\" is not served here; this server serves "
                        f"\"{state.model_name}\"")
  if version is not None and version != str(state.version):
    raise ApiError(404, f"version {version} of model \"{model}\" is not served here; this "
                        f"server serves version {state.version}")
  return verb or None


def _check_loaded(state):
  if not state.available:
    raise ApiError(503, f"the model is still loading; retry once GET "
                        f"/v1/models/{state.model_name} says AVAILABLE",
                   {"Retry-After": str(LOADING_RETRY_SECONDS)})


async def _status(request):
  state = request.app[STATE]
  if _target(request, state):
    raise ApiError(400, "GET takes no verb: POST to :predict, or GET the status or /metadata")
  return _json({"model_version_status": [{
      "version": str(state.version), "state": "AVAILABLE" if state.available else "LOADING",
      "status": {"error_code": "OK", "error_message": ""}}]})


async def _metadata(request):
  state = request.app[STATE]
  if _target(request, state):
    raise ApiError(404, f"no such path: {request.path}")
  _check_loaded(state)
  return _json({"model_spec": {"name": state.model_name, "signature_name": "",
                               "version": str(state.version)},
                "metadata": {"signature_def": {"signature_def": {
                    "serving_default": signature_def(state.served.n_best)}}}})


async def _body(request, state):
  """The request's body bytes; ApiError 413 past --max_body_bytes, 408 when it takes more
  than --body_timeout_seconds to arrive, 400 when it is not valid HTTP; ClientGone when the
  connection closes first."""
  too_large = ApiError(413, f"the body has more than {state.max_body_bytes} bytes "
                            f"(--max_body_bytes); send fewer or shorter sentences")
  if request.content_length is not None and request.content_length > state.max_body_bytes:
    raise too_large
  seconds = state.connections.limits.body_timeout_seconds
  try:
    async with asyncio.timeout(seconds):
      body = await request.read()
  except web.HTTPRequestEntityTooLarge:
    raise too_large from None
  except TimeoutError:
    raise ApiError(408, f"the body took more than {seconds:g} s to arrive "
                        f"(--body_timeout_seconds); send it whole, at once",
                   close=True) from None
  except ConnectionError:
    raise ClientGone() from None
  except RuntimeError:  # aiohttp's "Connection closed.": closed for room, or the client left.
    if request.transport is not None and not request.transport.is_closing():
      raise
    raise ClientGone() from None
  except web.RequestPayloadError as error:
    reason = " ".join(str(error).split())
    raise ApiError(400, f"the body is not valid HTTP ({reason}); send a body of the "
                        f"Content-Length's size in bytes") from None
  state.connections.answering(request.protocol)
  return body


async def _predict(request):
  state = request.app[STATE]
  verb = _target(request, state)
  if verb not in (None, "predict"):
    raise ApiError(400, f"t2t-serve answers :predict, not :{verb} (a translation model has "
                        f"no classify or regress signature)")
  start = time.monotonic()
  try:
    parsed, outputs = await _predicted(request, state)
  except ClientGone:
    raise
  except Exception as error:
    state.metrics.answered(getattr(error, "status", 400 if isinstance(error, BadRequest)
                                   else 500))
    raise
  state.metrics.answered(200, len(parsed.sentences), time.monotonic() - start)
  return _json(predict_answer(parsed, outputs))


async def _predicted(request, state):
  """A :predict request -> (its PredictRequest, its outputs)."""
  _check_loaded(state)
  parsed = parse_predict(await _body(request, state), state.limits)
  loop = asyncio.get_running_loop()
  try:
    with state.batcher.room_for(len(parsed.sentences)):
      lengths = await loop.run_in_executor(state.tokenizing, state.served.input_lengths,
                                           parsed.sentences)
    return parsed, await state.batcher.submit(parsed.sentences, lengths)
  except QueueFull as full:
    raise ApiError(503, str(full), {"Retry-After": str(full.retry_after)}) from None
  except BatchFailed as failed:
    raise ApiError(500, f"decoding the batch this request was in failed: {failed}") from None


async def _page(request):
  return web.Response(text=request.app[STATE].page, content_type="text/html")


async def _metrics(request):
  state = request.app[STATE]
  batcher = state.batcher
  text = state.metrics.text(batcher.waiting if batcher else 0,
                            batcher.decoding if batcher else 0, state.available,
                            state.in_flight - 1,  # Less this request.
                            state.connections.open, state.connections.dropped)
  return web.Response(text=text, content_type="text/plain", charset="utf-8",
                      headers={"X-Prometheus-Format": "0.0.4"})


async def _attention(request):
  """{"sentence", "target"} -> {"maps": attention_pictures.pictures(...)}, or
  {"unavailable": why} where none can be drawn."""
  state = request.app[STATE]
  fields = parse_json_object(await _body(request, state), ("sentence", "target"))
  for name, value in fields.items():
    check_sentence(value, name, state.limits)
  _check_loaded(state)
  served = state.served
  if served.attention_unavailable:
    return _json({"unavailable": served.attention_unavailable})
  if not fields["target"].strip():
    return _json({"unavailable": "the translation is blank"})
  if state.drawing_busy:
    raise ApiError(503, "the server is drawing another sentence's maps; retry in a moment",
                   {"Retry-After": "1"})
  state.drawing_busy = True
  try:
    maps = await asyncio.get_running_loop().run_in_executor(
        state.drawing, lambda: attention_pictures.pictures(
            served.attention(fields["sentence"], fields["target"])))
  except UserError as error:
    return _json({"unavailable": str(error)})
  finally:
    state.drawing_busy = False
  return _json({"maps": maps})
