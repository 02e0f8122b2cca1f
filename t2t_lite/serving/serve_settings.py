"""t2t-serve's settings, each declared once with its default and range, in a module light
enough for its flags (no TensorFlow, no aiohttp). Its flags (bin/t2t_serve.py) and the
library classes they fill take them from here, so that a Python caller of `server.serve`
gets the command's defaults and its one-line refusals:

    max_batch_size: int = declared(SERVE, "max_batch_size")   # a dataclass's field
    check_bounds(self)                     # in its __post_init__: "--max_batch_size=0: ..."

  BatchingSettings (request_batching.py)  max_batch_size ... num_batch_threads
  Limits (predict_body.py)                max_sentences_per_request, max_sentence_length
  ConnectionLimits (connections.py)       max_connections, idle_ and body_timeout_seconds
  ServerConfig (server.py)                the rest; it checks that the queue holds a
                                          request of max_sentences_per_request

A 0 that means "chosen here" (num_batch_threads, max_connections) is resolved when its
class is built. --output_dir, --checkpoint_path and --decode_hparams are shared settings
(`cli.shared_settings`).
"""

# name -> (default, help text[, the rest of its `setting`: its range]): `command_line.declared`.
SERVE = {
    "model_base_path": (None, "t2t-exporter's export directory (SavedModel, or CTranslate2), "
                        "or a base path of numbered versions of one (BASE/1, BASE/2, ...: the "
                        "newest is served)."),
    "model_name": ("default", "The name clients use: /v1/models/NAME (letters, digits, _, - "
                   "and .)."),
    "host": ("127.0.0.1", "The address to listen on (0.0.0.0: every interface)."),
    "port": (8501, "The port to listen on (TensorFlow Serving's REST port; 0: any free port, "
             "printed when listening).", dict(minimum=0, maximum=65535)),
    "max_batch_size": (32, "The most sentences one search decodes.", dict(minimum=1)),
    "batch_timeout_micros": (1000, "How long a free batch thread waits (microseconds) from "
                             "the oldest waiting sentence's arrival for a full batch, before "
                             "decoding what there is.", dict(minimum=0)),
    "max_enqueued_batches": (8, "How many batches may wait; a request that would pass them "
                             "gets 503 with Retry-After.", dict(minimum=1)),
    "num_batch_threads": (0, "How many batches are decoded at once (0: one per CPU core this "
                          "process may use, TensorFlow Serving's default); beside a batch "
                          "being decoded, another starts only when full (2 threads on 2 "
                          "cores: 64 clients got 1.3x one thread's rate).",
                          dict(minimum=0, bound_hint="0: one per CPU core")),
    "max_body_bytes": (1 << 20, "The largest request body taken (413 beyond).",
                       dict(minimum=1)),
    "body_timeout_seconds": (60.0, "How long a request's body may take to arrive, from its "
                             "headers (408 beyond).", dict(above=0)),
    "idle_timeout_seconds": (75.0, "How long a connection may wait for a request's headers, "
                             "from its opening or its last answer, before it is closed (an "
                             "idle keep-alive connection, or headers trickling in). Above a "
                             "load balancer's idle timeout (60 s on many).", dict(above=0)),
    "max_connections": (0, "The most connections open at once; a new one beyond closes the "
                        "connection that has waited longest for a request (or else is closed "
                        "itself). 0: 1024, or the file-descriptor limit less 128 where that "
                        "is lower.", dict(minimum=0, bound_hint="0: the default")),
    "drain_seconds": (25.0, "After SIGTERM, how long the requests already accepted have to be "
                      "answered and the connections left to be closed (the last second is "
                      "the closing's); then the process exits 0 (25: within Kubernetes' "
                      "default grace period of 30 s).",
                      dict(minimum=0)),
    "max_sentences_per_request": (64, "The most sentences one request may hold.",
                                  dict(minimum=1)),
    "max_sentence_length": (1000, "The most characters a sentence may have.", dict(minimum=1)),
    "length_penalty": (0.4, "With a CTranslate2 export: its beam's length penalty, log_prob / "
                       "len ** length_penalty (0.4 ranks about as alpha 0.6 does for outputs "
                       "of 12 tokens)."),
}
