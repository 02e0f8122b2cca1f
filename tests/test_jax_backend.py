"""The model's layers use only keras.ops: it also runs on Keras's JAX backend."""

import os
import subprocess
import sys


def test_model_runs_on_the_jax_backend():
  script = os.path.join(os.path.dirname(__file__), "jax_backend_check.py")
  env = dict(os.environ, KERAS_BACKEND="jax", JAX_PLATFORMS="cpu")
  result = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env,
                          timeout=600)
  assert result.returncode == 0, result.stderr[-3000:]
  assert "jax backend ok" in result.stdout
