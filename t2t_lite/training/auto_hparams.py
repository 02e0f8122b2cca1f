"""transformer_auto: hparams chosen for the corpus and the training budget.

    hparams, line = auto_hparams.for_run(base, problem, data_dir, config, overrides, begun)

t2t-trainer --hparams_set=transformer_auto calls this once, when a run starts: from the
training split's size and lengths (what t2t-datagen recorded) and the budget
(--train_minutes on this machine, or --train_steps), it picks the model's width, the
batch, the warmup and peak learning rate, dropout and the longest example, and says what
it chose and why in one line; a resumed run keeps the choice its hparams.json holds
(`begun`: `t2t_lite.training.trainer.begun_hparams`).

The rule, and the runs it rests on (docs/own-data.md, "Choosing for your corpus"):
  - the model: transformer_tiny_multi30k's shape (pre-norm, 4 layers, d_model 128,
    d_ff 256, 4 heads), the best per CPU hour on Multi30k's 29,000 pairs and on the
    first 18,000 pairs of Europarl at 20 minutes (against d_model 256, which trains 2.4x
    fewer steps in the same time);
  - the schedule: the recipe's peak learning rate (5e-3 at d_model 128), reached after a
    quarter of the steps the budget gives (at most the recipe's 2,000: a 20-minute run
    with the recipe's warmup never left it), then rsqrt decay and a linear decay to 0
    over the run's last 3,000 steps (at most its second half);
  - regularisation and batches by corpus size: dropout 0.2 (measured on Multi30k: 0.1
    overfits, 0.3 loses 0.9 BLEU on val) from 10,000 pairs on; below, 0.3 and batches of
    2,048 tokens, as Sennrich and Zhang (2019) advise for small corpora;
  - batches of 2,048 tokens for long sentences too (99% of the pairs past 64 tokens):
    on Europarl's 18,000 pairs they won 0.22 on val for the same tokens (two seeds each)
    and 0.22 for the same 60 minutes of one core; short sentences (Multi30k's captions) keep the
    recipe's 4,096;
  - the vocabulary, fixed by t2t-datagen before training: advice only, 8,192 pieces from
    10,000 pairs on (on Multi30k 4,096 lost 1.1 BLEU on val), 4,096 below.
"""

import dataclasses
import math

from t2t_lite.cli.overrides import parse_overrides
from t2t_lite.data.report import length_percentiles
from t2t_lite.models.hyperparameters import HParams

AUTO_SET = "transformer_auto"

# Steps a second of the tiny shape with 4,096-token batches on 2 cores of a Zen 4 EPYC,
# whose float32 matmul peak measured 3.87e11 FLOP/s (t2t_lite.training.cost.cpu_peak),
# and the share of a timed run left to training by its evaluations and saves.
REFERENCE_STEPS_PER_SECOND = 2.47
REFERENCE_PEAK_FLOPS = 3.87e11
REFERENCE_BATCH = 4096
TRAINING_SHARE = 0.9
# Tokens a second of batches of 2,048 tokens against 4,096 on Europarl's long sentences, on
# a Xeon with AMX: 0.94 for two runs side by side on both cores (2,090 against 2,230), 0.98
# for two runs held to one core each; the lower one plans the steps.
SMALL_BATCH_TOKEN_RATE = 0.94

PEAK_LEARNING_RATE = 5e-3  # transformer_tiny_multi30k's: constant 2.53, warmup 2000, d 128.
WARMUP_SHARE, LONGEST_WARMUP, SHORTEST_WARMUP = 0.25, 2000, 100
SMALL_CORPUS_PAIRS = 10000  # Below: more dropout, smaller batches, a smaller vocabulary.
LONG_SENTENCE_TOKENS = 64  # A p99 length past it: smaller batches (Europarl 115, Multi30k 40).


@dataclasses.dataclass(frozen=True)
class Corpus:
  """What the rule reads of a training split."""
  pairs: int
  p99_length: int      # Of max(source, target) tokens with EOS.
  vocab_size: int

  @classmethod
  def of(cls, problem, data_dir):
    info = problem.split_info("train", data_dir)
    p99_length = length_percentiles(info.length_counts).get("p99", 0)
    return cls(pairs=info.examples, p99_length=p99_length,
               vocab_size=max(problem.vocab_sizes(data_dir)))


@dataclasses.dataclass(frozen=True)
class Budget:
  """How many steps the run will take: given (--train_steps), or from minutes and the pace
  of batches of `batch_size` tokens (at most `step_limit`, --train_steps)."""
  steps: int
  minutes: float = 0.0
  steps_per_second: float = 0.0
  batch_size: int = REFERENCE_BATCH
  step_limit: int = 0

  def at_batch(self, batch_size):
    """The same minutes in batches of `batch_size` tokens: more steps of fewer tokens."""
    if not self.minutes or batch_size == self.batch_size:
      return self
    tokens_rate = SMALL_BATCH_TOKEN_RATE if batch_size < REFERENCE_BATCH else 1.0
    pace = self.steps_per_second * self.batch_size / batch_size * tokens_rate
    return timed_budget(self.minutes, pace, batch_size, self.step_limit)

  def describe(self):
    if not self.minutes:
      return f"{self.steps:,} steps"
    return (f"{self.minutes:g} minutes at about {self.steps_per_second:.1f} steps a second "
            f"on this machine: about {self.steps:,} steps")


