"""Timing work that a device runs asynchronously: blocks of steps between synchronisations.

A step returns as soon as its work is queued; timing each one alone would add
a synchronisation per step that training never has. So `steps` steps run back
to back and the clock stops when the device has finished the last one; the
median over `repeats` such blocks, divided by `steps`, is the time per step.
"""

import statistics
import time


def seconds_per_step(step, wait, steps, repeats, warmup):
  """step(): queues one step, returns its output; wait(output): blocks until it is done.

  Runs `warmup` untimed steps (compiling, autotuning), then `repeats` timed blocks
  of `steps` steps. Returns (median seconds per step, the last step's output).
  """
  output = None
  for _ in range(warmup):
    output = step()
  wait(output)
  blocks = []
  for _ in range(repeats):
    start = time.perf_counter()
    for _ in range(steps):
      output = step()
    wait(output)
    blocks.append((time.perf_counter() - start) / steps)
  return statistics.median(blocks), output


def seconds_per_call(call, repeats, warmup=1):
  """call(): does its work and blocks. -> (median seconds over `repeats` calls, last result)."""
  result = None
  for _ in range(warmup):
    result = call()
  samples = []
  for _ in range(repeats):
    start = time.perf_counter()
    result = call()
    samples.append(time.perf_counter() - start)
  return statistics.median(samples), result
