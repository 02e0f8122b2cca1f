"""t2t-trainer as two workers under TF_CONFIG (MultiWorkerMirroredStrategy), two processes on
loopback with one CPU each, from one t2t-datagen data directory, through the command: one
device's losses on the same global batch, one writer, a stop agreed by both workers and a
resume at the same data position, a lost worker, and the other commands on the run; and
the same two workers started by `srun` on a real one-node Slurm."""

import json
import os
import re
import signal
import time

import pytest

from commands import call, error_line
from helpers import listed_steps
from replica_runs import (NO_DROPOUT, assert_same_losses, copy_stopped_at, finish, latest_step,
                          learning_rates, leftovers, losses, scalars,
                          start_workers, train_here, train_workers, trainer_argv,
                          wait_for_a_checkpoint, worker_environments)
from slurm_cluster import one_node_slurm
from tiny_runs import tiny_data

pytestmark = pytest.mark.slow  # Trains through pairs of t2t-trainer processes.

STEPS = 10  # The reference run's; a checkpoint every 2 steps.
# Every worker's batch is its whole shard of the tiny data (100 of its 200 pairs, each at most
# 16 tokens: one length bucket, 100 examples a batch), so the global batch of every step is
# the whole split, as one device's batch of twice the tokens is.
WHOLE_SHARD = f"max_length=16,min_length_bucket=16,batch_size=1600,{NO_DROPOUT}"
WHOLE_SPLIT = f"max_length=16,min_length_bucket=16,batch_size=3200,{NO_DROPOUT}"


@pytest.fixture(scope="module")
def reference_run(small_translation_data, tmp_path_factory):
  """(data_dir, output_dir) of a two-worker run of STEPS steps on real data."""
  _, data_dir = small_translation_data
  output_dir = str(tmp_path_factory.mktemp("workers") / "run")
  train_workers(data_dir, output_dir, f"--train_steps={STEPS}", "--schedule=train",
                "--save_checkpoints_steps=2")
  return data_dir, output_dir


@pytest.fixture(scope="module")
def one_device_run(tmp_path_factory):
  """(tiny data_dir, one device's losses over 3 steps, each step's batch the whole split)."""
  work = tmp_path_factory.mktemp("tiny")
  data_dir = tiny_data(str(work / "tiny"))
  one_device = str(work / "one_device")
  train_here(data_dir, one_device, "--train_steps=3", "--schedule=train", hparams=WHOLE_SPLIT)
  return data_dir, losses(one_device)


def test_two_workers_give_one_device_losses_and_write_once(one_device_run, tmp_path):
  data_dir, one_device_losses = one_device_run
  workers = str(tmp_path / "workers")
  outputs = train_workers(data_dir, workers, "--train_steps=3", "--local_eval_frequency=2",
                          "--eval_steps=0", hparams=WHOLE_SHARD)
  assert_same_losses(one_device_losses, losses(workers), steps=[1, 2, 3])
  # The chief alone writes: each evaluation's summaries once, best/, curves.png.
  assert [step for step, _ in scalars(workers, "eval", "loss")] == [0, 2, 3]
  assert len(os.listdir(os.path.join(workers, "train"))) == 1
  assert os.path.isfile(os.path.join(workers, "best", "best.json"))
  assert os.path.isfile(os.path.join(workers, "curves.png"))
  assert leftovers(workers) == []
  assert all("Traceback" not in output for output in outputs)


def test_srun_starts_two_workers_of_one_run_on_a_real_slurm(one_device_run, tmp_path):
  """`srun -n 2 t2t-trainer ...` on a one-node Slurm started here (tests/slurm_cluster.py):
  each task finds its place through SlurmClusterResolver, with no TF_CONFIG; the run is
  one device's on the same global batch, written by task 0 alone."""
  data_dir, one_device_losses = one_device_run
  output_dir = str(tmp_path / "run")
  with one_node_slurm(tmp_path / "slurm") as slurm:
    result = slurm.srun(["--ntasks=2", "--resv-ports=2", "--kill-on-bad-exit=1",
                         "--label", *trainer_argv(data_dir, output_dir, WHOLE_SHARD,
                                                  "--train_steps=3", "--schedule=train")])
  assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
  for task in (0, 1):
    assert re.search(rf"^{task}: .*Slurm: worker {task} of 2 \(localhost:\d+\)$",
                     result.stderr, re.MULTILINE), result.stderr[-4000:]
  assert_same_losses(one_device_losses, losses(output_dir), steps=[1, 2, 3])
  assert len(os.listdir(os.path.join(output_dir, "train"))) == 1
  assert leftovers(output_dir) == [] and "Traceback" not in result.stderr


