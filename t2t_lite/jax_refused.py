"""Importing TensorFlow without the JAX it does not need.

Where JAX is installed, TensorFlow Lite's Python package imports it while TensorFlow
imports (for its optional JAX converter): 1.7 of the 12 seconds `import tensorflow`
took on 2 CPU cores. No t2t_lite command on TensorFlow uses that converter, so while
TensorFlow imports, `jax` is refused with the ImportError TensorFlow Lite expects
where JAX is missing; afterwards JAX imports as before.
"""

import contextlib
import sys


class _JaxRefused:
  """A meta path finder that refuses `jax` and its submodules."""

  def find_spec(self, name, path=None, target=None):
    if name == "jax" or name.startswith("jax."):
      raise ImportError(f"{name} is not imported while TensorFlow imports "
                        f"(t2t_lite.jax_refused)")
    return None


@contextlib.contextmanager
def jax_refused():
  """Within: `import jax` raises ImportError (unless JAX was imported before)."""
  finder = _JaxRefused()
  sys.meta_path.insert(0, finder)
  try:
    yield
  finally:
    sys.meta_path.remove(finder)
