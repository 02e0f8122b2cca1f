"""Symbol dropout: ids dropped whole to padding while training, at the rate asked, inputs and
decoder inputs only; inference and a rate of 0 untouched. t2t-trainer trains with it:
test_trainer_settings.py."""

import dataclasses

import numpy as np
import pytest
import tensorflow as tf

from model_fixtures import SMALL, VOCAB, random_batch, small_model
from t2t_lite.constants import PAD_ID
from t2t_lite.errors import UserError
from t2t_lite.layers.symbol_dropout import SymbolDropout

IDS = 100_000


@pytest.mark.parametrize("rate", [0.1, 0.3])
def test_drops_whole_ids_at_the_rate_and_keeps_the_others(rate):
  ids = tf.random.uniform([IDS // 100, 100], 2, VOCAB, dtype=tf.int32, seed=1)
  dropped = SymbolDropout(rate)(ids, training=True).numpy()
  is_dropped = dropped == PAD_ID
  # Binomial: 5 standard deviations of the fraction dropped (a false failure ~1e-6).
  assert abs(is_dropped.mean() - rate) < 5 * np.sqrt(rate * (1 - rate) / IDS)
  np.testing.assert_array_equal(dropped[~is_dropped], ids.numpy()[~is_dropped])


def test_identity_at_inference_and_at_rate_0_which_holds_no_seed():
  ids = tf.constant([[5, 6, 7, 0]])
  np.testing.assert_array_equal(SymbolDropout(0.5)(ids, training=False), ids)
  unused = SymbolDropout(0.0)
  np.testing.assert_array_equal(unused(ids, training=True), ids)
  assert not unused.variables  # A model without it checkpoints the same variables.


def test_the_model_drops_inputs_and_decoder_inputs_while_training_only():
  hparams = dataclasses.replace(SMALL, layer_prepostprocess_dropout=0.0, symbol_dropout=0.3)
  model, plain = small_model(hparams), small_model(SMALL)
  inputs, targets = random_batch(batch=8, input_length=12, target_length=10)
  features = {"inputs": tf.constant(inputs), "targets": tf.constant(targets)}
  plain(features)
  model(features)
  model.set_weights(plain.get_weights())
  np.testing.assert_allclose(model(features, training=False), plain(features, training=False),
                             rtol=0, atol=1e-6)
  assert not np.allclose(model(features, training=True), plain(features, training=True),
                         rtol=0, atol=1e-3)


def test_r_drop_accepts_symbol_dropout_as_its_dropout_and_the_rate_is_bounded():
  dataclasses.replace(SMALL, rdrop_alpha=5.0, layer_prepostprocess_dropout=0.0,
                      symbol_dropout=0.1)
  with pytest.raises(UserError, match="symbol_dropout"):
    dataclasses.replace(SMALL, symbol_dropout=1.0)

