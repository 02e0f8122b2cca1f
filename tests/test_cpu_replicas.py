"""Replicas on the CPU (hparams cpu_replicas): how transformer_auto splits a step's batch over
the cores, and the strategy t2t-trainer and the pace measurement make of it. (Two replicas
on logical CPU devices train one device's steps: tests/test_local_replicas.py, through
--locally_shard_to_cpu, which splits the CPU the same way; the walkthrough's test in
tests/test_docs.py trains transformer_auto's choice through t2t-trainer.)"""

import json
import sys

import pytest

from commands import one_line_error, run
from t2t_lite.distribute.strategy import HPARAMS_SETTING, check_cpu_replicas
from t2t_lite.registry import HPARAMS
from t2t_lite.training.auto_hparams import (MIN_REPLICA_TOKENS, Budget, Corpus, choose,
                                            cpu_replicas_for)

TINY_RECIPE = HPARAMS["transformer_tiny_multi30k"]()
EUROPARL = Corpus(pairs=18000, p99_length=115, vocab_size=8192)  # Batches of 2,048 tokens.
MULTI30K = Corpus(pairs=29000, p99_length=40, vocab_size=8192)   # Batches of 4,096 tokens.


@pytest.mark.parametrize("batch_size, cores, replicas", [
    (2048, 0, 1),   # A GPU trains: no replicas on the CPU.
    (2048, 1, 1),
    (2048, 2, 2),   # Europarl's choice on 2 cores: 1,024 tokens each.
    (2048, 16, 2),  # No replica below MIN_REPLICA_TOKENS.
    (4096, 2, 2),
    (4096, 16, 4),
    (512, 2, 1),
])
def test_one_replica_a_core_each_of_at_least_the_smallest_batch(batch_size, cores, replicas):
  assert cpu_replicas_for(batch_size, cores) == replicas
  assert replicas == 1 or batch_size // replicas >= MIN_REPLICA_TOKENS


@pytest.mark.parametrize("corpus, cores, per_replica, replicas", [
    (EUROPARL, 0, 2048, 1), (EUROPARL, 2, 1024, 2), (MULTI30K, 2, 2048, 2),
    (MULTI30K, 8, 1024, 4)])
def test_the_choice_splits_the_steps_batch_over_the_replicas(corpus, cores, per_replica,
                                                             replicas):
  chosen, line = choose(TINY_RECIPE, corpus, Budget(steps=8000), cpu_cores=cores)
  assert (chosen.batch_size, chosen.cpu_replicas) == (per_replica, replicas)
  step_tokens = f"batches of {per_replica * replicas:,} tokens"
  split = f" ({replicas} replicas on the CPU's cores, {per_replica:,} each)"
  assert f"{step_tokens}{split if replicas > 1 else ''}, dropout" in line
  # The rest of the choice is the same on any number of cores.
  one_device, _ = choose(TINY_RECIPE, corpus, Budget(steps=8000))
  assert chosen.override(f"batch_size={per_replica * replicas},cpu_replicas=1") == one_device


def test_a_batch_size_given_is_each_replicas_and_cpu_replicas_given_is_kept():
  chosen, line = choose(TINY_RECIPE, EUROPARL, Budget(steps=8000), "batch_size=512",
                        cpu_cores=2)
  assert (chosen.batch_size, chosen.cpu_replicas) == (512, 2)
  assert "batches of 1,024 tokens (2 replicas on the CPU's cores, 512 each)" in line
  chosen, line = choose(TINY_RECIPE, EUROPARL, Budget(steps=8000), "cpu_replicas=1",
                        cpu_cores=2)
  assert (chosen.batch_size, chosen.cpu_replicas) == (2048, 1)
  assert "batches of 2,048 tokens, dropout" in line


def test_the_pace_is_measured_for_the_replicas_that_will_train():
  seen = []
  choose(TINY_RECIPE, EUROPARL, Budget(250000, 20, lambda hparams: (
      seen.append(hparams) or (2.0, 1.0))), cpu_cores=2)
  assert [(hparams.batch_size, hparams.cpu_replicas) for hparams in seen] == [(1024, 2)]


def test_more_cpu_replicas_than_the_cores_carry_name_the_hparam():
  assert one_line_error(lambda: check_cpu_replicas(1000, cores=2, setting=HPARAMS_SETTING)) == (
      "hparams cpu_replicas=1000: more replicas than this machine's bound of 16 (8 a core, "
      "2 core(s)); pass --hparams=cpu_replicas=16 or fewer")


STRATEGY_OF = """
import json, tensorflow as tf
from t2t_lite.cores import usable_cores
from t2t_lite.distribute.strategy import make_strategy, local_replicas
strategy = make_strategy(worker_gpu=1, cpu_replicas=2)
print(json.dumps([local_replicas(strategy), type(strategy).__name__,
                  tf.config.threading.get_intra_op_parallelism_threads(), usable_cores()]))
"""


@pytest.mark.slow
def test_without_a_gpu_cpu_replicas_split_the_cpu_and_its_cores():
  """In a process of its own: TensorFlow fixes its devices and threads once they start."""
  result = run([sys.executable, "-c", STRATEGY_OF])
  assert result.returncode == 0, result.stderr[-2000:]
  replicas, strategy, intra_op_threads, cores = json.loads(result.stdout.splitlines()[-1])
  assert (replicas, strategy) == (2, "MirroredStrategy")
  assert intra_op_threads == max(1, cores // 2)
