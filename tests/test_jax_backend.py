"""The model's layers use only keras.ops: it also runs on Keras's JAX backend."""

import pytest

from commands import environment, run_script


@pytest.mark.slow
def test_model_runs_on_the_jax_backend():
  result = run_script("jax_backend_check.py",
                      env=environment(KERAS_BACKEND="jax", JAX_PLATFORMS="cpu"))
  assert result.returncode == 0, result.stderr[-3000:]
  assert "jax backend ok" in result.stdout
