"""A search loop whose cache grows within it (TensorFlow outside XLA).

cache_growth.while_growing runs one loop per cache capacity, as XLA needs static
shapes, and so traces (and TensorFlow's graph optimiser then optimises) the whole
decoding step once per capacity: 3 to 6 times for a translation. Where no XLA
compiles the search, one loop does: its body widens the cache to the next
capacity whenever the step reaches the cache's, the cache's length left open in
the loop's shape invariants. Same steps, same results; the body traced once.
"""

import tensorflow as tf


def while_growing_in_one_loop(cond, body, state, growth, invariants=None):
  """tf.while_loop(cond, body, (state,)) -> the final state, its cache grown as needed.

  state: a NamedTuple with `step` (the position the next iteration writes) and `cache`;
  growth: a `CacheGrowth` (cache_growth.py), or None: a cache allocated whole;
  invariants: the state's shape invariants (tf.TensorShape each; default its shapes);
    the dimensions that growing changes are opened here.
  """
  if invariants is None:
    invariants = tf.nest.map_structure(lambda t: t.shape, state)
  if growth is None or len(growth.capacities) == 1:  # The cache never grows.
    return tf.while_loop(cond, body, (state,), shape_invariants=(invariants,))[0]
  widest = growth.grow(state.cache, growth.capacities[-1])  # Only its shapes are read.
  invariants = invariants._replace(cache=tf.nest.map_structure(
      lambda now, wide, shape: tf.TensorShape(
          [d if a == b else None for a, b, d in zip(now.shape, wide.shape, shape)]),
      state.cache, widest, invariants.cache))
  capacities = tf.constant(growth.capacities, tf.int32)  # [capacities]

  def growing_body(state, capacity):
    def widened():
      following = tf.searchsorted(capacities, capacity[None], side="right")[0]
      wider = capacities[tf.minimum(following, len(growth.capacities) - 1)]
      return growth.grow(state.cache, wider), wider
    cache, capacity = tf.cond(state.step >= capacity, widened, lambda: (state.cache, capacity))
    (state,) = body(state._replace(cache=cache))
    return state, capacity

  return tf.while_loop(lambda state, _: cond(state), growing_body, (state, capacities[0]),
                       shape_invariants=(invariants, tf.TensorShape([])))[0]
