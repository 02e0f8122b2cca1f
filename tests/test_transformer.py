"""The Transformer: masking, cached decoding == teacher forcing, eager == graph == XLA."""

import numpy as np
import pytest
import tensorflow as tf

from model_fixtures import VARIANTS, random_batch, small_model
from t2t_lite.models.transformer import shift_right


def logits_of(model, inputs, targets):
  return np.asarray(model({"inputs": inputs, "targets": targets}, training=False))


def cached_logits(model, inputs, targets, step_fn=None):
  """Teacher-forced logits computed one position at a time through the cache."""
  memory, memory_bias = model.encode(inputs)
  cache = model.init_cache(memory, memory_bias, targets.shape[1])
  decoder_inputs = np.asarray(shift_right(targets))
  step_fn = step_fn or model.decode_step
  outputs = []
  for step in range(targets.shape[1]):
    logits, cache = step_fn(decoder_inputs[:, step], tf.constant(step), cache)
    outputs.append(np.asarray(logits))
  return np.stack(outputs, axis=1)  # [batch, t, vocab]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_changing_a_future_target_never_changes_earlier_logits(variant):
  model = small_model(VARIANTS[variant])
  inputs, targets = random_batch()
  before = logits_of(model, inputs, targets)
  changed = targets.copy()
  changed[:, 3] = (changed[:, 3] + 1) % 38 + 2
  after = logits_of(model, inputs, changed)
  # Position i predicts targets[i] from targets[:i]: positions 0..3 see no change.
  np.testing.assert_allclose(before[:, :4], after[:, :4], atol=1e-6)
  assert np.abs(before[:, 4:] - after[:, 4:]).max() > 1e-4


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_padding_never_changes_outputs(variant):
  model = small_model(VARIANTS[variant])
  inputs, targets = random_batch()
  before = logits_of(model, inputs, targets)
  # More padding on inputs and targets: the same logits wherever targets are real.
  padded_inputs = np.pad(inputs, [[0, 0], [0, 5]])
  padded_targets = np.pad(targets, [[0, 0], [0, 4]])
  after = logits_of(model, padded_inputs, padded_targets)
  not_padding = targets != 0
  np.testing.assert_allclose(before[not_padding], after[:, :6][not_padding], atol=1e-5)
  # The encoder output at real positions ignores how much padding follows.
  memory, _ = model.encode(inputs)
  padded_memory, _ = model.encode(padded_inputs)
  real = inputs != 0
  np.testing.assert_allclose(np.asarray(memory)[real],
                             np.asarray(padded_memory)[:, :7][real], atol=1e-5)


@pytest.mark.parametrize("variant", ["paper", "unshared"])
def test_id_0_embeds_as_zero_so_its_row_is_never_read(variant):
  """Padding and the decoder's first input (id 0) are the zero vector, as in tensor2tensor."""
  model = small_model(VARIANTS[variant])
  inputs, targets = random_batch()
  before = logits_of(model, inputs, targets)
  vectors = np.asarray(model.target_embedding(np.array([[0, 5]])))  # [1, 2, d_model]
  assert not vectors[0, 0].any() and vectors[0, 1].any()
  embeddings = {id(layer): layer for layer in (model.input_embedding, model.target_embedding)}
  for layer in embeddings.values():
    table = layer.embeddings.numpy()
    table[0] = 100.0
    layer.embeddings.assign(table)
  # Only the logit of id 0 itself may change (where the softmax shares the matrix).
  np.testing.assert_allclose(logits_of(model, inputs, targets)[..., 1:], before[..., 1:],
                             atol=1e-5)
  np.testing.assert_allclose(cached_logits(model, inputs, targets)[..., 1:], before[..., 1:],
                             atol=1e-5)


