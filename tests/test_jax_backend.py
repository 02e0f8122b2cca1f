"""The model's layers use only keras.ops: it also runs on Keras's JAX backend."""


def test_model_runs_on_the_jax_backend(jax_checks):
  """jax_backend_check.py, run by the `jax_checks` fixture."""
  assert "jax backend ok" in jax_checks["stdout"], jax_checks["stderr"][-3000:]
