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
from t2t_lite.distribute.strategy import CPU_REPLICAS_UNDER_XLA

pytestmark = pytest.mark.slow  # Trains through t2t-trainer processes.

STEPS = 12  # The two-replica run's; the XLA comparison with one device uses the first 3.


@pytest.fixture(scope="module")
def two_replica_run(small_translation_data, tmp_path_factory):
  """(data_dir, output_dir, how it stopped) of a two-replica run of STEPS steps, a
  checkpoint every 2, stopped by SIGTERM after its first checkpoint and resumed by the same
  command to its end (each two-replica process costs a minute of the full tier: the stop and
  the resume are the run the other tests read). How it stopped: {"status", "output",
  "stopped_at", "resumed"} (the first process's exit status and output, the step it saved,
  the resuming process's stdout)."""
  _, data_dir = small_translation_data
  output_dir = str(tmp_path_factory.mktemp("two_replicas") / "run")
  argv = trainer_argv(data_dir, output_dir, REAL_DATA_HPARAMS, *TWO_LOCAL_REPLICAS,
                      f"--train_steps={STEPS}", "--schedule=train", "--save_checkpoints_steps=2")
  process = start(argv, merge_stderr=True)
  wait_for_a_checkpoint(output_dir, [process])
  process.send_signal(signal.SIGTERM)
  [(status, output)] = finish([process])
  stopped_at = latest_step(output_dir)
  resumed = run(argv)
  assert resumed.returncode == 0, resumed.stderr[-3000:]
  return data_dir, output_dir, {"status": status, "output": output, "stopped_at": stopped_at,
                                "resumed": resumed.stdout}


@pytest.fixture(scope="module")
def one_device_runs(two_replica_run, tmp_path_factory):
  """(accumulation, steps, hparams) -> the output_dir of a one-device run of `steps` steps
  accumulating that many micro-batches a step (trained on first use)."""
  data_dir, _, _ = two_replica_run
  runs = {}

  def one_device(accumulation, steps, hparams):
    key = accumulation, steps, hparams
    if key not in runs:
      runs[key] = str(tmp_path_factory.mktemp(f"one_device_{accumulation}") / "run")
      train_here(data_dir, runs[key], f"--train_steps={steps}", "--schedule=train",
                 f"--gradient_accumulation_steps={accumulation}", hparams=hparams)
    return runs[key]
  return one_device


# XLA compiles the step once per length bucket met (on each replica's device): one bucket,
# every batch padded to max_length (32 buckets at the default bucket step).
ONE_BUCKET = f"{REAL_DATA_HPARAMS},min_length_bucket=96"


@pytest.mark.parametrize("flags, one_device_accumulation", [
    ((), 2), (("--xla", "--gradient_accumulation_steps=2"), 4)],
    ids=["plain", "xla_accumulation"])
def test_two_replicas_give_one_device_losses_on_the_same_global_batch(
    two_replica_run, one_device_runs, tmp_path, flags, one_device_accumulation):
  """Replica r takes the r-th of the step's batches (its micro-batches in turn), as one
  device accumulating them in that order does: the global batch is the same. (XLA and
  accumulation share one run: each two-replica process costs a minute of the full tier.)
  The plain run is the stopped and resumed one: every step of it is one device's."""
  data_dir, reference, _ = two_replica_run
  if flags:
    replicas, steps, hparams = str(tmp_path / "replicas"), 3, ONE_BUCKET
    result = train(data_dir, replicas, *TWO_LOCAL_REPLICAS, *flags, f"--train_steps={steps}",
                   "--schedule=train", hparams=hparams)
    assert CPU_REPLICAS_UNDER_XLA.format(2) in result.stderr  # Slower than one device.
  else:
    replicas, steps, hparams = reference, STEPS, REAL_DATA_HPARAMS
  assert_same_losses(losses(one_device_runs(one_device_accumulation, steps, hparams)),
                     losses(replicas), steps=range(1, steps + 1))


def test_sigterm_saves_and_a_restart_resumes_at_the_same_data_position(two_replica_run):
  """The run's first process got SIGTERM; the same command resumed it where it stopped (its
  losses at every step are one device's: the test above)."""
  _, output_dir, stop = two_replica_run
  stopped_at = stop["stopped_at"]
  assert stop["status"] == 143, stop["output"][-3000:]
  assert stopped_at < STEPS, "the run ended before the signal: nothing to resume"
  assert f"SIGTERM: saved {output_dir}/ckpt-{stopped_at} at step {stopped_at}" in stop["output"]
  assert f"resuming from {output_dir}/ckpt-{stopped_at} (step {stopped_at})" in stop["resumed"]
  assert latest_step(output_dir) == STEPS


def test_a_resume_onto_one_replica_warns_and_keeps_the_schedule(two_replica_run, tmp_path):
  data_dir, reference, stop = two_replica_run
  at = stop["stopped_at"]  # A checkpoint of the run, whose next two steps it also trained.
  output_dir = copy_stopped_at(reference, at, tmp_path / "run")
  one = train_here(data_dir, output_dir, f"--train_steps={at + 2}", "--schedule=train")
  assert f"was trained with 2 replica(s), this run has 1: from step {at} on" in one.stderr
  # The learning rate is a function of the step, whatever the replicas.
  rates, reference_rates = learning_rates(output_dir), learning_rates(reference)
  assert [rates[step] for step in (at + 1, at + 2)] == [
      reference_rates[step] for step in (at + 1, at + 2)]


def test_averaging_decoding_and_visualizing_a_two_replica_run(
    two_replica_run, tmp_path, shared_data):
  _, output_dir, _ = two_replica_run
  averaged = str(tmp_path / "averaged")
  result = call("t2t-avg-all", f"--model_dir={output_dir}", f"--output_dir={averaged}", "--n=3",
                "--window=1", "--dev_sentences=0")
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
                     "--decode_hparams=beam_size=2,alpha=2.0,extra_length=5,"
                     "max_input_length=16")  # News lines cut: fewer input widths to trace.
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
