"""t2t-serve: a model served over TensorFlow Serving's REST API, with dynamic batching.

What is served:
  opening.py              the flags -> what to serve: a SavedModel, a CTranslate2 export,
                          or run directories (numbered versions: the newest).
  served_model.py         what every served kind gives: decode, input lengths, warm-up.
  saved_model_served.py   t2t-exporter's SavedModel, through its serving_default signature.
  run_served.py           run directories, through t2t-decoder's own Translator.
  ctranslate2_served.py   a CTranslate2 export, in this process.

How it is served:
  serve_settings.py       t2t-serve's settings (defaults, ranges), light enough for its flags.
  request_batching.py     dynamic batching with TensorFlow Serving's settings.
  predict_body.py         a :predict body -> sentences; outputs -> the answer; the limits.
  rest_api.py             the REST paths, status codes and errors (aiohttp).
  connections.py          how many connections, how long each may wait; unparsable HTTP.
  server_metrics.py       Prometheus's text: requests, batches, queue, memory.
  translation_page.py     the page at / (page.html): a sentence, its translation, n-best
                          and attention maps.
  attention_pictures.py   the page's attention maps: t2t-visualize's heat maps.
  server.py               the process: listen, load and warm up, drain on SIGTERM
                          (within --drain_seconds).
"""
