"""Run with KERAS_BACKEND=jax: the searches run jitted on Keras's JAX backend.

Prints one line, JAX_RESULT_PREFIX and the JSON {case name: {"sequences": ...,
"scores": ...}}, for the fake step functions of `decoding_fakes.backend_cases()`, which
the test compares with the TensorFlow backend's results. Also checks on a small real
Transformer that jitted beam decoding equals eager decoding and that each hypothesis's
log-prob equals a teacher-forced pass. Exits non-zero on any failure. (jax_checks.py runs
it with the other JAX checks.)
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

import jax  # noqa: E402
import keras  # noqa: E402

from decoding_fakes import (JAX_RESULT_PREFIX, backend_cases, run,  # noqa: E402
                            teacher_forced_log_probs)
from model_fixtures import random_batch, small_model  # noqa: E402
from t2t_lite.decoding import beam_search, greedy  # noqa: E402
from t2t_lite.decoding.lengths import EOS_ID  # noqa: E402
from t2t_lite.decoding.model_decoding import decode_ids  # noqa: E402

assert keras.backend.backend() == "jax", keras.backend.backend()

SEARCHES = {"beam_search": beam_search.beam_search, "greedy_search": greedy.greedy_search}

results = {}
for name, (search, fake, batch, kwargs) in backend_cases().items():
  sequences, scores = run(SEARCHES[search], fake, batch, jax.jit, **kwargs)
  results[name] = {"sequences": sequences.tolist(), "scores": scores.tolist()}

model = small_model()
inputs, targets = random_batch()
# On JAX the search's loop is traced even eagerly: the weights must exist before it.
model({"inputs": inputs, "targets": targets}, training=False)


def decode(inputs):
  return decode_ids(model, inputs, beam_size=3, alpha=0.6, extra_length=3)


eager_ids, eager_scores = (np.asarray(t) for t in decode(inputs))
ids, scores = (np.asarray(t) for t in jax.jit(decode)(inputs))
np.testing.assert_array_equal(ids, eager_ids)
np.testing.assert_allclose(scores, eager_scores, atol=1e-5)
# Each hypothesis's raw log-prob, undoing the length penalty, against one teacher-forced
# pass over all of them (one pass: on JAX every new shape compiles anew).
sentences, raw_scores = [], []
for example in range(ids.shape[0]):
  for k in range(ids.shape[1]):
    hypothesis = list(ids[example, k])
    sentences.append(hypothesis[:hypothesis.index(EOS_ID) + 1])
    raw_scores.append(scores[example, k] * ((5.0 + len(sentences[-1])) / 6.0) ** 0.6)
forced = teacher_forced_log_probs(model, np.repeat(inputs, ids.shape[1], axis=0), sentences)
np.testing.assert_allclose(raw_scores, forced, atol=1e-4)

print(f"{JAX_RESULT_PREFIX}{json.dumps(results)}")
