"""The cluster a process trains in, as TensorFlow's own resolvers find it: in `TF_CONFIG`
(written by hand, or by Kubeflow's TFJob operator on Kubernetes), or in the Slurm step
that started the process (`srun`).

    cluster = find_cluster()        # None: this process trains alone
    cluster.workers, cluster.task_type, cluster.task_id, cluster.is_chief
    tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=cluster.resolver)

- `TF_CONFIG` first: `TFConfigClusterResolver` reads it. Its tasks are a `chief` (at most
  one) and `worker`s; TFJob's `environment` key is accepted and unused; `ps` tasks (a
  parameter-server job) and an `evaluator` task are refused in one line, since
  MultiWorkerMirroredStrategy has neither.
- Otherwise, inside a Slurm step of several tasks (`srun -n N`, N > 1:
  `SLURM_STEP_NUM_TASKS`): `SlurmClusterResolver` reads the step's nodes and tasks. Every
  task is a worker, its index its rank (`SLURM_PROCID`), worker 0 the chief. The tasks of
  a node listen on consecutive ports from the first one `srun --resv-ports=N` reserved
  for the step (`SLURM_STEP_RESV_PORTS`; N: the tasks per node), else from 8888. Each task
  keeps the GPUs Slurm gives it (with `--gpus-per-task`, say) and trains on all of them,
  or on its CPU: the resolver's own split of a node's GPUs among its tasks is not used
  (it overwrites what Slurm set, and fails on a node without GPUs).
- A cluster of one worker is no cluster (None).
- Its addresses are checked before any worker connects
  (`t2t_lite.distribute.cluster_addresses`), and this task's place in it: each mistake one
  line.
"""

import dataclasses
import json
import os
import re

import tensorflow as tf

from t2t_lite.distribute.cluster_addresses import GUIDE, TRAINING_JOBS, check_addresses
from t2t_lite.errors import UserError

SLURM_PORT = 8888  # SlurmClusterResolver's first port when srun reserved none.


def writes_the_run(task_type, task_id, jobs):
  """Whether task `task_id` of `task_type` in a cluster of `jobs` ({job: [address]}) writes
  the run: the chief, or worker 0 when the cluster names no chief (TensorFlow's rule)."""
  return task_type == "chief" or (task_type == "worker" and task_id == 0
                                  and not jobs.get("chief"))


@dataclasses.dataclass(frozen=True)
class Cluster:
  """The processes of one training run and which of them this one is.

  source: "TF_CONFIG" or "Slurm", where it was found.
  jobs: {"chief": [address], "worker": [address, ...]} ("chief" only when named).
  task_type, task_id: this process's job and index in it.
  resolver: the cluster resolver MultiWorkerMirroredStrategy takes.
  """
  source: str
  jobs: dict
  task_type: str
  task_id: int
  resolver: object

  @property
  def workers(self):
    """Processes that train: the chief and the workers."""
    return sum(len(self.jobs.get(job, ())) for job in TRAINING_JOBS)

  @property
  def is_chief(self):
    """Whether this process writes the run (`writes_the_run`)."""
    return writes_the_run(self.task_type, self.task_id, self.jobs)

  @property
  def address(self):
    return self.address_of(self.task_type, self.task_id)

  def address_of(self, job, index):
    """host:port of task `index` of `job`; None when the cluster names no such task."""
    addresses = self.jobs.get(job, ())
    return addresses[index] if 0 <= index < len(addresses) else None

  def describe(self):
    """"Slurm: worker 1 of 2 (node2:8888)", for the log."""
    return f"{self.source}: {self.task_type} {self.task_id} of {self.workers} ({self.address})"


def find_cluster():
  """This process's `Cluster` (module doc), or None when it trains alone."""
  if os.environ.get("TF_CONFIG"):
    return _from_tf_config()
  if _slurm_tasks() > 1:
    return _from_slurm()
  return None


def is_chief_process():
  """Whether this process writes the run directory: its cluster's chief, or the only
  process (`t2t_lite.distribute.strategy.is_chief` says so once the strategy exists)."""
  cluster = find_cluster()
  return cluster is None or cluster.is_chief