def test_examples_in_a_batch_are_independent():
  model = small_model()
  inputs, targets = random_batch()
  together = logits_of(model, inputs, targets)
  alone = logits_of(model, inputs[2:3], targets[2:3])
  np.testing.assert_allclose(together[2:3], alone, atol=1e-5)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_cached_decoding_equals_teacher_forcing_eagerly(variant):
  model = small_model(VARIANTS[variant])
  inputs, targets = random_batch()
  np.testing.assert_allclose(cached_logits(model, inputs, targets),
                             logits_of(model, inputs, targets), atol=1e-5)


def test_cached_decoding_equals_teacher_forcing_in_tf_function():
  model = small_model(VARIANTS["pre_norm"])
  inputs, targets = random_batch()
  expected = logits_of(model, inputs, targets)
  step_fn = tf.function(model.decode_step, reduce_retracing=True)
  np.testing.assert_allclose(cached_logits(model, inputs, targets, step_fn), expected,
                             atol=1e-5)


@pytest.mark.slow
def test_the_whole_decode_loop_compiles_with_xla():
  """Static shapes: a while loop over decode_step under jit_compile gives the same logits."""
  model = small_model()
  inputs, targets = random_batch()
  expected = logits_of(model, inputs, targets)
  decoder_inputs = tf.constant(np.asarray(shift_right(targets)))
  length = targets.shape[1]

  @tf.function(jit_compile=True)
  def decode_all(inputs):
    memory, memory_bias = model.encode(inputs)
    cache = model.init_cache(memory, memory_bias, length)
    outputs = tf.TensorArray(tf.float32, size=length)

    def body(step, cache, outputs):
      logits, cache = model.decode_step(decoder_inputs[:, step], step, cache)
      return step + 1, cache, outputs.write(step, logits)

    _, _, outputs = tf.while_loop(lambda step, *_: step < length, body,
                                  (tf.constant(0), cache, outputs))
    return tf.transpose(outputs.stack(), [1, 0, 2])  # [batch, t, vocab]

  np.testing.assert_allclose(decode_all(tf.constant(inputs)).numpy(), expected, atol=1e-5)


def test_training_mode_applies_dropout_and_inference_does_not():
  model = small_model()
  inputs, targets = random_batch()
  features = {"inputs": inputs, "targets": targets}
  np.testing.assert_array_equal(model(features, training=False), model(features, training=False))
  assert np.abs(np.asarray(model(features, training=True)) -
                np.asarray(model(features, training=False))).max() > 1e-3


def test_config_round_trip_rebuilds_the_same_architecture():
  from t2t_lite.models.transformer import Transformer
  model = small_model(VARIANTS["unshared"], input_vocab=30)
  clone = Transformer.from_config(model.get_config())
  assert clone.hparams == model.hparams
  inputs, targets = random_batch()
  inputs = np.minimum(inputs, 29)
  logits_of(model, inputs, targets)
  logits_of(clone, inputs, targets)
  assert clone.count_params() == model.count_params()


def test_shared_embedding_needs_one_vocabulary():
  from t2t_lite.errors import UserError
  with pytest.raises(UserError, match="shared_embedding=True needs one vocabulary"):
    small_model(input_vocab=30, target_vocab=40)


@pytest.mark.parametrize("variant", [
    "paper", pytest.param("pre_norm", marks=pytest.mark.slow),
    pytest.param("unshared", marks=pytest.mark.slow)])
def test_a_model_checkpoint_holds_every_weight(variant, tmp_path):
  """A fresh model restored from `tf.train.Checkpoint(model=...)` computes the same logits."""
  model = small_model(VARIANTS[variant], seed=1)
  inputs, targets = random_batch()
  expected = logits_of(model, inputs, targets)
  path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
  saved = [name for name, _ in tf.train.list_variables(path) if name.startswith("model/")]
  assert len(saved) == len(model.weights)
  fresh = small_model(VARIANTS[variant], seed=2)
  logits_of(fresh, inputs, targets)
  tf.train.Checkpoint(model=fresh).restore(path).assert_consumed()
  np.testing.assert_allclose(logits_of(fresh, inputs, targets), expected, atol=1e-6)
