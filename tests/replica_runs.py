"""t2t-trainer with several replicas as a user starts it: two local replicas on logical CPU
devices, or two worker processes on loopback under TF_CONFIG; and what their runs hold."""

import json
import os
import shutil
import socket
import time

import numpy as np
import tensorflow as tf

from commands import call, command_path, environment, run, start
from t2t_lite.run.checkpoints import checkpoint_paths, write_state
from t2t_lite.run.run_layout import checkpoint_step
from t2t_lite.training.curves import read_scalar_events

# transformer_test_small without dropout: runs with other replica counts then compute the
# same function, so their losses can be compared.
NO_DROPOUT = "layer_prepostprocess_dropout=0.0"
REAL_DATA_HPARAMS = ("batch_size=1024,max_length=96,learning_rate_warmup_steps=60,"
                     f"learning_rate_constant=2.0,{NO_DROPOUT}")
TWO_LOCAL_REPLICAS = ("--worker_gpu=2", "--locally_shard_to_cpu")

# Why the losses of two runs on the same global batch agree to RELATIVE_ROUND_OFF on any CPU:
# they sum the same float32 terms (over tokens, replicas or micro-batches, at most a few
# thousand) in another order, which moves a sum by a few ulps of its largest terms, ~1e-6
# relative. Steps after the first see weights that Adam updated from gradients that differ
# by such round-off; where a gradient element is itself round-off, Adam's first update
# (lr x its sign) may flip, but such an element has no first-order effect on the loss. 1e-4
# leaves two orders of magnitude, while a lost, doubled or misplaced batch moves the loss of
# a step by percents.
RELATIVE_ROUND_OFF = 1e-4


def trainer_argv(data_dir, output_dir, hparams, *flags):
  """A t2t-trainer command line on translate_from_files, seeded, saving by steps only."""
  return [command_path("t2t-trainer"), "--problem=translate_from_files",
          f"--data_dir={data_dir}", f"--output_dir={output_dir}",
          "--hparams_set=transformer_test_small", f"--hparams={hparams}",
          "--save_checkpoints_secs=0", "--random_seed=1", "--eval_decode_sentences=0", *flags]


def train(data_dir, output_dir, *flags, hparams=REAL_DATA_HPARAMS):
  """One trainer process to its end -> CompletedProcess; asserts that it succeeded."""
  result = run(trainer_argv(data_dir, output_dir, hparams, *flags))
  assert result.returncode == 0, result.stderr[-3000:]
  return result


def train_here(data_dir, output_dir, *flags, hparams=REAL_DATA_HPARAMS):
  """`train` on one device, in this process (no process to start) -> CompletedProcess."""
  result = call("t2t-trainer", *trainer_argv(data_dir, output_dir, hparams, *flags)[1:])
  assert result.returncode == 0, result.stderr[-3000:]
  return result


def free_port():
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def worker_environments(count=2):
  """The environment of each of `count` workers on loopback: TF_CONFIG as Kubeflow's TFJob
  operator writes it (tests/test_clusters.py), with loopback addresses."""
  addresses = [f"127.0.0.1:{free_port()}" for _ in range(count)]
  return [dict(environment(), TF_CONFIG=json.dumps({
      "cluster": {"worker": addresses}, "task": {"type": "worker", "index": index},
      "environment": "cloud"})) for index in range(count)]


def start_workers(data_dir, output_dir, *flags, hparams=REAL_DATA_HPARAMS, environments=None):
  """Two t2t-trainer workers of one run -> their Popens (stdout and stderr merged)."""
  argv = trainer_argv(data_dir, output_dir, hparams, *flags)
  return [start(argv, env=env, merge_stderr=True)
          for env in environments or worker_environments()]


def finish(processes, timeout=600):
  """[(exit status, output)] of processes, each run to its end."""
  outputs = [process.communicate(timeout=timeout)[0] for process in processes]
  return [(process.returncode, output) for process, output in zip(processes, outputs)]


def train_workers(data_dir, output_dir, *flags, **kwargs):
  """Two workers of one run, to their end -> their outputs; asserts that both succeeded."""
  outputs = []
  for status, output in finish(start_workers(data_dir, output_dir, *flags, **kwargs)):
    assert status == 0, output[-3000:]
    outputs.append(output)
  return outputs


def wait_for_a_checkpoint(output_dir, processes, timeout=300, after=-1):
  """Waits until output_dir lists a checkpoint of a step past `after` -> its step."""
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    paths = checkpoint_paths(output_dir) if os.path.isdir(output_dir) else []
    if paths and checkpoint_step(paths[-1]) > after:
      return checkpoint_step(paths[-1])
    for process in processes:
      assert process.poll() is None, process.stdout.read()[-3000:]
    time.sleep(0.05)
  raise AssertionError(f"no checkpoint in {output_dir} within {timeout}s")


def scalars(output_dir, split, tag):
  """[(step, value)] of one summary tag of a run, in the order written."""
  return [(step, value) for step, _, name, value in
          read_scalar_events(os.path.join(output_dir, split)) if name == tag]


def losses(output_dir):
  """{step: training loss} of a run (a step trained twice keeps its last)."""
  return dict(scalars(output_dir, "train", "loss"))


def assert_same_losses(expected, actual, steps):
  """The training losses of `steps` agree to RELATIVE_ROUND_OFF."""
  np.testing.assert_allclose([actual[s] for s in steps], [expected[s] for s in steps],
                             rtol=RELATIVE_ROUND_OFF, err_msg=f"steps {list(steps)}")


def copy_stopped_at(output_dir, step, target):
  """A copy of run `output_dir` as it was when stopped at `step`: its state file listing the
  checkpoints up to `step` (those after it stay as stray files a resume replaces)."""
  shutil.copytree(output_dir, target)
  write_state(target, [path for path in checkpoint_paths(target)
                       if checkpoint_step(path) <= step])
  return str(target)


def learning_rates(output_dir):
  """{step: learning rate} of a run's training steps (a step trained twice: its last)."""
  return dict(scalars(output_dir, "train", "learning_rate"))


def leftovers(output_dir):
  """Workers' scratch directories left in a run."""
  return [name for name in os.listdir(output_dir) if name.startswith(".worker_")]


def latest_step(output_dir):
  return checkpoint_step(tf.train.latest_checkpoint(output_dir))
