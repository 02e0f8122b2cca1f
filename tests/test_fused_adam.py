"""FusedAdam updates weights and moments as keras.optimizers.Adam does, to round-off."""

import numpy as np
import pytest
import tensorflow as tf
import keras

from t2t_lite.models.hyperparameters import HParams
from t2t_lite.training.fused_adam import FusedAdam
from t2t_lite.training.optimization import build_optimizer

SHAPES = [(64, 48), (48,), (3, 4, 5)]
STEPS = 4
FLOAT32_EPS = float(np.finfo(np.float32).eps)


def run_adam(optimizer_class, strategy, seed=0):
  """Weights, first and second moments after STEPS updates with random gradients."""
  rng = np.random.default_rng(seed)
  initial = [rng.standard_normal(shape).astype(np.float32) for shape in SHAPES]
  gradients = [[rng.standard_normal(shape).astype(np.float32) for shape in SHAPES]
               for _ in range(STEPS)]
  with strategy.scope():
    weights = [keras.Variable(value) for value in initial]
    optimizer = optimizer_class(learning_rate=0.01, beta_1=0.9, beta_2=0.98, epsilon=1e-9)
    optimizer.build(weights)

  @tf.function(autograph=False)
  def update(step_gradients):
    # Made on the replica's device (by identity), as a training step's gradients are.
    strategy.run(lambda: optimizer.apply_gradients(
        zip([tf.identity(g) for g in step_gradients], weights)))

  for step_gradients in gradients:
    update([tf.constant(g) for g in step_gradients])
  return ([w.numpy() for w in weights], [m.numpy() for m in optimizer._momentums],
          [v.numpy() for v in optimizer._velocities])


@pytest.mark.parametrize("strategy", [tf.distribute.get_strategy,
                                      lambda: tf.distribute.MirroredStrategy(["/cpu:0"])],
                         ids=["default", "mirrored"])
def test_fused_adam_matches_keras_adam(strategy):
  expected = run_adam(keras.optimizers.Adam, strategy())
  actual = run_adam(FusedAdam, strategy())
  # The same float32 formulas, evaluated by other kernels: each step may round every
  # result (moment, square root, quotient, weight) differently by an ulp or two. A step
  # moves a weight by at most about the learning rate (|m| / sqrt(v) <= ~3 in these
  # first steps), so the weights differ by a few ulps of (|weight| + steps x rate).
  for expected_group, actual_group in zip(expected, actual):
    for a, b in zip(expected_group, actual_group):
      scale = np.abs(a).max() + STEPS * 0.03
      np.testing.assert_allclose(b, a, rtol=0, atol=8 * STEPS * FLOAT32_EPS * scale)
  # And it does move them: an update is not skipped.
  assert not np.allclose(actual[0][0], run_adam(FusedAdam, strategy(), seed=1)[0][0])


def test_build_optimizer_makes_a_fused_adam():
  optimizer = build_optimizer(HParams())
  assert isinstance(optimizer, FusedAdam) and isinstance(optimizer, keras.optimizers.Adam)


def test_a_checkpoint_of_keras_adam_restores_into_fused_adam(tmp_path):
  """Runs started before the optimizer was fused resume with their moments."""
  def adam_after_one_update(optimizer_class):
    weights = [keras.Variable(np.ones((2, 3), np.float32))]
    optimizer = optimizer_class(learning_rate=0.1)
    optimizer.apply_gradients([(tf.fill((2, 3), 0.5), weights[0])])
    return optimizer

  saved = adam_after_one_update(keras.optimizers.Adam)
  path = tf.train.Checkpoint(optimizer=saved).save(str(tmp_path / "ckpt"))
  restored = adam_after_one_update(FusedAdam)
  restored.apply_gradients([(tf.fill((2, 3), -1.0), restored._trainable_variables[0])])
  tf.train.Checkpoint(optimizer=restored).restore(path).assert_existing_objects_matched()
  for a, b in zip(saved.variables, restored.variables):
    np.testing.assert_array_equal(b.numpy(), a.numpy())
