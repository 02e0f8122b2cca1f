"""transformer_auto's rule: corpora of each size and budgets of each length, table-driven."""

import dataclasses

import pytest

from t2t_lite.registry import HPARAMS
from t2t_lite.training import auto_hparams
from t2t_lite.training.auto_hparams import Budget, Corpus, budget_of, choose, overridden
from t2t_lite.training.config import TrainConfig
from t2t_lite.training.optimization import learning_rate_schedule

TINY_RECIPE = HPARAMS["transformer_tiny_multi30k"]()

# (corpus, budget in steps) -> (dropout, batch, warmup, max_length, advised vocabulary).
CASES = [
    # Ding's example sentences' size: a small corpus of short lines, 20 minutes.
    (Corpus(pairs=4800, p99_length=30, vocab_size=8192), 2600, (0.3, 2048, 650, 128, 4096)),
    # Europarl slices of 5k and 10k pairs, long lines, 60 minutes.
    (Corpus(pairs=5000, p99_length=120, vocab_size=4096), 8000, (0.3, 2048, 2000, 128, 4096)),
    (Corpus(pairs=10000, p99_length=118, vocab_size=8192), 8000, (0.2, 2048, 2000, 128, 8192)),
    # The news test sets 2008-2012 as training pairs: long lines past max_length 128.
    (Corpus(pairs=13000, p99_length=150, vocab_size=8192), 2600, (0.2, 2048, 650, 160, 8192)),
    # Europarl's 18,000 pairs, 60 minutes: long sentences, batches of 2,048 tokens.
    (Corpus(pairs=18000, p99_length=115, vocab_size=8192), 8000, (0.2, 2048, 2000, 128, 8192)),
    # Lines of 64 tokens at most are short: the recipe's batches.
    (Corpus(pairs=18000, p99_length=64, vocab_size=8192), 8000, (0.2, 4096, 2000, 128, 8192)),
    # Multi30k: the tiny recipe itself at 60 minutes.
    (Corpus(pairs=29000, p99_length=40, vocab_size=8192), 8000, (0.2, 4096, 2000, 128, 8192)),
    # A short budget never gets less than the shortest warmup.
    (Corpus(pairs=29000, p99_length=40, vocab_size=8192), 200, (0.2, 4096, 100, 128, 8192)),
]


@pytest.mark.parametrize("corpus,steps,expected", CASES)
def test_the_rule_by_corpus_size_and_budget(corpus, steps, expected):
  chosen, line = choose(TINY_RECIPE, corpus, Budget(steps=steps))
  dropout, batch, warmup, max_length, vocab = expected
  assert (chosen.layer_prepostprocess_dropout, chosen.batch_size,
          chosen.learning_rate_warmup_steps, chosen.max_length) == (dropout, batch, warmup,
                                                                     max_length)
  advice = "(as advised)" if vocab == corpus.vocab_size else f"--vocab_size={vocab}"
  assert advice in line and f"{corpus.pairs:,} training pairs" in line
  # The shape and the schedule's form stay the recipe's.
  assert (chosen.hidden_size, chosen.num_hidden_layers, chosen.learning_rate_schedule) == (
      TINY_RECIPE.hidden_size, TINY_RECIPE.num_hidden_layers,
      TINY_RECIPE.learning_rate_schedule)


@pytest.mark.parametrize("steps", [8000, 20000])
def test_on_multi30k_with_an_hours_steps_the_choice_is_the_tiny_recipe(steps):
  """On Multi30k's 29,000 short pairs, from the steps of 60 minutes on the rule's machine,
  the choice trains as transformer_tiny_multi30k does: every field equal, the learning-rate
  constant within its rounding (2.5298 against the recipe's 2.53, one part in 10,000)."""
  chosen, _ = choose(TINY_RECIPE, Corpus(pairs=29000, p99_length=40, vocab_size=8192),
                     Budget(steps=steps))
  assert chosen.learning_rate_constant == pytest.approx(TINY_RECIPE.learning_rate_constant,
                                                        rel=1e-4)
  assert dataclasses.replace(
      chosen, learning_rate_constant=TINY_RECIPE.learning_rate_constant) == TINY_RECIPE


