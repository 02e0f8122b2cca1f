"""The one line that ends a worker of a multi-worker run when another worker is lost.

A worker killed or cut off makes every collective operation of the others fail
(TensorFlow aborts them at once on a reset connection, or when its health check
stops hearing from the peer): the step, evaluation or save under way raises one of
`PEER_ERRORS`, whose text names the peer as /job:worker/replica:0/task:N.
"""

import re

import tensorflow as tf

from t2t_lite.distribute.cluster import find_cluster
from t2t_lite.errors import UserError

PEER_ERRORS = (tf.errors.UnavailableError, tf.errors.DeadlineExceededError,
               tf.errors.CancelledError, tf.errors.AbortedError)
_TASK = re.compile(r"/job:(\w+)/replica:\d+/task:(\d+)")
_GRPC_MESSAGE = re.compile(r'grpc_message:"([^"]*)"')


def lost_worker_error(error, latest_checkpoint):
  """The UserError for PEER_ERRORS `error`: which worker was lost, why, and how to resume."""
  text = str(error)
  task = _TASK.search(text)
  who = _task_name(task.group(1), int(task.group(2))) if task else "another worker"
  cause = _GRPC_MESSAGE.search(text)
  reason = cause.group(1) if cause else text.strip().splitlines()[0]
  resume = (f"restart every worker with the same command to resume from {latest_checkpoint}"
            if latest_checkpoint else "restart every worker with the same command (no "
            "checkpoint was saved yet)")
  return UserError(f"lost {who} of this run ({reason}); {resume}")


def _task_name(job, index):
  """'worker 1 (host:port)', its address as the cluster gives it."""
  try:
    cluster = find_cluster()
  except UserError:
    cluster = None
  address = cluster.address_of(job, index) if cluster else None
  return f"{job} {index} ({address})" if address else f"{job} {index}"
