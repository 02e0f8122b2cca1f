"""R-Drop (Liang et al. 2021): each batch through the model twice, with dropout masks of
their own, and the two predictions pulled together.

The paper's loss per target token is the two passes' label-smoothed cross-entropies plus
alpha / 2 times the two KL divergences between their predicted distributions (Liang et al.,
equations 3-4; its IWSLT runs used alpha 5 at dropout 0.3). Here it is halved: the mean of
the cross-entropies plus alpha / 2 times the mean of the divergences, so that alpha 0 is
plain training's loss, and Adam's updates do not see the factor. Both passes run as one
batch of twice the examples, so a step costs about twice as much.
"""

import tensorflow as tf

from t2t_lite.layers.losses import smoothed_cross_entropy, symmetric_kl


def doubled(features):
  """Each feature [batch, ...] -> [2 * batch, ...]: the batch, then the batch again."""
  return {name: tf.concat([value, value], axis=0) for name, value in features.items()}


def halves(logits):
  """[2 * batch, t, vocab] -> the first pass's and the second's, each [batch, t, vocab]."""
  return tf.split(logits, 2, axis=0)


def r_drop_loss_sum(targets, logits, other_logits, loss_sum, label_smoothing, alpha):
  """The R-Drop loss summed over the batch's target tokens.

  targets [batch, t]; logits, other_logits [batch, t, vocab]: the two passes; loss_sum:
  the first pass's summed label-smoothed cross-entropy (token_statistics' "loss_sum").
  """
  other_loss_sum = tf.reduce_sum(smoothed_cross_entropy(targets, other_logits,
                                                        label_smoothing))
  divergence_sum = tf.reduce_sum(symmetric_kl(logits, other_logits, targets))
  return 0.5 * (loss_sum + other_loss_sum) + 0.5 * alpha * divergence_sum
