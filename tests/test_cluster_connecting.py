"""TensorFlow's connection of the workers, bounded: a connection that never completes
ends the process with one line and exit status 2 (a worker lost between the cluster's
forming and TensorFlow's connection would otherwise hang it for ever)."""

import subprocess
import sys
import time

import pytest

from t2t_lite.distribute.cluster_connecting import (SHORTEST_CONNECT_SECONDS, connect_seconds,
                                                    connecting_within)


def test_a_connection_within_the_limit_returns_its_strategy():
  assert connecting_within(30, lambda: "strategy") == "strategy"
  assert connecting_within(0, lambda: "strategy") == "strategy"  # 0: no limit.


@pytest.mark.parametrize("flag, limit", [(0, 0), (2, SHORTEST_CONNECT_SECONDS), (600, 600)])
def test_the_limit_is_the_flags_but_never_shorter_than_a_healthy_connection(flag, limit):
  assert connect_seconds(flag) == limit


@pytest.mark.slow
def test_a_connection_that_never_completes_ends_the_process_in_one_line():
  started = time.monotonic()
  result = subprocess.run(
      [sys.executable, "-c", "import sys, time\n"
       "sys.argv = ['t2t-trainer']\n"
       "from t2t_lite.distribute.cluster_connecting import connecting_within\n"
       "connecting_within(1, lambda: time.sleep(120))\n"
       "print('returned')"],
      capture_output=True, text=True, timeout=110)
  assert time.monotonic() - started < 100
  assert result.returncode == 2 and "returned" not in result.stdout
  lines = result.stderr.strip().splitlines()
  assert lines == [
      "t2t-trainer: error: every task of the cluster answered, but TensorFlow did not connect "
      f"the workers within 1 seconds (--cluster_timeout_seconds, {SHORTEST_CONNECT_SECONDS} at "
      "least): a worker was lost meanwhile, or the workers cannot reach each other's ports; "
      "restart every worker with the same command (a run resumes from its last checkpoint)"]
