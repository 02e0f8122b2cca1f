"""TensorFlow's own connection of a cluster's workers, bounded in time.

    strategy = connecting_within(connect_seconds(timeout), lambda: (
        tf.distribute.MultiWorkerMirroredStrategy(...)))

Once every task has answered (`cluster_forming`), MultiWorkerMirroredStrategy connects the
workers inside TensorFlow's C++ runtime, holding the interpreter, and waits for ever for a
worker lost in the seconds between (or a port answered by something that is not the
worker). No thread of this process can run then, so a watcher process of its own (plain
Python, no TensorFlow) ends it: once the connection has taken --cluster_timeout_seconds
(at least SHORTEST_CONNECT_SECONDS; 0: no limit), the watcher prints the one line and kills
the process (exit status 137). Nothing is written before the strategy exists, so nothing
is lost. The watcher leaves as soon as the connection completes or the process ends.
"""

import os
import subprocess
import sys

from t2t_lite.errors import command_name

# A healthy cluster connects in seconds; a short --cluster_timeout_seconds (meant for the
# wait for tasks to start) must not end a connection that is merely slow.
SHORTEST_CONNECT_SECONDS = 60

_WATCHER = """
import os, signal, sys, time
watched, seconds, line = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
  if os.getppid() != watched:  # The process ended: nothing to watch.
    sys.exit(0)
  time.sleep(0.2)
sys.stderr.write(line + "\\n")
sys.stderr.flush()
os.kill(watched, signal.SIGKILL)
"""


def connect_seconds(cluster_timeout_seconds):
  """The connection's limit for --cluster_timeout_seconds (0: none)."""
  if not cluster_timeout_seconds:
    return 0
  return max(cluster_timeout_seconds, SHORTEST_CONNECT_SECONDS)


def connecting_within(seconds, connect):
  """connect() -> its result; the process is ended (the module doc) when it takes longer
  than `seconds` (0: no limit)."""
  if not seconds:
    return connect()
  watcher = subprocess.Popen(
      [sys.executable, "-c", _WATCHER, str(os.getpid()), str(seconds), _line(seconds)],
      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)  # Its line: on our stderr.
  try:
    return connect()
  finally:
    watcher.kill()
    watcher.wait()


def _line(seconds):
  return (f"{command_name('t2t_lite')}: error: every task of the cluster answered, but "
          f"TensorFlow did not connect the workers within {seconds:g} seconds "
          f"(--cluster_timeout_seconds, {SHORTEST_CONNECT_SECONDS} at least): a worker was "
          f"lost meanwhile, or a port answered that is not the worker's; restart every worker "
          f"with the same command (a run resumes from its last checkpoint)")
