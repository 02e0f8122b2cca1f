"""t2t-trainer on real batches vs the same model's step on one fixed batch, XLA off and on.

The data: translate_ende_multi30k generated now from the Multi30k files beside the project
into a temporary directory, or an existing --data_dir. For XLA off and on:
  fixed batch: `TrainStep` on one batch of random ids with no padding, of the shape most
               common among the real batches (sentences x bucket width, each side): the
               benchmark tables' kind of number;
  real batches: another `TrainStep` drawing the training batches of t2t-trainer's input
               pipeline, timed in turn with the fixed one (5 steps at a time): what
               padding inside the length buckets and smaller batches cost; both
               measured before the trainer's run and again after it, and averaged;
  t2t-trainer: the trainer itself (`train`, schedule=train, no evaluations, one checkpoint
               at the end) for --steps steps from scratch, its own tokens/s (what its
               progress line shows): the first step's tracing and, with XLA, every
               compilation (one per length bucket met) included; timed between the two
               measurements of the others, so a drift of the machine's speed over the
               run shows as a difference between them (in the notes);
  the same run after its first 10% of steps: the target tokens of the later steps over
               the time between their summaries (the rate a long run settles at, as far
               as the buckets met early are the ones met later).

    python -m bench.real_batches [--data_dir=DIR] [--steps=100] [--repeats=3]
                                 [--hparams=length_bucket_step=1.65]
"""

import argparse
import collections
import os
import statistics
import tempfile
import time

from bench import configs, ours, report
from bench.timing import interleaved_medians
from t2t_lite.training.curves import read_scalar_events
from t2t_lite.training.optimization import build_optimizer
from t2t_lite.training.step_pace import fixed_batch_step
from t2t_lite.training.train_step import TrainStep

PROBLEM = "translate_ende_multi30k"
HPARAMS_SET = "transformer_small_multi30k"
MULTI30K = os.path.join(configs.SHARED_DATA, "multi30k")


def generate(data_dir):
  """PROBLEM's records and vocabulary in data_dir (made from MULTI30K if missing)."""
  from t2t_lite.data.problem import Sources
  from t2t_lite.registry import PROBLEMS
  problem = PROBLEMS[PROBLEM]()
  if not os.path.exists(os.path.join(data_dir, f"{PROBLEM}-train.json")):
    if not os.path.exists(os.path.join(MULTI30K, "train.en")):
      raise SystemExit(f"bench.real_batches needs the Multi30k files in {MULTI30K} or a "
                       f"--data_dir with {PROBLEM}'s records")
    problem.generate_data(data_dir, Sources(tmp_dir=MULTI30K))
  return problem


def hparams_for_bench(overrides=""):
  """HPARAMS_SET with `overrides` (as --hparams takes them, e.g. "length_bucket_step=1.65")."""
  from t2t_lite.registry import HPARAMS
  return HPARAMS[HPARAMS_SET]().override(overrides)


def common_shape(problem, data_dir, hparams, xla, batches=300):
  """The most common (sentences, input width, target width) among the first training batches."""
  dataset = problem.dataset("train", data_dir, hparams, training=True, deterministic=True,
                            seed=1, pad_to_bucket_boundary=xla)
  shapes = collections.Counter(
      (int(b["targets"].shape[0]), int(b["inputs"].shape[1]), int(b["targets"].shape[1]))
      for b in dataset.take(batches))
  return shapes.most_common(1)[0][0]


class StepRates:
  """Target tokens/s of TrainStep on one batch of `shape` (no padding) and on real batches,
  timed in turn, `steps_per_repeat` steps at a time."""

  def __init__(self, problem, data_dir, hparams, shape, xla, steps_per_repeat=5):
    import tensorflow as tf
    sentences, input_width, target_width = shape
    vocab_size, _ = problem.vocab_sizes(data_dir)
    inputs, _ = configs.random_batch(vocab_size, sentences, input_width, seed=0)
    _, targets = configs.random_batch(vocab_size, sentences, target_width, seed=1)
    self.fixed_step = fixed_batch_step(hparams, vocab_size, inputs, targets, jit_compile=xla)
    model = ours.build_model(hparams, vocab_size)
    optimizer = build_optimizer(hparams)
    optimizer.build(model.trainable_variables)
    self.real_step = TrainStep(tf.distribute.get_strategy(), model, optimizer,
                               hparams.label_smoothing, jit_compile=xla,
                               rdrop_alpha=hparams.rdrop_alpha)
    self.batches = iter(problem.dataset("train", data_dir, hparams, training=True,
                                        deterministic=True, seed=1,
                                        pad_to_bucket_boundary=xla))
    self.steps_per_repeat = steps_per_repeat
    self.fixed_tokens = sentences * target_width * steps_per_repeat

  def measure(self, repeats, warmup):
    """-> (fixed, real) target tokens/s: medians of `repeats` blocks after `warmup` blocks."""
    real_tokens = []

    def real_steps():
      real_tokens.append(sum(self.real_step(self.batches)["tokens"]
                             for _ in range(self.steps_per_repeat)))

    seconds = interleaved_medians(
        {"fixed": lambda: [self.fixed_step() for _ in range(self.steps_per_repeat)],
         "real": real_steps}, repeats, warmup=warmup)
    real = statistics.median(real_tokens[warmup:]) / seconds["real"]
    return self.fixed_tokens / seconds["fixed"], real


