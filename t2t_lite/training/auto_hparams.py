"""transformer_auto: hparams chosen for the corpus and the training budget.

    hparams, line = auto_hparams.for_run(base, problem, data_dir, config, overrides, begun)

t2t-trainer --hparams_set=transformer_auto calls this once, when a run starts: from the
training split's size and lengths (what t2t-datagen recorded) and the budget
(--train_minutes at the pace this machine trains the choice, measured for a few seconds
before the run: `t2t_lite.training.step_pace`; or --train_steps), it picks the model's
width, the batch, the warmup and peak learning rate, dropout and the longest example, and
says what it chose and why in one line; a resumed run keeps the choice its hparams.json
holds (`begun`: `t2t_lite.training.trainer.begun_hparams`).

The rule, and the runs it rests on (docs/own-data.md, "Choosing for your corpus"):
  - the model: transformer_tiny_multi30k's shape (pre-norm, 4 layers, d_model 128,
    d_ff 256, 4 heads), the best per CPU hour on Multi30k's 29,000 pairs and on the
    first 18,000 pairs of Europarl at 20 minutes (against d_model 256, which trains 2.4x
    fewer steps in the same time);
  - the schedule: the recipe's peak learning rate (5e-3 at d_model 128), reached after a
    quarter of the steps the budget gives (at most the recipe's 2,000: a 20-minute run
    with the recipe's warmup never left it), then rsqrt decay and a linear decay to 0
    over the run's last 3,000 steps (at most its second half); the budget's steps are
    those of the hparams as they will train, --hparams given over the choice included;
  - regularisation and batches by corpus size: dropout 0.2 (measured on Multi30k: 0.1
    overfits, 0.3 loses 0.9 BLEU on val; on Europarl's 18,000 pairs 0.3 lost 1.1) from
    10,000 pairs on; below, 0.3 and batches of 2,048 tokens, as Sennrich and Zhang (2019)
    advise for small corpora;
  - batches of 2,048 tokens for long sentences too (99% of the pairs past 64 tokens):
    on Europarl's 18,000 pairs they won 0.22 on val for the same tokens (two seeds each)
    and 0.22 for the same 60 minutes of one core; short sentences (Multi30k's captions) keep the
    recipe's 4,096;
  - the vocabulary, fixed by t2t-datagen before training: advice only, 8,192 pieces from
    10,000 pairs on (4,096 lost 1.1 BLEU on val on Multi30k and on Europarl's 18,000 pairs),
    4,096 below;
  - on a machine without GPUs, the batch split over replicas on the CPU, one a core, each
    of at least MIN_REPLICA_TOKENS (`cpu_replicas_for`): the same batch a step, more of them
    a second (each op of this small model gains little from a second thread; the replicas'
    ops run side by side); under --xla, one device (the compiled step trained 0.62x the
    steps a second on replicas).
"""

import dataclasses
import math
import typing

from t2t_lite.cli.overrides import parse_overrides
from t2t_lite.data.report import length_percentiles
from t2t_lite.models.hyperparameters import HParams

AUTO_SET = "transformer_auto"

# The share of a timed run's steps at its measured pace that it trains: its input,
# evaluations (dev BLEU every tenth of the minutes) and saves take the rest. The 20-minute
# walkthrough on 2 quiet cores of a Xeon with AMX trained 0.81 of them on Europarl's 18,000
# pairs (2,679 steps at a measured 2.77 a second: long sentences, long dev decodes) and
# 0.91 on the Ding dictionary's 14,884 short ones (1,539 at 1.41).
TRAINING_SHARE = 0.85
PEAK_LEARNING_RATE = 5e-3  # transformer_tiny_multi30k's: constant 2.53, warmup 2000, d 128.
WARMUP_SHARE, LONGEST_WARMUP, SHORTEST_WARMUP = 0.25, 2000, 100
RECIPE_BATCH = 4096  # transformer_tiny_multi30k's batches, for short sentences.
SMALL_CORPUS_PAIRS = 10000  # Below: more dropout, smaller batches, a smaller vocabulary.
LONG_SENTENCE_TOKENS = 64  # A p99 length past it: smaller batches (Europarl 115, Multi30k 40).
# The smallest batch a replica on the CPU takes. On 2 cores of an AVX2-only EPYC, Europarl's
# choice (2,048 tokens a step) trained 1.16x the steps a second as 2 replicas of 1,024, each
# on one core, as on one device with both; Multi30k's (4,096) 1.14x as 2 of 2,048
# (docs/benchmarks.md, "Replicas on the CPU against one device").
MIN_REPLICA_TOKENS = 1024


