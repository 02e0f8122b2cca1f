"""A Transformer's size from its hparams alone, before any weight is allocated: its weight
count, the memory restoring it needs, and whether this machine has that memory."""

import os

from t2t_lite.errors import UserError

BYTES_PER_WEIGHT = 4  # float32


def bytes_to_restore(weight_counts):
  """Bytes of memory that restoring models of `weight_counts` weights, one after another,
  needs at least: every model's weights held, and the last one's twice while its
  checkpoint is read into it (the variables and the tensors read); the largest is taken
  as the last."""
  return BYTES_PER_WEIGHT * (sum(weight_counts) + max(weight_counts))


def weight_count(hparams, input_vocab_size, target_vocab_size):
  """The number of weights of the Transformer `hparams` describes, from its shapes alone
  (embeddings, attention and feed-forward matrices, learned positions): within a few
  percent of the built model's count (biases and layer norms are left out)."""
  d, layers = hparams.hidden_size, hparams.num_hidden_layers
  attention = d * hparams.key_channels * 2 + d * hparams.value_channels * 2  # Q, K, V, O.
  feed_forward = 2 * d * hparams.filter_size
  tables = target_vocab_size * d
  if not hparams.shared_embedding:
    tables += input_vocab_size * d
  if not hparams.shared_embedding_and_softmax_weights:
    tables += target_vocab_size * d
  positions = 2 * hparams.max_length * d if hparams.pos == "emb" else 0
  return tables + positions + layers * (3 * attention + 2 * feed_forward)


def physical_memory():
  """Bytes of memory of this machine, or None where the system does not say."""
  try:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
  except (AttributeError, ValueError, OSError):
    return None


def check_model_fits(hparams, input_vocab_size, target_vocab_size, source):
  """UserError, before any weight is allocated, when the model `source` describes (e.g.
  "RUN/hparams.json and RUN/run.json describe") needs more memory than the machine has."""
  memory = physical_memory()
  weights = weight_count(hparams, input_vocab_size, target_vocab_size)
  if memory is None or bytes_to_restore([weights]) <= memory:
    return
  raise UserError(
      f"{source} a model of {weights:.3g} weights "
      f"({weights * BYTES_PER_WEIGHT / 2 ** 30:,.0f} GiB in float32; "
      f"restoring one needs twice that), more than this machine's {memory / 2 ** 30:,.0f} GiB "
      f"of memory (hidden_size={hparams.hidden_size}, filter_size={hparams.filter_size}, "
      f"num_hidden_layers={hparams.num_hidden_layers}, vocabulary sizes {input_vocab_size} "
      f"and {target_vocab_size}); check those values, or use a machine with more memory")
