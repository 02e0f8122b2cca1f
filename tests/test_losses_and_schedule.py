"""Label-smoothed loss against hand-computed values; the learning-rate formula."""

import math

import numpy as np
import pytest
import tensorflow as tf

from t2t_lite.models.hyperparameters import HParams
from t2t_lite.layers.losses import SmoothedCrossEntropy, mean_over_tokens, smoothed_cross_entropy
from t2t_lite.training.optimization import FactorSchedule, build_optimizer, learning_rate_schedule


def test_smoothed_cross_entropy_by_hand():
  logits = np.array([[[2.0, 0.5, 1.0, -1.0], [0.0, 0.0, 3.0, 0.0], [1.0, 1.0, 1.0, 1.0]]],
                    dtype="float32")  # [batch=1, t=3, vocab=4]
  targets = np.array([[2, 3, 0]], dtype="int32")  # The last position is padding.
  smoothing = 0.1
  per_token = np.asarray(smoothed_cross_entropy(targets, logits, smoothing))

  def by_hand(row, target):
    log_probs = row - math.log(sum(math.exp(v) for v in row))
    q = [smoothing / 3] * 4
    q[target] = 1 - smoothing
    cross_entropy = -sum(qi * lp for qi, lp in zip(q, log_probs))
    entropy = -sum(qi * math.log(qi) for qi in q)
    return cross_entropy - entropy

  expected = [by_hand(logits[0, 0], 2), by_hand(logits[0, 1], 3), 0.0]
  np.testing.assert_allclose(per_token[0], expected, rtol=1e-5, atol=1e-6)
  mean = float(mean_over_tokens(per_token, targets))
  assert mean == pytest.approx((expected[0] + expected[1]) / 2, rel=1e-5)
  assert float(SmoothedCrossEntropy(smoothing)(targets, logits)) == pytest.approx(mean, rel=1e-5)


def test_without_smoothing_it_is_the_negative_log_likelihood():
  logits = np.array([[[2.0, 0.5, 1.0]]], dtype="float32")
  targets = np.array([[1]], dtype="int32")
  nll = -(0.5 - math.log(math.exp(2.0) + math.exp(0.5) + math.exp(1.0)))
  assert float(smoothed_cross_entropy(targets, logits, 0.0)[0, 0]) == pytest.approx(nll, rel=1e-6)


def test_a_perfect_prediction_of_the_smoothed_target_scores_zero():
  smoothing, vocab = 0.1, 5
  q = np.full(vocab, smoothing / (vocab - 1))
  q[3] = 1 - smoothing
  logits = np.log(q).astype("float32")[None, None]
  assert float(smoothed_cross_entropy(np.array([[3]]), logits, smoothing)[0, 0]) == \
      pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_the_gradient_is_softmax_minus_the_smoothed_target(smoothing):
  """d loss / d logits = (softmax(logits) - q) x the incoming gradient, 0 at padding."""
  rng = np.random.default_rng(0)
  batch, length, vocab = 2, 3, 7
  logits = tf.constant(rng.standard_normal((batch, length, vocab)).astype("float32") * 4)
  targets = tf.constant([[2, 3, 0], [6, 1, 4]], tf.int32)          # One padding position.
  weights = tf.constant(rng.standard_normal((batch, length)).astype("float32"))
  with tf.GradientTape() as tape:
    tape.watch(logits)
    loss = tf.reduce_sum(weights * smoothed_cross_entropy(targets, logits, smoothing))
  gradient = tape.gradient(loss, logits).numpy()

  q = np.full((batch, length, vocab), smoothing / (vocab - 1))
  np.put_along_axis(q, targets.numpy()[..., None], 1 - smoothing, axis=-1)
  probabilities = np.exp(logits.numpy() - logits.numpy().max(-1, keepdims=True))
  probabilities /= probabilities.sum(-1, keepdims=True)
  not_padding = (targets.numpy() != 0)[..., None]
  expected = (probabilities - q) * weights.numpy()[..., None] * not_padding
  # float32 softmax: exp of logits up to ~16 apart, each rounded; a few ulps of 1 per entry,
  # scaled by the weight.
  tolerance = 16 * np.finfo(np.float32).eps * np.abs(weights.numpy()).max()
  np.testing.assert_allclose(gradient, expected, rtol=0, atol=tolerance)
  assert np.all(gradient[0, 2] == 0.0)


@pytest.mark.parametrize("step", [1, 100, 3999, 4000, 4001, 10000, 100000])
def test_papers_learning_rate_formula(step):
  # lrate = d_model^-0.5 * min(step_num^-0.5, step_num * warmup_steps^-1.5)
  expected = 512 ** -0.5 * min(step ** -0.5, step * 4000 ** -1.5)
  schedule = learning_rate_schedule(HParams())
  # Keras passes the 0-based iteration count; the paper counts steps from 1.
  assert float(schedule(step - 1)) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("step", [1, 5000, 8000, 50000])