def trainer_rate(data_dir, output_dir, hparams, xla, steps):
  """`train` for `steps` steps -> (target tokens/s as its progress line reports them, the
  same after its first tenth of steps, seconds the call took)."""
  from t2t_lite.registry import PROBLEMS
  from t2t_lite.training.config import TrainConfig
  from t2t_lite.training.trainer import train
  config = TrainConfig(output_dir=output_dir, train_steps=steps, schedule="train",
                       random_seed=1, xla=xla, save_checkpoints_steps=steps,
                       save_checkpoints_secs=0)
  start = time.perf_counter()
  train(PROBLEMS[PROBLEM](), hparams, config, data_dir)
  elapsed = time.perf_counter() - start
  directory = os.path.join(output_dir, "train")
  whole_run = _summaries(directory, "tokens_per_second")[-1][2]
  settled = _rate_after(_summaries(directory, "target_tokens"), max(steps // 10, 1))
  return whole_run, settled, elapsed


def _rate_after(tokens, first_steps):
  """Target tokens/s of the steps after `first_steps`, from [(step, wall time, tokens)]."""
  (_, start, _), later = tokens[first_steps - 1], tokens[first_steps:]
  return sum(count for _, _, count in later) / (later[-1][1] - start)


def _summaries(directory, tag):
  """[(step, wall time, value)] of scalar summary `tag` in the event files of `directory`."""
  return sorted((step, wall_time, value)
                for step, wall_time, name, value in read_scalar_events(directory) if name == tag)


def run(data_dir, steps, repeats, overrides=""):
  rows, notes = [], []
  with tempfile.TemporaryDirectory(prefix="t2t_bench_") as scratch:
    data_dir = data_dir or os.path.join(scratch, "data")
    problem = generate(data_dir)
    hparams = hparams_for_bench(overrides)
    for xla in (False, True):
      shape = common_shape(problem, data_dir, hparams, xla)
      # The steps' rates are measured before and after the trainer's run and averaged:
      # the machine's speed may drift over the minutes the run takes.
      rates = StepRates(problem, data_dir, hparams, shape, xla)
      before = rates.measure(repeats, warmup=2)
      real, settled, seconds = trainer_rate(
          data_dir, os.path.join(scratch, f"run_xla_{xla}"), hparams, xla, steps)
      after = rates.measure(repeats, warmup=0)
      fixed, real_step = ((b + a) / 2 for b, a in zip(before, after))
      label = "XLA on" if xla else "XLA off"
      rows.append([label, f"fixed batch {shape[0]} x {shape[1]} / {shape[2]} tokens",
                   f"{fixed:,.0f}", "1.00x"])
      rows.append([label, "TrainStep on real batches, timed in turn with the fixed one",
                   f"{real_step:,.0f}", f"{real_step / fixed:.2f}x"])
      rows.append([label, f"t2t-trainer, {steps} steps on real batches ({seconds:.0f} s)",
                   f"{real:,.0f}", f"{real / fixed:.2f}x"])
      rows.append([label, f"the same run, steps {max(steps // 10, 1) + 1}-{steps}",
                   f"{settled:,.0f}", f"{settled / fixed:.2f}x"])
      notes.append(f"{label}: the fixed batch ran at {before[0]:,.0f} tok/s before the "
                   f"trainer's run and {after[0]:,.0f} after it ({after[0] / before[0]:.2f}x); "
                   f"the table gives the mean.")
  notes.insert(0, f"{PROBLEM}, {HPARAMS_SET} (batch_size {hparams.batch_size} tokens, length "
                f"buckets x{hparams.length_bucket_step}). Fixed batch: sentences x input / "
                f"target width, the most common shape of the first 300 real batches (with XLA "
                f"padded to their bucket's boundary), random ids. Target tokens/s count real "
                f"(non-padding) tokens; fixed and real: medians of {repeats} blocks of 5 steps "
                f"after 2 warm-up blocks, measured before the trainer's run and again after it.")
  return [report.Table("Real batches vs a fixed batch (t2t-trainer on Multi30k, CPU)",
                       ["XLA", "batches", "target tokens/s", "real / fixed"], rows, notes)]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--data_dir", default=None)
  parser.add_argument("--steps", type=int, default=100)
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--hparams", default="",
                      help=f"Overrides of {HPARAMS_SET}, e.g. length_bucket_step=1.65.")
  parser.add_argument("--json", help="Also save the tables here (for python -m bench).")
  args = parser.parse_args()
  report.emit(run(args.data_dir, args.steps, args.repeats, args.hparams), args.json)


if __name__ == "__main__":
  main()
