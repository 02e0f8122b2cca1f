"""Decoding caches that grow with the search, so that a step costs what it uses.

Every step's self-attention reads its whole cache, and a beam search reorders
the whole cache, however few of its positions hold keys yet; a cache of
`max_decode_length` positions (input width + 50 for translation) makes the
first steps as dear as the last. Given a `CacheGrowth`, a search starts with
the cache its caller built for `capacities[0]` positions and runs its loop in
segments: while some example goes on when the step reaches the cache's
capacity, the cache is widened to the next capacity (one copy) and the loop
goes on. Each segment is a loop with static shapes (XLA compiles one per
capacity); where no XLA compiles the search (the retiring beam search, greedy
decoding on a CPU), one loop widens the cache within its body instead
(growing_loop.py). The result is the one a search over a full-length cache
gives: the positions beyond the step are masked at every step (`step_bias`).
"""

import typing

from keras import ops

FIRST_CAPACITY = 16  # Positions: the first segment's cache (most sentences fit in 16-32).


class CacheGrowth(typing.NamedTuple):
  """How a search's cache grows."""
  capacities: tuple      # increasing Python ints, the last = the search's max_decode_length
  grow: typing.Callable  # (cache, capacity) -> the cache with room for `capacity` positions


def doubling_capacities(max_decode_length, first=FIRST_CAPACITY):
  """first, 2 * first, ... below max_decode_length, then max_decode_length."""
  capacities = []
  capacity = first
  while capacity < max_decode_length:
    capacities.append(capacity)
    capacity *= 2
  return tuple(capacities) + (max_decode_length,)


def while_growing(cond, body, state, growth):
  """`ops.while_loop(cond, body, (state,))` over `growth`'s segments -> the final state.

  state: a NamedTuple with `step` (the position the next iteration writes) and `cache`;
  growth: a `CacheGrowth`, or None: one loop over a cache allocated whole.
  """
  if growth is None:
    return ops.while_loop(cond, body, (state,))[0]
  for segment, capacity in enumerate(growth.capacities):
    if segment:
      state = state._replace(cache=growth.grow(state.cache, capacity))

    def within(s, capacity=capacity):
      return ops.logical_and(ops.less(s.step, capacity), cond(s))
    (state,) = ops.while_loop(within, body, (state,))
  return state
