"""Run with KERAS_BACKEND=jax: t2t_lite's Dropout on Keras's JAX backend.

    python jax_dropout_check.py OUT_DIR    (jax_checks.py runs it with the other JAX checks)

Saves OUT_DIR/dropout.npz for tests/test_dropout.py to check as it checks TensorFlow's:
the outputs on ELEMENTS ones at each of RATES, two masks of one layer in a row, two layers
of one seed, and the gradient with its output.
"""

import os
import sys

ELEMENTS = 200_001  # Odd: the last element takes half of a 32-bit draw.
RATES = (0.1, 0.3)
RESULT = "dropout.npz"


def main(out_dir):
  import jax
  import keras
  import numpy as np
  from t2t_lite.layers.dropout import Dropout
  assert keras.backend.backend() == "jax", keras.backend.backend()
  ones = jax.numpy.ones([ELEMENTS])
  outputs = {f"rate_{rate}": np.asarray(Dropout(rate, seed=1)(ones, training=True))
             for rate in RATES}
  layer = Dropout(0.5, seed=2)
  outputs["first"], outputs["second"] = (np.asarray(layer(ones[:2000], training=True))
                                         for _ in range(2))
  outputs["seed_a"], outputs["seed_b"] = (np.asarray(Dropout(0.2, seed=3)(ones[:1000],
                                                                          training=True))
                                          for _ in range(2))
  x = jax.random.normal(jax.random.key(0), [50, 40])
  layer = Dropout(0.25, seed=4)
  y, pullback = jax.vjp(lambda v: layer(v, training=True), x)
  outputs["y"] = np.asarray(y)
  outputs["gradient"] = np.asarray(pullback(jax.numpy.ones_like(y))[0])
  np.savez(os.path.join(out_dir, RESULT), **outputs)
  print("jax dropout saved")


if __name__ == "__main__":
  main(sys.argv[1])
