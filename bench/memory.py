"""Peak resident memory of a training step and of decoding, ours vs peers.

Each case runs in a fresh process (only its own framework imported) and reports
the process's peak resident set size (ru_maxrss) and its resident size once the
framework was imported, before any model existed; the difference is what the
model, its optimizer state and the computation took.
  training: transformer_base, the batch of training_throughput.py, two steps;
  decoding: beam 4, the 32 newstest2014 sentences of decoding_speed.py as one batch.

    python -m bench.memory                 # every case, each in its own process
    python -m bench.memory --case=NAME     # one case in this process (what the above runs)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench import configs, peers, report, timing

DECODE_BEAM, DECODE_SENTENCES = 4, 32

# name -> (what, implementation, XLA); every name's rows compare with the first "ours".
CASES = {
    "train: ours, TrainStep, XLA off": ("train", "ours", False),
    "train: PyTorch nn.Transformer": ("train", "torch", False),
    "train: keras-hub layers, XLA off": ("train", "keras_hub", False),
    "decode: ours, XLA on": ("decode", "ours", True),
    "decode: ours, XLA off": ("decode", "ours", False),
    "decode: PyTorch, cached": ("decode", "torch", False),
}
PEER_MODULES = {"torch": "torch", "keras_hub": "keras_hub"}


def measure_case(name):
  """Runs one case in this process: {"baseline": bytes after imports, "peak": bytes}."""
  what, implementation, xla = CASES[name]
  if implementation == "torch":
    import torch
    torch.set_num_threads(os.cpu_count())
  else:
    import tensorflow  # noqa: F401
    if implementation == "keras_hub":
      import keras_hub  # noqa: F401
  baseline = timing.current_rss_bytes()
  if what == "train":
    _train(implementation, xla)
  else:
    _decode(implementation, xla)
  return {"baseline": baseline, "peak": timing.peak_rss_bytes()}


def _train(implementation, xla):
  inputs, targets = configs.random_batch(configs.TRAIN_VOCAB_SIZE)
  args = (configs.BASE, configs.TRAIN_VOCAB_SIZE, inputs, targets)
  if implementation == "ours":
    from t2t_lite.training.step_pace import fixed_batch_step
    step = fixed_batch_step(*args, jit_compile=xla)
  elif implementation == "torch":
    from bench.peers.torch_transformer import TorchTrainer
    step = TorchTrainer(*args)
  else:
    from bench.peers.keras_hub_transformer import KerasHubTrainer
    step = KerasHubTrainer(*args, jit_compile=xla)
  step()
  step()


def _decode(implementation, xla):
  from bench import sentences
  processor = sentences.europarl_vocabulary()
  (batch,) = sentences.padded_batches(sentences.newstest_ids(processor, DECODE_SENTENCES),
                                      DECODE_SENTENCES)
  if implementation == "ours":
    from bench import ours
    model = ours.build_model(configs.DECODE_HPARAMS, processor.get_piece_size())
    ours.decoder(ours.ForcedLength(model), DECODE_BEAM, configs.BEAM_ALPHA, configs.DECODE_EXTRA,
                 xla)(batch)
  else:
    from bench.peers import torch_transformer as tt
    model = tt.TorchTransformer(configs.DECODE_HPARAMS, processor.get_piece_size()).eval()
    tt.decode(model, tt.CachedSteps(model), batch, DECODE_BEAM, configs.DECODE_EXTRA)


def run():
  """Every case in its own process -> the table."""
  results, notes = {}, []
  for name, (_, implementation, _) in CASES.items():
    missing = implementation in PEER_MODULES and peers.missing(PEER_MODULES[implementation])
    if missing:
      if missing not in notes:
        notes.append(missing)
      continue
    with tempfile.NamedTemporaryFile(suffix=".json") as output:
      subprocess.run([sys.executable, "-m", "bench.memory", f"--case={name}",
                      f"--json={output.name}"], check=True)
      with open(output.name, encoding="utf-8") as f:
        results[name] = json.load(f)
  rows = []
  for name, result in results.items():
    what = CASES[name][0]
    reference = next(results[other] for other in results
                     if CASES[other][0] == what and CASES[other][1] == "ours")
    rows.append([name, report.gib(result["peak"]), report.gib(result["baseline"]),
                 report.gib(result["peak"] - result["baseline"]),
                 report.ratio(reference["peak"], result["peak"]),
                 report.ratio(reference["peak"] - reference["baseline"],
                              result["peak"] - result["baseline"])])
  notes.insert(0, f"Training: {configs.model_label(configs.BASE)}, vocabulary "
                  f"{configs.TRAIN_VOCAB_SIZE:,}, {configs.TRAIN_BATCH} x {configs.TRAIN_LENGTH} "
                  f"tokens, two steps. Decoding: beam {DECODE_BEAM}, {DECODE_SENTENCES} "
                  f"newstest2014 sentences in one batch, the model of the decoding table. "
                  f"Ratios against the first 'ours' row of the same kind; above 1: the row "
                  f"takes more than ours.")
  return [report.Table("Peak resident memory (GiB), one process per row",
                       ["case", "peak RSS", "after imports", "peak - after imports",
                        "this / ours (peak)", "this / ours (increase)"], rows, notes)]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--case", choices=sorted(CASES))
  parser.add_argument("--json", help="Where to save the result (tables, or one case's numbers).")
  args = parser.parse_args()
  if args.case:
    result = measure_case(args.case)
    if args.json:
      with open(args.json, "w", encoding="utf-8") as f:
        json.dump(result, f)
    print(args.case, {key: report.gib(value) for key, value in result.items()})
    return
  report.emit(run(), args.json)


if __name__ == "__main__":
  main()