@pytest.mark.parametrize("warmup_budget", [200, 2600, 8000, 40000])
def test_the_peak_learning_rate_is_the_recipes_whatever_the_warmup(warmup_budget):
  corpus = Corpus(pairs=18000, p99_length=115, vocab_size=8192)
  chosen, _ = choose(TINY_RECIPE, corpus, Budget(steps=warmup_budget))
  schedule = learning_rate_schedule(chosen, end_step=10 ** 6)
  peak = float(schedule(chosen.learning_rate_warmup_steps - 1))
  recipe_peak = float(learning_rate_schedule(TINY_RECIPE, end_step=10 ** 6)(
      TINY_RECIPE.learning_rate_warmup_steps - 1))
  # The constant is rounded to 4 decimals: a relative error below 0.5e-4 / 0.5.
  assert peak == pytest.approx(auto_hparams.PEAK_LEARNING_RATE, rel=1e-4)
  assert recipe_peak == pytest.approx(auto_hparams.PEAK_LEARNING_RATE, rel=1e-3)


def test_the_budget_in_steps_follows_the_machines_speed_and_the_step_limit():
  reference = auto_hparams.REFERENCE_PEAK_FLOPS
  config = TrainConfig(output_dir="run", train_minutes=60)
  here = budget_of(config, reference)
  assert here.steps == int(60 * 60 * auto_hparams.TRAINING_SHARE
                           * auto_hparams.REFERENCE_STEPS_PER_SECOND)
  assert budget_of(config, reference / 2).steps == pytest.approx(here.steps / 2, abs=1)
  assert budget_of(TrainConfig(output_dir="run", train_minutes=60, train_steps=500),
                   reference).steps == 500
  assert budget_of(TrainConfig(output_dir="run", train_steps=3000), reference) == Budget(3000)
  assert "60 minutes" in here.describe() and "3,000 steps" == Budget(3000).describe()


def test_minutes_in_smaller_batches_are_more_steps_and_a_longer_warmup():
  """A small corpus's batches of 2,048 tokens: the same minutes make about twice the steps
  (a little under: fewer tokens a second), and the warmup is a quarter of those."""
  config = TrainConfig(output_dir="run", train_minutes=20)
  budget = budget_of(config, auto_hparams.REFERENCE_PEAK_FLOPS)
  small = Corpus(pairs=5000, p99_length=120, vocab_size=4096)
  chosen, line = choose(TINY_RECIPE, small, budget)
  pace = (auto_hparams.REFERENCE_STEPS_PER_SECOND * 2
          * auto_hparams.SMALL_BATCH_TOKEN_RATE)
  steps = int(20 * 60 * auto_hparams.TRAINING_SHARE * pace)
  assert chosen.batch_size == 2048 and steps > 1.8 * budget.steps
  assert chosen.learning_rate_warmup_steps == steps // 4
  assert f"about {pace:.1f} steps a second on this machine: about {steps:,} steps" in line
  limited = budget_of(TrainConfig(output_dir="run", train_minutes=20, train_steps=3000),
                      auto_hparams.REFERENCE_PEAK_FLOPS)
  assert limited.at_batch(2048).steps == 3000


def test_overrides_go_over_the_choice_and_the_line_says_so():
  chosen, line = choose(TINY_RECIPE, Corpus(pairs=5000, p99_length=100, vocab_size=4096),
                        Budget(steps=2000))
  same = overridden(chosen, line, "")
  assert same == (chosen, line)
  hparams, said = overridden(chosen, line, "layer_prepostprocess_dropout=0.1,batch_size=4096")
  assert (hparams.layer_prepostprocess_dropout, hparams.batch_size) == (0.1, 4096)
  assert said.startswith(line) and said.endswith(
      "; then --hparams=layer_prepostprocess_dropout=0.1,batch_size=4096 over that")


@pytest.mark.parametrize("overrides", ["learning_rate_warmup_steps=4000",
                                       "hidden_size=256,num_heads=8",
                                       "hidden_size=64,learning_rate_warmup_steps=300"])
def test_a_warmup_or_width_given_alone_keeps_the_peak_learning_rate(overrides):
  chosen, line = choose(TINY_RECIPE, Corpus(pairs=18000, p99_length=115, vocab_size=8192),
                        Budget(steps=5000))
  hparams, said = overridden(chosen, line, overrides)
  peak = float(learning_rate_schedule(hparams, end_step=10 ** 6)(
      hparams.learning_rate_warmup_steps - 1))
  # The constant is rounded to 4 decimals: a relative error below 0.5e-4 / 0.5.
  assert peak == pytest.approx(auto_hparams.PEAK_LEARNING_RATE, rel=1e-4)
  assert f"learning_rate_constant {hparams.learning_rate_constant:g}" in said


def test_a_learning_rate_constant_given_is_kept_as_given():
  chosen, line = choose(TINY_RECIPE, Corpus(pairs=18000, p99_length=115, vocab_size=8192),
                        Budget(steps=5000))
  hparams, said = overridden(chosen, line, "learning_rate_warmup_steps=4000,"
                                           "learning_rate_constant=1.5")
  assert hparams.learning_rate_constant == 1.5 and "the peak stays" not in said
