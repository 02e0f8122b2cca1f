"""R-Drop (hparams.rdrop_alpha): two passes of each batch, pulled together."""

import dataclasses

import keras
import numpy as np
import pytest
import tensorflow as tf

from model_fixtures import SMALL, random_batch, small_model
from t2t_lite.errors import UserError
from t2t_lite.layers.losses import smoothed_cross_entropy, symmetric_kl
from t2t_lite.training.cost import training_flops
from t2t_lite.training.r_drop import doubled, halves, r_drop_loss_sum
from t2t_lite.training.train_step import TrainStep

FLOAT32_EPS = float(np.finfo(np.float32).eps)


def kl(p, q):
  return np.sum(p * (np.log(p) - np.log(q)), axis=-1)


def softmax(logits):
  exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
  return exp / exp.sum(axis=-1, keepdims=True)


def test_the_divergence_is_the_mean_of_both_kls_and_zero_on_padding():
  rng = np.random.default_rng(0)
  logits, other = (rng.normal(size=(2, 3, 11)).astype("float32") for _ in range(2))
  targets = np.array([[4, 5, 0], [6, 0, 0]], "int32")
  p, q = softmax(logits.astype("float64")), softmax(other.astype("float64"))
  expected = 0.5 * (kl(p, q) + kl(q, p)) * (targets != 0)
  got = np.asarray(symmetric_kl(logits, other, targets))
  # float32 log-softmax of logits near 1: each term off by a few eps, summed over 11 ids.
  np.testing.assert_allclose(got, expected, rtol=0, atol=100 * FLOAT32_EPS)
  assert got[0, 2] == got[1, 1] == got[1, 2] == 0.0 and (got[targets != 0] > 0).all()
  assert not np.asarray(symmetric_kl(logits, logits, targets)).any()  # p - p is 0.


def test_the_loss_is_the_passes_mean_plus_alpha_times_their_divergence():
  rng = np.random.default_rng(1)
  logits, other = (rng.normal(size=(2, 3, 11)).astype("float32") for _ in range(2))
  targets = np.array([[4, 5, 0], [6, 7, 8]], "int32")
  first, second = (float(tf.reduce_sum(smoothed_cross_entropy(targets, x, 0.1)))
                   for x in (logits, other))
  divergence = float(tf.reduce_sum(symmetric_kl(logits, other, targets)))
  loss = float(r_drop_loss_sum(targets, logits, other, first, 0.1, alpha=5.0))
  # The paper's loss (both cross-entropies, alpha / 2 times both KLs), halved.
  assert np.isclose(loss, 0.5 * (first + second) + 0.5 * 5.0 * divergence, rtol=1e-6)


def test_the_written_out_gradient_is_the_divergences_own():
  """Against automatic differentiation of the plain expression in float64."""
  rng = np.random.default_rng(2)
  logits, other = (rng.normal(size=(2, 3, 11)) for _ in range(2))
  targets = np.array([[4, 5, 0], [6, 7, 8]], "int32")
  upstream = rng.uniform(0.5, 2.0, size=(2, 3))
  as_float32 = [tf.Variable(x.astype("float32")) for x in (logits, other)]
  with tf.GradientTape() as tape:
    value = tf.reduce_sum(symmetric_kl(*as_float32, targets) * upstream.astype("float32"))
  got = tape.gradient(value, as_float32)
  as_float64 = [tf.Variable(x) for x in (logits, other)]
  with tf.GradientTape() as tape:
    log_p, log_q = (tf.nn.log_softmax(x) for x in as_float64)
    plain = 0.5 * tf.reduce_sum((tf.exp(log_p) - tf.exp(log_q)) * (log_p - log_q), -1)
    value = tf.reduce_sum(plain * (targets != 0) * upstream)
  expected = tape.gradient(value, as_float64)
  # Each element: a few float32 operations on terms no larger than |log p - log q|.
  scale = float(np.abs(np.log(softmax(logits)) - np.log(softmax(other))).max())
  for g, e in zip(got, expected):
    np.testing.assert_allclose(g, e, rtol=0, atol=100 * FLOAT32_EPS * scale)
  assert not np.asarray(got[0])[0, 2].any()  # Padding: no gradient.


