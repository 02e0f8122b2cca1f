"""What every kind of served model gives the server: sentences in, outputs out.

    served.decode(sentences)        -> [{"translations": str, "scores": float,
                                         "n_best": [str] * n_best, "n_best_scores": [float]}]
    served.input_lengths(sentences) -> [int]: the tokens each is decoded with (batches sort by it)
    served.widths                   -> the input widths its search is traced at
    warm_up(served)                 decodes one sentence at each width: each trace is made
                                    before the server says AVAILABLE, not in a client's request
    served.attention(sentence, target) -> t2t-visualize's AttentionMaps, where
                                    `attention_unavailable` is None (else why not)
    signature_def(served.n_best)    the serving_default signature as TensorFlow Serving's
                                    metadata describes it

A blank sentence gives a blank translation, as in t2t-decoder. `decode` is called from
the batch threads; what it raises fails its batch.
"""


class ServedModel:
  """The interface (the module doc); `description` says what is served, e.g. "the
  SavedModel SERVING/2"."""

  description = ""
  n_best = 1
  widths = ()
  attention_unavailable = "this model has no layers to draw attention from"

  def decode(self, sentences):
    raise NotImplementedError

  def input_lengths(self, sentences):
    raise NotImplementedError

  def attention(self, sentence, target):
    raise NotImplementedError


def output(texts, scores, n_best):
  """One sentence's output from its ranked texts and scores (fewer than n_best: the missing
  hypotheses are blank, scored -inf, which the answer gives as null)."""
  texts = list(texts) + [""] * (n_best - len(texts))
  scores = [float(score) for score in scores] + [float("-inf")] * (n_best - len(scores))
  return {"translations": texts[0], "scores": scores[0], "n_best": texts[:n_best],
          "n_best_scores": scores[:n_best]}


def warm_up(served, word="a"):
  """Decodes one sentence at each of `served.widths` (and one sentence when it has none):
  sentences of 1, 2, ... repetitions of `word`, the shortest that reaches each width."""
  widest = max(served.widths, default=1)
  candidates = [" ".join([word] * count) for count in range(1, widest + 1)]
  chosen = {}
  for sentence, length in zip(candidates, served.input_lengths(candidates)):
    width = next((w for w in sorted(served.widths) if w >= length), None)
    chosen.setdefault(width, sentence)
  for sentence in chosen.values():
    served.decode([sentence])


def _tensor(dtype, dims):
  """A tensor's description in TensorFlow Serving's metadata (-1: any size)."""
  return {"dtype": dtype, "tensor_shape": {"dim": [{"size": str(size), "name": ""}
                                                   for size in dims], "unknown_rank": False}}


def signature_def(n_best):
  """The serving_default signature's description, as GET /v1/models/NAME/metadata gives it."""
  return {"inputs": {"sentences": dict(_tensor("DT_STRING", [-1]),
                                       name="serving_default_sentences:0")},
          "outputs": {"translations": dict(_tensor("DT_STRING", [-1]), name="translations"),
                      "scores": dict(_tensor("DT_FLOAT", [-1]), name="scores"),
                      "n_best": dict(_tensor("DT_STRING", [-1, n_best]), name="n_best"),
                      "n_best_scores": dict(_tensor("DT_FLOAT", [-1, n_best]),
                                            name="n_best_scores")},
          "method_name": "tensorflow/serving/predict"}