def test_a_stop_agreed_by_both_a_lost_worker_and_each_restart_resume_where_they_left(
    reference_run, tmp_path):
  """SIGTERM to one worker: it votes to stop in its next step, both save that step and
  exit 143. Restarted, each skips the batches its shard had given. Then kill -9 to one
  worker: the other ends with one line naming it. Restarted again, they finish the run with
  the reference's losses at every step."""
  data_dir, reference = reference_run
  output_dir = str(tmp_path / "run")
  environments = worker_environments()
  flags = (f"--train_steps={STEPS}", "--schedule=train", "--save_checkpoints_steps=2")
  processes = start_workers(data_dir, output_dir, *flags, environments=environments)
  wait_for_a_checkpoint(output_dir, processes)
  processes[1].send_signal(signal.SIGTERM)
  (chief_status, chief), (status, worker) = finish(processes)
  assert (chief_status, status) == (143, 143), chief[-3000:] + worker[-3000:]
  stopped_at = latest_step(output_dir)
  assert stopped_at < STEPS - 2, "the run ended too soon to be stopped twice"
  saved = f"saved {output_dir}/ckpt-{stopped_at} at step {stopped_at}"
  assert f"t2t-trainer: SIGTERM: {saved}" in worker
  assert f"t2t-trainer: SIGTERM to another worker: {saved}" in chief

  chief, worker = processes = start_workers(data_dir, output_dir, *flags,
                                            environments=environments)
  wait_for_a_checkpoint(output_dir, processes, after=stopped_at)
  worker.kill()
  worker.communicate()
  started = time.monotonic()
  [(status, output)] = finish([chief], timeout=180)  # TensorFlow's health check: ~1 min.
  assert time.monotonic() - started < 180
  assert f"resuming from {output_dir}/ckpt-{stopped_at}" in output
  assert status == 2, output[-3000:]
  assert "Traceback" not in output
  address = json.loads(environments[1]["TF_CONFIG"])["cluster"]["worker"][1]
  last = error_line(output)
  lost_at = latest_step(output_dir)
  assert last.startswith(f"t2t-trainer: error: lost worker 1 ({address}) of this run ("), last
  assert last.endswith(f"restart every worker with the same command to resume from "
                       f"{output_dir}/ckpt-{lost_at}"), last

  outputs = train_workers(data_dir, output_dir, *flags)
  assert all(f"resuming from {output_dir}/ckpt-{lost_at}" in output for output in outputs)
  assert_same_losses(losses(reference), losses(output_dir), steps=range(1, STEPS + 1))
  assert listed_steps(output_dir)[-1] == STEPS
  assert leftovers(output_dir) == []


def test_a_resume_of_two_workers_on_one_device_warns_and_keeps_the_schedule(
    reference_run, tmp_path):
  data_dir, reference = reference_run
  output_dir = copy_stopped_at(reference, 4, tmp_path / "run")
  one = train_here(data_dir, output_dir, "--train_steps=6", "--schedule=train")
  # Each of the two pipelines had read 4 batches: the one pipeline now skips 8.
  assert "this run reads 1: each skips 8 batches" in one.stderr
  assert "the input position is approximate" in one.stderr
  rates, reference_rates = learning_rates(output_dir), learning_rates(reference)
  assert [rates[step] for step in (5, 6)] == [reference_rates[step] for step in (5, 6)]


def test_decoding_and_exporting_on_a_cluster_node(reference_run, tmp_path, monkeypatch):
  """With a two-worker TF_CONFIG in the environment, as on every node of a cluster job, the
  commands that read a run use this machine's devices: the same lines as without it."""
  _, output_dir = reference_run
  source = tmp_path / "source.en"
  source.write_text("Resumption of the session\nThank you very much.\n", encoding="utf-8")
  outputs = []
  for node in (False, True):
    if node:
      monkeypatch.setenv("TF_CONFIG", worker_environments()[1]["TF_CONFIG"])
    target = str(tmp_path / f"out{len(outputs)}.de")
    result = call("t2t-decoder", f"--output_dir={output_dir}", f"--decode_from_file={source}",
                  f"--decode_to_file={target}",
                  "--decode_hparams=beam_size=2,alpha=2.0,extra_length=5")
    assert result.returncode == 0, result.stderr[-3000:]
    with open(target, encoding="utf-8") as f:
      outputs.append(f.read())
  assert outputs[0] == outputs[1] and len(outputs[0].splitlines()) == 2
  assert "this command uses this machine's devices only" in result.stderr
  # One input width (max_input_length=8): each width is one more traced search to export.
  result = call("t2t-exporter", f"--output_dir={output_dir}",
                f"--export_dir={tmp_path / 'export'}", "--decode_hparams=max_input_length=8")
  assert result.returncode == 0, result.stderr[-3000:]
