"""t2t-serve's REST API on loopback, serving the tiny run's SavedModel (loaded once): TensorFlow
Serving's paths and answers, t2t-decoder's lines, batching, and every fault: limits, a full
queue, a client that leaves, a failing batch, a model still loading."""

import base64
import concurrent.futures
import socket
import time

import pytest

from serving_servers import (SENTENCES, Held, ServerThread, one_thread, predict_decoders_lines,
                             same_answers)
from t2t_lite.serving.predict_body import Limits
from t2t_lite.serving.saved_model_served import ServedSavedModel
from tiny_runs import tiny_export

LONG = 60_000_000  # A batch timeout (microseconds) no test waits for.


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
  """(the tiny run, its SavedModel served)."""
  output_dir, export_dir = tiny_export(tmp_path_factory)
  return output_dir, ServedSavedModel(export_dir, 1)


def alone(served, sentence):
  return served.decode([sentence])[0]


def in_threads(*calls):
  """Runs each call in a thread of its own, all at once -> their results, in order."""
  with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
    return [future.result() for future in [pool.submit(c) for c in calls]]


def wait_until(condition):
  deadline = time.monotonic() + 60
  while not condition():
    assert time.monotonic() < deadline, "the server never got there"
    time.sleep(0.01)


def test_status_metadata_and_predictions_in_both_formats(exported):
  _, served = exported
  with ServerThread(served) as server:
    status, _, answer = server.call("GET", "/v1/models/default")
    assert status == 200
    assert answer == {"model_version_status": [{"version": "1", "state": "AVAILABLE", "status": {
        "error_code": "OK", "error_message": ""}}]}
    status, _, metadata = server.call("GET", "/v1/models/default/metadata")
    signature = metadata["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert metadata["model_spec"] == {"name": "default", "signature_name": "", "version": "1"}
    assert signature["inputs"]["sentences"]["dtype"] == "DT_STRING"
    assert signature["outputs"]["n_best"]["tensor_shape"]["dim"][1]["size"] == "2"

    status, answer = server.predict(SENTENCES)
    assert status == 200
    assert same_answers(answer["predictions"], [alone(served, s) for s in SENTENCES])  # Order.
    assert all(len(p["n_best"]) == len(p["n_best_scores"]) == 2 for p in answer["predictions"])
    assert answer["predictions"][0]["n_best"][0] == answer["predictions"][0]["translations"]
    status, _, columns = server.call("POST", "/v1/models/default:predict",
                                     {"inputs": {"sentences": SENTENCES[:2]}})
    assert columns["outputs"]["translations"] == [p["translations"]
                                                  for p in answer["predictions"][:2]]
    b64 = {"b64": base64.b64encode(SENTENCES[0].encode()).decode()}
    for path, body in (("/v1/models/default/versions/1:predict", {"instances": [b64]}),
                       ("/v1/models/default", {"signature_name": "serving_default",
                                               "instances": [SENTENCES[0]]})):
      status, _, same = server.call("POST", path, body)
      assert status == 200 and same_answers(same["predictions"], answer["predictions"][:1])


def test_the_answers_are_t2t_decoders_lines(exported, tmp_path_factory):
  _, served = exported
  with ServerThread(served) as server:
    predict_decoders_lines(server, tmp_path_factory)


def test_concurrent_requests_are_answered_in_one_search(exported):
  _, served = exported
  with ServerThread(served, one_thread(max_batch_size=4, batch_timeout_micros=LONG)) as server:
    answers = in_threads(*[lambda s=s: server.predict([s]) for s in SENTENCES[:4]])
    assert same_answers([answer["predictions"][0] for _, answer in answers],
                        [alone(served, s) for s in SENTENCES[:4]])
    metrics = server.metrics()
    assert metrics["t2t_serve_batches_total"] == 1
    assert metrics['t2t_serve_batch_size_bucket{le="2"}'] == 0
    assert metrics['t2t_serve_batch_size_bucket{le="4"}'] == 1
    assert metrics['t2t_serve_requests_total{code="200"}'] == 4
    assert metrics["t2t_serve_sentences_total"] == 4
    assert metrics["process_resident_memory_bytes"] > 0


@pytest.mark.parametrize("method, path, raw, status, reason", [
    ("POST", "/v1/models/other:predict", b'{"instances": ["a"]}', 404,
     'model "other" is not served here'),
    ("POST", "/v1/models/default/versions/2:predict", b'{"instances": ["a"]}', 404,
     "version 2 of model \"default\" is not served here"),
    ("GET", "/v2/nothing", None, 404, "no such path: /v2/nothing"),
    ("PUT", "/v1/models/default", b"{}", 405, "PUT is not taken by /v1/models/default"),
    ("POST", "/v1/models/default:classify", b'{"instances": ["a"]}', 400,
     "t2t-serve answers :predict, not :classify"),
    ("GET", "/v1/models/default:predict", None, 400, "GET takes no verb"),
    ("POST", "/v1/models/default:predict", b'{"instances": ["a"', 400, "the body is not JSON"),
    ("POST", "/v1/models/default:predict", b'{"instances": [1]}', 400,
     "instances[0] is a JSON number, not a string"),
    ("POST", "/v1/models/default:predict", b'{"instances": []}', 400, "the batch is empty"),
    ("POST", "/v1/models/default:predict", b'{"instances": ["\xff"]}', 400,
     "the body is not UTF-8 text"),
    ("POST", "/v1/models/default:predict", b'{"instances": ["a", "b", "c"]}', 400,
     "3 sentences in one request; this server takes at most 2"),
    ("POST", "/v1/models/default:predict", b'{"instances": ["%s"]}' % (b"x" * 41), 400,
     "sentence 0 (counting from 0) has 41 characters; this server takes at most 40"),
    ("POST", "/v1/models/default:predict", b'{"instances": ["%s"]}' % (b"x" * 300), 413,
     "the body has more than 200 bytes (--max_body_bytes)"),
])
def test_each_refusal_has_its_status_and_one_line(exported, method, path, raw, status, reason):
  _, served = exported
  with ServerThread(served, limits=Limits(2, 40), max_body_bytes=200) as server:
    answered, _, answer = server.call(method, path, raw=raw)
    assert (answered, list(answer)) == (status, ["error"])
    assert reason in answer["error"] and "\n" not in answer["error"]
    assert server.predict(["the number 1 is here"])[0] == 200  # The server goes on.


def test_a_full_queue_answers_503_with_retry_after_and_loses_nothing(exported):
  held = Held(exported[1])
  held.hold()
  with ServerThread(held, one_thread(max_batch_size=1, batch_timeout_micros=0,
                                     max_enqueued_batches=1)) as server:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
      first = pool.submit(server.predict, [SENTENCES[0]])
      held.wait_for_batch()
      second = pool.submit(server.predict, [SENTENCES[1]])  # Waits: the queue is full.
      wait_until(lambda: server.in_loop(lambda: server.state.batcher.waiting) == 1)
      status, headers, answer = server.call("POST", "/v1/models/default:predict",
                                            {"instances": [SENTENCES[2]]})
      assert status == 503 and int(headers["Retry-After"]) >= 1
      assert "queue is full" in answer["error"]
      held.release()
      assert same_answers([f.result()[1]["predictions"][0] for f in (first, second)],
                          [alone(held.served, s) for s in SENTENCES[:2]])
    assert server.metrics()['t2t_serve_requests_total{code="503"}'] == 1


def test_a_client_that_disconnects_neither_blocks_nor_breaks_its_batch(exported):
  held = Held(exported[1])
  held.hold()
  with ServerThread(held, one_thread(max_batch_size=4, batch_timeout_micros=0)) as server:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
      first = pool.submit(server.predict, [SENTENCES[0]])
      held.wait_for_batch()
      body = b'{"instances": ["%s"]}' % SENTENCES[1].encode()
      leaving = socket.create_connection(("127.0.0.1", server.port))
      leaving.sendall(b"POST /v1/models/default:predict HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
      wait_until(lambda: server.in_loop(lambda: server.state.batcher.waiting) == 1)
      leaving.close()  # Gone before its answer.
      staying = pool.submit(server.predict, [SENTENCES[2]])
      wait_until(lambda: server.in_loop(lambda: server.state.batcher.waiting) == 2)
      held.release()
      assert first.result()[0] == 200
      status, answer = staying.result()
      assert status == 200
      assert same_answers(answer["predictions"], [alone(held.served, SENTENCES[2])])
    assert held.batches[1] == [SENTENCES[1], SENTENCES[2]]  # Its batch was decoded whole.
    assert server.predict([SENTENCES[3]])[0] == 200


def test_a_failing_batch_answers_500_and_the_server_goes_on(exported):
  held = Held(exported[1])
  held.release()
  held.failing = True
  with ServerThread(held) as server:
    status, answer = server.predict([SENTENCES[0]])
    assert status == 500
    assert answer["error"] == ("decoding the batch this request was in failed: MemoryError: "
                               "the search ran out of memory")
    held.failing = False
    status, answer = server.predict([SENTENCES[0]])
    assert status == 200
    assert same_answers(answer["predictions"], [alone(held.served, SENTENCES[0])])
    assert server.metrics()["t2t_serve_batch_failures_total"] == 1


def test_a_model_still_loading_is_not_available(exported):
  with ServerThread(exported[1], loaded=False) as server:
    status, _, answer = server.call("GET", "/v1/models/default")
    assert answer["model_version_status"][0]["state"] == "LOADING"
    status, headers, answer = server.call("POST", "/v1/models/default:predict",
                                          {"instances": ["a"]})
    assert status == 503 and headers["Retry-After"] == "5"
    assert "the model is still loading" in answer["error"]


def test_the_page_and_its_note_on_attention(exported):
  with ServerThread(exported[1]) as server:
    status, headers, page = server.call("GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert 'data-model="default"' in page and "/page/attention" in page
    status, _, answer = server.call("POST", "/page/attention",
                                    {"sentence": SENTENCES[0], "target": "die"})
    assert status == 200
    assert answer == {"unavailable": exported[1].attention_unavailable}
    assert "serve the run directory" in answer["unavailable"]
