"""A fake step function with known log-probs for the decoding tests, and exhaustive oracles.

Vocabulary: 0 padding (and the first decoder input), 1 EOS, 2..5 words.
The next-token distribution depends on the whole prefix of words, through a
table the step function reads by a row index held in the cache: a search that
reorders or tiles the cache wrongly reads the wrong rows.
"""

import itertools

import numpy as np
from keras import ops

VOCAB = 6
EOS = 1
WORDS = (2, 3, 4, 5)
PAD_PROB = 1e-12  # Padding is never a sensible choice, but stays possible.


def complete(given, default_eos):
  """{id: prob} for some ids -> [VOCAB] probabilities: the rest of the mass split over
  the ids not given (EOS gets `default_eos` of it when not given)."""
  probs = np.zeros(VOCAB)
  for token, p in given.items():
    probs[token] = p
  rest = 1.0 - probs.sum()
  free = [t for t in (EOS,) + WORDS if t not in given]
  if EOS in free:
    probs[EOS] = rest * default_eos
    free.remove(EOS)
    rest -= probs[EOS]
  for i, token in enumerate(free):  # Decreasing shares: no ties.
    probs[token] = rest * (len(free) - i) / sum(range(1, len(free) + 1))
  probs[0] = PAD_PROB
  return probs / probs.sum()


class PrefixTable:
  """Log-probs of the next token for every prefix of up to `depth` words.

  probs: `prefix (tuple of word ids) -> [VOCAB] probabilities`. Prefixes longer than
  `depth`, or through padding, share one uniform row (searches in the tests never need it).
  """

  def __init__(self, probs, depth):
    prefixes = [()]
    for length in range(1, depth + 1):
      prefixes += list(itertools.product(WORDS, repeat=length))
    self.row_of = {prefix: row for row, prefix in enumerate(prefixes)}
    sink = len(prefixes)
    table = [probs(prefix) for prefix in prefixes] + [np.full(VOCAB, 1.0 / VOCAB)]
    self.log_probs = np.log(np.array(table)).astype("float32")  # [rows, VOCAB]
    self.next_row = np.full((sink + 1, VOCAB), sink, "int32")    # [rows, VOCAB]
    for prefix, row in self.row_of.items():
      for word in WORDS:
        self.next_row[row, word] = self.row_of.get(prefix + (word,), sink)
    self.calls = 0  # Counts eager calls: iterations of an eager loop.

  def initial_cache(self, batch):
    """Nested like a model's cache, batch first: the prefix row and a step counter."""
    return {"row": ops.zeros((batch,), "int32"),
            "counters": [{"steps": ops.zeros((batch, 1), "int32")}]}

  def step(self, ids, step, cache):
    """ids [n], step [] -> (logits [n, VOCAB], cache)."""
    self.calls += 1
    row = cache["row"]
    moved = ops.take(ops.reshape(self.next_row, (-1,)), row * VOCAB + ops.cast(ids, "int32"))
    row = ops.where(ops.equal(step, 0), row, moved)  # At step 0, ids are the initial ids.
    logits = ops.take(self.log_probs, row, axis=0)
    counters = [{"steps": cache["counters"][0]["steps"] + 1}]
    return logits, {"row": row, "counters": counters}

  def log_prob(self, sequence):
    """Sum of the log-probs of `sequence` (word ids, then EOS), from the table in numpy."""
    total, row = 0.0, 0
    for token in sequence:
      total += float(self.log_probs[row, token])
      row = self.next_row[row, token]
    return total

  def all_finished(self, limit, alpha):
    """Every sequence of at most `limit` tokens (words, then EOS), best first, as
    (score, sequence), score = log_prob / ((5 + len) / 6) ** alpha, len counting EOS."""
    hypotheses = []
    for words in range(limit):
      for prefix in itertools.product(WORDS, repeat=words):
        sequence = prefix + (EOS,)
        penalty = ((5.0 + len(sequence)) / 6.0) ** alpha
        hypotheses.append((self.log_prob(sequence) / penalty, sequence))
    return sorted(hypotheses, reverse=True)


