"""Choosing devices and strategies, the input position kept without iterator state, and the
line a lost worker gives: in this process (the runs themselves: test_local_replicas.py,
test_workers.py)."""

import json

import tensorflow as tf

from commands import one_line_error
from t2t_lite.distribute.strategy import make_strategy, split_cpu
from t2t_lite.training.lost_worker import lost_worker_error
from t2t_lite.training.train_input import ITERATOR, TrainInput

TWO_WORKERS = {"cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]},
               "task": {"type": "worker", "index": 0}}


def test_worker_gpu_1_on_a_machine_without_gpus_trains_on_the_cpu():
  # tensor2tensor's default: its command lines run unchanged.
  assert make_strategy(worker_gpu=1) is tf.distribute.get_strategy()


def test_more_gpus_than_there_are_names_the_cpu_flag():
  message = one_line_error(lambda: make_strategy(worker_gpu=2))
  assert message == ("--worker_gpu=2 but this machine has 0 GPU(s); pass "
                     "--locally_shard_to_cpu to run the replicas on logical devices of the "
                     "CPU, or leave --worker_gpu unset")


def test_the_cpu_cannot_be_split_once_this_process_set_up_its_devices():
  tf.config.list_logical_devices("CPU")  # The runtime starts: one CPU device.
  assert one_line_error(lambda: split_cpu(2)) == (
      "--worker_gpu=2 with --locally_shard_to_cpu: this process already set up 1 CPU "
      "device(s); start a new process")


def test_locally_shard_to_cpu_goes_without_several_workers(monkeypatch):
  monkeypatch.setenv("TF_CONFIG", json.dumps(TWO_WORKERS))
  assert "drop the flag" in one_line_error(
      lambda: make_strategy(worker_gpu=2, locally_shard_to_cpu=True))


def test_commands_on_one_machine_ignore_the_other_workers(monkeypatch):
  monkeypatch.setenv("TF_CONFIG", json.dumps(TWO_WORKERS))
  assert make_strategy(across_workers=False) is tf.distribute.get_strategy()


def counted_input(pipelines=1):
  """A TrainInput over 0, 1, 2, ... that saves no iterator state (as several workers'),
  its pipeline count set to `pipelines`."""
  train_input = TrainInput(tf.distribute.get_strategy(),
                           lambda shards, index: tf.data.Dataset.range(1000))
  train_input.keeps_iterator_state = False
  train_input.saved_pipelines.assign(pipelines)
  return train_input


def saved_position(tmp_path, read, pipelines=1):
  """A checkpoint of an input that read `read` batches -> its path."""
  train_input = counted_input(pipelines)
  for _ in range(read):
    next(train_input.iterator)
  train_input.advance(read)
  trackables = train_input.trackables()
  assert ITERATOR not in trackables
  return tf.train.Checkpoint(**trackables).write(str(tmp_path / "ckpt-1"))


def resumed_input(path):
  train_input = counted_input()
  tf.train.Checkpoint(**train_input.trackables()).read(path)
  train_input.resume(path, 1)
  return train_input


def test_without_iterator_state_a_resume_skips_what_was_read(tmp_path):
  resumed = resumed_input(saved_position(tmp_path, read=7))
  assert int(next(resumed.iterator)) == 7
  assert int(resumed.batches_read.numpy()) == 7


def test_a_resume_onto_fewer_pipelines_skips_the_same_share(tmp_path):
  # Two pipelines read 7 batches each: one pipeline now skips 14.
  resumed = resumed_input(saved_position(tmp_path, read=7, pipelines=2))
  assert int(next(resumed.iterator)) == 14
  assert int(resumed.saved_pipelines.numpy()) == 1


def test_a_lost_worker_is_one_line_naming_it(monkeypatch):
  monkeypatch.setenv("TF_CONFIG", json.dumps(TWO_WORKERS))
  error = tf.errors.UnavailableError(None, None, (
      "Collective ops is aborted by: recvmsg:Connection reset by peer\nAdditional GRPC error "
      "information from remote target /job:worker/replica:0/task:1 while calling "
      "/tensorflow.WorkerService/RecvBuf:\n:UNKNOWN:Error received from peer "
      '{grpc_status:14, grpc_message:"Connection reset by peer"}'))
  assert str(lost_worker_error(error, "RUN/ckpt-40")) == (
      "lost worker 1 (10.0.0.2:2222) of this run (Connection reset by peer); restart every "
      "worker with the same command to resume from RUN/ckpt-40")


def test_more_cpu_replicas_than_the_cores_carry_are_refused_in_one_line():
  from t2t_lite.distribute.strategy import CPU_REPLICAS_PER_CORE, check_cpu_replicas
  check_cpu_replicas(2 * CPU_REPLICAS_PER_CORE, cores=2)  # At the bound: accepted.
  assert one_line_error(lambda: check_cpu_replicas(1000, cores=2)) == (
      f"--worker_gpu=1000 with --locally_shard_to_cpu: more replicas than this machine's "
      f"bound of {2 * CPU_REPLICAS_PER_CORE} ({CPU_REPLICAS_PER_CORE} a core, 2 core(s)); "
      f"pass --worker_gpu={2 * CPU_REPLICAS_PER_CORE} or fewer")


def test_make_strategy_refuses_cpu_replicas_past_the_bound_before_splitting_the_cpu():
  from t2t_lite.cores import usable_cores
  from t2t_lite.distribute.strategy import CPU_REPLICAS_PER_CORE
  too_many = CPU_REPLICAS_PER_CORE * usable_cores() + 1
  message = one_line_error(lambda: make_strategy(worker_gpu=too_many,
                                                 locally_shard_to_cpu=True))
  assert message.startswith(f"--worker_gpu={too_many} with --locally_shard_to_cpu: more "
                            f"replicas than this machine's bound")


def test_the_trainer_refuses_cpu_replicas_past_the_bound_in_one_line(tmp_path):
  from commands import call
  result = call("t2t-trainer", "--problem=translate_from_files", f"--data_dir={tmp_path}",
                f"--output_dir={tmp_path / 'run'}", "--hparams_set=transformer_test_small",
                "--worker_gpu=100000",
                "--locally_shard_to_cpu")
  assert result.returncode == 2, result.stderr[-2000:]
  assert result.stderr.strip().splitlines()[-1].startswith(
      "t2t-trainer: error: --worker_gpu=100000 with --locally_shard_to_cpu: more replicas")
  assert not (tmp_path / "run").exists()


def test_the_flags_help_gives_the_bound_of_cpu_replicas():
  from t2t_lite.cli.shared_settings import SHARED
  from t2t_lite.distribute.strategy import CPU_REPLICAS_PER_CORE
  assert f"At most {CPU_REPLICAS_PER_CORE} replicas a usable core." in SHARED[
      "locally_shard_to_cpu"][1]
