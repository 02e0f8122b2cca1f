"""Training throughput and model-FLOPs utilisation, float32 on CPU, against peers.

One full step (forward, backward, Adam update) on one fixed token batch (random
ids, no padding; sizes in the table's notes), after warm-up steps (tracing,
compiling); non-padding target tokens per second.
  ours:      t2t_lite's real `TrainStep` under the default strategy, XLA off and on
             (XLA on the first model only: a compilation takes a minute here), and
             once without dropout inside the feed-forward network, like keras-hub;
             with --mixed_precision=bfloat16, once more in mixed bfloat16 (XLA off);
  PyTorch:   nn.Transformer, same shapes (bench/peers/torch_transformer.py): eager, and under
             torch.compile (the warm-up step compiles); with --mixed_precision, compiled
             under that dtype's autocast too;
  keras-hub: TransformerEncoder/TransformerDecoder layers, `train_on_batch`, XLA off.
Each framework runs in a process of its own (PyTorch's imports no TensorFlow), one after
another; inside it, its rows are timed in turn.
Model FLOPs are t2t_lite.training.cost.training_flops (6 x matmul parameters
touched per token, plus attention); MFU divides the achieved FLOP/s by this
machine's float32 matmul peak, timed in turn with the steps (so under the same
load) with TensorFlow, and with PyTorch's own BLAS, which can differ.

    python -m bench.training_throughput [--repeats=3] [--models=base,big,multi30k]
                                        [--mixed_precision=bfloat16]
"""

import argparse
import dataclasses
import gc
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

from bench import configs, peers, report, timing  # noqa: E402
from t2t_lite.training.cost import training_flops  # noqa: E402

OURS_GRAPH, OURS_XLA = "t2t_lite TrainStep, XLA off", "t2t_lite TrainStep, XLA on"
OURS_AS_KERAS_HUB = "t2t_lite TrainStep, XLA off, no ReLU dropout (as keras-hub)"
MODEL_KEYS = ("base", "big", "multi30k")  # --models: configs.TRAIN_MODELS in this order.
# Each in a process of its own, in this order (the tables' row order).
FRAMEWORKS = ("t2t_lite", "torch", "keras_hub")


def training_runs(framework, hparams, vocab_size, inputs, targets, notes, extra,
                  mixed_precision=None):
  """{implementation: callable running one blocking training step} of one framework;
  a skipped peer goes to notes.

  extra: also our XLA-compiled step, and our step without keras-hub's missing dropout.
  mixed_precision: also the steps computing in that dtype (ours XLA off; PyTorch's
  compiled, under autocast).
  """
  if framework == "t2t_lite":
    from t2t_lite.training.step_pace import fixed_batch_step
    runs = {OURS_GRAPH: fixed_batch_step(hparams, vocab_size, inputs, targets,
                                         jit_compile=False)}
    if mixed_precision:
      runs[f"{OURS_GRAPH}, mixed {mixed_precision}"] = fixed_batch_step(
          hparams, vocab_size, inputs, targets, jit_compile=False,
          mixed_precision=mixed_precision)
    if extra:
      runs[OURS_XLA] = fixed_batch_step(hparams, vocab_size, inputs, targets, jit_compile=True)
      runs[OURS_AS_KERAS_HUB] = fixed_batch_step(dataclasses.replace(hparams, relu_dropout=0.0),
                                                 vocab_size, inputs, targets, jit_compile=False)
    return runs
  if _note_missing(framework, notes):
    return {}
  if framework == "torch":
    from bench.peers.torch_transformer import TorchTrainer
    runs = {"PyTorch nn.Transformer, eager": TorchTrainer(hparams, vocab_size, inputs, targets),
            "PyTorch nn.Transformer, torch.compile": TorchTrainer(
                hparams, vocab_size, inputs, targets, compiled=True)}
    if mixed_precision:
      runs[f"PyTorch nn.Transformer, torch.compile, {mixed_precision} autocast"] = TorchTrainer(
          hparams, vocab_size, inputs, targets, compiled=True, autocast=mixed_precision)
    return runs
  from bench.peers.keras_hub_transformer import KerasHubTrainer
  return {"keras-hub layers, XLA off": KerasHubTrainer(hparams, vocab_size, inputs, targets,
                                                       jit_compile=False)}


def _note_missing(module, notes):
  note = peers.missing(module)
  if note and note not in notes:
    notes.append(note)
  return note


