"""Replicas on the CPU against one device: transformer_auto's choices, the same tokens a step.

For two of transformer_auto's choices (d_model 128, vocabulary 8,192) on this machine's
cores: Europarl's first 18,000 pairs (long sentences: 2,048 tokens a step, in rows of 53,
their typical row) and Multi30k's 29,000 captions (4,096 tokens a step, rows of 18):
  one device: the CPU as one device, each op's kernel on every core (hparams cpu_replicas=1);
  replicas: the choice's cpu_replicas, one a core, each with its share of the step's
    tokens and of the cores (what t2t-trainer trains on a machine without GPUs).
Each with XLA off (t2t-trainer's default on the CPU) and on (--xla). Each is timed in a
process of its own (`t2t_lite.training.step_pace.measured_pace`: a real training step on one
fixed batch, warm-up steps, then 5 s), the four in turn, --repeats times; the medians in
steps a second, and their ratios.

    python -m bench.cpu_replicas [--repeats=3]
"""

import argparse
import dataclasses
import statistics

from bench import report
from t2t_lite.cores import usable_cores
from t2t_lite.registry import HPARAMS
from t2t_lite.training.auto_hparams import Budget, Corpus, choose
from t2t_lite.training.step_pace import PaceSettings, measured_pace

VOCAB_SIZE = 8192
# (name, the corpus as transformer_auto reads it, its typical row in tokens).
CORPORA = [
    ("Europarl, 18,000 pairs", Corpus(pairs=18000, p99_length=115, vocab_size=VOCAB_SIZE), 53),
    ("Multi30k, 29,000 pairs", Corpus(pairs=29000, p99_length=33, vocab_size=VOCAB_SIZE), 18),
]


def paces(hparams, row_length, repeats):
  """{(xla, layout): steps a second}, layout 0 one device and 1 the replicas, each the
  median of `repeats` runs of its own process, the four in turn."""
  one_device = dataclasses.replace(hparams, batch_size=hparams.batch_size *
                                   hparams.cpu_replicas, cpu_replicas=1)
  timed = {(xla, layout): [] for xla in (False, True) for layout in (0, 1)}
  for _ in range(repeats):
    for xla, layout in timed:
      layout_hparams = (one_device, hparams)[layout]
      timed[xla, layout].append(measured_pace(layout_hparams, VOCAB_SIZE, row_length,
                                              PaceSettings(xla=xla))[0])
  return {key: statistics.median(values) for key, values in timed.items()}


def run(repeats):
  cores = usable_cores()
  rows = []
  for name, corpus, row_length in CORPORA:
    hparams, _ = choose(HPARAMS["transformer_auto"](), corpus, Budget(steps=8000),
                        cpu_cores=cores)
    step_tokens = hparams.batch_size * hparams.cpu_replicas
    if hparams.cpu_replicas == 1:
      rows.append([name, f"{step_tokens:,}", "1 (one core: nothing to split)", "", "", "", "",
                   ""])
      continue
    timed = paces(hparams, row_length, repeats)
    default = timed[False, 1]  # What t2t-trainer trains on a machine without GPUs.
    for xla in (False, True):
      one_device, replicas = timed[xla, 0], timed[xla, 1]
      rows.append([name, f"{step_tokens:,}", f"{hparams.cpu_replicas} of "
                   f"{hparams.batch_size:,}", "on" if xla else "off", f"{one_device:.2f}",
                   f"{replicas:.2f}", f"{replicas / one_device:.2f}x",
                   f"{max(one_device, replicas) / default:.2f}x"])
  return [report.Table(
      "Replicas on the CPU against one device (transformer_auto's choices)",
      ["corpus", "tokens a step", "replicas (tokens each)", "XLA", "one device, steps/s",
       "replicas, steps/s", "replicas / one device",
       "the faster layout / replicas without XLA"], rows,
      [f"{cores} usable core(s); d_model 128, 4 layers, vocabulary {VOCAB_SIZE:,}, float32; "
       f"each figure the median of {repeats} processes, the four in turn."])]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=3, help="Processes per layout.")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  args = parser.parse_args()
  report.emit(run(args.repeats), args.json)


if __name__ == "__main__":
  main()
