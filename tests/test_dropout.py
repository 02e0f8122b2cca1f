"""Dropout: the rate, the scale and the gradient of Keras's, from half the random bits
(a quarter on JAX, checked in the `jax_checks` fixture's process: jax_dropout_check.py)."""

import os

import numpy as np
import pytest
import tensorflow as tf

from jax_dropout_check import ELEMENTS, RATES, RESULT
from t2t_lite.layers.dropout import Dropout


def check_rate_and_expectation(y, rate):
  """y: the dropout of ELEMENTS ones at `rate`."""
  dropped = np.mean(y == 0.0)
  # Binomial: 5 standard deviations of the fraction dropped (a false failure ~1e-6).
  assert abs(dropped - rate) < 5 * np.sqrt(rate * (1 - rate) / ELEMENTS)
  kept = y[y != 0.0]
  # Kept values are scaled by the inverse of the keep rate (rounded to 2^-16 steps).
  np.testing.assert_allclose(kept, 1.0 / (1.0 - rate), rtol=2.0 ** -15)
  # So the mean stays the input's: within the same 5 deviations, scaled.
  assert abs(y.mean() - 1.0) < 5 * np.sqrt(rate / (1 - rate) / ELEMENTS)


@pytest.mark.parametrize("rate", RATES)
def test_drops_at_the_rate_and_keeps_the_expectation(rate):
  layer = Dropout(rate, seed=1)
  check_rate_and_expectation(layer(tf.ones([ELEMENTS]), training=True).numpy(), rate)


def test_identity_unless_training_and_fresh_masks_each_call():
  layer = Dropout(0.5, seed=2)
  x = tf.random.normal([64, 33])
  np.testing.assert_array_equal(layer(x, training=False), x)
  first, second = layer(x, training=True), layer(x, training=True)
  assert not np.array_equal(first != 0, second != 0)
  assert first.shape == x.shape


def test_same_seed_same_masks():
  x = tf.ones([1000])
  a = [Dropout(0.2, seed=3)(x, training=True).numpy() for _ in range(2)]
  np.testing.assert_array_equal(a[0], a[1])


def test_the_gradient_is_the_mask_times_the_scale():
  layer = Dropout(0.25, seed=4)
  x = tf.random.normal([50, 40])
  with tf.GradientTape() as tape:
    tape.watch(x)
    y = layer(x, training=True)
  gradient = tape.gradient(y, x).numpy()
  expected = np.where(y.numpy() != 0.0, 1.0 / 0.75, 0.0)
  np.testing.assert_allclose(gradient, expected, rtol=2.0 ** -15)


def test_bfloat16_stays_bfloat16():
  layer = Dropout(0.1, seed=5, dtype="mixed_bfloat16")
  y = layer(tf.ones([10, 10], tf.bfloat16), training=True)
  assert y.dtype == tf.bfloat16
  assert set(np.unique(y.numpy().astype(np.float32))) <= {0.0, float(tf.cast(1 / 0.9, tf.bfloat16))}


def test_on_jax_the_same_rate_expectation_seeding_and_gradient(jax_checks):
  """jax_dropout_check.py, run by the `jax_checks` fixture: its saved outputs."""
  path = os.path.join(jax_checks["out_dir"], RESULT)
  assert os.path.isfile(path), jax_checks["stderr"][-3000:]
  outputs = np.load(path)
  for rate in RATES:
    check_rate_and_expectation(outputs[f"rate_{rate}"], rate)
  assert not np.array_equal(outputs["first"] != 0, outputs["second"] != 0)
  np.testing.assert_array_equal(outputs["seed_a"], outputs["seed_b"])
  expected = np.where(outputs["y"] != 0.0, 1.0 / 0.75, 0.0)
  np.testing.assert_allclose(outputs["gradient"], expected, rtol=2.0 ** -15)
