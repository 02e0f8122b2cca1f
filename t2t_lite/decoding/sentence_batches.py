"""Sentences gathered into batches of similar lengths, as t2t-decoder decodes them and
t2t-serve batches its requests; no TensorFlow, so that serving's batching imports none."""


def batches_by_length(lengths, batch_size):
  """Each sentence's length -> batches of at most `batch_size` sentence indices, shortest
  sentences first (a stable sort: equal lengths keep their order), as t2t-decoder decodes
  them: each batch pads to its longest sentence, so similar lengths waste little."""
  order = sorted(range(len(lengths)), key=lengths.__getitem__)
  return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
