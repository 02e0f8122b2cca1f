"""The body of a TensorFlow Serving REST `:predict` request -> its sentences; the outputs ->
its answer, in the request's format.

    request = parse_predict(body_bytes, limits)      # a PredictRequest, or BadRequest
    answer = predict_answer(request, outputs)        # the JSON-able answer

The formats (TensorFlow Serving's REST API):
  row:       {"instances": ["a sentence", ...]} or [{"sentences": "a sentence"}, ...]
             -> {"predictions": [{"translations": ..., "scores": ..., "n_best": [...],
                                  "n_best_scores": [...]}, ...]}
  columnar:  {"inputs": ["a sentence", ...]} or {"inputs": {"sentences": [...]}}
             (or one string: a batch of one)
             -> {"outputs": {"translations": [...], "scores": [...], "n_best": [[...]],
                             "n_best_scores": [[...]]}}
Both may name "signature_name" (default serving_default, the only one served: text in, text
out). A string may be given as {"b64": "..."}, TensorFlow Serving's binary string, whose
bytes must be UTF-8. Every refusal is a `BadRequest` with a one-line reason (400): a body
that is not UTF-8 or not JSON (or JSON nested deeper than Python's parser goes: a body of
the API nests four levels at most), a key or type the API does not have, an empty batch, a
sentence that is not valid UTF-8 (a lone surrogate) or holds a line break (t2t-decoder
reads one sentence a line), and more sentences or a longer sentence than `Limits` allow.
A score that is not finite (a hypothesis slot left empty) is answered null.
"""

import base64
import binascii
import dataclasses
import json
import math

from t2t_lite.cli.command_line import declared
from t2t_lite.cli.flag_bounds import check_bounds
from t2t_lite.serving.serve_settings import SERVE

SIGNATURE = "serving_default"
INPUT = "sentences"
OUTPUTS = ("translations", "scores", "n_best", "n_best_scores")


class BadRequest(Exception):
  """A request the server refuses with 400: its reason, one line."""


@dataclasses.dataclass(frozen=True)
class Limits:
  """What one request may hold: t2t-serve's flags of those names (`serve_settings`)."""
  max_sentences_per_request: int = declared(SERVE, "max_sentences_per_request")
  max_sentence_length: int = declared(SERVE, "max_sentence_length")  # In characters.

  def __post_init__(self):
    check_bounds(self)  # As t2t-serve checks its flags, in the same one line.


@dataclasses.dataclass(frozen=True)
class PredictRequest:
  sentences: list
  columnar: bool  # True: "inputs" (answered with "outputs"); False: "instances".


def parse_predict(body, limits):
  """The bytes of a :predict body -> `PredictRequest`; BadRequest saying what is wrong."""
  request = _json_object(body)
  unknown = sorted(set(request) - {"signature_name", "instances", "inputs"})
  if unknown:
    raise BadRequest(f"unknown key \"{unknown[0]}\"; a :predict body holds \"instances\" or "
                     f"\"inputs\", and may hold \"signature_name\"")
  signature = request.get("signature_name", SIGNATURE)
  if signature != SIGNATURE:
    named = (json.dumps(signature) if isinstance(signature, str)
             else f"(a JSON {_kind(signature)})")  # Not written out: it may nest deep.
    raise BadRequest(f"signature_name {named} is not served; t2t-serve serves "
                     f"\"{SIGNATURE}\" (text in, text out)")
  if ("instances" in request) == ("inputs" in request):
    raise BadRequest("send exactly one of \"instances\" (row format) and \"inputs\" "
                     "(columnar format)")
  if "instances" in request:
    sentences = _instances(request["instances"])
  else:
    sentences = _inputs(request["inputs"])
  if not sentences:
    raise BadRequest("the batch is empty; send at least one sentence")
  if len(sentences) > limits.max_sentences_per_request:
    raise BadRequest(f"{len(sentences)} sentences in one request; this server takes at most "
                     f"{limits.max_sentences_per_request} (--max_sentences_per_request)")
  for index, sentence in enumerate(sentences):
    check_sentence(sentence, f"sentence {index} (counting from 0)", limits)
  return PredictRequest(sentences, "inputs" in request)


def parse_json_object(body, names):
  """The bytes of a JSON object holding string fields `names` and no others -> {name: str};
  BadRequest otherwise."""
  request = _json_object(body)
  if sorted(request) != sorted(names):
    raise BadRequest(f"the body holds {', '.join(sorted(request)) or 'no key'}; send an "
                     f"object of {', '.join(names)}")
  return {name: _string(request[name], name) for name in names}