@dataclasses.dataclass(frozen=True)
class Corpus:
  """What the rule reads of a training split."""
  pairs: int
  p99_length: int      # Of max(source, target) tokens with EOS.
  vocab_size: int
  # A batch's typical row: the pairs' mean length weighted by their tokens (a batch holds
  # a fixed number of tokens, so long pairs make up more of the steps than of the pairs).
  row_length: int = 0
  tokens: int = 0      # Of all the pairs, as p99_length counts them: a pass's tokens.

  @classmethod
  def of(cls, problem, data_dir):
    info = problem.split_info("train", data_dir)
    counts = info.length_counts
    p99_length = length_percentiles(counts).get("p99", 0)
    tokens = sum(length * pairs for length, pairs in counts.items())
    row_length = round(sum(length ** 2 * pairs for length, pairs in counts.items())
                       / max(1, tokens))
    return cls(pairs=info.examples, p99_length=p99_length,
               vocab_size=max(problem.vocab_sizes(data_dir)), row_length=row_length,
               tokens=tokens)

  def passes(self, steps, batch_size):
    """About how many times `steps` batches of `batch_size` tokens go over the pairs (the
    batches' padding not counted); None when the tokens are unknown."""
    return steps * batch_size / self.tokens if self.tokens else None


@dataclasses.dataclass(frozen=True)
class Budget:
  """How many steps the run will take: `steps` (--train_steps), or, given `minutes`
  (--train_minutes), as many as the chosen hparams train in them on this machine, at most
  `steps`. pace(hparams) -> (steps a second, seconds its measurement took):
  `t2t_lite.training.step_pace.measured_pace` for a run."""
  steps: int
  minutes: float = 0.0
  pace: typing.Callable = None

  def steps_for(self, hparams):
    """-> (the steps `hparams` will train, how they were reckoned)."""
    if not self.minutes:
      return self.steps, f"{self.steps:,} steps"
    steps_per_second, seconds = self.pace(hparams)
    steps = min(self.steps, int(self.minutes * 60 * TRAINING_SHARE * steps_per_second))
    return steps, (f"{self.minutes:g} minutes at {steps_per_second:.2f} steps a second "
                   f"(this choice, measured on this machine in {seconds:.0f} s): about "
                   f"{steps:,} steps")


