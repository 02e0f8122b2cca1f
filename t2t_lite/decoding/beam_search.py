"""tensor2tensor's beam search as one pure function of a step callback and a cache.

The algorithm (tensor2tensor `utils/beam_search.py`, after GNMT):
  - `beam` alive hypotheses grow by one token per step; of the beam × vocab
    extensions the 2 × beam best are kept, so that even if `beam` of them end
    with EOS, `beam` others can stay alive;
  - the best `beam` extensions not ending with EOS become the new alive set;
  - those ending with EOS compete with the finished set, scored
    log_prob / ((5 + len) / 6) ** alpha with len counting the EOS (see lengths.py);
  - the finished set, best first, is the result: the n-best list.

Stopping. Example b stops at its limit L_b (lengths.py: its last token is forced
to be EOS, so every example ends with a full finished set when enough distinct
hypotheses exist) or, with `stop_early`, as soon as no alive hypothesis can
beat the worst finished one: the best alive log-prob divided by the largest
length penalty it could still get, ((5 + L_b) / 6) ** alpha (log-probs only
fall as tokens are added; alpha >= 0), is below the worst finished score, an
empty finished slot counting as -inf (as in flax's `examples/wmt/decode.py`).
The search thus goes on until the whole finished set is settled, and stopping
early never changes the result: the n-best list is the one a search run to L_b
returns. tensor2tensor's `_is_finished` (since late 2018) compares the same
bound with the BEST finished score when `stop_early` is set: it stops once the
top hypothesis is settled, which is therefore the same as here, while the rest
of its n-best list (`return_beams`) may differ from a search run to the end.
The loop runs while any example goes on; the steps it takes for a stopped example
cannot change that example's finished set (it can only receive -inf or
worse-than-worst candidates), so a result never depends on the rest of the batch.

Since every example ends with EOS at its limit, tensor2tensor's fallback (return
the alive hypotheses when nothing finished) cannot arise; instead finished
slots that no hypothesis could fill (fewer than `beam` distinct sequences
within the limit) keep the score -inf and all-zero ids.
"""

import typing

import keras
from keras import ops

from t2t_lite.constants import EOS_ID, IMPOSSIBLE_LOG_PROB, PER_EXAMPLE
from t2t_lite.decoding.cache_growth import while_growing
from t2t_lite.decoding.lengths import (example_limits, force_eos_at_limit, length_penalty,
                                       read_column, write_column)
from t2t_lite.decoding.token_counts import apply_count_rule


class BeamState(typing.NamedTuple):
  """The loop state. `length` = max_decode_length; column 0 of the ids holds the initial id."""
  step: typing.Any             # [] int32: the decoder-input position read by the next step.
  alive_seq: typing.Any        # [batch, beam, length + 1] int32
  alive_log_probs: typing.Any  # [batch, beam] float32; -inf for empty slots.
  finished_seq: typing.Any     # [batch, beam, length + 1] int32
  finished_scores: typing.Any  # [batch, beam] float32, best first; -inf for empty slots.
  cache: typing.Any            # nested structure, every tensor [batch * beam, ...] but
                               # cache[PER_EXAMPLE]'s [batch, ...]


def beam_search(step_fn, initial_ids, cache, *, beam_size, alpha, max_decode_length,
                vocab_size, eos_id=EOS_ID, decode_lengths=None, stop_early=True,
                count_rule=None, growth=None):
  """Beam search over `step_fn`; returns the n-best list of every example, best first.

  Args:
    step_fn: `(ids [batch * beam], step [] int32, cache) -> (logits [batch * beam,
      vocab_size], cache)`, rows ordered example-major (row = example * beam + k).
    initial_ids: [batch] int32, the decoder input at step 0.
    cache: nested structure of tensors [batch, ...]; tiled here to [batch * beam, ...]
      and reordered along with the hypotheses, except a dict's entry PER_EXAMPLE
      (t2t_lite.constants), which step_fn gets as given.
    beam_size, alpha: the beam width and the length-penalty exponent (alpha >= 0).
    max_decode_length: Python int, the positions allocated (static shapes).
    vocab_size: Python int, the size of the logits' last axis.
    eos_id: the end-of-sequence id.
    decode_lengths: optional [batch] per-example limits (lengths.py states the rule).
    stop_early: stop an example once its n-best list cannot change (the module doc).
    count_rule: optional `CountRule` (token_counts.py states the rule).
    growth: optional `CacheGrowth` (cache_growth.py): `cache` then has room for
      growth.capacities[0] positions and grows as the search goes on.

  Returns:
    sequences: [batch, beam, max_decode_length] int32, the generated ids of each
      hypothesis up to and including EOS, zeros after it.
    scores: [batch, beam] float32, log_prob / ((5 + len) / 6) ** alpha with len
      counting the EOS, sorted best first; -inf marks a slot with no hypothesis.
  """
  check_alpha(alpha)
  limits = example_limits(initial_ids, max_decode_length, decode_lengths)  # [batch]
  best_possible_penalty = length_penalty(limits, alpha)           # [batch]

  def cond(state):
    done = examples_done(state, limits, best_possible_penalty, stop_early)
    return ops.logical_and(ops.less(state.step, max_decode_length),
                           ops.any(ops.logical_not(done)))

  def body(state):
    stepped, alive_origins = extend(state, step_fn, limits, beam_size, alpha, vocab_size,
                                    eos_id, count_rule)
    return (stepped._replace(cache=reorder_cache(stepped.cache, alive_origins)),)

  state = initial_state(initial_ids, cache, beam_size, max_decode_length)
  state = while_growing(cond, body, state, growth)
  return n_best_lists(state.finished_seq, state.finished_scores)


