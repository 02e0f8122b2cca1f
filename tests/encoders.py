"""Encoders for the encoding processes of tests/test_encoding_workers.py and
tests/test_shard_bounds.py. Each process, spawned afresh, imports the module its encoder's
class comes from: here, one that imports no TensorFlow (a test module's imports would cost
each process seconds)."""

import os
import signal
import threading
import time


class DyingEncoder:
  """An encoder for the processes: "wait" takes a minute; "die while sending" starts a
  result of 10 MB, more than a pipe holds while nobody reads it, and its process is killed
  half-way; "die" kills its process at once; other batches are their length."""

  def encode(self, batch):
    if batch == "wait":
      time.sleep(60)
      return "waited"
    if batch == "die":
      os.kill(os.getpid(), signal.SIGKILL)
    if batch == "die while sending":
      threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGKILL)).start()
      return b"x" * 10_000_000
    return len(batch)


class Lengths:
  """An encoder for encoding processes: each batch's length."""

  def encode(self, batch):
    return len(batch)