def cpu_replicas_for(batch_size, cpu_cores):
  """Replicas on the CPU for batches of `batch_size` tokens a step: one for each of
  `cpu_cores` (0: the run trains on a GPU, or on devices given by flags), as long as each
  takes at least MIN_REPLICA_TOKENS; at least 1."""
  return max(1, min(cpu_cores, batch_size // MIN_REPLICA_TOKENS))


def choose(base, corpus, budget, overrides="", cpu_cores=0):
  """-> (the HParams chosen from `base` (the tiny recipe) for `corpus` and `budget`, with
  --hparams `overrides` over the choice, one line saying why).

  The warmup is a quarter of the steps the budget gives the hparams as overridden (under
  --train_minutes, their measured pace); the learning-rate constant puts the peak at
  PEAK_LEARNING_RATE for the final width and warmup. Either, given in `overrides`, is
  kept as given. cpu_cores: the cores a run on the CPU trains on (`cpu_replicas_for`), 0
  for a run on a GPU; batch_size, as everywhere, is each replica's, so one given in
  `overrides` is one replica's."""
  small = corpus.pairs < SMALL_CORPUS_PAIRS
  dropout = 0.3 if small else 0.2
  long_sentences = corpus.p99_length > LONG_SENTENCE_TOKENS
  chosen_tokens = 2048 if small or long_sentences else RECIPE_BATCH  # Over every replica.
  max_length = max(base.max_length, 32 * math.ceil(corpus.p99_length / 32))
  given = parse_overrides(overrides, HParams) if overrides else {}
  replicas = given.get("cpu_replicas", cpu_replicas_for(chosen_tokens, cpu_cores))
  chosen = {"layer_prepostprocess_dropout": dropout, "batch_size": chosen_tokens // replicas,
            "max_length": max_length, "cpu_replicas": replicas}
  hparams = dataclasses.replace(base, **{**chosen, **given})
  steps, reckoned = budget.steps_for(hparams)
  step_tokens = hparams.batch_size * hparams.cpu_replicas  # As trained: overrides included.
  passes = corpus.passes(steps, step_tokens)
  if passes is not None:
    reckoned += f" (about {passes:.0f} passes over the pairs)"
  if "learning_rate_warmup_steps" not in given:
    warmup = int(min(LONGEST_WARMUP, max(SHORTEST_WARMUP, WARMUP_SHARE * steps)))
    hparams = dataclasses.replace(hparams, learning_rate_warmup_steps=warmup)
  if "learning_rate_constant" in given:
    peak = f"learning_rate_constant {hparams.learning_rate_constant:g} (as given)"
  else:
    hparams = dataclasses.replace(hparams, learning_rate_constant=peak_constant(
        hparams.hidden_size, hparams.learning_rate_warmup_steps))
    peak = f"a peak learning rate of {PEAK_LEARNING_RATE:g}"
  advised_vocab = 4096 if small else 8192
  vocab = (f"vocabulary {corpus.vocab_size:,} (as advised)" if corpus.vocab_size == advised_vocab
           else f"vocabulary {corpus.vocab_size:,} (advised for this size: t2t-datagen "
                f"--vocab_size={advised_vocab})")
  line = (f"{AUTO_SET}: {corpus.pairs:,} training pairs ({'under' if small else 'at least'} "
          f"{SMALL_CORPUS_PAIRS:,}), 99% of them within {corpus.p99_length} tokens; "
          f"{reckoned} -> d_model {hparams.hidden_size}, {hparams.num_hidden_layers} layers, "
          f"batches of {step_tokens:,} tokens{replicas_said(hparams)}, dropout "
          f"{hparams.layer_prepostprocess_dropout:g}, warmup "
          f"{hparams.learning_rate_warmup_steps:,} steps to {peak}, max_length "
          f"{hparams.max_length}; {vocab}")
  if given:
    line += f" (--hparams={overrides} given over the choice)"
  return hparams, line


def replicas_said(hparams):
  """How the line says the batch is split over replicas on the CPU ("" for one device)."""
  if hparams.cpu_replicas == 1:
    return ""
  return (f" ({hparams.cpu_replicas} replicas on the CPU's cores, {hparams.batch_size:,} "
          f"each)")


def peak_constant(hidden_size, warmup):
  """The learning_rate_constant whose rsqrt schedule peaks at PEAK_LEARNING_RATE after
  `warmup` steps at d_model `hidden_size` (the peak is constant / sqrt(d_model x warmup))."""
  return round(PEAK_LEARNING_RATE * math.sqrt(hidden_size * warmup), 4)


def for_run(base, problem, data_dir, config, overrides, begun):
  """transformer_auto's choice for t2t-trainer's run -> (HParams, the line to print). A run
  that has begun keeps its hparams.json (`begun`: those HParams, or None for a new run),
  with `overrides` applied."""
  from t2t_lite.run.run_layout import HPARAMS_FILE
  from t2t_lite.training import step_pace
  if begun is not None:
    return begun.override(overrides), (f"{AUTO_SET}: the run in --output_dir keeps the "
                                       f"choice made at its start (its {HPARAMS_FILE})")
  corpus = Corpus.of(problem, data_dir)
  settings = step_pace.PaceSettings.of(config)
  budget = Budget(config.train_steps, config.train_minutes or 0.0, lambda hparams: (
      step_pace.measured_pace(hparams, corpus.vocab_size, corpus.row_length, settings)))
  return choose(base, corpus, budget, overrides, cpu_cores=_cpu_cores(config))


def _cpu_cores(config):
  """The cores the run's replicas on the CPU may take: this process's, when it trains on
  the CPU of this machine alone, by no flag's choice of devices, and without --xla (XLA's
  compiled step trained 0.62x the steps a second on replicas as on one device: docs/
  benchmarks.md, "Replicas on the CPU against one device"); else 0."""
  import tensorflow as tf
  from t2t_lite.cores import usable_cores
  from t2t_lite.distribute.cluster import find_cluster
  if (config.locally_shard_to_cpu or config.xla or tf.config.list_physical_devices("GPU")
      or find_cluster()):
    return 0
  return usable_cores()
