"""The device's matmul peak as measured now: FLOP/s of a square product through JAX.

On a GPU the operands are bfloat16 (the training step's precision), on a CPU
float32. The product runs `count` times inside one jitted loop, so launches and
Python do not count, and the median of `repeats` timed loops is reported.
"""

import jax
import jax.numpy as jnp
import numpy as np

from bench.gpu.timing import seconds_per_call


def matmul_flops_per_second(size, count=10, repeats=5):
  """-> (FLOP/s, dtype name) of [size, size] x [size, size] products on the default device."""
  dtype = jnp.bfloat16 if jax.default_backend() == "gpu" else jnp.float32
  rng = np.random.default_rng(0)
  a = jnp.asarray(rng.standard_normal((size, size), np.float32), dtype)
  # Entries of variance 1/size keep every product's entries near unit variance.
  b = jnp.asarray(rng.standard_normal((size, size), np.float32) / np.sqrt(size), dtype)

  @jax.jit
  def products(a, b):
    # Each product feeds the next, so none can be skipped.
    def body(_, x):
      return x @ b
    return jax.lax.fori_loop(0, count, body, a)

  seconds, _ = seconds_per_call(lambda: products(a, b).block_until_ready(), repeats, warmup=2)
  return 2 * size ** 3 * count / seconds, jnp.dtype(dtype).name
