"""TensorFlow imports without JAX (t2t_lite.quiet.jax_refused), and JAX imports afterwards."""

import importlib.util
import sys

import pytest

from commands import run
from t2t_lite.quiet import jax_refused


def test_only_jax_is_refused_within_and_nothing_after():
  finder_count = len(sys.meta_path)
  with jax_refused():
    finder = sys.meta_path[0]
    for name in ("jax", "jax.numpy"):
      with pytest.raises(ImportError, match="while TensorFlow imports"):
        finder.find_spec(name)
    assert finder.find_spec("jaxlib") is None and finder.find_spec("numpy") is None
  assert len(sys.meta_path) == finder_count


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX is not installed")
def test_tensorflow_imports_without_jax_and_jax_imports_after():
  done = run([sys.executable, "-c",
              "import sys; from t2t_lite.quiet import import_tensorflow; import_tensorflow(); "
              "print('jax' in sys.modules); import jax, jax.numpy; print(jax.numpy.ones(2).sum())"])
  assert done.returncode == 0, done.stderr[-3000:]
  assert done.stdout.split() == ["False", "2.0"]
