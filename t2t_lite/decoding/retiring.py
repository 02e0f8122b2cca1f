"""Beam search that retires the examples it has finished: a batch costs what its live
examples use.

beam_search.py's loop runs while any example of the batch goes on, and every step
computes every example's beams, finished or not: a batch of sentences of different
lengths costs its size times its longest search. Here, after each step, the examples
whose search is over (beam_search.examples_done) leave the batch: their finished sets
are written to the result, and every tensor of the search (the alive and finished
sets, the cache, the per-example limits and rules) keeps the rows of the live examples
only, in the gather that reorders the cache anyway. A batch of unsorted lengths then
costs about what the same sentences cost in batches sorted by length.

The algorithm and the results are beam_search's: an example's steps never depended on
the others' (its n-best list is the one it gets alone, to the round-off of a batch of
another size), and the steps a finished example no longer takes could not change it.

The live batch shrinks from step to step, so shapes are not static: this runs in
TensorFlow eagerly or in a tf.function, not under XLA nor on Keras's JAX backend;
callers choose (`decode_ids(..., retire_finished=True)`).
"""

import typing

import tensorflow as tf

from t2t_lite.constants import EOS_ID
from t2t_lite.decoding.beam_search import (BeamState, check_alpha, examples_done, extend,
                                           initial_state, n_best_lists, reorder_cache)
from t2t_lite.decoding.growing_loop import while_growing_in_one_loop
from t2t_lite.decoding.lengths import example_limits, length_penalty
from t2t_lite.layers.slice_update import tensorflow_kernel_writes


class Live(typing.NamedTuple):
  """The live examples' own values; every tensor [live, ...]."""
  examples: typing.Any   # [live] int32: each one's row in the caller's batch.
  limits: typing.Any     # [live] int32: L_b (lengths.py).
  penalties: typing.Any  # [live] float32: length_penalty(L_b), the early-stopping bound's.
  required: typing.Any   # [live] int32, the count rule's counts; () without a count rule.
  copied: typing.Any     # [live, width] the copy rule's source leaf pieces; () without one.


class RetiringState(typing.NamedTuple):
  """BeamState's fields over the live examples, then theirs and the result."""
  step: typing.Any
  alive_seq: typing.Any
  alive_log_probs: typing.Any
  finished_seq: typing.Any
  finished_scores: typing.Any
  cache: typing.Any
  live: Live
  result_seq: typing.Any     # [batch, beam, length + 1] int32: the retired finished sets.
  result_scores: typing.Any  # [batch, beam] float32

  def beams(self):
    return BeamState(*self[:len(BeamState._fields)])


@tensorflow_kernel_writes()  # No XLA compiles this search (t2t_lite/layers/slice_update.py).
def retiring_beam_search(step_fn, initial_ids, cache, *, beam_size, alpha, max_decode_length,
                         vocab_size, eos_id=EOS_ID, decode_lengths=None, stop_early=True,
                         count_rule=None, growth=None):
  """beam_search's arguments and results (beam_search.py), the finished examples retired."""
  check_alpha(alpha)
  limits = example_limits(initial_ids, max_decode_length, decode_lengths)  # [batch]
  start = initial_state(initial_ids, cache, beam_size, max_decode_length)
  has_copies = count_rule is not None and count_rule.copied is not None
  live = Live(examples=tf.range(tf.shape(limits)[0]), limits=limits,
              penalties=length_penalty(limits, alpha),
              required=() if count_rule is None else count_rule.required,
              copied=count_rule.copied if has_copies else ())
  state = RetiringState(*start, live=live, result_seq=start.finished_seq,
                        result_scores=start.finished_scores)

  def cond(state):
    return tf.logical_and(state.step < max_decode_length, tf.size(state.live.examples) > 0)

  def body(state):
    live = state.live
    rule = None if count_rule is None else count_rule._replace(
        required=live.required, copied=live.copied if has_copies else None)
    stepped, alive_origins = extend(state.beams(), step_fn, live.limits, beam_size, alpha,
                                    vocab_size, eos_id, rule)
    done = examples_done(stepped, live.limits, live.penalties, stop_early)  # [live]
    result_seq, result_scores = _written(state, stepped, live.examples, done)
    kept = tf.where(tf.logical_not(done))[:, 0]                    # [kept]
    cache = reorder_cache(stepped.cache, tf.gather(alive_origins, kept), kept)
    sets = [tf.gather(t, kept) for t in stepped[1:5]]              # Each [kept, ...].
    return (RetiringState(stepped.step, *sets, cache, tf.nest.map_structure(
        lambda t: tf.gather(t, kept), live), result_seq, result_scores),)

  # The loop ends with no example live: at step max_decode_length every example is at
  # its limit, hence done and retired.
  state = _while_live_rows_change(cond, body, state, growth)
  return n_best_lists(state.result_seq, state.result_scores)


def _written(state, stepped, examples, done):
  """state's result, with the finished sets of `stepped`'s `done` rows ([live] bool)
  written to the rows of their examples (`examples`: [live])."""
  retired = tf.where(done)[:, 0]                                  # [retired]
  rows = tf.gather(examples, retired)[:, None]                    # [retired, 1]
  return (tf.tensor_scatter_nd_update(state.result_seq, rows,
                                      tf.gather(stepped.finished_seq, retired)),
          tf.tensor_scatter_nd_update(state.result_scores, rows,
                                      tf.gather(stepped.finished_scores, retired)))


def _while_live_rows_change(cond, body, state, growth):
  """tf.while_loop(cond, body, (state,)) -> the final RetiringState, where the tensors' first
  dimension (the live examples) may change from step to step, but the step's and the
  result's; the cache grown in the loop (growing_loop.py)."""
  def first_open(structure):
    return tf.nest.map_structure(lambda t: tf.TensorShape([None]).concatenate(t.shape[1:]),
                                 structure)
  fixed = tf.nest.map_structure(lambda t: t.shape, state)
  invariants = fixed._replace(
      **{field: first_open(getattr(state, field))
         for field in RetiringState._fields[1:] if not field.startswith("result")})
  return while_growing_in_one_loop(cond, body, state, growth, invariants)
