"""A tiny Transformer overfits a fixed batch: the model, loss and optimizer learn together."""

import numpy as np
import pytest
import tensorflow as tf

from model_fixtures import SMALL, random_batch, small_model
from t2t_lite.layers.losses import SmoothedCrossEntropy
from t2t_lite.training.optimization import build_optimizer


@pytest.mark.slow
def test_tiny_model_overfits_a_fixed_batch():
  # A learning rate well inside the stable range: at twice it, the trajectory is chaotic
  # (rounding-level differences between Adam implementations end anywhere from 0.02 to 1.1).
  hparams = SMALL.override("layer_prepostprocess_dropout=0.0,learning_rate_warmup_steps=40,"
                           "learning_rate_constant=0.5")
  model = small_model(hparams)
  model.compile(optimizer=build_optimizer(hparams),
                loss=SmoothedCrossEntropy(hparams.label_smoothing))
  inputs, targets = random_batch(batch=8, input_length=9, target_length=8, seed=1)
  features = {"inputs": inputs, "targets": targets}
  first = model.evaluate(features, targets, verbose=0)
  # 300 steps on the batch as one epoch (an epoch of its own per step costs Keras far
  # more than the step).
  repeated = tf.data.Dataset.from_tensors((features, targets)).repeat(300)
  model.fit(repeated, epochs=1, shuffle=False, verbose=0)
  last = model.evaluate(features, targets, verbose=0)
  assert first > 2.0
  assert last < 0.05 * first, (first, last)
  # And the argmax reproduces every real target token.
  predictions = np.argmax(model(features, training=False), axis=-1)
  real = targets != 0
  np.testing.assert_array_equal(predictions[real], targets[real])
