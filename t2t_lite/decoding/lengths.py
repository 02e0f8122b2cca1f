"""Length rules shared by the searches: per-example limits, the forced EOS, the penalty.

Limits. A search allocates `max_decode_length` positions (a Python int: static
shapes). Example b may also have its own limit `decode_lengths[b]`; its
effective limit is L_b = clip(decode_lengths[b], 1, max_decode_length), or
`max_decode_length` when no per-example lengths are given. Every hypothesis of
example b holds at most L_b tokens, EOS included: at step L_b - 1 (its L_b-th
token) every token but EOS gets log-prob -inf, so a hypothesis that reaches its
limit ends with EOS, scored with the model's own log-prob of EOS. Every returned
hypothesis therefore ends with EOS, and its log-prob is what a teacher-forced
pass over the same tokens gives.

Length penalty (tensor2tensor, from GNMT): ((5 + len) / 6) ** alpha, where len
counts the generated tokens including the EOS (not the initial id).
"""

from keras import ops

from t2t_lite.constants import EOS_ID, IMPOSSIBLE_LOG_PROB
from t2t_lite.layers.slice_update import slice_update


def example_limits(initial_ids, max_decode_length, decode_lengths=None):
  """-> [batch] int32: each example's limit L_b (tokens, EOS included), see the module doc."""
  if max_decode_length < 1:
    raise ValueError(f"max_decode_length must be at least 1, got {max_decode_length}")
  if decode_lengths is None:
    return ops.full_like(initial_ids, max_decode_length, dtype="int32")  # [batch]
  return ops.clip(ops.cast(decode_lengths, "int32"), 1, max_decode_length)  # [batch]


def force_eos_at_limit(log_probs, step, limits, eos_id=EOS_ID):
  """Leaves only EOS possible for the examples whose limit is reached at this step.

  log_probs: [batch, ..., vocab], the candidates for token number step + 1.
  limits: [batch]. Returns log_probs with -inf (IMPOSSIBLE_LOG_PROB) for every non-EOS token
  of those examples.
  """
  at_limit = ops.greater_equal(step + 1, limits)                       # [batch]
  at_limit = ops.reshape(at_limit, (-1,) + (1,) * (len(log_probs.shape) - 1))
  not_eos = ops.not_equal(ops.arange(log_probs.shape[-1]), eos_id)     # [vocab]
  return ops.where(ops.logical_and(at_limit, not_eos), IMPOSSIBLE_LOG_PROB, log_probs)


def length_penalty(length, alpha):
  """((5 + length) / 6) ** alpha; length (any shape) counts the tokens including EOS."""
  return ops.power((5.0 + ops.cast(length, "float32")) / 6.0, alpha)


def sequence_lengths(ids, eos_id=EOS_ID):
  """ids [..., length] -> [...] int32: tokens up to and including the first EOS (all if none)."""
  is_eos = ops.equal(ids, eos_id)
  first_eos = ops.cast(ops.argmax(ops.cast(is_eos, "int32"), axis=-1), "int32")
  return ops.where(ops.any(is_eos, axis=-1), first_eos + 1, ids.shape[-1])


def read_column(buffer, index):
  """buffer [..., length] -> [...]: the entries at position `index` (a scalar, may be a tensor)."""
  return ops.take(buffer, index, axis=-1)


def write_column(buffer, index, values):
  """buffer [..., length] with values [...] written at position `index`: static shapes."""
  start = (0,) * (len(buffer.shape) - 1) + (index,)
  return slice_update(buffer, start, ops.cast(values, buffer.dtype)[..., None])