def matmul_runs(framework):
  """{BLAS owner: (callable, FLOPs)}: float32 matrix products to time among a framework's
  steps (PyTorch's own, TensorFlow's for the others)."""
  if framework == "torch":
    return {} if peers.missing("torch") else {"PyTorch": timing.torch_matmul()}
  return {"TensorFlow": timing.tf_matmul()}


def measure(framework, repeats, model_names, mixed_precision=None):
  """One framework's steps, in this process -> {"seconds": {model: {implementation:
  median seconds}}, "peaks": {model: {BLAS owner: matmul FLOP/s}}, "notes": [...]}."""
  notes = []
  peers.use_all_cores()
  matmuls = matmul_runs(framework)
  inputs, targets = configs.random_batch(configs.TRAIN_VOCAB_SIZE)
  seconds, peaks = {}, {}
  for index, name in enumerate(model_names):
    hparams = configs.TRAIN_MODELS[name]
    # The extra rows on the first model only: XLA compilations take long.
    runs = training_runs(framework, hparams, configs.TRAIN_VOCAB_SIZE, inputs, targets, notes,
                         extra=index == 0, mixed_precision=mixed_precision)
    if not runs:
      break
    runs.update({f"matmul {owner}": run for owner, (run, _) in matmuls.items()})
    medians = timing.interleaved_medians(runs, repeats, warmup=1)
    peaks[name] = {owner: flops / medians.pop(f"matmul {owner}")
                   for owner, (_, flops) in matmuls.items()}
    seconds[name] = medians
    del runs
    gc.collect()
  return {"seconds": seconds, "peaks": peaks, "notes": notes}


def measure_apart(repeats, model_names, mixed_precision=None):
  """measure() for each framework in a process of its own, one after another, merged."""
  merged = {"seconds": {name: {} for name in model_names},
            "peaks": {name: {} for name in model_names}, "notes": []}
  with tempfile.TemporaryDirectory(prefix="t2t_bench_training_") as scratch:
    for framework in FRAMEWORKS:
      path = os.path.join(scratch, f"{framework}.json")
      command = [sys.executable, "-m", "bench.training_throughput", f"--framework={framework}",
                 f"--repeats={repeats}", f"--raw={path}",
                 "--models=" + ",".join(MODEL_KEYS[list(configs.TRAIN_MODELS).index(name)]
                                        for name in model_names)]
      if mixed_precision:
        command.append(f"--mixed_precision={mixed_precision}")
      subprocess.run(command, check=True)
      with open(path, encoding="utf-8") as f:
        measured = json.load(f)
      for part in ("seconds", "peaks"):
        for name, values in measured[part].items():
          merged[part][name].update(values)
      merged["notes"] += measured["notes"]
  return merged


def run(repeats, model_names, mixed_precision=None):
  measured = measure_apart(repeats, model_names, mixed_precision)
  inputs, targets = configs.random_batch(configs.TRAIN_VOCAB_SIZE)
  tokens = int(np.count_nonzero(targets))
  results = {name: seconds for name, seconds in measured["seconds"].items() if seconds}
  peaks = {name: measured["peaks"][name] for name in results}
  notes = [f"{configs.TRAIN_BATCH} sentences x {configs.TRAIN_LENGTH} tokens a step (inputs and "
           f"targets), vocabulary {configs.TRAIN_VOCAB_SIZE:,} shared with the softmax, dropout "
           f"0.1 on residuals, attention and ReLU, label smoothing 0.1, Adam; medians of "
           f"{repeats} steps after a warm-up step, interleaved within each framework's "
           f"process; {os.cpu_count()} threads for every framework.",
           "All post-norm with the paper's initial learning-rate schedule. keras-hub's layers "
           "have no dropout inside the feed-forward network (the others do). PyTorch: fused "
           "Adam, OpenMP threads waiting passively (bench/__init__.py says why)."] + \
      measured["notes"]
  return [throughput_table(results, tokens, notes), mfu_table(results, tokens, peaks),
          xla_table(results)]


def throughput_table(results, tokens, notes):
  rows = []
  for name, seconds in results.items():
    for implementation, step in seconds.items():
      rows.append([name, implementation, f"{step * 1e3:,.0f}", f"{tokens / step:,.0f}",
                   report.ratio(seconds[OURS_GRAPH], step),
                   report.ratio(seconds.get(OURS_XLA), step),
                   report.ratio(_ours_at_precision_of(implementation, seconds), step)])
  return report.Table(
      "Training throughput (float32 unless named, CPU" + _held_to() + ")",
      ["model", "implementation", "ms/step", "target tokens/s", "ours XLA off / this",
       "ours XLA on / this", "ours XLA off, same precision / this"], rows, notes)


