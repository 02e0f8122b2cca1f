"""t2t-serve against hostile connections, on loopback in this process (a model that echoes
its sentences: the connections are under test, not the search): JSON nested deep, a
client that hangs up mid-body, Content-Lengths that are not numbers of bytes, connections
that stall or trickle, and more of them than --max_connections."""

import concurrent.futures
import http.client
import logging
import socket
import time

import pytest

from serving_servers import TIMEOUT, Held, ServerThread, answer_on, one_thread
from t2t_lite.serving.connections import ConnectionLimits
from t2t_lite.serving.served_model import ServedModel, output

PREDICT = b"POST /v1/models/default:predict HTTP/1.1\r\nHost: x\r\n"
BODY = b'{"instances": ["a sentence"]}'


class Echo(ServedModel):
  """Answers each sentence with itself."""

  def decode(self, sentences):
    return [output([sentence], [0.0], 1) for sentence in sentences]

  def input_lengths(self, sentences):
    return [len(sentence.split()) for sentence in sentences]


def connect(server):
  return socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)


def wait_until(condition, seconds=60):
  deadline = time.monotonic() + seconds
  while not condition():
    assert time.monotonic() < deadline, "the server never got there"
    time.sleep(0.01)


def closed_by_the_server(sock, trickle=b""):
  """Whether the server closes `sock` within 60 s (while `trickle` is sent every 0.1 s)."""
  sock.settimeout(0.1)
  deadline = time.monotonic() + 60
  while time.monotonic() < deadline:
    try:
      if sock.recv(1024) == b"":
        return True
    except socket.timeout:
      if trickle:
        sock.sendall(trickle)
    except ConnectionError:
      return True
  return False


def errors_logged(caplog):
  return [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_json_nested_deep_is_refused_with_400_and_the_server_goes_on():
  with ServerThread(Echo()) as server:
    status, _, answer = server.call("POST", "/v1/models/default:predict", raw=b"[" * 200_000)
    assert status == 400 and "nests arrays or objects too deep" in answer["error"]
    deep = b'{"signature_name": %s, "instances": ["a"]}' % (b"[" * 500 + b"]" * 500)
    status, _, answer = server.call("POST", "/v1/models/default:predict", raw=deep)
    assert status == 400 and "\n" not in answer["error"]
    assert server.predict(["a sentence"]) == (200, {"predictions": [
        {"translations": "a sentence", "scores": 0.0, "n_best": ["a sentence"],
         "n_best_scores": [0.0]}]})


def test_a_client_that_hangs_up_mid_body_is_counted_apart_and_not_logged(caplog):
  with ServerThread(Echo()) as server:
    with connect(server) as leaving:
      leaving.sendall(PREDICT + b"Content-Length: 1000\r\n\r\n" + BODY[:10])
      wait_until(lambda: server.in_loop(lambda: server.state.in_flight) == 1)
    wait_until(lambda: server.in_loop(lambda: server.state.in_flight) == 0)
    metrics = server.metrics()
    assert metrics["t2t_serve_client_disconnects_total"] == 1
    assert not [name for name in metrics if name.startswith("t2t_serve_requests_total")]
    assert server.predict(["a sentence"])[0] == 200
  assert errors_logged(caplog) == []


@pytest.mark.parametrize("length", [b"-1", b"12abc", b"1, 2"])
def test_a_wrong_content_length_is_a_json_400_logged_in_one_line(caplog, length):
  with ServerThread(Echo()) as server:
    with connect(server) as sock:
      sock.sendall(PREDICT + b"Content-Length: " + length + b"\r\n\r\n" + BODY)
      status, _, answer = answer_on(sock)
      assert sock.recv(1) == b""  # And the connection is closed.
    assert status == 400
    assert list(answer) == ["error"] and "\n" not in answer["error"]
    assert answer["error"].startswith("the request is not valid HTTP (")
    assert "Content-Length that is the body's size in bytes" in answer["error"]
    assert server.predict(["a sentence"])[0] == 200
  logged = errors_logged(caplog)
  assert len(logged) == 1 and logged[0].exc_info is None
  assert "not valid HTTP" in logged[0].getMessage()
  assert "\n" not in logged[0].getMessage()


def test_a_body_that_does_not_arrive_in_time_is_answered_408():
  limits = ConnectionLimits(body_timeout_seconds=0.5)
  with ServerThread(Echo(), connection_limits=limits) as server:
    with connect(server) as sock:
      sock.sendall(PREDICT + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY[:10])
      status, headers, answer = answer_on(sock)
    assert status == 408 and headers["Connection"] == "close"
    assert "--body_timeout_seconds" in answer["error"]
    assert server.metrics()['t2t_serve_requests_total{code="408"}'] == 1


def test_idle_and_trickling_connections_are_closed():
  with ServerThread(Echo(), connection_limits=ConnectionLimits(idle_timeout_seconds=0.5)) as server:
    with connect(server) as silent, connect(server) as trickling, connect(server) as kept:
      trickling.sendall(PREDICT + b"X-Slow: ")
      kept.sendall(PREDICT + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY)
      assert answer_on(kept)[0] == 200
      assert closed_by_the_server(silent)
      assert closed_by_the_server(trickling, trickle=b"a")  # A header that never ends.
      assert closed_by_the_server(kept)  # Idle after its answer.
    assert server.predict(["a sentence"])[0] == 200


def test_stalled_connections_beyond_the_cap_do_not_shut_normal_requests_out(caplog):
  """Nor log a traceback: a connection closed for room while its body was being read is no
  server error."""
  limits = ConnectionLimits(max_connections=20)
  stalls = [b"", PREDICT, PREDICT + b"Content-Length: 1000\r\n\r\n" + BODY[:10]]
  with ServerThread(Echo(), connection_limits=limits) as server:
    stalled = []
    try:
      for index in range(300):
        stalled.append(connect(server))
        stalled[-1].sendall(stalls[index % len(stalls)])
      wait_until(lambda: server.in_loop(lambda: server.state.connections.dropped) == 280)
      assert server.in_loop(lambda: server.state.connections.open) == 20
      start = time.monotonic()
      assert server.predict(["a sentence"])[0] == 200
      assert time.monotonic() - start < 30  # Generous: it takes milliseconds.
    finally:
      for sock in stalled:
        sock.close()
    assert server.metrics()["t2t_serve_connections_dropped_total"] >= 281
  assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR
          ] == []


def test_at_the_cap_with_every_connection_being_answered_a_new_one_is_closed_at_once():
  held = Held(Echo())
  held.hold()
  with ServerThread(held, one_thread(max_batch_size=1, batch_timeout_micros=0),
                    connection_limits=ConnectionLimits(max_connections=2)) as server:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
      first = pool.submit(server.predict, ["one"])
      held.wait_for_batch()
      second = pool.submit(server.predict, ["two"])
      wait_until(lambda: server.in_loop(lambda: server.state.batcher.waiting) == 1)
      with pytest.raises((ConnectionError, http.client.HTTPException)):
        server.predict(["three"])
      held.release()
      assert first.result()[0] == second.result()[0] == 200
    wait_until(lambda: server.in_loop(lambda: server.state.connections.open) == 0)
    assert server.predict(["four"])[0] == 200
