"""A `Transformer` decoded with the searches: encode, build the cache, search, trim.

Lengths. A batch of inputs [batch, s] (s: the padded width, which a batch
pipeline makes the length of its longest sentence) is decoded into
`decode_length(...)` = s + extra_length positions: the size of the cache and of
the returned ids. Sentence b may emit len_b + extra_length tokens, EOS included
(len_b: its non-padding input ids; tensor2tensor decodes up to input length + 50),
its last one forced to be EOS (lengths.py). Two caps apply to both: the caller's
`max_decode_length` when given, and for learned positions (`hparams.pos ==
"emb"`) `hparams.max_length`, the rows of the position table: the decoder input at
step i uses position i, so no step can go past it. Sinusoids have no such cap.

The cache. A model with `grow_cache(cache, capacity)` starts with a cache of
cache_growth.FIRST_CAPACITY positions, which the search widens (doubling) as it
goes (cache_growth.py); one without it gets the whole length up front.
"""

import numpy as np
from keras import ops

from t2t_lite.constants import EOS_ID, PAD_ID
from t2t_lite.decoding.beam_search import beam_search
from t2t_lite.decoding.cache_growth import CacheGrowth, doubling_capacities
from t2t_lite.decoding.greedy import greedy_search
from t2t_lite.decoding.lengths import length_penalty, sequence_lengths


def decode_length(hparams, input_width, extra_length, max_decode_length=None):
  """The positions a batch of width `input_width` is decoded into (the module doc's rule)."""
  length = input_width + extra_length
  if max_decode_length is not None:
    length = min(length, max_decode_length)
  if hparams.pos == "emb":
    length = min(length, hparams.max_length)
  if length < 1:
    raise ValueError(f"decoding length {length} < 1: input width {input_width}, "
                     f"extra_length {extra_length}, max_decode_length {max_decode_length}")
  return length


def input_widths(widest, step, multiple=8):
  """The widths batches of inputs are padded to: multiples of `multiple`, each at least
  `step` times the one before, then `widest` (for 128: step 1.25 gives 8, 16, 24, 32, 40,
  56, 72, 96, 120, 128; step 2 gives 8, 16, 32, 64, 128).

  Each width is one more trace of the search (seconds on a CPU), while a wider batch
  costs only its encoder and encoder-decoder attention over the padding: the cache
  grows with the output, not with the width (cache_growth.py).
  """
  widths, width = [], multiple
  while width < widest:
    widths.append(width)
    width = max(width + multiple, -(-int(width * step) // multiple) * multiple)
  return widths + [widest]


def decode_ids(model, inputs, *, beam_size, alpha, extra_length, max_decode_length=None,
               count_rule=None, retire_finished=False):
  """Decodes a batch of input ids with a `Transformer`: greedy when beam_size == 1.

  Args:
    model: a `Transformer` (t2t_lite.models.transformer), or an `EnsembleModel` of several
      (ensemble_model.py). On the JAX backend its weights must exist first (loaded, or one
      call): the search loop is traced.
    inputs: [batch, s] int32 ids, 0 = padding; s must be static (a Python int).
    beam_size: 1 for greedy decoding, else the beam width.
    alpha: the length-penalty exponent.
    extra_length: tokens each sentence may emit beyond its input length.
    max_decode_length: optional cap on the decoding length.
    count_rule: optional `CountRule`: how many of which tokens each output holds
      (t2t_lite.decoding.token_counts).
    retire_finished: a beam search drops the examples it has finished from its batch
      (retiring.py: the same results, for less work when lengths differ), and greedy
      decoding grows its cache within one loop (growing_loop.py); TensorFlow only, not
      under XLA.

  Returns:
    ids: [batch, beam, length] int32, each example's hypotheses best first, each up to
      and including EOS and zeros after it; length = decode_length(...); beam = 1
      for greedy decoding.
    scores: [batch, beam] float32, log_prob / ((5 + len) / 6) ** alpha, len counting
      the EOS; -inf marks a slot with no hypothesis. With alpha = 0, the log-prob.
  """
  input_width = inputs.shape[1]
  if input_width is None:
    raise ValueError("decode_ids needs inputs of static width: pad batches to fixed widths")
  length = decode_length(model.hparams, input_width, extra_length, max_decode_length)
  memory, memory_bias = model.encode(inputs)
  growth = cache_growth(model, length)
  cache = model.init_cache(memory, memory_bias, growth.capacities[0] if growth else length)
  input_lengths = ops.sum(ops.cast(ops.not_equal(inputs, PAD_ID), "int32"), axis=1)  # [batch]
  decode_lengths = input_lengths + extra_length                                     # [batch]
  initial_ids = ops.zeros_like(input_lengths)                                       # [batch]
  if beam_size == 1:
    ids, log_probs = greedy_search(model.decode_step, initial_ids, cache,
                                   max_decode_length=length, decode_lengths=decode_lengths,
                                   count_rule=count_rule, growth=growth,
                                   grow_within_loop=retire_finished)
    scores = log_probs / length_penalty(sequence_lengths(ids), alpha)  # [batch]
    return ids[:, None], scores[:, None]
  search = beam_search
  if retire_finished:
    from t2t_lite.decoding.retiring import retiring_beam_search  # TensorFlow's: imported here,
    search = retiring_beam_search                                 # for a JAX-only machine.
  return search(model.decode_step, initial_ids, cache, beam_size=beam_size, alpha=alpha,
                max_decode_length=length, vocab_size=model.target_vocab_size,
                decode_lengths=decode_lengths, count_rule=count_rule, growth=growth)


def cache_growth(model, length):
  """The `CacheGrowth` of a model decoded into `length` positions; None for a model
  without `grow_cache`."""
  grow = getattr(model, "grow_cache", None)
  return None if grow is None else CacheGrowth(doubling_capacities(length), grow)


def trim_after_eos(ids, eos_id=EOS_ID):
  """One hypothesis [length] -> list of its ids before the first EOS (EOS and the rest dropped)."""
  ids = [int(i) for i in np.asarray(ids).reshape(-1)]
  return ids[:ids.index(eos_id)] if eos_id in ids else ids


def n_best(ids, scores, n):
  """ids [batch, beam, length], scores [batch, beam] -> per example, its first n hypotheses.

  Each hypothesis is (ids trimmed by `trim_after_eos`, score); slots with no
  hypothesis (score -inf) are left out, so a list may hold fewer than n.
  """
  ids, scores = np.asarray(ids), np.asarray(scores)
  return [[(trim_after_eos(ids[b, k]), float(scores[b, k]))
           for k in range(min(n, ids.shape[1])) if np.isfinite(scores[b, k])]
          for b in range(ids.shape[0])]
