"""Throughput of the input pipeline alone: examples/s and tokens/s of `Problem.dataset`.

The peer in the same run is a naive pipeline: it parses the records one by
one in file order and pads them into batches of a fixed number of examples;
each row's ratio says what batched parsing, length bucketing, filtering and
shuffling gain or cost, and the last row what BPE-dropout's resegmentation costs.
Compare the tokens/s with what a training step consumes (batch_size tokens
per step per replica) to see whether input can keep up.

    python bench/input_pipeline.py --data_dir=DIR [--problem=translate_from_files]
    python bench/input_pipeline.py --source=train.en --target=train.de --vocab_size=8000

With --source/--target it first generates translate_from_files data into a
temporary directory.
"""

import argparse
import os
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from t2t_lite.data import records  # noqa: E402
from t2t_lite.models.hyperparameters import HParams  # noqa: E402


def measure(batches, seconds):
  """Iterates for about `seconds` after one warm-up element; (elements/s, examples/s, tokens/s,
  padded tokens/s)."""
  iterator = iter(batches)
  next(iterator)
  elements = examples = tokens = padded = 0
  start = time.perf_counter()
  for batch in iterator:
    rows, real, total = batch_tokens(batch)
    elements, examples, tokens, padded = elements + 1, examples + rows, tokens + real, padded + total
    if time.perf_counter() - start > seconds:
      break
  elapsed = time.perf_counter() - start
  return elements / elapsed, examples / elapsed, tokens / elapsed, padded / elapsed


def batch_tokens(batch):
  """(examples, real tokens, tokens with padding) of a batch, inputs and targets together."""
  inputs, targets = batch["inputs"].numpy(), batch["targets"].numpy()  # [batch, s], [batch, t]
  real = np.count_nonzero(inputs) + np.count_nonzero(targets)
  return inputs.shape[0], real, inputs.size + targets.size


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--data_dir")
  parser.add_argument("--problem", default="translate_from_files")
  parser.add_argument("--split", default="train")
  parser.add_argument("--source", help="Generate data from these line-aligned files first.")
  parser.add_argument("--target")
  parser.add_argument("--vocab_size", type=int, default=8000)
  parser.add_argument("--batch_size", type=int, default=4096, help="Tokens per batch.")
  parser.add_argument("--max_length", type=int, default=256)
  parser.add_argument("--seconds", type=float, default=5.0, help="Time per row.")
  parser.add_argument("--bpe_dropout", type=float, default=0.1,
                      help="The resegmenting row's hparams.bpe_dropout.")
  args = parser.parse_args()

  from t2t_lite.data.problem import Sources
  from t2t_lite.registry import PROBLEMS
  problem = PROBLEMS[args.problem]()
  data_dir = args.data_dir
  if args.source:
    data_dir = data_dir or tempfile.mkdtemp(prefix="t2t_bench_")
    print(problem.generate_data(data_dir, Sources(tmp_dir=data_dir, files={
        "train": (args.source, args.target)}), vocab_size=args.vocab_size))
  if not data_dir:
    parser.error("give --data_dir or --source and --target")
  info = problem.split_info(args.split, data_dir)
  hparams = HParams(batch_size=args.batch_size, max_length=args.max_length)

  mean_length = sum(n * count for n, count in info.length_counts.items()) / info.examples
  fixed = max(1, int(args.batch_size / mean_length))  # Examples a batch, about the token budget.
  peer = (tf.data.TFRecordDataset(list(info.files)).map(records.parse, tf.data.AUTOTUNE)
          .repeat().padded_batch(fixed).prefetch(tf.data.AUTOTUNE))
  rows = [(f"peer: naive, {fixed} examples a batch", peer)]
  for label, options in (
      ("train, shuffled, fast", dict(training=True)),
      ("train, deterministic", dict(training=True, deterministic=True)),
      ("train, bucket-padded", dict(training=True, pad_to_bucket_boundary=True)),
      ("eval, in order", dict(training=False, repeat=True)),
  ):
    rows.append((label, problem.dataset(args.split, data_dir, hparams, **options)))
  rows.append((f"train, shuffled, bpe_dropout={args.bpe_dropout}", problem.dataset(
      args.split, data_dir, hparams.override(f"bpe_dropout={args.bpe_dropout}"), training=True)))

  print(f"\n{info.problem} {args.split}: {info.examples:,} examples, batch_size="
        f"{args.batch_size} tokens, max_length={args.max_length}, {os.cpu_count()} CPUs, "
        f"{args.seconds:.0f}s a row")
  header = ("pipeline", "batches/s", "examples/s", "tokens/s", "padded tokens/s", "padding",
            "vs peer")
  table = [header]
  peer_rate = None
  for label, dataset in rows:
    per_second, examples, tokens, padded = measure(dataset, args.seconds)
    peer_rate = peer_rate or examples
    table.append((label, f"{per_second:,.1f}",
                  f"{examples:,.0f}", f"{tokens:,.0f}", f"{padded:,.0f}",
                  f"{1 - tokens / padded:.0%}", f"{examples / peer_rate:.2f}x"))
  widths = [max(len(row[i]) for row in table) for i in range(len(header))]
  for row in table:
    print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                    for i, (cell, w) in enumerate(zip(row, widths))))


if __name__ == "__main__":
  main()
