"""The searches on Keras's JAX backend (the GPU machines' path) give the TensorFlow results."""

import json

import numpy as np
import pytest

from commands import environment, run_script
from decoding_fakes import backend_cases, run
from t2t_lite.decoding.beam_search import beam_search
from t2t_lite.decoding.greedy import greedy_search

SEARCHES = {"beam_search": beam_search, "greedy_search": greedy_search}


@pytest.mark.slow
def test_jitted_jax_searches_equal_the_tensorflow_ones():
  result = run_script("jax_decoding_check.py",
                      env=environment(KERAS_BACKEND="jax", JAX_PLATFORMS="cpu"))
  assert result.returncode == 0, result.stderr[-3000:]
  jax_results = json.loads(result.stdout.strip().splitlines()[-1])
  cases = backend_cases()
  assert sorted(jax_results) == sorted(cases)
  for name, (search, fake, batch, kwargs) in cases.items():
    sequences, scores = run(SEARCHES[search], fake, batch, **kwargs)
    np.testing.assert_array_equal(jax_results[name]["sequences"], sequences, err_msg=name)
    np.testing.assert_allclose(jax_results[name]["scores"], scores, rtol=1e-6, err_msg=name)
