"""t2t-trainer with two local replicas (--worker_gpu=2 --locally_shard_to_cpu: MirroredStrategy
over two logical CPU devices, what two GPUs give), through the command, on real data: the
same losses as one device on the same global batch, a stop and resume at the same data
position, a resume onto one replica, and the other commands on the run (t2t-exporter works
on one device whatever trained the run: test_workers.py exports one)."""

import os
import signal

import pytest

from commands import call, command_path, run, run_command, start
from replica_runs import (REAL_DATA_HPARAMS, TWO_LOCAL_REPLICAS, assert_same_losses,
                          copy_stopped_at, finish, latest_step, learning_rates, losses, train,
                          train_here, trainer_argv, wait_for_a_checkpoint)

pytestmark = pytest.mark.slow  # Trains through t2t-trainer processes.

STEPS = 12  # The two-replica reference run's; the comparisons with one device use the first 3.


@pytest.fixture(scope="module")
def two_replica_run(small_translation_data, tmp_path_factory):
  """(data_dir, output_dir) of a two-replica run of STEPS steps, a checkpoint every 2."""
  _, data_dir = small_translation_data
  output_dir = str(tmp_path_factory.mktemp("two_replicas") / "run")
  train(data_dir, output_dir, *TWO_LOCAL_REPLICAS, f"--train_steps={STEPS}",
        "--schedule=train", "--save_checkpoints_steps=2")
  return data_dir, output_dir


@pytest.fixture(scope="module")
def one_device_runs(two_replica_run, tmp_path_factory):
  """accumulation -> the output_dir of a 3-step one-device run accumulating that many
  micro-batches a step (trained on first use)."""
  data_dir, _ = two_replica_run
  runs = {}

  def one_device(accumulation):
    if accumulation not in runs:
      runs[accumulation] = str(tmp_path_factory.mktemp(f"one_device_{accumulation}") / "run")
      train_here(data_dir, runs[accumulation], "--train_steps=3", "--schedule=train",
                 f"--gradient_accumulation_steps={accumulation}")
    return runs[accumulation]
  return one_device


@pytest.mark.parametrize("flags, one_device_accumulation", [
    ((), 2), (("--xla", "--gradient_accumulation_steps=2"), 4)],
    ids=["plain", "xla_accumulation"])
def test_two_replicas_give_one_device_losses_on_the_same_global_batch(
    two_replica_run, one_device_runs, tmp_path, flags, one_device_accumulation):
  """Replica r takes the r-th of the step's batches (its micro-batches in turn), as one
  device accumulating them in that order does: the global batch is the same. (XLA and
  accumulation share one run: each two-replica process costs a minute of the full tier.)"""
  data_dir, reference = two_replica_run
  if flags:
    replicas = str(tmp_path / "replicas")
    train(data_dir, replicas, *TWO_LOCAL_REPLICAS, *flags, "--train_steps=3",
          "--schedule=train")
  else:
    replicas = reference
  assert_same_losses(losses(one_device_runs(one_device_accumulation)), losses(replicas),
                     steps=[1, 2, 3])


def test_sigterm_saves_and_a_restart_resumes_at_the_same_data_position(
    two_replica_run, tmp_path):
  data_dir, reference = two_replica_run
  output_dir = str(tmp_path / "run")
  argv = trainer_argv(data_dir, output_dir, REAL_DATA_HPARAMS, *TWO_LOCAL_REPLICAS,
                      f"--train_steps={STEPS}", "--schedule=train", "--save_checkpoints_steps=2")
  process = start(argv, merge_stderr=True)
  wait_for_a_checkpoint(output_dir, [process])
  process.send_signal(signal.SIGTERM)
  [(status, output)] = finish([process])
  assert status == 143, output[-3000:]
  stopped_at = latest_step(output_dir)
  assert stopped_at < STEPS, "the run ended before the signal: nothing to resume"
  assert f"SIGTERM: saved {output_dir}/ckpt-{stopped_at} at step {stopped_at}" in output
  resumed = run(argv)
  assert resumed.returncode == 0, resumed.stderr[-3000:]
  assert f"resuming from {output_dir}/ckpt-{stopped_at} (step {stopped_at})" in resumed.stdout
  assert_same_losses(losses(reference), losses(output_dir), steps=range(1, STEPS + 1))


def test_a_resume_onto_one_replica_warns_and_keeps_the_schedule(two_replica_run, tmp_path):
  data_dir, reference = two_replica_run
  output_dir = copy_stopped_at(reference, 4, tmp_path / "run")
  one = train_here(data_dir, output_dir, "--train_steps=6", "--schedule=train")
  assert "was trained with 2 replica(s), this run has 1: from step 4 on" in one.stderr
  # The learning rate is a function of the step, whatever the replicas.
  rates, reference_rates = learning_rates(output_dir), learning_rates(reference)
  assert [rates[step] for step in (5, 6)] == [reference_rates[step] for step in (5, 6)]


def test_averaging_decoding_and_visualizing_a_two_replica_run(
    two_replica_run, tmp_path, shared_data):
  _, output_dir = two_replica_run
  averaged = str(tmp_path / "averaged")
  result = call("t2t-avg-all", f"--model_dir={output_dir}", f"--output_dir={averaged}", "--n=3")
  assert result.returncode == 0, result.stderr[-3000:]
  source = str(tmp_path / "source.en")
  with open(os.path.join(shared_data, "wmt14", "newstest2013.en"), encoding="utf-8") as f:
    lines = [next(f) for _ in range(6)]
  with open(source, "w", encoding="utf-8") as f:
    f.writelines(lines)
  outputs = {}
  for name, flags in (("one", ()), ("two", TWO_LOCAL_REPLICAS)):
    outputs[name] = str(tmp_path / f"{name}.de")
    decoder = run_command if flags else call  # Logical devices need a process of their own.
    result = decoder("t2t-decoder", f"--output_dir={averaged}", *flags,
                     f"--decode_from_file={source}", f"--decode_to_file={outputs[name]}",
                     "--decode_hparams=beam_size=2,alpha=2.0,extra_length=5")
    assert result.returncode == 0, result.stderr[-3000:]
  with open(outputs["one"], encoding="utf-8") as one, \
      open(outputs["two"], encoding="utf-8") as two:
    # Each replica decodes its share of a batch: the lines are one device's.
    assert two.read() == one.read()
  result = run([command_path("t2t-visualize"), f"--output_dir={output_dir}",
                *TWO_LOCAL_REPLICAS, "--sentence=Resumption of the session",
                f"--visualize_dir={tmp_path / 'attention'}"])
  assert result.returncode == 0, result.stderr[-3000:]
  assert os.path.isfile(tmp_path / "attention" / "index.html")
