"""Greedy decoding: the most probable token at every step, over a step callback and a cache.

The loop stops as soon as every example has emitted EOS (a condition of the
while loop; shapes stay static). Example b emits at most L_b tokens, EOS
included, its last one forced to be EOS (lengths.py states the rule).
"""

import typing

from keras import ops

from t2t_lite.constants import EOS_ID, PAD_ID
from t2t_lite.decoding.cache_growth import while_growing
from t2t_lite.decoding.lengths import (example_limits, force_eos_at_limit, read_column,
                                       write_column)
from t2t_lite.decoding.token_counts import apply_count_rule


class GreedyState(typing.NamedTuple):
  """The loop state. `length` = max_decode_length; column 0 of the ids holds the initial id."""
  step: typing.Any       # [] int32: the decoder-input position read by the next step.
  sequences: typing.Any  # [batch, length + 1] int32
  log_probs: typing.Any  # [batch] float32: sum over the tokens emitted so far.
  ended: typing.Any      # [batch] bool: EOS emitted.
  cache: typing.Any      # nested structure, every tensor [batch, ...]


def greedy_search(step_fn, initial_ids, cache, *, max_decode_length, eos_id=EOS_ID,
                  decode_lengths=None, count_rule=None, growth=None, grow_within_loop=False):
  """Greedy decoding over `step_fn`.

  Args:
    step_fn: `(ids [batch], step [] int32, cache) -> (logits [batch, vocab], cache)`.
    initial_ids: [batch] int32, the decoder input at step 0.
    cache: nested structure of tensors [batch, ...].
    max_decode_length: Python int, the positions allocated (static shapes).
    eos_id: the end-of-sequence id.
    decode_lengths: optional [batch] per-example limits (lengths.py states the rule).
    count_rule: optional `CountRule` (token_counts.py states the rule).
    growth: optional `CacheGrowth` (cache_growth.py): `cache` then has room for
      growth.capacities[0] positions and grows as the search goes on.
    grow_within_loop: for TensorFlow outside XLA only: one loop that widens the cache
      within it, its body traced once (growing_loop.py), instead of one per capacity.

  Returns:
    sequences: [batch, max_decode_length] int32, the emitted ids up to and including
      EOS, zeros after it.
    scores: [batch] float32, the sum of the log-probs of those ids, EOS included.
  """
  limits = example_limits(initial_ids, max_decode_length, decode_lengths)  # [batch]

  def cond(state):
    return ops.logical_and(ops.less(state.step, max_decode_length),
                           ops.any(ops.logical_not(state.ended)))

  def body(state):
    ids = read_column(state.sequences, state.step)                        # [batch]
    logits, cache = step_fn(ids, state.step, state.cache)                 # [batch, vocab]
    log_probs = ops.log_softmax(ops.cast(logits, "float32"), axis=-1)    # [batch, vocab]
    if count_rule is not None:
      log_probs = apply_count_rule(log_probs, state.sequences, count_rule, state.step, limits,
                                   eos_id)
    log_probs = force_eos_at_limit(log_probs, state.step, limits, eos_id)  # [batch, vocab]
    best = ops.cast(ops.argmax(log_probs, axis=-1), "int32")               # [batch]
    best_log_prob = ops.take_along_axis(log_probs, best[:, None], axis=1)[:, 0]  # [batch]
    emitted = ops.where(state.ended, PAD_ID, best)                          # [batch]
    return (GreedyState(
        step=state.step + 1,
        sequences=write_column(state.sequences, state.step + 1, emitted),
        log_probs=state.log_probs + ops.where(state.ended, 0.0, best_log_prob),
        ended=ops.logical_or(state.ended, ops.equal(emitted, eos_id)),
        cache=cache),)

  batch = ops.shape(initial_ids)[0]
  sequences = write_column(ops.zeros((batch, max_decode_length + 1), "int32"), 0, initial_ids)
  state = GreedyState(step=ops.convert_to_tensor(0, "int32"), sequences=sequences,
                      log_probs=ops.zeros((batch,), "float32"),
                      ended=ops.zeros((batch,), "bool"), cache=cache)
  if grow_within_loop:
    from t2t_lite.decoding.growing_loop import while_growing_in_one_loop  # TensorFlow's.
    from t2t_lite.layers.slice_update import tensorflow_kernel_writes
    with tensorflow_kernel_writes():  # No XLA compiles this loop.
      state = while_growing_in_one_loop(cond, body, state, growth)
  else:
    state = while_growing(cond, body, state, growth)
  return state.sequences[:, 1:], state.log_probs
