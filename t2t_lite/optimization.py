"""The learning-rate schedule and Adam of paper section 5.3."""

import keras
from keras import ops


class RsqrtDecay(keras.optimizers.schedules.LearningRateSchedule):
  """lr = constant * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5), steps counted from 1.

  With constant=1 this is the paper's formula. tensor2tensor writes its schedule as
  the product constant * linear_warmup * rsqrt_decay * rsqrt_hidden_size, i.e.
  constant * min(1, step/warmup) * max(step, warmup)^-0.5 * d_model^-0.5, which is
  the same function; its v3 sets use constant=2 and warmup=8000.
  """

  def __init__(self, hidden_size, warmup_steps, constant=1.0):
    self.hidden_size = hidden_size
    self.warmup_steps = warmup_steps
    self.constant = constant

  def __call__(self, step):
    # Keras passes the optimizer's iteration count, which starts at 0.
    step = ops.cast(step, "float32") + 1.0
    warmup = float(self.warmup_steps)
    return (self.constant * self.hidden_size ** -0.5 *
            ops.minimum(ops.rsqrt(step), step * warmup ** -1.5))

  def get_config(self):
    return {"hidden_size": self.hidden_size, "warmup_steps": self.warmup_steps,
            "constant": self.constant}


def learning_rate_schedule(hparams):
  return RsqrtDecay(hparams.hidden_size, hparams.learning_rate_warmup_steps,
                    hparams.learning_rate_constant)


def build_optimizer(hparams):
  """Adam with the hparams' betas and epsilon (paper: 0.9, 0.98, 1e-9) and the schedule."""
  return keras.optimizers.Adam(learning_rate=learning_rate_schedule(hparams),
                               beta_1=hparams.optimizer_adam_beta1,
                               beta_2=hparams.optimizer_adam_beta2,
                               epsilon=hparams.optimizer_adam_epsilon)
