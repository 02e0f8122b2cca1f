"""Choosing the tf.distribute strategy: one device, several local devices, or several
machines (the cluster `t2t_lite.distribute.cluster` finds); which devices it computes on, how the
input is split, and which process writes (the chief).

    strategy = make_strategy(worker_gpu=2, locally_shard_to_cpu=True)  # 2 logical CPUs
    pipelines, pipeline_id = input_pipeline(strategy)    # this process's share of the data
"""

from absl import logging
import tensorflow as tf

from t2t_lite.distribute.cluster import find_cluster, writes_the_run
from t2t_lite.distribute.cluster_connecting import connect_seconds, connecting_within
from t2t_lite.distribute.cluster_forming import CLUSTER_TIMEOUT_SECONDS, wait_for_the_cluster
from t2t_lite.cores import usable_cores
from t2t_lite.errors import UserError

# Logical CPU devices a core may carry under --locally_shard_to_cpu: past it each replica's
# share of a core is too thin for a step to end in reasonable time (1,000 replicas on 2
# cores never reach step 1), and the setting is a slip rather than a plan.
CPU_REPLICAS_PER_CORE = 8


def make_strategy(worker_gpu=None, locally_shard_to_cpu=False, across_workers=True,
                  cluster_timeout_seconds=CLUSTER_TIMEOUT_SECONDS, cpu_replicas=1):
  """The strategy a command uses.

  - A cluster of several workers (`t2t_lite.distribute.cluster`: TF_CONFIG, or a Slurm step of
    several tasks), and `across_workers`: MultiWorkerMirroredStrategy over it.
  - `locally_shard_to_cpu`: MirroredStrategy over `worker_gpu` logical devices the CPU is
    split into (tensor2tensor's flag; what several GPUs give, on any machine).
  - Several local GPUs (or `worker_gpu` > 1 of them): MirroredStrategy over them.
  - No GPU, and `cpu_replicas` above 1 (hparams cpu_replicas): MirroredStrategy over that
    many logical devices of the CPU, each computing on its share of the cores.
  - Otherwise the default strategy on the one device (GPU or CPU).
  worker_gpu: how many local GPUs to use; None or 0 = all of them. On a machine without
    GPUs, 1 (tensor2tensor's default) means the CPU.
  across_workers: False for commands that work on this machine alone (decoding, export):
    they use its devices whatever the cluster is.
  cluster_timeout_seconds: how long to wait for the other workers to start before
    MultiWorkerMirroredStrategy connects them (`t2t_lite.distribute.cluster_forming`), and
    then for TensorFlow to connect them (`cluster_connecting`); 0: for ever.
  """
  cluster = find_cluster()
  if cluster and across_workers:
    if locally_shard_to_cpu:
      raise UserError(f"--locally_shard_to_cpu splits one machine's CPU; with {cluster.source} "
                      f"naming {cluster.workers} workers, each worker trains on its own "
                      f"devices: drop the flag")
    logging.info("%s", cluster.describe())
    wait_for_the_cluster(cluster, cluster_timeout_seconds)
    return connecting_within(connect_seconds(cluster_timeout_seconds), lambda: (
        tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=cluster.resolver)))
  if cluster:
    logging.info("%s names %d workers; this command uses this machine's devices only",
                 cluster.source, cluster.workers)
  if locally_shard_to_cpu:
    return _mirrored(split_cpu(worker_gpu or 1))
  if (cpu_replicas > 1 and (worker_gpu or 1) == 1
      and not tf.config.list_physical_devices("GPU")):  # Listing logical devices fixes them.
    return _mirrored(split_cpu(cpu_replicas, HPARAMS_SETTING))
  gpus = tf.config.list_logical_devices("GPU")
  if worker_gpu and worker_gpu > len(gpus) and not (worker_gpu == 1 and not gpus):
    fix = ("pass --locally_shard_to_cpu to run the replicas on logical devices of the CPU, "
           "or leave --worker_gpu unset" if not gpus else
           f"pass --worker_gpu={len(gpus)} or leave it unset")
    raise UserError(f"--worker_gpu={worker_gpu} but this machine has {len(gpus)} GPU(s); {fix}")
  gpus = gpus[:worker_gpu] if worker_gpu else gpus
  if len(gpus) > 1:
    return _mirrored([gpu.name for gpu in gpus])
  return tf.distribute.get_strategy()