def table(given, depth=4, default_eos=0.5):
  """A PrefixTable from {prefix: {id: prob}}; other prefixes use `complete({}, default_eos)`."""
  return PrefixTable(lambda prefix: complete(given.get(prefix, {}), default_eos), depth)


def random_table(seed, depth=4):
  """A PrefixTable with random distributions, no probability below 0.02."""
  rng = np.random.default_rng(seed)

  def probs(prefix):
    p = 0.02 + rng.dirichlet(np.full(5, 2.0)) * 0.9
    return complete(dict(zip((EOS,) + WORDS, p / p.sum())), 0.0)
  return PrefixTable(probs, depth)


def padded(sequence, length):
  """A tuple of ids -> [length] int32 with zeros after it."""
  return np.array(list(sequence) + [0] * (length - len(sequence)), "int32")


# A trap for greedy decoding: the locally best first word (2, p=0.55) leads to a worse
# sentence ("2 EOS": 0.55 * 0.3 = 0.165) than the second (3, p=0.4): "3 EOS" = 0.36.
GREEDY_TRAP = {
    (): {2: 0.55, 3: 0.4, EOS: 0.02, 4: 0.02, 5: 0.01},
    (2,): {EOS: 0.3, 2: 0.2, 3: 0.19, 4: 0.16, 5: 0.15},
    (3,): {EOS: 0.9, 2: 0.04, 3: 0.03, 4: 0.02, 5: 0.01},
}


def run(search, fake, batch, wrap=None, **kwargs):
  """Runs `search` (beam_search or greedy_search) over `fake` from initial ids 0.

  `wrap` compiles the call (tf.function, jax.jit). -> numpy (sequences, scores).
  """
  initial_ids = np.zeros([batch], "int32")

  def call():
    return search(fake.step, initial_ids, fake.initial_cache(batch), **kwargs)
  sequences, scores = (wrap(call) if wrap else call)()
  return np.asarray(sequences), np.asarray(scores)


# What jax_decoding_check.py prints before its JSON line of backend_cases' results.
JAX_RESULT_PREFIX = "jax searches: "


def backend_cases():
  """{name: (search name, fake, batch, kwargs)}: the runs compared across backends."""
  limits = np.array([2, 5, 4], "int32")
  return {
      "beam_trap": ("beam_search", table(GREEDY_TRAP), 2,
                    dict(beam_size=2, alpha=0.6, max_decode_length=4, vocab_size=VOCAB)),
      "beam_limits": ("beam_search", random_table(3), 3,
                      dict(beam_size=3, alpha=0.6, max_decode_length=5, vocab_size=VOCAB,
                           decode_lengths=limits)),
      "greedy_limits": ("greedy_search", random_table(4), 3,
                        dict(max_decode_length=5, decode_lengths=limits)),
  }


def teacher_forced_log_prob(model, inputs, sequence, added_logits=0.0):
  """log P(sequence | inputs) from one full teacher-forced pass: inputs [s], sequence [t].

  added_logits: broadcasts to [t, vocab], added to the model's logits first.
  """
  return teacher_forced_log_probs(model, np.asarray(inputs)[None], [sequence],
                                  added_logits)[0]


def teacher_forced_log_probs(model, inputs, sequences, added_logits=0.0):
  """[n] log P(sequences[i] | inputs[i]) from one teacher-forced pass over all n pairs:
  inputs [n, s], sequences n lists of ids. Each sequence is padded with 0 to the longest:
  the decoder is causal, so positions after a sequence's end change none of its terms.

  added_logits: broadcasts to [n, t, vocab], added to the model's logits first.
  """
  import keras
  length = max(len(sequence) for sequence in sequences)
  targets = np.array([list(sequence) + [0] * (length - len(sequence))
                      for sequence in sequences])                       # [n, t]
  logits = model({"inputs": np.asarray(inputs), "targets": targets}, training=False)
  logits = np.asarray(logits) + added_logits                            # [n, t, vocab]
  log_probs = np.asarray(keras.ops.log_softmax(logits, axis=-1))        # [n, t, vocab]
  return [float(log_probs[i, np.arange(len(sequence)), sequence].sum())
          for i, sequence in enumerate(sequences)]