def _ours_at_precision_of(implementation, seconds):
  """Our XLA-off step time at the precision an implementation's name gives (float32
  unless it names a 16-bit type), or None when it was not timed."""
  for precision in ("bfloat16", "float16"):
    if precision in implementation:
      return seconds.get(f"{OURS_GRAPH}, mixed {precision}")
  return seconds[OURS_GRAPH]


def mfu_table(results, tokens, peaks):
  """peaks: {model name: {framework: matmul FLOP/s measured among that model's steps}}."""
  rows = []
  for name, seconds in results.items():
    tf_peak = peaks[name]["TensorFlow"]
    hparams = configs.TRAIN_MODELS[name]
    flops = training_flops(hparams, configs.TRAIN_VOCAB_SIZE, tokens, tokens,
                           configs.TRAIN_LENGTH, configs.TRAIN_LENGTH)
    for implementation, step in seconds.items():
      own_peak = tf_peak
      if implementation.startswith("PyTorch"):
        own_peak = peaks[name].get("PyTorch", tf_peak)
      rows.append([name, implementation, f"{flops / tokens / 1e6:,.0f}",
                   f"{flops / step / 1e9:,.1f}", f"{100 * flops / step / tf_peak:.0f}%",
                   f"{100 * flops / step / own_peak:.0f}%"])
  peak_text = "; ".join(f"{name}: " + ", ".join(f"{framework} {peak / 1e9:,.0f} GFLOP/s"
                                                 for framework, peak in model_peaks.items())
                        for name, model_peaks in peaks.items())
  return report.Table(
      "Model-FLOPs utilisation of the training steps above" + _held_to(),
      ["model", "implementation", "model MFLOPs / target token", "achieved GFLOP/s",
       "MFU (TensorFlow matmul peak)", "MFU (own framework's matmul peak)"], rows,
      [f"Float32 [2048, 2048] matmul peak, medians timed in turn with each model's steps: "
       f"{peak_text}.",
       "Model FLOPs: t2t_lite.training.cost.training_flops (matmuls forward and backward, "
       "attention included; layer norms, softmax and the optimizer not counted)."])


def xla_table(results):
  rows = []
  for name, seconds in results.items():
    if OURS_XLA in seconds:
      rows.append([name, "t2t_lite TrainStep", f"{seconds[OURS_GRAPH] * 1e3:,.0f}",
                   f"{seconds[OURS_XLA] * 1e3:,.0f}",
                   f"{seconds[OURS_GRAPH] / seconds[OURS_XLA]:.2f}x"])
  return report.Table("XLA on vs off: a training step (from the throughput table"
                      + _held_to() + ")",
                      ["model", "implementation", "ms/step, XLA off", "ms/step, XLA on",
                       "speed-up from XLA"], rows, section="XLA on vs off")


def _held_to():
  """", kernels held to AVX2" when they are (bench/__main__.py runs this program so), else ""."""
  held = report.kernels_held_to()
  return f", kernels held to {held}" if held else ""


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--models", default="base,big",
                      help="Which of base, big (transformer_big widths, N=2), multi30k "
                           "(transformer_small_multi30k's shapes) to run.")
  parser.add_argument("--mixed_precision", choices=("bfloat16",),
                      help="Also time our step computing in this dtype (t2t-trainer's "
                           "--mixed_precision), in turn with the others.")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  parser.add_argument("--framework", choices=FRAMEWORKS,
                      help="Time only this framework's steps, in this process, and save the "
                           "raw times to --raw (what the run without it starts, once each).")
  parser.add_argument("--raw", help="With --framework: where to save its raw times.")
  args = parser.parse_args()
  names = list(configs.TRAIN_MODELS)
  keys = args.models.split(",")
  if set(keys) - set(MODEL_KEYS):
    parser.error(f"--models: choose from {', '.join(MODEL_KEYS)}")
  chosen = [names[MODEL_KEYS.index(key)] for key in keys]
  if args.framework:
    if not args.raw:
      parser.error("--framework needs --raw")
    with open(args.raw, "w", encoding="utf-8") as f:
      json.dump(measure(args.framework, args.repeats, chosen, args.mixed_precision), f)
    return
  report.emit(run(args.repeats, chosen, args.mixed_precision), args.json)


if __name__ == "__main__":
  main()
