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

from t2t_lite.bin import common
from t2t_lite.cli.command_line import define_flags, flag_values, reject_positional, setting
from t2t_lite.cli.shared_settings import shared
from t2t_lite.errors import UserError


@dataclasses.dataclass(frozen=True)
class ServeFlags:
  """What to serve, where, and how to batch it."""
  model_base_path: str = setting(
      None, "t2t-exporter's export directory (SavedModel, or CTranslate2), or a base path "
      "of numbered versions of one (BASE/1, BASE/2, ...: the newest is served).")
  output_dir: str = shared("output_dir")
  checkpoint_path: str = shared("checkpoint_path")
  decode_hparams: str = shared("decode_hparams")
  model_name: str = setting("default", "The name clients use: /v1/models/NAME (letters, "
                            "digits, _, - and .).")
  host: str = setting("127.0.0.1", "The address to listen on (0.0.0.0: every interface).")
  port: int = setting(8501, "The port to listen on (TensorFlow Serving's REST port; 0: any "
                      "free port, printed when listening).", minimum=0, maximum=65535)
  max_batch_size: int = setting(32, "The most sentences one search decodes.", minimum=1)
  batch_timeout_micros: int = setting(
      1000, "How long a free batch thread waits (microseconds) from the oldest waiting "
      "sentence's arrival for a full batch, before decoding what there is.", minimum=0)
  max_enqueued_batches: int = setting(
      8, "How many batches may wait; a request that would pass them gets 503 with "
      "Retry-After.", minimum=1)
  num_batch_threads: int = setting(
      0, "How many batches are decoded at once (0: one per CPU core this process may use, "
      "TensorFlow Serving's default); beside a batch being decoded, another starts only when "
      "full (2 threads on 2 cores: 64 clients got 1.3x one thread's rate).", minimum=0,
      bound_hint="0: one per CPU core")
  max_body_bytes: int = setting(1 << 20, "The largest request body taken (413 beyond).",
                                minimum=1)
  body_timeout_seconds: float = setting(
      60.0, "How long a request's body may take to arrive, from its headers (408 beyond).",
      above=0)
  idle_timeout_seconds: float = setting(
      75.0, "How long a connection may wait for a request's headers, from its opening or "
      "its last answer, before it is closed (an idle keep-alive connection, or headers "
      "trickling in). Above a load balancer's idle timeout (60 s on many).", above=0)
  max_connections: int = setting(
      0, "The most connections open at once; a new one beyond closes the connection that "
      "has waited longest for a request (or else is closed itself). 0: 1024, or the "
      "file-descriptor limit less 128 where that is lower.", minimum=0,
      bound_hint="0: the default")
  drain_seconds: float = setting(
      25.0, "After SIGTERM, how long the requests already accepted have to be answered; "
      "then the connections left are closed and the process exits 0 (25: within "
      "Kubernetes' default grace period of 30 s).", minimum=0)
  max_sentences_per_request: int = setting(64, "The most sentences one request may hold.",
                                           minimum=1)
  max_sentence_length: int = setting(1000, "The most characters a sentence may have.",
                                     minimum=1)
  length_penalty: float = setting(
      0.4, "With a CTranslate2 export: its beam's length penalty, log_prob / len ** "
      "length_penalty (0.4 ranks about as alpha 0.6 does for outputs of 12 tokens).")


define_flags(ServeFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(ServeFlags)
  try:
    import aiohttp  # noqa: F401
  except ImportError:
    raise UserError("t2t-serve needs the aiohttp package, which is not installed; run pip "
                    "install -e \".[serve]\" in the checkout's .venv") from None
  from t2t_lite.cores import usable_cores
  from t2t_lite.serving.request_batching import BatchingSettings
  from t2t_lite.serving.connections import ConnectionLimits, default_max_connections
  from t2t_lite.serving.opening import model_source
  from t2t_lite.serving.predict_body import Limits
  from t2t_lite.serving.rest_api import check_model_name
  from t2t_lite.serving.server import ServerConfig, serve
  check_model_name(args.model_name)
  batching = BatchingSettings(args.max_batch_size, args.batch_timeout_micros,
                              args.max_enqueued_batches,
                              args.num_batch_threads or usable_cores())
  if args.max_sentences_per_request > batching.capacity:
    raise UserError(f"--max_sentences_per_request={args.max_sentences_per_request} exceeds "
                    f"what the queue holds (--max_enqueued_batches x --max_batch_size = "
                    f"{batching.capacity}): such a request could never be taken")
  connection_limits = ConnectionLimits(args.max_connections or default_max_connections(),
                                       args.idle_timeout_seconds, args.body_timeout_seconds)
  config = ServerConfig(
      model_source(args.model_base_path, args.output_dir), args.model_name, args.host,
      args.port, batching, Limits(args.max_sentences_per_request, args.max_sentence_length),
      args.max_body_bytes, connection_limits, args.drain_seconds, args.checkpoint_path,
      args.decode_hparams, args.length_penalty)
  return serve(config)


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