def _from_tf_config():
  text = os.environ["TF_CONFIG"]
  try:
    config = json.loads(text)
  except json.JSONDecodeError as error:
    raise UserError(f"TF_CONFIG is not valid JSON ({error}); {GUIDE}") from None
  if not isinstance(config, dict) or not isinstance(config.get("cluster", {}), dict):
    raise UserError(f"TF_CONFIG must be a JSON object with a 'cluster' object of jobs and a "
                    f"'task'; {GUIDE}")
  resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
  try:
    jobs = resolver.cluster_spec().as_dict()
    task_type, task_id = resolver.task_type, resolver.task_id
  except (ValueError, TypeError, AttributeError) as error:
    raise UserError(f"TF_CONFIG is not a cluster TensorFlow can read ({error}); "
                    f"{GUIDE}") from None
  others = sorted(set(jobs) - set(TRAINING_JOBS))
  if others:
    raise UserError(f"TF_CONFIG names {' and '.join(others)} tasks, but t2t-trainer trains "
                    f"with MultiWorkerMirroredStrategy, whose tasks are one chief and "
                    f"workers: drop the {' and '.join(others)} replicas; {GUIDE}")
  if task_type == "evaluator":
    raise UserError(f"TF_CONFIG makes this task an evaluator, which "
                    f"MultiWorkerMirroredStrategy does not have: the chief evaluates "
                    f"during training (--schedule=train_and_evaluate); {GUIDE}")
  cluster = Cluster("TF_CONFIG", jobs, task_type, task_id or 0, resolver)
  if cluster.workers > 1 and cluster.address is None:
    raise UserError(f"TF_CONFIG's task {{'type': {task_type!r}, 'index': {task_id}}} is not "
                    f"one of its cluster's tasks ({_listing(jobs)}); {GUIDE}")
  if cluster.workers <= 1:
    return None
  check_addresses(jobs, "TF_CONFIG")
  return cluster


def _listing(jobs):
  return ", ".join(f"{len(addresses)} {job}" for job, addresses in sorted(jobs.items()))


def _slurm_tasks():
  """The number of tasks of the Slurm step this process runs in (0 outside of one)."""
  try:
    return int(os.environ.get("SLURM_STEP_NUM_TASKS", "0"))
  except ValueError:
    return 0


def _from_slurm():
  """The step's workers through SlurmClusterResolver (module doc)."""
  from tensorflow.python.distribute.cluster_resolver import slurm_cluster_resolver as slurm
  try:
    busiest_node = max(slurm.expand_tasks_per_node(os.environ["SLURM_STEP_TASKS_PER_NODE"]))
    # The resolver pairs each task of a node with GPUs of its own, and would set
    # CUDA_VISIBLE_DEVICES to them: it is told of one per task only to list every task,
    # and sets nothing; the strategy is told what this task really sees.
    resolver = slurm.SlurmClusterResolver(
        port_base=_slurm_port(), gpus_per_node=busiest_node, gpus_per_task=1,
        auto_set_gpu=False)
    jobs = resolver.cluster_spec().as_dict()
  except (KeyError, ValueError, RuntimeError) as error:
    raise UserError(f"this process runs in a Slurm step of {_slurm_tasks()} tasks, but its "
                    f"SLURM_* variables do not describe them ({error}); start t2t-trainer "
                    f"with srun, or set TF_CONFIG; {GUIDE}") from None
  _check_rank(len(jobs.get("worker", ())))
  check_addresses(jobs, "Slurm", fix=_reserved_ports_fix())
  gpus = len(tf.config.list_physical_devices("GPU"))
  strategy_resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
      tf.train.ClusterSpec(jobs), task_type=resolver.task_type, task_id=resolver.task_id,
      num_accelerators={"GPU": gpus}, rpc_layer="grpc")
  return Cluster("Slurm", jobs, resolver.task_type, resolver.task_id, strategy_resolver)


def _check_rank(tasks):
  """UserError unless SLURM_PROCID is a rank of the step's `tasks` tasks."""
  rank = os.environ.get("SLURM_PROCID", "")
  if not (rank.isascii() and rank.isdigit() and int(rank) < tasks):
    raise UserError(f"SLURM_PROCID={rank} is no rank of this Slurm step's {tasks} tasks "
                    f"(0 to {tasks - 1}, as SLURM_STEP_TASKS_PER_NODE lists them); start "
                    f"t2t-trainer with srun, or set TF_CONFIG; {GUIDE}")


def _reserved_ports_fix():
  """What to say after a Slurm port past 65535: where the ports come from."""
  reserved = os.environ.get("SLURM_STEP_RESV_PORTS")
  return (f" (the ports srun reserved for the step start at SLURM_STEP_RESV_PORTS={reserved}, "
          f"one a task of a node: reserve ports below 65536 with slurm.conf's "
          f"MpiParams=ports=...)" if reserved else "")


def _slurm_port():
  """The first port srun reserved for the step (--resv-ports), else SLURM_PORT."""
  reserved = re.match(r"\d+", os.environ.get("SLURM_STEP_RESV_PORTS", ""))
  return int(reserved.group(0)) if reserved else SLURM_PORT
