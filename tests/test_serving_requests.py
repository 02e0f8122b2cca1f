"""TensorFlow Serving's :predict bodies as t2t-serve reads and answers them
(t2t_lite.serving.predict_body): both formats, binary strings, and a one-line 400 reason for
each kind of bad body."""

import base64
import json

import pytest

from t2t_lite.serving.predict_body import BadRequest, Limits, parse_predict, predict_answer

LIMITS = Limits(max_sentences_per_request=3, max_sentence_length=20)


def parsed(body):
  return parse_predict(json.dumps(body).encode("utf-8"), LIMITS)


@pytest.mark.parametrize("body, columnar", [
    ({"instances": ["Ein Hund.", "Zwei"]}, False),
    ({"instances": [{"sentences": "Ein Hund."}, {"sentences": "Zwei"}]}, False),
    ({"signature_name": "serving_default", "instances": ["Ein Hund.", "Zwei"]}, False),
    ({"inputs": ["Ein Hund.", "Zwei"]}, True),
    ({"inputs": {"sentences": ["Ein Hund.", "Zwei"]}}, True),
    ({"instances": [{"b64": base64.b64encode("Ein Hund.".encode()).decode()}, "Zwei"]}, False),
])
def test_both_formats_give_the_sentences_in_order(body, columnar):
  request = parsed(body)
  assert request.sentences == ["Ein Hund.", "Zwei"]
  assert request.columnar == columnar


def test_one_string_as_inputs_is_a_batch_of_one():
  assert parsed({"inputs": "Hallo"}).sentences == ["Hallo"]


OUTPUTS = [{"translations": "a", "scores": -1.5, "n_best": ["a", "b"],
            "n_best_scores": [-1.5, float("-inf")]},
           {"translations": "c", "scores": -0.5, "n_best": ["c", ""],
            "n_best_scores": [-0.5, -2.0]}]


def test_the_answer_has_the_requests_format_and_no_infinity():
  rows = predict_answer(parsed({"instances": ["x", "y"]}), OUTPUTS)
  assert rows["predictions"][0] == {"translations": "a", "scores": -1.5, "n_best": ["a", "b"],
                                    "n_best_scores": [-1.5, None]}
  columns = predict_answer(parsed({"inputs": ["x", "y"]}), OUTPUTS)
  assert columns["outputs"]["translations"] == ["a", "c"]
  assert columns["outputs"]["n_best"] == [["a", "b"], ["c", ""]]
  json.dumps(rows, allow_nan=False)  # Valid JSON: no Infinity.


@pytest.mark.parametrize("raw, reason", [
    (b"\xff{}", "the body is not UTF-8 text (byte 0)"),
    (b'{"instances": ["a",', "the body is not JSON"),
    (b'["a"]', "the body is a JSON array; send an object"),
    (b"[" * 100_000, "the body's JSON nests arrays or objects too deep to parse"),
    (b'{"instances": [], "x": 1}', 'unknown key "x"'),
    (b'{"instances": ["a"], "inputs": ["a"]}', 'exactly one of "instances"'),
    (b'{"signature_name": "decode_ids", "instances": [[1, 2]]}',
     'signature_name "decode_ids" is not served'),
    (b'{"signature_name": [[1]], "instances": ["a"]}',
     "signature_name (a JSON array) is not served"),
    (b'{"instances": []}', "the batch is empty"),
    (b'{"inputs": {"sentences": []}}', "the batch is empty"),
    (b'{"instances": "a"}', '"instances" is a JSON string; send a list of sentences'),
    (b'{"instances": ["a", 3]}', "instances[1] is a JSON number, not a string"),
    (b'{"instances": [{"text": "a"}]}', 'instances[0] holds text; an instance object holds '
                                        '"sentences" alone'),
    (b'{"inputs": {"sentences": ["a", null]}}', "inputs.sentences[1] is a JSON null"),
    (b'{"instances": [{"b64": "%%%"}]}', "instances[0] is not valid base64"),
    (b'{"instances": [{"b64": "/w=="}]}', "instances[0] is not valid UTF-8 text (byte 0)"),
    (b'{"instances": ["\\ud800"]}', "sentence 0 (counting from 0) is not valid UTF-8 text"),
    (b'{"instances": ["a", "b\\nc"]}', "sentence 1 (counting from 0) holds a line break"),
    (b'{"instances": ["a", "b", "c", "d"]}',
     "4 sentences in one request; this server takes at most 3 (--max_sentences_per_request)"),
    (b'{"instances": ["%s"]}' % (b"x" * 21),
     "sentence 0 (counting from 0) has 21 characters; this server takes at most 20"),
])
def test_each_bad_body_gets_its_one_line_reason(raw, reason):
  with pytest.raises(BadRequest) as refused:
    parse_predict(raw, LIMITS)
  assert reason in str(refused.value)
  assert "\n" not in str(refused.value)
