"""Time per decoded token, cached incremental decoding vs re-running the decoder on the prefix.

Both peers run the same Python loop of greedy steps over a small Transformer on
CPU, each step a `tf.function` traced once (the cached step once per length):
  cached:   `decode_step` on the last token, its keys and values kept in the cache
            (each step attends over the filled cache: cost grows slowly with length);
  uncached: `decode` of the whole prefix, the logits of its last position
            (each step recomputes every position: cost grows with the length).
A third column times the whole cached greedy search (`greedy_search`) compiled
with XLA, the way a decoder runs it. EOS is never chosen before the last step,
so every row decodes exactly `length` tokens. The ratio is uncached / cached.

    python -m bench.decoding_cache [--lengths=16,32,64,128] [--batch=8]

Timings are interleaved medians (bench/timing.py); the model is the decoding
benchmarks' (bench/configs.py).
"""

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from bench.configs import DECODE_HPARAMS, DECODE_VOCAB_SIZE, model_label  # noqa: E402
from bench.report import Table, emit, ratio  # noqa: E402
from bench.timing import interleaved_medians  # noqa: E402
from t2t_lite.decoding.greedy import greedy_search  # noqa: E402
from t2t_lite.decoding.lengths import EOS_ID  # noqa: E402
from t2t_lite.models.transformer import Transformer  # noqa: E402


def no_eos(logits):
  """[batch, vocab] -> the same with EOS impossible (the search forces it at the limit)."""
  return tf.where(tf.range(tf.shape(logits)[-1]) == EOS_ID, -1e9, logits)


class Peers:
  """The two step loops over one model, each step a `tf.function` traced once."""

  def __init__(self, model):
    self.model = model
    self.step = tf.function(model.decode_step)
    prefix_spec = tf.TensorSpec([None, None], tf.int32)
    self.last_logits = tf.function(lambda prefix, memory, bias: model.decode(
        prefix, memory, bias)[:, -1], input_signature=[
            prefix_spec, tf.TensorSpec([None, None, model.hparams.hidden_size], tf.float32),
            tf.TensorSpec([None, 1, 1, None], tf.float32)])

  def cached(self, inputs, length):
    """Greedy ids [batch, length] by `decode_step` on the last token."""
    memory, memory_bias = self.model.encode(inputs)
    cache = self.model.init_cache(memory, memory_bias, length)
    ids, outputs = tf.zeros([inputs.shape[0]], tf.int32), []
    for step in range(length):
      logits, cache = self.step(ids, tf.constant(step), cache)
      ids = tf.argmax(no_eos(logits), axis=-1, output_type=tf.int32)
      outputs.append(ids)
    return tf.stack(outputs, axis=1)

  def uncached(self, inputs, length):
    """Greedy ids [batch, length] by `decode` of the growing prefix."""
    memory, memory_bias = self.model.encode(inputs)
    prefix = tf.zeros([inputs.shape[0], 1], tf.int32)  # [batch, step + 1]
    for _ in range(length):
      logits = self.last_logits(prefix, memory, memory_bias)
      ids = tf.argmax(no_eos(logits), axis=-1, output_type=tf.int32)
      prefix = tf.concat([prefix, ids[:, None]], axis=1)
    return prefix[:, 1:]


def compiled_search(model, length):
  @tf.function(jit_compile=True)
  def search(inputs):
    memory, memory_bias = model.encode(inputs)
    cache = model.init_cache(memory, memory_bias, length)

    def step_fn(ids, step, cache):
      logits, cache = model.decode_step(ids, step, cache)
      return no_eos(logits), cache
    return greedy_search(step_fn, tf.zeros([tf.shape(inputs)[0]], tf.int32), cache,
                         max_decode_length=length)[0]
  return search


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--lengths", default="16,32,64,128")
  parser.add_argument("--batch", type=int, default=8)
  parser.add_argument("--input_length", type=int, default=32)
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--json", help="Also save the table here (for `python -m bench`).")
  args = parser.parse_args()

  tf.keras.utils.set_random_seed(0)
  model = Transformer(DECODE_HPARAMS, DECODE_VOCAB_SIZE, DECODE_VOCAB_SIZE)
  peers = Peers(model)
  rng = np.random.default_rng(0)
  inputs = tf.constant(rng.integers(2, DECODE_VOCAB_SIZE, (args.batch, args.input_length)),
                       tf.int32)
  rows, notes = [], []
  for length in (int(n) for n in args.lengths.split(",")):
    agree = np.mean(peers.cached(inputs, length).numpy() ==
                    peers.uncached(inputs, length).numpy())
    if agree < 1.0:
      notes.append(f"length {length}: cached and uncached ids agree on {agree:.1%} of tokens")
    search = compiled_search(model, length)
    medians = interleaved_medians({
        "cached": lambda: peers.cached(inputs, length),
        "uncached": lambda: peers.uncached(inputs, length),
        "search": lambda: search(inputs).numpy(),
    }, args.repeats)
    ms = {name: f"{seconds / length * 1e3:.2f}" for name, seconds in medians.items()}
    rows.append([str(length), ms["cached"], ms["uncached"],
                 ratio(medians["uncached"], medians["cached"]), ms["search"]])
  emit([Table(
      title=(f"Cached vs uncached greedy decoding, ms per decoded token (batch {args.batch}, "
             f"input length {args.input_length}; {model_label(DECODE_HPARAMS)})"),
      columns=["length", "cached", "uncached", "uncached/cached", "XLA greedy_search"],
      rows=rows, notes=notes)], args.json)


if __name__ == "__main__":
  main()
