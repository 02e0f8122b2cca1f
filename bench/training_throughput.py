"""Training throughput and model-FLOPs utilisation, float32 on CPU, against peers.

One full step (forward, backward, Adam update) on one fixed token batch of
TRAIN_BATCH sentences x TRAIN_LENGTH tokens (random ids, no padding), after
warm-up steps (tracing, compiling); non-padding target tokens per second.
  ours:      t2t_lite's real `TrainStep` under the default strategy, XLA off and on;
  PyTorch:   nn.Transformer, same shapes, eager (peers/torch_transformer.py);
  keras-hub: TransformerEncoder/TransformerDecoder layers, `train_on_batch`, XLA off and on.
Model FLOPs are t2t_lite.training.cost.training_flops (6 x matmul parameters
touched per token, plus attention); MFU divides the achieved FLOP/s by this
machine's float32 matmul peak, measured in the same run with TensorFlow (and
with PyTorch's own BLAS, which can differ).

    python -m bench.training_throughput [--repeats=5] [--models=base,big]
"""

import argparse
import gc
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

from bench import configs, ours, peers, report, timing  # noqa: E402
from t2t_lite.training.cost import training_flops  # noqa: E402

OURS_GRAPH, OURS_XLA = "t2t_lite TrainStep, XLA off", "t2t_lite TrainStep, XLA on"


def fixed_batch(vocab_size, seed=0):
  """(inputs, targets): [TRAIN_BATCH, TRAIN_LENGTH] int32 ids in [2, vocab_size)."""
  rng = np.random.default_rng(seed)
  shape = (configs.TRAIN_BATCH, configs.TRAIN_LENGTH)
  return (rng.integers(2, vocab_size, shape).astype(np.int32),
          rng.integers(2, vocab_size, shape).astype(np.int32))


def training_runs(hparams, vocab_size, inputs, targets, notes):
  """{implementation: callable running one blocking training step}; skipped peers go to notes."""
  runs = {OURS_GRAPH: ours.train_step(hparams, vocab_size, inputs, targets, jit_compile=False),
          OURS_XLA: ours.train_step(hparams, vocab_size, inputs, targets, jit_compile=True)}
  if not _note_missing("torch", notes):
    from bench.peers.torch_transformer import TorchTrainer
    runs["PyTorch nn.Transformer, eager"] = TorchTrainer(hparams, vocab_size, inputs, targets)
  if not _note_missing("keras_hub", notes):
    from bench.peers.keras_hub_transformer import KerasHubTrainer
    for jit_compile in (False, True):
      runs[f"keras-hub layers, XLA {'on' if jit_compile else 'off'}"] = KerasHubTrainer(
          hparams, vocab_size, inputs, targets, jit_compile)
  return runs


def _note_missing(module, notes):
  note = peers.missing(module)
  if note and note not in notes:
    notes.append(note)
  return note


def matmul_peaks():
  """{framework: float32 matmul FLOP/s on this machine now}."""
  peaks = {"TensorFlow": timing.tf_matmul_peak()}
  if not peers.missing("torch"):
    peaks["PyTorch"] = timing.torch_matmul_peak()
  return peaks


def run(repeats, model_names):
  notes = [f"{configs.TRAIN_BATCH} sentences x {configs.TRAIN_LENGTH} tokens a step (inputs and "
           f"targets), vocabulary {configs.TRAIN_VOCAB_SIZE:,} shared with the softmax, dropout "
           f"0.1 on residuals, attention and ReLU, label smoothing 0.1, Adam; medians of "
           f"{repeats} interleaved steps after 2 warm-up steps; {os.cpu_count()} threads for "
           f"every framework."]
  peers.use_all_cores()
  peaks = matmul_peaks()
  inputs, targets = fixed_batch(configs.TRAIN_VOCAB_SIZE)
  tokens = int(np.count_nonzero(targets))
  results = {}
  for name in model_names:
    hparams = configs.TRAIN_MODELS[name]
    runs = training_runs(hparams, configs.TRAIN_VOCAB_SIZE, inputs, targets, notes)
    results[name] = timing.interleaved_medians(runs, repeats, warmup=2)
    del runs
    gc.collect()
  # Peaks before and after the steps: the higher, in case load from elsewhere hit one.
  peaks = {name: max(peak, matmul_peaks()[name]) for name, peak in peaks.items()}
  return [throughput_table(results, tokens, notes), mfu_table(results, tokens, peaks)]


def throughput_table(results, tokens, notes):
  rows = []
  for name, seconds in results.items():
    for implementation, step in seconds.items():
      rows.append([name, implementation, f"{step * 1e3:,.0f}", f"{tokens / step:,.0f}",
                   report.ratio(1 / seconds[OURS_GRAPH], 1 / step),
                   report.ratio(1 / seconds[OURS_XLA], 1 / step)])
  return report.Table(
      "Training throughput (float32, CPU)",
      ["model", "implementation", "ms/step", "target tokens/s", "ours XLA off / this",
       "ours XLA on / this"], rows, notes)


def mfu_table(results, tokens, peaks):
  tf_peak = peaks["TensorFlow"]
  rows = []
  for name, seconds in results.items():
    hparams = configs.TRAIN_MODELS[name]
    flops = training_flops(hparams, configs.TRAIN_VOCAB_SIZE, tokens, tokens,
                           configs.TRAIN_LENGTH, configs.TRAIN_LENGTH)
    for implementation, step in seconds.items():
      own_peak = peaks.get("PyTorch", tf_peak) if implementation.startswith("PyTorch") else tf_peak
      rows.append([name, implementation, f"{flops / tokens / 1e6:,.0f}",
                   f"{flops / step / 1e9:,.1f}", f"{100 * flops / step / tf_peak:.0f}%",
                   f"{100 * flops / step / own_peak:.0f}%"])
  peak_text = ", ".join(f"{framework} {peak / 1e9:,.0f} GFLOP/s"
                        for framework, peak in peaks.items())
  return report.Table(
      "Model-FLOPs utilisation of the training steps above",
      ["model", "implementation", "model MFLOPs / target token", "achieved GFLOP/s",
       "MFU (TensorFlow matmul peak)", "MFU (own framework's matmul peak)"], rows,
      [f"Float32 [2048, 2048] matmul peak measured in this run: {peak_text}.",
       "Model FLOPs: t2t_lite.training.cost.training_flops (matmuls forward and backward, "
       "attention included; layer norms, softmax and the optimizer not counted)."])


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=5)
  parser.add_argument("--models", default="base,big",
                      help="Which of base, big (transformer_big widths, N=2) to run.")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  args = parser.parse_args()
  names = list(configs.TRAIN_MODELS)
  chosen = [names[0 if key == "base" else 1] for key in args.models.split(",")]
  report.emit(run(args.repeats, chosen), args.json)


if __name__ == "__main__":
  main()