def _json_object(body):
  """Body bytes -> the JSON object they hold; BadRequest for anything else."""
  try:
    text = body.decode("utf-8")
  except UnicodeDecodeError as error:
    raise BadRequest(f"the body is not UTF-8 text (byte {error.start}); send JSON in "
                     f"UTF-8") from None
  try:
    request = json.loads(text)
  except json.JSONDecodeError as error:
    raise BadRequest(f"the body is not JSON ({error.msg} at line {error.lineno} column "
                     f"{error.colno})") from None
  except RecursionError:
    raise BadRequest("the body's JSON nests arrays or objects too deep to parse; a body of "
                     "this API nests four levels at most") from None
  if not isinstance(request, dict):
    raise BadRequest(f"the body is a JSON {_kind(request)}; send an object")
  return request


def _instances(instances):
  if not isinstance(instances, list):
    raise BadRequest(f"\"instances\" is a JSON {_kind(instances)}; send a list of sentences")
  sentences = []
  for index, instance in enumerate(instances):
    where = f"instances[{index}]"
    if isinstance(instance, dict) and not _is_b64(instance):
      if set(instance) != {INPUT}:
        raise BadRequest(f"{where} holds {', '.join(sorted(instance)) or 'no key'}; an "
                         f"instance object holds \"{INPUT}\" alone")
      instance, where = instance[INPUT], f"{where}.{INPUT}"
    sentences.append(_string(instance, where))
  return sentences


def _inputs(inputs):
  where = "inputs"
  if isinstance(inputs, dict) and not _is_b64(inputs):
    if set(inputs) != {INPUT}:
      raise BadRequest(f"\"inputs\" holds {', '.join(sorted(inputs)) or 'no key'}; it holds "
                       f"\"{INPUT}\" alone")
    inputs, where = inputs[INPUT], f"inputs.{INPUT}"
  if not isinstance(inputs, list):
    return [_string(inputs, where)]  # One sentence: a batch of one.
  return [_string(value, f"{where}[{index}]") for index, value in enumerate(inputs)]


def _is_b64(value):
  return isinstance(value, dict) and set(value) == {"b64"}


def _string(value, where):
  """A JSON string, or {"b64": ...} of UTF-8 bytes -> str; BadRequest otherwise."""
  if _is_b64(value):
    try:
      raw = base64.b64decode(value["b64"], validate=True)
    except (binascii.Error, TypeError, ValueError):
      raise BadRequest(f"{where} is not valid base64") from None
    try:
      return raw.decode("utf-8")
    except UnicodeDecodeError as error:
      raise BadRequest(f"{where} is not valid UTF-8 text (byte {error.start}); send UTF-8, "
                       f"as t2t-decoder requires") from None
  if not isinstance(value, str):
    raise BadRequest(f"{where} is a JSON {_kind(value)}, not a string (a sentence)")
  return value


def check_sentence(sentence, where, limits):
  """BadRequest when `sentence` (named `where` in the message) is not valid UTF-8, holds a
  line break, or is longer than `limits` allow."""
  try:
    sentence.encode("utf-8")
  except UnicodeEncodeError:
    raise BadRequest(f"{where} is not valid UTF-8 text (a lone surrogate); send UTF-8, as "
                     f"t2t-decoder requires") from None
  if "\n" in sentence or "\r" in sentence:
    raise BadRequest(f"{where} holds a line break; send one sentence per instance, as "
                     f"t2t-decoder reads one a line")
  if len(sentence) > limits.max_sentence_length:
    raise BadRequest(f"{where} has {len(sentence)} characters; this server takes at most "
                     f"{limits.max_sentence_length} (--max_sentence_length)")


def _kind(value):
  return {dict: "object", list: "array", str: "string", bool: "boolean",
          type(None): "null"}.get(type(value), "number")


def predict_answer(request, outputs):
  """The answer to `request`: its outputs ({name: value} per sentence, OUTPUTS' names)
  as predictions (row format) or outputs (columnar)."""
  outputs = [{name: _finite(output[name]) for name in OUTPUTS} for output in outputs]
  if request.columnar:
    return {"outputs": {name: [output[name] for output in outputs] for name in OUTPUTS}}
  return {"predictions": outputs}


def _finite(value):
  """Scores that are not finite as None (JSON has no infinity); other values as they are."""
  if isinstance(value, float):
    return value if math.isfinite(value) else None
  if isinstance(value, list):
    return [_finite(item) for item in value]
  return value
