"""Label-smoothed cross-entropy over non-padding target tokens (paper section 5.4)."""

import math

import keras
from keras import ops

from t2t_lite.constants import PAD_ID


def smoothed_cross_entropy(targets, logits, label_smoothing):
  """Per-token loss: targets [batch, t] ids, logits [batch, t, vocab] -> [batch, t].

  The smoothed target puts 1 - epsilon on the true id and epsilon / (vocab - 1)
  on each other id, as tensor2tensor does. The value is the cross-entropy
  against that target minus its minimum (the target's own entropy), so a model
  that predicts the smoothed target exactly scores 0. Padding positions are 0.
  """
  targets = ops.cast(targets, "int32")  # Keras may hand labels over as floats.
  vocab_size = ops.shape(logits)[-1]
  confidence = 1.0 - label_smoothing
  low_confidence = label_smoothing / (vocab_size - 1)
  cross_entropy = _cross_entropy_against(targets, confidence, low_confidence)
  min_cross_entropy = -(_x_log_x(confidence) + (vocab_size - 1) * _x_log_x(low_confidence))
  return (cross_entropy(ops.cast(logits, "float32")) - min_cross_entropy) * non_padding(targets)


def symmetric_kl(logits, other_logits, targets):
  """Per-token (KL(p || q) + KL(q || p)) / 2 between two predictions of the same targets:
  logits, other_logits [batch, t, vocab], targets [batch, t] -> [batch, t], padding 0.

  The value is the sum over the vocabulary of (p - q) (log p - log q) / 2. Its gradient is
  written out, (p (d - KL(p || q)) + p - q) / 2 for p's logits with d = log p - log q
  (and the same with p and q swapped), recomputed from the logits: automatic
  differentiation would keep several [b, t, v] tensors from the forward pass.
  """
  @ops.custom_gradient
  def divergence(first, second):
    log_p, log_q = _log_softmax_pair(first, second)                       # [b, t, v]
    value = 0.5 * ops.sum((ops.exp(log_p) - ops.exp(log_q)) * (log_p - log_q), axis=-1)

    def gradient(*args, upstream=None):
      upstream = args[0] if upstream is None else upstream                # [b, t]
      return _symmetric_kl_gradients(first, second, upstream)

    return value, gradient
  value = divergence(ops.cast(logits, "float32"), ops.cast(other_logits, "float32"))
  return value * non_padding(targets)


def _log_softmax_pair(first, second):
  return ops.log_softmax(first, axis=-1), ops.log_softmax(second, axis=-1)


def _symmetric_kl_gradients(first, second, upstream):
  """The gradients of symmetric_kl's value for both logits, each [b, t, v]."""
  log_p, log_q = _log_softmax_pair(first, second)
  p, q = ops.exp(log_p), ops.exp(log_q)
  kl_pq = ops.sum(p * (log_p - log_q), axis=-1, keepdims=True)            # [b, t, 1]
  kl_qp = ops.sum(q * (log_q - log_p), axis=-1, keepdims=True)            # [b, t, 1]
  scale = 0.5 * ops.expand_dims(upstream, -1)
  return (scale * (p * (log_p - log_q - kl_pq) + p - q),
          scale * (q * (log_q - log_p - kl_qp) + q - p))


def non_padding(ids):
  """ids [batch, t] -> [batch, t] float32: 1 on tokens, 0 on padding."""
  return ops.cast(ops.not_equal(ops.cast(ids, "int32"), PAD_ID), "float32")


def _cross_entropy_against(targets, confidence, low_confidence):
  """-> fn(logits [b, t, v] float32) -> [b, t]: the cross-entropy against the target
  distribution q (`confidence` on each target id, `low_confidence` elsewhere).

  Written out with its gradient, softmax(logits) - q per unit of the incoming
  gradient: automatic differentiation of the same expression reaches it through a
  scatter of the target logits' gradient into a [b, t, v] tensor, a slow kernel on
  CPUs. Neither direction holds a [b, t, v] tensor of log-probabilities: the value
  needs only per-token reductions (log p = logit - log Z).
  """
  @ops.custom_gradient
  def cross_entropy(logits):
    log_z = ops.logsumexp(logits, axis=-1)                                # [b, t]
    true_logit = ops.take_along_axis(logits, ops.expand_dims(targets, -1), axis=-1)[..., 0]
    vocab_size = ops.cast(ops.shape(logits)[-1], "float32")
    true_log_prob = true_logit - log_z                                    # [b, t]
    other_log_probs = ops.sum(logits, axis=-1) - vocab_size * log_z - true_log_prob

    def gradient(*args, upstream=None):
      upstream = args[0] if upstream is None else upstream                # [b, t]
      on_target = ops.one_hot(targets, ops.shape(logits)[-1], dtype="float32")
      target_distribution = low_confidence + (confidence - low_confidence) * on_target
      probabilities = ops.exp(logits - ops.expand_dims(log_z, -1))        # [b, t, v]
      return (probabilities - target_distribution) * ops.expand_dims(upstream, -1)

    return -(confidence * true_log_prob + low_confidence * other_log_probs), gradient
  return cross_entropy


def _x_log_x(p):
  return p * math.log(p) if p > 0.0 else 0.0


def mean_over_tokens(per_token_loss, targets):
  """Averages [batch, t] per-token losses over the non-padding tokens of targets."""
  return ops.sum(per_token_loss) / ops.maximum(ops.sum(non_padding(targets)), 1.0)


class SmoothedCrossEntropy(keras.losses.Loss):
  """`smoothed_cross_entropy` averaged over non-padding tokens, for `model.compile`."""

  def __init__(self, label_smoothing=0.1, name="smoothed_cross_entropy", **kwargs):
    super().__init__(name=name, **kwargs)
    self.label_smoothing = label_smoothing

  def call(self, y_true, y_pred):
    return mean_over_tokens(smoothed_cross_entropy(y_true, y_pred, self.label_smoothing), y_true)

  def get_config(self):
    return {**super().get_config(), "label_smoothing": self.label_smoothing}
