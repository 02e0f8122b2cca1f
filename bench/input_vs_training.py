"""The input pipeline alone vs what a training step consumes, on real data.

The data: translate_from_files generated now from the 20,000 Europarl en-de
pairs beside the project (sizes in the table's notes) into a temporary directory,
or an existing --data_dir. The same `Problem.dataset` (training: shuffled,
length-bucketed, filtered) feeds:
  the pipeline alone: batches drawn as fast as it gives them (input_pipeline.measure);
  training: transformer_base's real TrainStep (XLA off) drawing its batches from it.
Tokens are real (non-padding) ids, inputs and targets together; the headroom is
how many times faster the pipeline produces tokens than the step consumes them.

    python -m bench.input_vs_training [--data_dir=DIR] [--batch_size=512] [--steps=3]
"""

import argparse
import dataclasses
import os
import tempfile
import time

from bench import configs, report
from bench.input_pipeline import measure
from bench.ours import build_model
from t2t_lite.training.optimization import build_optimizer
from t2t_lite.training.train_step import TrainStep

PROBLEM = "translate_from_files"
VOCAB_SIZE = 8000


def generate(data_dir):
  """Writes PROBLEM's records and vocabulary for Europarl into data_dir; returns the problem."""
  from t2t_lite.data.problem import Sources
  from t2t_lite.registry import PROBLEMS
  problem = PROBLEMS[PROBLEM]()
  if not os.path.exists(os.path.join(data_dir, f"{PROBLEM}-train.json")):
    from bench.sentences import check_data
    check_data()
    files = {"train": (configs.EUROPARL + ".en", configs.EUROPARL + ".de")}
    problem.generate_data(data_dir, Sources(tmp_dir=data_dir, files=files), vocab_size=VOCAB_SIZE)
  return problem


def training_rate(problem, data_dir, hparams, warmup, steps):
  """(steps/s, real tokens/s) of TrainStep fed by the training dataset, after warm-up steps."""
  import tensorflow as tf
  vocab_size, _ = problem.vocab_sizes(data_dir)
  model = build_model(hparams, vocab_size)
  optimizer = build_optimizer(hparams)
  optimizer.build(model.trainable_variables)
  step = TrainStep(tf.distribute.get_strategy(), model, optimizer, hparams.label_smoothing,
                   rdrop_alpha=hparams.rdrop_alpha)
  iterator = iter(problem.dataset("train", data_dir, hparams, training=True))
  for _ in range(warmup):
    step(iterator)
  tokens, start = 0.0, time.perf_counter()
  for _ in range(steps):
    stats = step(iterator)
    tokens += stats["tokens"] + stats["input_tokens"]
  elapsed = time.perf_counter() - start
  return steps / elapsed, tokens / elapsed


def run(data_dir, batch_size, warmup, steps, seconds):
  hparams = dataclasses.replace(configs.BASE, batch_size=batch_size, max_length=64)
  with tempfile.TemporaryDirectory(prefix="t2t_bench_") as scratch:
    data_dir = data_dir or scratch
    problem = generate(data_dir)
    pipeline_batches, _, pipeline_tokens, _ = measure(
        problem.dataset("train", data_dir, hparams, training=True), seconds)
    step_batches, step_tokens = training_rate(problem, data_dir, hparams, warmup, steps)
  rows = [["input pipeline alone", f"{pipeline_batches:,.1f}", f"{pipeline_tokens:,.0f}", ""],
          ["transformer_base TrainStep (XLA off) fed by it", f"{step_batches:,.2f}",
           f"{step_tokens:,.0f}", f"{pipeline_tokens / step_tokens:,.0f}x"]]
  return [report.Table(
      "Input pipeline vs a training step's consumption",
      ["", "batches/s", "real tokens/s (inputs + targets)", "headroom (pipeline / step)"], rows,
      [f"{PROBLEM} on Europarl (20,000 pairs, vocabulary {VOCAB_SIZE:,}), batch_size="
       f"{batch_size} tokens, max_length={hparams.max_length}; the pipeline timed for "
       f"{seconds:.0f} s, the step for {steps} steps after {warmup} warm-up steps."])]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--data_dir", help="Existing data of translate_from_files (else generated).")
  parser.add_argument("--batch_size", type=int, default=512, help="Tokens per batch.")
  parser.add_argument("--warmup", type=int, default=2)
  parser.add_argument("--steps", type=int, default=3)
  parser.add_argument("--seconds", type=float, default=3.0, help="Time for the pipeline alone.")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  args = parser.parse_args()
  report.emit(run(args.data_dir, args.batch_size, args.warmup, args.steps, args.seconds),
              args.json)


if __name__ == "__main__":
  main()