def check_alpha(alpha):
  if alpha < 0:
    raise ValueError(f"alpha must be >= 0 for the early-stopping bound, got {alpha}")


def examples_done(state, limits, best_possible_penalty, stop_early):
  """[batch] bool: the examples whose search is over (the module doc's rule).

  limits: [batch] the examples' L_b; best_possible_penalty: [batch] length_penalty(limits).
  """
  at_limit = ops.greater_equal(state.step, limits)                # [batch]
  if not stop_early:
    return at_limit
  best_alive = state.alive_log_probs[:, 0] / best_possible_penalty  # [batch]
  worst_finished = ops.min(state.finished_scores, axis=1)         # [batch]
  return ops.logical_or(at_limit, ops.greater(worst_finished, best_alive))


def n_best_lists(finished_seq, finished_scores):
  """The finished sets [batch, beam, length + 1], [batch, beam] -> beam_search's results:
  the ids after the initial one, all zeros in the slots no hypothesis filled."""
  filled = ops.isfinite(finished_scores)[:, :, None]              # [batch, beam, 1]
  return ops.where(filled, finished_seq[:, :, 1:], 0), finished_scores


def initial_state(initial_ids, cache, beam_size, max_decode_length):
  batch = ops.shape(initial_ids)[0]
  first_ids = ops.repeat(ops.cast(initial_ids, "int32")[:, None], beam_size, axis=1)
  empty = ops.zeros((batch, beam_size, max_decode_length + 1), "int32")
  alive_seq = write_column(empty, 0, first_ids)                   # [batch, beam, length + 1]
  # One live hypothesis per example: the other slots would only duplicate it.
  first_slot = ops.where(ops.equal(ops.arange(beam_size), 0), 0.0, IMPOSSIBLE_LOG_PROB)  # [beam]
  alive_log_probs = ops.zeros((batch, beam_size), "float32") + first_slot[None]  # [batch, beam]
  return BeamState(
      step=ops.convert_to_tensor(0, "int32"),
      alive_seq=alive_seq,
      alive_log_probs=alive_log_probs,
      finished_seq=ops.zeros_like(alive_seq),
      finished_scores=ops.full((batch, beam_size), IMPOSSIBLE_LOG_PROB, "float32"),
      cache=map_per_hypothesis(lambda t: ops.repeat(t, beam_size, axis=0), cache))