def test_tensor2tensor_v3_schedule(step):
  # constant * linear_warmup * rsqrt_decay * rsqrt_hidden_size, constant 2, warmup 8000.
  expected = 2.0 * min(1.0, step / 8000) * max(step, 8000) ** -0.5 * 512 ** -0.5
  schedule = FactorSchedule(hidden_size=512, warmup_steps=8000, constant=2.0)
  assert float(schedule(step - 1)) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("step", [1, 8000, 16000, 50000])
def test_tensor2tensor_single_gpu_schedule(step):
  # transformer_base_single_gpu: constant * linear_warmup * rsqrt_decay, 0.1 and 16000.
  hparams = HParams(learning_rate_schedule="constant*linear_warmup*rsqrt_decay",
                    learning_rate_constant=0.1, learning_rate_warmup_steps=16000)
  expected = 0.1 * min(1.0, step / 16000) * max(step, 16000) ** -0.5
  assert float(learning_rate_schedule(hparams)(step - 1)) == pytest.approx(expected, rel=1e-5)


def test_an_unknown_schedule_factor_is_a_one_line_error():
  from t2t_lite.errors import UserError
  with pytest.raises(UserError, match="learning_rate_schedule='constant\\*cosdecay' must be "
                                      "factors joined by"):
    HParams().override("learning_rate_schedule=constant*cosdecay")


DECAYING = "constant*linear_warmup*rsqrt_decay*linear_decay"


@pytest.mark.parametrize("step", [1, 500, 700, 701, 850, 999, 1000, 1001, 1200])
def test_linear_decay_falls_to_zero_over_the_last_steps_as_tensor2tensors(step):
  # tensor2tensor counts steps from 0: (train_steps - step0) / decay_steps, clipped to [0, 1].
  hparams = HParams(learning_rate_schedule=DECAYING, learning_rate_constant=0.1,
                    learning_rate_warmup_steps=100, learning_rate_decay_steps=300)
  step0 = step - 1
  expected = (0.1 * min(1.0, step / 100) * max(step, 100) ** -0.5
              * min(1.0, max(0.0, (1000 - step0) / 300)))
  schedule = learning_rate_schedule(hparams, end_step=1000)
  assert float(schedule(step0)) == pytest.approx(expected, rel=1e-5, abs=1e-12)


def test_the_end_of_linear_decay_moves():
  hparams = HParams(learning_rate_schedule="constant*linear_decay",
                    learning_rate_decay_steps=10)
  schedule = learning_rate_schedule(hparams, end_step=1000)
  assert float(schedule(94)) == 1.0  # Step 95.
  schedule.set_end_step(100)
  assert float(schedule(94)) == pytest.approx(0.6)  # Steps 95-100 of the last 10 are left.
  assert float(schedule(100)) == 0.0  # Past the end.


def test_a_run_shorter_than_twice_the_decay_decays_over_its_second_half():
  # 3,000 decay steps and a run that ends at step 2,000: without the cap the rate would fall
  # from the first step on (and a warmup of 2,000 steps would never reach its peak).
  hparams = HParams(learning_rate_schedule="constant*linear_decay",
                    learning_rate_decay_steps=3000)
  schedule = learning_rate_schedule(hparams, end_step=2000)
  assert float(schedule(999)) == 1.0  # Step 1,000: the first half is undecayed.
  assert float(schedule(1499)) == pytest.approx(0.501, rel=1e-5)  # Steps 1,500-2,000 left.
  assert float(schedule(1999)) == pytest.approx(0.001, rel=1e-4)  # The last step.
  schedule.set_end_step(10000)  # A long run: the last 3,000 steps, as set.
  assert float(schedule(6999)) == 1.0 and float(schedule(8499)) == pytest.approx(1501 / 3000)


def test_linear_decay_without_its_length_is_a_one_line_error():
  from t2t_lite.errors import UserError
  with pytest.raises(UserError, match="has linear_decay, but learning_rate_decay_steps=0; "
                                      "set it to the number of final steps"):
    HParams().override(f"learning_rate_schedule={DECAYING},learning_rate_decay_steps=0")


def test_peak_learning_rate_is_at_the_end_of_warmup():
  schedule = learning_rate_schedule(HParams())
  rates = [float(schedule(step)) for step in (3000, 3999, 5000)]
  assert rates[1] > rates[0] and rates[1] > rates[2]


def test_adam_has_the_papers_betas_and_epsilon():
  optimizer = build_optimizer(HParams())
  assert (optimizer.beta_1, optimizer.beta_2, optimizer.epsilon) == (0.9, 0.98, 1e-9)
  assert isinstance(optimizer._learning_rate, FactorSchedule)
  # At iteration 0 the optimizer uses the schedule's first step.
  assert float(optimizer.learning_rate) == pytest.approx(512 ** -0.5 * 4000 ** -1.5, rel=1e-5)
