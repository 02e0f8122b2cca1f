"""TensorFlow's own connection of a cluster's workers, bounded in time.

    strategy = connecting_within(connect_seconds(timeout), lambda: (
        tf.distribute.MultiWorkerMirroredStrategy(...)))

Once every task has answered (`cluster_forming`), MultiWorkerMirroredStrategy connects the
workers inside TensorFlow's C++ runtime, which waits for ever for a worker lost in the
seconds between. A watchdog thread ends the process with one line and exit status 2 when
the connection has not completed within --cluster_timeout_seconds (at least
SHORTEST_CONNECT_SECONDS; 0: no limit): nothing is written before the strategy exists, so
nothing is lost.
"""

import os
import sys
import threading

# A healthy cluster connects in seconds; a short --cluster_timeout_seconds (meant for the
# wait for tasks to start) must not end a connection that is merely slow.
SHORTEST_CONNECT_SECONDS = 60


def connect_seconds(cluster_timeout_seconds):
  """The connection's limit for --cluster_timeout_seconds (0: none)."""
  if not cluster_timeout_seconds:
    return 0
  return max(cluster_timeout_seconds, SHORTEST_CONNECT_SECONDS)


def connecting_within(seconds, connect):
  """connect() -> its result; the process ends (the module doc) when it takes longer than
  `seconds` (0: no limit)."""
  if not seconds:
    return connect()
  connected = threading.Event()

  def watch():
    if not connected.wait(seconds):
      program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "t2t_lite"
      print(f"{program}: error: every task of the cluster answered, but TensorFlow did not "
            f"connect the workers within {seconds:g} seconds (--cluster_timeout_seconds, "
            f"{SHORTEST_CONNECT_SECONDS} at least): a worker was lost meanwhile, or the "
            f"workers cannot reach each other's ports; restart every worker with the same "
            f"command (a run resumes from its last checkpoint)",
            file=sys.stderr, flush=True)
      sys.stdout.flush()
      os._exit(2)  # The main thread is inside TensorFlow's C++ runtime: nothing else ends it.

  threading.Thread(target=watch, name="cluster-connecting-watchdog", daemon=True).start()
  try:
    return connect()
  finally:
    connected.set()