def test_r_drop_without_dropout_is_refused_in_one_line():
  with pytest.raises(UserError, match="rdrop_alpha=5 compares two passes with dropout, but "
                                      "every dropout is 0"):
    dataclasses.replace(SMALL, rdrop_alpha=5.0, layer_prepostprocess_dropout=0.0)


def test_doubling_then_halving_gives_back_the_batch():
  inputs, targets = random_batch()
  twice = doubled({"inputs": tf.constant(inputs), "targets": tf.constant(targets)})
  assert twice["inputs"].shape == (2 * inputs.shape[0], inputs.shape[1])
  for half in halves(twice["targets"]):
    np.testing.assert_array_equal(half, targets)


def updated_weights(hparams, rdrop_alpha):
  """The weights after one SGD step of a fresh small model with the given R-Drop weight."""
  model = small_model(hparams)
  inputs, targets = random_batch(batch=4)
  features = {"inputs": tf.constant(inputs), "targets": tf.constant(targets)}
  model(features)
  before = [v.numpy() for v in model.trainable_variables]
  optimizer = keras.optimizers.SGD(learning_rate=0.5)
  step = TrainStep(tf.distribute.get_strategy(), model, optimizer, 0.1,
                   rdrop_alpha=rdrop_alpha)
  stats = step(iter(tf.data.Dataset.from_tensors(features).repeat()))
  return before, [v.numpy() for v in model.trainable_variables], stats


def test_without_dropout_both_passes_agree_and_the_update_is_the_plain_one():
  """Dropout 0: the passes are equal, their divergence 0, their mean the plain loss."""
  hparams = dataclasses.replace(SMALL, layer_prepostprocess_dropout=0.0)
  before, plain, plain_stats = updated_weights(hparams, rdrop_alpha=0.0)
  _, r_drop, r_drop_stats = updated_weights(hparams, rdrop_alpha=5.0)
  assert r_drop_stats["tokens"] == plain_stats["tokens"]  # The first pass's, not twice.
  assert np.isclose(r_drop_stats["loss_sum"], plain_stats["loss_sum"], rtol=1e-5)
  largest_update = max(np.abs(p - b).max() for p, b in zip(plain, before))
  # Gradients summed over a few hundred float32 terms in another order: far below 1e-4.
  for p, r in zip(plain, r_drop):
    np.testing.assert_allclose(r, p, rtol=0, atol=1e-4 * largest_update)


def test_with_dropout_the_divergence_moves_the_update_in_proportion_to_alpha():
  """The same seed, the same dropout masks: SGD's update is linear in the loss, so what
  alpha adds to it is alpha times the divergence's own gradient."""
  hparams = dataclasses.replace(SMALL, layer_prepostprocess_dropout=0.3)
  model = small_model(hparams)
  inputs, targets = random_batch(batch=4)
  logits, other = halves(model(doubled({"inputs": tf.constant(inputs),
                                        "targets": tf.constant(targets)}), training=True))
  assert float(tf.reduce_sum(symmetric_kl(logits, other, targets))) > 0
  _, least, _ = updated_weights(hparams, rdrop_alpha=1e-9)  # The two passes' mean alone.
  _, half, _ = updated_weights(hparams, rdrop_alpha=2.5)
  _, whole, _ = updated_weights(hparams, rdrop_alpha=5.0)
  added = [w - w0 for w, w0 in zip(whole, least)]
  largest = max(np.abs(a).max() for a in added)
  assert largest > 0
  # The weights' round-off (about eps times their size) is far below 1% of what alpha adds.
  for a, h, w0 in zip(added, half, least):
    np.testing.assert_allclose(h - w0, a / 2, rtol=0, atol=1e-2 * largest)


def test_the_cost_line_counts_both_passes():
  args = (1000, 3000.0, 2900.0, 30.0, 29.0)
  r_drop = dataclasses.replace(SMALL, rdrop_alpha=5.0)
  assert training_flops(r_drop, *args) == 2 * training_flops(SMALL, *args)
