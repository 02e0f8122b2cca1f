"""transformer_auto's rule: corpora of each size and budgets of each length, table-driven."""

import dataclasses

import pytest

from t2t_lite.registry import HPARAMS
from t2t_lite.training import auto_hparams
from t2t_lite.training.auto_hparams import Budget, Corpus, choose
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


def paced(steps_per_second_at_4096, seen=None):
  """A pace of the given steps a second in batches of 4,096 tokens, the same tokens a
  second in any batch; `seen` collects the hparams it was asked about."""
  def pace(hparams):
    if seen is not None:
      seen.append(hparams)
    return steps_per_second_at_4096 * 4096 / hparams.batch_size, 3.0
  return pace


def test_minutes_are_the_steps_the_measured_pace_makes_at_most_the_step_limit():
  hparams = dataclasses.replace(TINY_RECIPE, batch_size=4096)
  budget = Budget(steps=250000, minutes=60, pace=paced(2.0))
  steps, reckoned = budget.steps_for(hparams)
  assert steps == int(60 * 60 * auto_hparams.TRAINING_SHARE * 2.0)
  assert reckoned == (f"60 minutes at 2.00 steps a second (this choice, measured on this "
                      f"machine in 3 s): about {steps:,} steps")
  assert Budget(steps=500, minutes=60, pace=paced(2.0)).steps_for(hparams)[0] == 500
  assert Budget(3000).steps_for(hparams) == (3000, "3,000 steps")


def test_the_warmup_is_a_quarter_of_the_steps_of_the_choice_as_it_will_train():
  """The pace is measured for the hparams that will train (the chosen batch, or the one
  given with --hparams): a small corpus's batches of 2,048 tokens make twice the steps of
  4,096 in the same minutes, and its warmup is a quarter of those."""
  small = Corpus(pairs=5000, p99_length=120, vocab_size=4096)
  seen = []
  chosen, line = choose(TINY_RECIPE, small, Budget(250000, 20, paced(1.0, seen)))
  steps = int(20 * 60 * auto_hparams.TRAINING_SHARE * 2.0)
  assert [hparams.batch_size for hparams in seen] == [2048] and chosen.batch_size == 2048
  assert chosen.learning_rate_warmup_steps == steps // 4
  assert f"at 2.00 steps a second (this choice, measured on this machine in 3 s): about " \
         f"{steps:,} steps" in line
  given, line = choose(TINY_RECIPE, small, Budget(250000, 20, paced(1.0, seen)),
                       "batch_size=4096")
  assert seen[-1].batch_size == 4096 and given.learning_rate_warmup_steps == steps // 8
  assert line.endswith(" (--hparams=batch_size=4096 given over the choice)")


class Split:
  """What a problem's split_info gives the rule."""
  examples = 4
  length_counts = {10: 3, 50: 1}


class Problem:
  def split_info(self, split, data_dir):
    return Split()

  def vocab_sizes(self, data_dir):
    return (4000, 8000)


def test_a_batchs_typical_row_is_the_mean_length_weighted_by_tokens():
  """Three pairs of 10 tokens and one of 50: a batch of fixed tokens holds 30 tokens of
  the short pairs for every 50 of the long: rows of (30 x 10 + 50 x 50) / 80 = 35 tokens."""
  corpus = Corpus.of(Problem(), "data")
  assert corpus == Corpus(pairs=4, p99_length=50, vocab_size=8000, row_length=35, tokens=80)
  assert corpus.passes(steps=10, batch_size=40) == 5  # 400 tokens over 80.
  assert Corpus(pairs=4, p99_length=50, vocab_size=8000).passes(10, 40) is None


def test_the_line_says_how_many_passes_over_the_pairs_the_budget_makes():
  corpus = Corpus(pairs=14884, p99_length=30, vocab_size=8192, row_length=16, tokens=203459)
  _, line = choose(TINY_RECIPE, corpus, Budget(steps=1539))
  assert "1,539 steps (about 31 passes over the pairs) -> " in line  # 1,539 x 4,096 tokens.


def test_overrides_go_over_the_choice_and_the_line_says_so():
  budget = Budget(steps=2000)
  corpus = Corpus(pairs=5000, p99_length=100, vocab_size=4096)
  chosen, line = choose(TINY_RECIPE, corpus, budget)
  hparams, said = choose(TINY_RECIPE, corpus, budget,
                         "layer_prepostprocess_dropout=0.1,batch_size=4096")
  assert (hparams.layer_prepostprocess_dropout, hparams.batch_size) == (0.1, 4096)
  assert dataclasses.replace(hparams, layer_prepostprocess_dropout=0.3,
                             batch_size=2048) == chosen
  assert "dropout 0.1" in said and "batches of 4,096 tokens" in said and said.endswith(
      " (--hparams=layer_prepostprocess_dropout=0.1,batch_size=4096 given over the choice)")


@pytest.mark.parametrize("overrides", ["learning_rate_warmup_steps=4000",
                                       "hidden_size=256,num_heads=8",
                                       "hidden_size=64,learning_rate_warmup_steps=300"])
def test_a_warmup_or_width_given_alone_keeps_the_peak_learning_rate(overrides):
  hparams, said = choose(TINY_RECIPE, Corpus(pairs=18000, p99_length=115, vocab_size=8192),
                         Budget(steps=5000), overrides)
  peak = float(learning_rate_schedule(hparams, end_step=10 ** 6)(
      hparams.learning_rate_warmup_steps - 1))
  # The constant is rounded to 4 decimals: a relative error below 0.5e-4 / 0.5.
  assert peak == pytest.approx(auto_hparams.PEAK_LEARNING_RATE, rel=1e-4)
  assert "to a peak learning rate of 0.005" in said


def test_a_learning_rate_constant_given_is_kept_as_given():
  hparams, said = choose(TINY_RECIPE, Corpus(pairs=18000, p99_length=115, vocab_size=8192),
                         Budget(steps=5000),
                         "learning_rate_warmup_steps=4000,learning_rate_constant=1.5")
  assert (hparams.learning_rate_constant, hparams.learning_rate_warmup_steps) == (1.5, 4000)
  assert "warmup 4,000 steps to learning_rate_constant 1.5 (as given)" in said


@pytest.mark.parametrize("flags, replicated", [
    ({}, True), ({"xla": False}, True), ({"xla": True}, False),
    ({"locally_shard_to_cpu": True}, False)])
def test_replicas_on_the_cpu_only_without_xla_or_devices_given(flags, replicated, monkeypatch):
  monkeypatch.setattr("t2t_lite.distribute.cluster.find_cluster", lambda: None)
  monkeypatch.setattr("t2t_lite.cores.usable_cores", lambda: 2)
  monkeypatch.setattr("tensorflow.config.list_physical_devices", lambda kind=None: [])
  config = dataclasses.replace(TrainConfig(output_dir="run"), **flags)
  assert auto_hparams._cpu_cores(config) == (2 if replicated else 0)
