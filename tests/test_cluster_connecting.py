"""TensorFlow's connection of the workers, bounded: a connection that never completes
ends the process with one line (a worker lost between the cluster's forming and
TensorFlow's connection would otherwise hang it for ever). Against TensorFlow itself:
tests/test_cluster_forming.py."""

import signal
import subprocess
import sys
import time

import pytest

from t2t_lite.distribute.cluster_connecting import (SHORTEST_CONNECT_SECONDS, connect_seconds,
                                                    connecting_within)


@pytest.mark.slow  # Its watcher is a process.
def test_a_connection_within_the_limit_returns_its_strategy():
  assert connecting_within(30, lambda: "strategy") == "strategy"
  assert connecting_within(0, lambda: "strategy") == "strategy"  # 0: no limit.


@pytest.mark.parametrize("flag, limit", [(0, 0), (2, SHORTEST_CONNECT_SECONDS), (600, 600)])
def test_the_limit_is_the_flags_but_never_shorter_than_a_healthy_connection(flag, limit):
  assert connect_seconds(flag) == limit


LINE = ("t2t-trainer: error: every task of the cluster answered, but TensorFlow did not connect "
        "the workers within {seconds} seconds (--cluster_timeout_seconds, "
        f"{SHORTEST_CONNECT_SECONDS} at least): a worker was lost meanwhile, or a port answered "
        "that is not the worker's; restart every worker with the same command (a run resumes "
        "from its last checkpoint)")


def connecting_in_a_process(script, timeout):
  """`script` run by Python in a process of its own, as t2t-trainer, with
  `connecting_within` imported -> its CompletedProcess (text output)."""
  return subprocess.run(
      [sys.executable, "-c", "import sys, time\nsys.argv = ['t2t-trainer']\n"
       "from t2t_lite.distribute.cluster_connecting import connecting_within\n" + script],
      capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_a_connection_that_never_completes_ends_the_process_with_one_line():
  started = time.monotonic()
  result = connecting_in_a_process(
      "connecting_within(1, lambda: time.sleep(120))\nprint('returned')", timeout=110)
  assert time.monotonic() - started < 100
  assert result.returncode == -signal.SIGKILL and "returned" not in result.stdout
  assert result.stderr.strip().splitlines() == [LINE.format(seconds=1)]


@pytest.mark.slow
def test_a_connection_that_completes_sends_the_watcher_away():
  result = connecting_in_a_process(
      "print(connecting_within(2, lambda: 'strategy'))\n"
      "time.sleep(4)  # Past the limit: the watcher must be gone.\n"
      "print('still here')", timeout=60)
  assert result.returncode == 0, result.stderr[-2000:]
  assert result.stdout.split() == ["strategy", "still", "here"] and result.stderr == ""
