"""How cost grows: time per decoded token vs output length, training step time vs length.

Decoding: greedy, one batch of random inputs, the model of decoding_speed.py,
every sentence emitting exactly `length` tokens. With a cache, a step costs the
same at any position but for attention over the cache (t2t_lite's cache starts
at 16 positions and doubles as the output grows, and each step attends over all of
it, the masked part too: t2t_lite/decoding/cache_growth.py); without one, step i re-runs
the decoder over i positions, so the time per token grows with the length.
Training: one TrainStep (XLA off) and the PyTorch peer at a fixed number of
tokens per batch (sentences x length), so the per-token cost of every matrix
product stays the same and only attention's quadratic term grows; the predicted
growth is t2t_lite.training.cost.training_flops's.

    python -m bench.scaling [--repeats=3] [--lengths=16,32,64,128] [--train_lengths=32,128,512]
"""

import argparse
import dataclasses

import numpy as np

from bench import configs, peers, report, timing
from bench.decoding_speed import decoders, measure, models
from t2t_lite.training.cost import training_flops
from t2t_lite.training.step_pace import fixed_batch_step

DECODE_BATCH = 8
INPUT_WIDTH = 16
TOKENS_PER_BATCH = 512
TRAIN_VOCAB_SIZE = 8000
# transformer_base's widths at 2 layers and an 8k vocabulary: the layers, not the
# softmax, dominate the step, and a step takes well under a second.
TRAIN_HPARAMS = dataclasses.replace(configs.BASE, num_hidden_layers=2, max_length=512)


def decoding_table(repeats, lengths):
  model, peer = models(configs.DECODE_VOCAB_SIZE)
  rng = np.random.default_rng(0)
  inputs = rng.integers(2, configs.DECODE_VOCAB_SIZE, (DECODE_BATCH, INPUT_WIDTH),
                        dtype=np.int32)
  inputs[:, -1] = 1  # EOS ends every input.
  results = {}
  for length in lengths:
    runs = decoders(model, peer, beam_size=1, uncached=True, extra_length=length - INPUT_WIDTH)
    results[length], _ = measure(runs, [inputs], repeats, extra_length=length - INPUT_WIDTH)
  names = list(results[lengths[0]])
  rows = [[str(length)] + [f"{results[length][name] / length * 1e3:,.1f}" for name in names]
          for length in lengths]
  first, last = results[lengths[0]], results[lengths[-1]]
  growth = ["growth"] + [f"{last[name] / lengths[-1] / (first[name] / lengths[0]):.1f}x"
                         for name in names]
  notes = [f"Greedy, batch {DECODE_BATCH}, inputs of {INPUT_WIDTH} ids, "
           f"{configs.model_label(configs.DECODE_HPARAMS)}; milliseconds per decoding step "
           f"(one token for each of the {DECODE_BATCH} sentences), medians of {repeats} "
           f"interleaved runs; growth: ms per token at {lengths[-1]} / at {lengths[0]}."]
  if peer is None:
    notes.append(peers.missing("torch"))
  return report.Table("Time per decoded token (ms) vs output length",
                      ["output length"] + names, rows + [growth], notes)


def training_table(repeats, lengths):
  rows, results = [], {}
  for length in lengths:
    inputs, targets = configs.random_batch(TRAIN_VOCAB_SIZE, TOKENS_PER_BATCH // length, length)
    runs = {"ours, TrainStep (XLA off)": fixed_batch_step(TRAIN_HPARAMS, TRAIN_VOCAB_SIZE,
                                                          inputs, targets, jit_compile=False)}
    if not peers.missing("torch"):
      from bench.peers.torch_transformer import TorchTrainer
      runs["PyTorch nn.Transformer"] = TorchTrainer(TRAIN_HPARAMS, TRAIN_VOCAB_SIZE, inputs,
                                                    targets)
    results[length] = timing.interleaved_medians(runs, repeats, warmup=2)
  flops = {length: training_flops(TRAIN_HPARAMS, TRAIN_VOCAB_SIZE, TOKENS_PER_BATCH,
                                  TOKENS_PER_BATCH, length, length) for length in lengths}
  names = list(results[lengths[0]])
  for length in lengths:
    rows.append([str(length), str(TOKENS_PER_BATCH // length)] +
                [f"{results[length][name] * 1e3:,.0f}" for name in names] +
                [f"{flops[length] / flops[lengths[0]]:.2f}x"] +
                [f"{results[length][name] / results[lengths[0]][name]:.2f}x" for name in names])
  return report.Table(
      "Training step time (ms) vs sequence length, tokens per batch fixed",
      ["length", "sentences"] + names + ["predicted growth (FLOPs)"] +
      [f"growth, {name}" for name in names], rows,
      [f"{TOKENS_PER_BATCH} tokens per batch (inputs and as many targets), "
       f"{configs.model_label(TRAIN_HPARAMS)}, vocabulary {TRAIN_VOCAB_SIZE:,}; medians of "
       f"{repeats} interleaved steps after 2 warm-up steps; growth: time / time at "
       f"length {lengths[0]}."])


def run(repeats, lengths, train_lengths):
  return [decoding_table(repeats, lengths), training_table(repeats, train_lengths)]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--lengths", default="16,32,64,128", help="Decoded lengths.")
  parser.add_argument("--train_lengths", default="32,128,512")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  args = parser.parse_args()
  peers.use_all_cores()
  report.emit(run(args.repeats, [int(n) for n in args.lengths.split(",")],
                  [int(n) for n in args.train_lengths.split(",")]), args.json)


if __name__ == "__main__":
  main()
