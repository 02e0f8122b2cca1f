"""Several models decoded as one: at every step, the log of the mean of their probabilities.

    model = EnsembleModel([model_a, model_b])
    decode_ids(model, inputs, beam_size=4, ...)   # model_decoding.py, unchanged

`EnsembleModel` has the decoding interface of a `Transformer` (`encode`, `init_cache`,
`grow_cache`, `decode_step`, `hparams`, `target_vocab_size`, and a teacher-forced call
for scoring), so the searches and the `Translator` take it as they take one
model. Each member keeps its own encoder output and its own decoder cache: the
ensemble's cache holds the list of theirs, less their PER_EXAMPLE entries, which
go together under its own PER_EXAMPLE entry, so that beam search tiles and
reorders the members' caches as one and none of their encoder outputs. A step's
output is

    log p(y) = log((1 / N) * sum_m p_m(y)) = logsumexp_m(log_softmax(logits_m)) - log N

the mean of the members' probabilities, as fairseq's `EnsembleModel` averages them
(not the mean of their log-probabilities). It is a normalised log-distribution, so the
searches' own log_softmax leaves it as it is (up to float32 round-off), and an
ensemble of one model with itself decodes as that model does.
"""

import dataclasses
import math

from keras import ops

from t2t_lite.constants import PER_EXAMPLE


class EnsembleModel:
  """Models with one target vocabulary (and one input vocabulary) decoded together.

  hparams: the first member's, with the tightest `max_length` of all and learned
  positions (`pos="emb"`) when any member has them: the decoding length and the input
  limit then fit every member; scoring (`t2t_lite.decoding.scoring`) takes the first
  member's label_smoothing from them. bounded_by: models whose `max_length` and
  positions bound the decoding too (those that rerank its beam; default: the members).
  """

  def __init__(self, models, bounded_by=None):
    if not models:
      raise ValueError("an ensemble needs at least one model")
    sizes = {(m.input_vocab_size, m.target_vocab_size) for m in models}
    if len(sizes) != 1:
      raise ValueError(f"ensemble members have different vocabulary sizes: {sorted(sizes)}")
    self.models = list(models)
    self.input_vocab_size, self.target_vocab_size = sizes.pop()
    first, bounds = models[0].hparams, bounded_by or models
    self.hparams = dataclasses.replace(
        first, max_length=min(m.hparams.max_length for m in bounds),
        pos="emb" if any(m.hparams.pos == "emb" for m in bounds) else first.pos)

  def __call__(self, features, training=None):
    """Teacher-forced: {"inputs", "targets"} -> [batch, t, vocab] float32 log-probs of the
    mean distribution (for `t2t_lite.decoding.scoring`)."""
    return mean_of_probabilities([m(features, training=training) for m in self.models])

  def encode(self, inputs, training=None):
    """inputs [batch, s] -> ([memory [batch, s, d_model_m]], [memory_bias [batch, 1, 1, s]]),
    one of each per member."""
    encoded = [m.encode(inputs, training=training) for m in self.models]
    return [memory for memory, _ in encoded], [bias for _, bias in encoded]

  def init_cache(self, memories, memory_biases, max_decode_length):
    """{"members": the members' caches less their PER_EXAMPLE entries, PER_EXAMPLE: those
    entries}, lists in member order (each cache as `Transformer.init_cache`)."""
    caches = [m.init_cache(memory, bias, max_decode_length)
              for m, memory, bias in zip(self.models, memories, memory_biases)]
    return {"members": [_per_hypothesis(c) for c in caches],
            PER_EXAMPLE: [c[PER_EXAMPLE] for c in caches]}

  def grow_cache(self, cache, max_decode_length):
    """Each member's cache with room for `max_decode_length` steps (`Transformer.grow_cache`)."""
    members = [m.grow_cache(c, max_decode_length) for m, c in zip(self.models, cache["members"])]
    return dict(cache, members=members)

  def decode_step(self, ids, step, cache):
    """ids [rows] -> (log-probs [rows, vocab] float32 of the mean distribution, cache)."""
    results = [m.decode_step(ids, step, dict(c, **{PER_EXAMPLE: shared}))
               for m, c, shared in zip(self.models, cache["members"], cache[PER_EXAMPLE])]
    members = [_per_hypothesis(c) for _, c in results]
    return (mean_of_probabilities([logits for logits, _ in results]),
            {"members": members, PER_EXAMPLE: cache[PER_EXAMPLE]})


def _per_hypothesis(cache):
  """A member's cache less its PER_EXAMPLE entry."""
  return {key: value for key, value in cache.items() if key != PER_EXAMPLE}


def mean_of_probabilities(logits):
  """A list of N logits [..., vocab] -> [..., vocab] float32: log of the mean of the N
  softmax distributions (logsumexp of the log-probs, less log N)."""
  log_probs = ops.stack([ops.log_softmax(ops.cast(x, "float32"), axis=-1) for x in logits])
  if len(logits) == 1:
    return log_probs[0]
  return ops.logsumexp(log_probs, axis=0) - math.log(len(logits))  # [..., vocab]
