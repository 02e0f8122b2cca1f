"""t2t-serve: serves a model over TensorFlow Serving's REST API, with dynamic batching.

    t2t-serve --model_base_path=SERVING [--model_name=default] [--port=8501]
    t2t-serve --output_dir=RUN [--decode_hparams="beam_size=4,n_best=3"]
    t2t-serve --output_dir=RUN_A,RUN_B              # an ensemble, as t2t-decoder takes it
    t2t-serve --model_base_path=RUN/ctranslate2     # a CTranslate2 export
    curl -d '{"instances": ["Ich habe keine Zeit."]}' \\
        http://127.0.0.1:8501/v1/models/default:predict

--model_base_path is t2t-exporter's export directory (SavedModel or CTranslate2), or a base
path holding numbered versions of one (SERVING/1, SERVING/2: the newest is served, as
TensorFlow Serving does). The answers of a run directory are t2t-decoder's, byte for byte;
a SavedModel's are t2t-decoder's for the settings it was exported with.

Sentences of concurrent requests are decoded together: --max_batch_size,
--batch_timeout_micros, --max_enqueued_batches and --num_batch_threads are TensorFlow
Serving's batching settings, with its meanings and one rule more: beside a batch being
decoded, another starts only when full (t2t_lite.serving.request_batching). The API, its
limits and its status codes: t2t_lite.serving.rest_api; the page at / translates a sentence
and draws its attention maps. --max_connections, --idle_timeout_seconds and
--body_timeout_seconds bound the connections (t2t_lite.serving.connections). SIGTERM stops
accepting, answers every accepted request within --drain_seconds, then exits 0. Needs
the `serve` extra (aiohttp): `pip install -e ".[serve]"`.
"""

import dataclasses
import os
import sys

from t2t_lite.bin import common
from t2t_lite.cli.command_line import declared, define_flags, flag_values, reject_positional
from t2t_lite.cli.shared_settings import shared
from t2t_lite.errors import UserError
from t2t_lite.serving.serve_settings import SERVE


@dataclasses.dataclass(frozen=True)
class ServeFlags:
  """What to serve, where, and how to batch it: `serve_settings` declares each flag."""
  model_base_path: str = declared(SERVE, "model_base_path")
  output_dir: str = shared("output_dir")
  checkpoint_path: str = shared("checkpoint_path")
  decode_hparams: str = shared("decode_hparams")
  model_name: str = declared(SERVE, "model_name")
  host: str = declared(SERVE, "host")
  port: int = declared(SERVE, "port")
  max_batch_size: int = declared(SERVE, "max_batch_size")
  batch_timeout_micros: int = declared(SERVE, "batch_timeout_micros")
  max_enqueued_batches: int = declared(SERVE, "max_enqueued_batches")
  num_batch_threads: int = declared(SERVE, "num_batch_threads")
  max_body_bytes: int = declared(SERVE, "max_body_bytes")
  body_timeout_seconds: float = declared(SERVE, "body_timeout_seconds")
  idle_timeout_seconds: float = declared(SERVE, "idle_timeout_seconds")
  max_connections: int = declared(SERVE, "max_connections")
  drain_seconds: float = declared(SERVE, "drain_seconds")
  max_sentences_per_request: int = declared(SERVE, "max_sentences_per_request")
  max_sentence_length: int = declared(SERVE, "max_sentence_length")
  length_penalty: float = declared(SERVE, "length_penalty")


define_flags(ServeFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(ServeFlags)
  try:
    import aiohttp  # noqa: F401
  except ImportError:
    raise UserError("t2t-serve needs the aiohttp package, which is not installed; run pip "
                    "install -e \".[serve]\" in the checkout's .venv") from None
  from t2t_lite.serving.request_batching import BatchingSettings
  from t2t_lite.serving.connections import ConnectionLimits
  from t2t_lite.serving.opening import model_source
  from t2t_lite.serving.predict_body import Limits
  from t2t_lite.serving.rest_api import check_model_name
  from t2t_lite.serving.server import ServerConfig, serve
  check_model_name(args.model_name)  # Before the paths are read (ServerConfig checks too).
  # Each class takes the flags of its fields' names, checks them and resolves a 0 that
  # means "chosen here" (t2t_lite.serving.serve_settings).
  config = _from_flags(ServerConfig, args, source=model_source(args.model_base_path,
                                                               args.output_dir),
                       batching=_from_flags(BatchingSettings, args),
                       limits=_from_flags(Limits, args),
                       connection_limits=_from_flags(ConnectionLimits, args))
  return serve(config)


def _from_flags(config_class, args, **given):
  """A `config_class` of `given` and, for its other fields, of the flags of their names."""
  return config_class(**given, **{field.name: getattr(args, field.name)
                                  for field in dataclasses.fields(config_class)
                                  if field.name not in given})


def _main_then_exit(argv):
  """`main`, then the process's end at once: once t2t-serve has drained and said so, the
  interpreter's teardown of TensorFlow (a second or more) would only push its exit past
  the --drain_seconds deadline. Nothing is left to save; the output is flushed first."""
  status = main(argv)
  sys.stdout.flush()
  sys.stderr.flush()
  os._exit(status or 0)


run = common.entry_point(_main_then_exit)  # The console script.


if __name__ == "__main__":
  run()
