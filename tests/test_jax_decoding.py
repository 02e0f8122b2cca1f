"""The searches on Keras's JAX backend (the GPU machines' path) give the TensorFlow results."""

import json

import numpy as np

from decoding_fakes import JAX_RESULT_PREFIX, backend_cases, run
from t2t_lite.decoding.beam_search import beam_search
from t2t_lite.decoding.greedy import greedy_search

SEARCHES = {"beam_search": beam_search, "greedy_search": greedy_search}


def test_jitted_jax_searches_equal_the_tensorflow_ones(jax_checks):
  """jax_decoding_check.py, run by the `jax_checks` fixture, against this process's
  TensorFlow searches."""
  lines = [line for line in jax_checks["stdout"].splitlines()
           if line.startswith(JAX_RESULT_PREFIX)]
  assert lines, jax_checks["stderr"][-3000:]
  jax_results = json.loads(lines[0][len(JAX_RESULT_PREFIX):])
  cases = backend_cases()
  assert sorted(jax_results) == sorted(cases)
  for name, (search, fake, batch, kwargs) in cases.items():
    sequences, scores = run(SEARCHES[search], fake, batch, **kwargs)
    np.testing.assert_array_equal(jax_results[name]["sequences"], sequences, err_msg=name)
    np.testing.assert_allclose(jax_results[name]["scores"], scores, rtol=1e-6, err_msg=name)
