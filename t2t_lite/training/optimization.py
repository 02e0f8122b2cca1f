"""The learning-rate schedule and Adam of paper section 5.3."""

import keras
from keras import ops

from t2t_lite.training.fused_adam import FusedAdam

PAPER_SCHEDULE = ("constant", "linear_warmup", "rsqrt_decay", "rsqrt_hidden_size")


class FactorSchedule(keras.optimizers.schedules.LearningRateSchedule):
  """lr(step) = the product of tensor2tensor's schedule factors, steps counted from 1:

    constant            `constant` (hparams.learning_rate_constant)
    linear_warmup       min(1, step / warmup)
    rsqrt_decay         max(step, warmup) ** -0.5
    rsqrt_hidden_size   d_model ** -0.5
    linear_decay        clip((end_step - step + 1) / length, 0, 1): 1 until the run's
                        last `length` steps, then straight down to 0 after `end_step`;
                        length = min(decay_steps, end_step / 2): a run shorter than twice
                        `decay_steps` decays over its second half, so that it reaches its
                        peak rate first

  All four first ones with constant=1 are the paper's formula, d_model^-0.5 *
  min(step^-0.5, step * warmup^-1.5) (tensor2tensor's transformer_base_v3 has constant 2
  and warmup 8000); its transformer_base_single_gpu leaves out rsqrt_hidden_size and
  has constant 0.1, warmup 16000. tensor2tensor counts steps from 0, so its
  first update has learning rate 0; here step 1 is the first update.

  `end_step` (the run's last step, --train_steps) is a variable: a run stopped by
  --train_minutes moves it to where its pace meets the time limit (`set_end_step`).
  """

  def __init__(self, hidden_size, warmup_steps, constant=1.0, factors=PAPER_SCHEDULE,
               decay_steps=0, end_step=0):
    self.hidden_size = hidden_size
    self.warmup_steps = warmup_steps
    self.constant = constant
    self.factors = tuple(factors)
    self.decay_steps = decay_steps
    # A Keras variable: the schedule runs on the JAX backend too (bench/gpu).
    self.end_step = keras.Variable(float(end_step), dtype="float32", trainable=False,
                                   name="end_step")

  @property
  def decays_to_the_end(self):
    """Whether the schedule reads `end_step` (it has linear_decay)."""
    return "linear_decay" in self.factors

  def set_end_step(self, step):
    self.end_step.assign(float(step))

  def __call__(self, step):
    # Keras passes the optimizer's iteration count, which starts at 0.
    step = ops.cast(step, "float32") + 1.0
    warmup = float(self.warmup_steps)
    values = {
        "constant": lambda: self.constant,
        "linear_warmup": lambda: ops.minimum(1.0, step / warmup),
        "rsqrt_decay": lambda: ops.rsqrt(ops.maximum(step, warmup)),
        "rsqrt_hidden_size": lambda: self.hidden_size ** -0.5,
        "linear_decay": lambda: self._linear_decay(step),
    }
    rate = ops.ones_like(step)
    for name in self.factors:
      rate = rate * values[name]()
    return rate

  def _linear_decay(self, step):
    end = ops.cast(self.end_step, "float32")
    length = ops.minimum(float(self.decay_steps), ops.maximum(end / 2.0, 1.0))
    return ops.clip((end - step + 1.0) / length, 0.0, 1.0)

  def get_config(self):
    return {"hidden_size": self.hidden_size, "warmup_steps": self.warmup_steps,
            "constant": self.constant, "factors": list(self.factors),
            "decay_steps": self.decay_steps, "end_step": float(self.end_step.numpy())}


def learning_rate_schedule(hparams, end_step=0):
  """The schedule `hparams.learning_rate_schedule` names (the paper's by default), ending
  (for linear_decay) at step `end_step`."""
  return FactorSchedule(hparams.hidden_size, hparams.learning_rate_warmup_steps,
                        hparams.learning_rate_constant, hparams.schedule_factors,
                        hparams.learning_rate_decay_steps, end_step)


def build_optimizer(hparams, schedule=None):
  """Adam with the hparams' betas and epsilon (paper: 0.9, 0.98, 1e-9) and `schedule`
  (default: the hparams' own, `learning_rate_schedule(hparams)`)."""
  return FusedAdam(learning_rate=schedule or learning_rate_schedule(hparams),
                   beta_1=hparams.optimizer_adam_beta1,
                   beta_2=hparams.optimizer_adam_beta2,
                   epsilon=hparams.optimizer_adam_epsilon)
