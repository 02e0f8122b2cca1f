"""Choosing the tf.distribute strategy: one device, all local GPUs, or several machines;
which devices it computes on, and which process writes (the chief)."""

import json
import os

from absl import logging
import tensorflow as tf

from t2t_lite.errors import UserError


def make_strategy(worker_gpu=None):
  """The strategy a run uses.

  - `TF_CONFIG` naming more than one worker: MultiWorkerMirroredStrategy.
  - Several local GPUs (or `worker_gpu` > 1): MirroredStrategy over them.
  - Otherwise the default strategy on the one device (GPU or CPU).
  worker_gpu: how many local GPUs to use; None or 0 = all of them.
  """
  if _workers_in_tf_config() > 1:
    return tf.distribute.MultiWorkerMirroredStrategy()
  gpus = tf.config.list_logical_devices("GPU")
  if worker_gpu:
    if worker_gpu > len(gpus):
      raise UserError(f"--worker_gpu={worker_gpu} but this machine has {len(gpus)} GPU(s); "
                      f"pass --worker_gpu={len(gpus) or 1} or leave it unset")
    gpus = gpus[:worker_gpu]
  if len(gpus) > 1:
    return tf.distribute.MirroredStrategy([gpu.name for gpu in gpus])
  return tf.distribute.get_strategy()


def _workers_in_tf_config():
  text = os.environ.get("TF_CONFIG")
  if not text:
    return 0
  try:
    config = json.loads(text)
  except json.JSONDecodeError as error:
    raise UserError(f"TF_CONFIG is not valid JSON ({error}); see "
                    f"https://www.tensorflow.org/guide/distributed_training") from None
  workers = config.get("cluster", {}).get("worker", [])
  logging.info("TF_CONFIG names %d worker(s); this is %s", len(workers), config.get("task"))
  return len(workers)


def is_chief(strategy):
  """Whether this process writes checkpoints, summaries and the run description."""
  resolver = getattr(strategy, "cluster_resolver", None)
  if resolver is None or not resolver.cluster_spec().as_dict():
    return True
  return resolver.task_type in (None, "chief") or (
      resolver.task_type == "worker" and resolver.task_id == 0)


def device_names(strategy):
  """The devices the strategy computes on (the default strategy: the first GPU, or the CPU)."""
  if strategy is tf.distribute.get_strategy() and not tf.distribute.has_strategy():
    devices = tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU")
    return [devices[0].name]
  return list(strategy.extended.worker_devices)


def uses_gpu(strategy):
  return any("GPU" in device.upper() for device in device_names(strategy))
