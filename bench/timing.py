"""Wall-clock measurements on a shared, noisy CPU: interleaved runs, medians, peaks, memory.

Every implementation is timed in the same process, one run of each in turn
(the order rotating from one repetition to the next), so that a burst of
load from elsewhere on the machine falls on all of them alike; a table then
reports medians and ratios of medians.
"""

import resource
import statistics
import time

import numpy as np


def interleaved_medians(runs, repeats, warmup=1):
  """runs: {name: callable that blocks until its work is done} -> {name: median seconds}.

  Each callable runs `warmup` times first (tracing, compiling), then `repeats`
  times in turn with the others.
  """
  for run in runs.values():
    for _ in range(warmup):
      run()
  names = list(runs)
  samples = {name: [] for name in names}
  for repeat in range(repeats):
    shift = repeat % len(names)
    for name in names[shift:] + names[:shift]:
      start = time.perf_counter()
      runs[name]()
      samples[name].append(time.perf_counter() - start)
  return {name: statistics.median(values) for name, values in samples.items()}


def tf_matmul(size=2048, count=4):
  """(callable, FLOPs): `count` float32 [size, size] products with TensorFlow, blocking.

  Timed among the other runs (`interleaved_medians`), it gives this machine's
  matmul peak under the same load as they had.
  """
  import tensorflow as tf
  a = tf.constant(np.random.default_rng(0).standard_normal((size, size), np.float32))

  def run():
    for _ in range(count):
      tf.linalg.matmul(a, a).numpy()
  return run, 2 * size ** 3 * count


def torch_matmul(size=2048, count=4):
  """The same with PyTorch (its own BLAS, which may differ from TensorFlow's)."""
  import torch
  a = torch.from_numpy(np.random.default_rng(0).standard_normal((size, size), np.float32))

  def run():
    for _ in range(count):
      torch.mm(a, a)
  return run, 2 * size ** 3 * count


def peak_rss_bytes():
  """The peak resident memory of this process so far (Linux reports kibibytes)."""
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss_bytes():
  """The resident memory of this process now."""
  with open("/proc/self/statm") as f:
    return int(f.read().split()[1]) * resource.getpagesize()