def extend(state, step_fn, limits, beam_size, alpha, vocab_size, eos_id, count_rule):
  """One step for every example -> (the state with the new alive and finished sets and the
  cache step_fn returned, not yet reordered; alive_origins [batch, beam]: the old beam of
  each new alive hypothesis, which `reorder_cache` takes)."""
  step = state.step
  ids = read_column(state.alive_seq, step)                        # [batch, beam]
  flat_logits, cache = step_fn(ops.reshape(ids, (-1,)), step, state.cache)
  logits = ops.reshape(ops.cast(flat_logits, "float32"), (-1, beam_size, vocab_size))
  log_probs = ops.log_softmax(logits, axis=-1)                    # [batch, beam, vocab]
  if count_rule is not None:
    log_probs = apply_count_rule(log_probs, state.alive_seq, count_rule, step, limits, eos_id)
  log_probs = force_eos_at_limit(log_probs, step, limits, eos_id)
  log_probs = log_probs + state.alive_log_probs[:, :, None]       # [batch, beam, vocab]

  # Every candidate has the same length here, so log-probs rank them as scores do.
  flat_log_probs = ops.reshape(log_probs, (-1, beam_size * vocab_size))
  topk_log_probs, topk_indices = ops.top_k(flat_log_probs, 2 * beam_size)  # [batch, 2 * beam]
  topk_origins = topk_indices // vocab_size                       # [batch, 2 * beam]
  topk_ids = topk_indices % vocab_size                            # [batch, 2 * beam]
  topk_seq = gather_beams(state.alive_seq, topk_origins)          # [batch, 2 * beam, length + 1]
  topk_seq = write_column(topk_seq, step + 1, topk_ids)
  topk_finished = ops.equal(topk_ids, eos_id)                     # [batch, 2 * beam]

  unfinished_log_probs = ops.where(topk_finished, IMPOSSIBLE_LOG_PROB, topk_log_probs)
  alive_log_probs, alive_choice = ops.top_k(unfinished_log_probs, beam_size)  # [batch, beam]
  alive_seq = gather_beams(topk_seq, alive_choice)                # [batch, beam, length + 1]
  alive_origins = ops.take_along_axis(topk_origins, alive_choice, axis=1)  # [batch, beam]

  # The new token is token number step + 1, EOS included in the length.
  topk_scores = topk_log_probs / length_penalty(step + 1, alpha)  # [batch, 2 * beam]
  topk_scores = ops.where(topk_finished, topk_scores, IMPOSSIBLE_LOG_PROB)
  # The finished set and the new candidates compete: [batch, 3 * beam, ...].
  candidate_scores = ops.concatenate([state.finished_scores, topk_scores], axis=1)
  candidate_seq = ops.concatenate([state.finished_seq, topk_seq], axis=1)
  finished_scores, finished_choice = ops.top_k(candidate_scores, beam_size)  # [batch, beam]
  finished_seq = gather_beams(candidate_seq, finished_choice)     # [batch, beam, length + 1]
  state = BeamState(step + 1, alive_seq, alive_log_probs, finished_seq, finished_scores, cache)
  return state, alive_origins


def gather_beams(tensor, indices):
  """tensor [batch, n, ...], indices [batch, m] into axis 1 -> [batch, m, ...]."""
  n, rest = tensor.shape[1], tuple(tensor.shape[2:])
  flat = ops.reshape(tensor, (-1,) + rest)                        # [batch * n, ...]
  gathered = ops.take(flat, _flat_rows(indices, n), axis=0)       # [batch * m, ...]
  return ops.reshape(gathered, (-1, indices.shape[1]) + rest)


def reorder_cache(cache, origins, examples=None):
  """cache tensors [batch * beam, ...] -> [kept * beam, ...]; origins [kept, beam]: the old
  beam of each new one. examples: None (kept = batch), or [kept] int, the examples kept
  (their rows of every tensor; a PER_EXAMPLE entry's rows too)."""
  rows = _flat_rows(origins, origins.shape[1], examples)          # [kept * beam]
  reordered = map_per_hypothesis(lambda t: ops.take(t, rows, axis=0), cache)
  if examples is None or not (isinstance(cache, dict) and PER_EXAMPLE in cache):
    return reordered
  return {**reordered, PER_EXAMPLE: keras.tree.map_structure(
      lambda t: ops.take(t, examples, axis=0), cache[PER_EXAMPLE])}


def map_per_hypothesis(fn, cache):
  """fn applied to every tensor of the cache but those of its PER_EXAMPLE entry."""
  if isinstance(cache, dict) and PER_EXAMPLE in cache:
    rest = {key: value for key, value in cache.items() if key != PER_EXAMPLE}
    return {**keras.tree.map_structure(fn, rest), PER_EXAMPLE: cache[PER_EXAMPLE]}
  return keras.tree.map_structure(fn, cache)


def _flat_rows(indices, n, examples=None):
  """indices [kept, m] into a per-example axis of size n -> [kept * m] rows of the flat
  axis; examples: [kept] the example of each row of indices (None: 0, 1, ..., kept - 1)."""
  if examples is None:
    examples = ops.arange(ops.shape(indices)[0], dtype="int32")  # [kept]
  offsets = ops.cast(examples, "int32")[:, None] * n              # [kept, 1]
  return ops.reshape(ops.cast(indices, "int32") + offsets, (-1,))