def _mirrored(devices):
  """MirroredStrategy over `devices`; one device (the CPU's, say) is a OneDeviceStrategy."""
  if len(devices) == 1:
    return tf.distribute.OneDeviceStrategy(devices[0])
  return tf.distribute.MirroredStrategy(devices)


# How each way of splitting the CPU is named in its lines: (the setting, how to set N).
FLAG_SETTING = ("--worker_gpu={} with --locally_shard_to_cpu", "--worker_gpu={}")
HPARAMS_SETTING = ("hparams cpu_replicas={}", "--hparams=cpu_replicas={}")

# Said when XLA compiles the step of several replicas on the CPU (docs/benchmarks.md,
# "Replicas on the CPU against one device": 0.62x the steps a second of one device).
CPU_REPLICAS_UNDER_XLA = ("XLA compiles the step of {} replicas on the CPU, which trains fewer "
                          "steps a second than one device (0.62x on 2 cores); for speed, train "
                          "on one device (--hparams=cpu_replicas=1) or without --xla")


def check_cpu_replicas(count, cores=None, setting=FLAG_SETTING):
  """UserError when `count` replicas on logical devices of the CPU are more than
  CPU_REPLICAS_PER_CORE a core of this process's `cores` (default: `usable_cores()`)."""
  cores = cores or usable_cores()
  bound = CPU_REPLICAS_PER_CORE * cores
  if count > bound:
    named, how = setting
    raise UserError(f"{named.format(count)}: more replicas than this machine's bound of "
                    f"{bound} ({CPU_REPLICAS_PER_CORE} a core, {cores} core(s)); pass "
                    f"{how.format(bound)} or fewer")


def split_cpu(count, setting=FLAG_SETTING):
  """Splits the CPU into `count` logical devices -> their names. Each replica computes on
  its share of the cores: TensorFlow's intra-op threads (those one op's kernel runs on) are
  the usable cores over `count`, at least 1, while the replicas' ops run side by side.
  TensorFlow allows both only before its runtime starts; a process that started it with
  another count gets a UserError. `setting`: how the lines name the count's setting."""
  check_cpu_replicas(count, setting=setting)
  cpu = tf.config.list_physical_devices("CPU")[0]
  try:
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * count)
    if count > 1:
      tf.config.threading.set_intra_op_parallelism_threads(max(1, usable_cores() // count))
  except RuntimeError:  # The runtime already started: its devices are fixed.
    pass
  devices = [device.name for device in tf.config.list_logical_devices("CPU")]
  if len(devices) != count:
    raise UserError(f"{setting[0].format(count)}: this process already set up "
                    f"{len(devices)} CPU device(s); start a new process")
  return devices


def is_multi_worker(strategy):
  return isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy)


def is_chief(strategy):
  """Whether this process writes checkpoints, summaries and the run description."""
  resolver = getattr(strategy, "cluster_resolver", None)
  spec = resolver.cluster_spec().as_dict() if resolver else {}
  if not spec:
    return True
  return resolver.task_type is None or writes_the_run(resolver.task_type, resolver.task_id,
                                                      spec)


def input_pipeline(strategy):
  """(input pipelines, this process's pipeline id): one pipeline per process, each
  reading its own shard of the data; ids as TensorFlow's: the chief first, then workers."""
  resolver = getattr(strategy, "cluster_resolver", None)
  spec = resolver.cluster_spec().as_dict() if resolver else {}
  if not is_multi_worker(strategy) or not spec:
    return 1, 0
  chiefs, workers = len(spec.get("chief", [])), len(spec.get("worker", []))
  pipeline_id = resolver.task_id + (chiefs if resolver.task_type == "worker" else 0)
  return chiefs + workers, pipeline_id


def local_replicas(strategy):
  """Replicas this process computes on (all of them but under several workers)."""
  return len(device_names(strategy))


def device_names(strategy):
  """The devices the strategy computes on (the default strategy: the first GPU, or the CPU)."""
  if strategy is tf.distribute.get_strategy() and not tf.distribute.has_strategy():
    devices = tf.config.list_logical_devices("GPU") or tf.config.list_logical_devices("CPU")
    return [devices[0].name]
  return list(strategy.extended.worker_devices)


def uses_gpu(strategy):
  return any("GPU" in device.upper() for device in device_names(strategy))