def timed_budget(minutes, steps_per_second, batch_size, step_limit):
  """The Budget of `minutes` at `steps_per_second`, at most `step_limit` steps."""
  steps = int(minutes * 60 * TRAINING_SHARE * steps_per_second)
  return Budget(steps=min(steps, step_limit), minutes=minutes,
                steps_per_second=steps_per_second, batch_size=batch_size,
                step_limit=step_limit)


def budget_of(config, peak_flops):
  """The run's budget in batches of REFERENCE_BATCH tokens: --train_minutes on a machine of
  `peak_flops` (a float32 matmul peak), or --train_steps without minutes. Mixed bfloat16 is
  no faster for this shape (2.5 steps a second in both on a Zen 4 EPYC's 2 cores,
  docs/results.md)."""
  if not config.train_minutes:
    return Budget(steps=config.train_steps)
  pace = REFERENCE_STEPS_PER_SECOND * peak_flops / REFERENCE_PEAK_FLOPS
  return timed_budget(config.train_minutes, pace, REFERENCE_BATCH, config.train_steps)


def choose(base, corpus, budget):
  """-> (the HParams chosen from `base` (the tiny recipe), one line saying why)."""
  small = corpus.pairs < SMALL_CORPUS_PAIRS
  dropout = 0.3 if small else 0.2
  long_sentences = corpus.p99_length > LONG_SENTENCE_TOKENS
  batch_size = 2048 if small or long_sentences else REFERENCE_BATCH
  budget = budget.at_batch(batch_size)
  warmup = int(min(LONGEST_WARMUP, max(SHORTEST_WARMUP, WARMUP_SHARE * budget.steps)))
  max_length = max(base.max_length, 32 * math.ceil(corpus.p99_length / 32))
  chosen = dataclasses.replace(
      base, layer_prepostprocess_dropout=dropout, batch_size=batch_size,
      learning_rate_warmup_steps=warmup,
      learning_rate_constant=peak_constant(base.hidden_size, warmup),
      max_length=max_length)
  advised_vocab = 4096 if small else 8192
  vocab = (f"vocabulary {corpus.vocab_size:,} (as advised)" if corpus.vocab_size == advised_vocab
           else f"vocabulary {corpus.vocab_size:,} (advised for this size: t2t-datagen "
                f"--vocab_size={advised_vocab})")
  line = (f"{AUTO_SET}: {corpus.pairs:,} training pairs ({'under' if small else 'at least'} "
          f"{SMALL_CORPUS_PAIRS:,}), 99% of them within {corpus.p99_length} tokens; "
          f"{budget.describe()} -> d_model {chosen.hidden_size}, {chosen.num_hidden_layers} "
          f"layers, batches of {batch_size:,} tokens, dropout {dropout:g}, warmup {warmup:,} "
          f"steps to a peak learning rate of {PEAK_LEARNING_RATE:g}, max_length "
          f"{max_length}; {vocab}")
  return chosen, line


def peak_constant(hidden_size, warmup):
  """The learning_rate_constant whose rsqrt schedule peaks at PEAK_LEARNING_RATE after
  `warmup` steps at d_model `hidden_size` (the peak is constant / sqrt(d_model x warmup))."""
  return round(PEAK_LEARNING_RATE * math.sqrt(hidden_size * warmup), 4)


def for_run(base, problem, data_dir, config, overrides, begun):
  """transformer_auto's choice for t2t-trainer's run -> (HParams, the line to print). A run
  that has begun keeps its hparams.json (`begun`: those HParams, or None for a new run),
  with `overrides` applied."""
  from t2t_lite.run.run_layout import HPARAMS_FILE
  from t2t_lite.training.cost import cpu_peak
  if begun is not None:
    return begun.override(overrides), (f"{AUTO_SET}: the run in --output_dir keeps the "
                                       f"choice made at its start (its {HPARAMS_FILE})")
  budget = budget_of(config, cpu_peak()[0])  # cpu_peak: a matmul, once a machine.
  return overridden(*choose(base, Corpus.of(problem, data_dir), budget), overrides)


def overridden(chosen, line, overrides):
  """The choice with --hparams `overrides` over it -> (HParams, its line, saying so). A
  warmup or a width given without a learning_rate_constant keeps the peak learning rate:
  the constant is derived anew for them."""
  if not overrides:
    return chosen, line
  given = parse_overrides(overrides, HParams)
  hparams = dataclasses.replace(chosen, **given)
  line = f"{line}; then --hparams={overrides} over that"
  if ("learning_rate_constant" not in given
      and given.keys() & {"learning_rate_warmup_steps", "hidden_size"}):
    constant = peak_constant(hparams.hidden_size, hparams.learning_rate_warmup_steps)
    hparams = dataclasses.replace(hparams, learning_rate_constant=constant)
    line += (f" (learning_rate_constant {constant:g}: the peak stays "
             f"{PEAK_LEARNING_RATE:g})")
  return hparams, line

