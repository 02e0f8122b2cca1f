"""t2t_lite's training step on Keras's JAX backend as one `jax.jit`-compiled pure function.

    (trainable, non_trainable, optimizer variables), batch
      -> `model.stateless_call` (dropout's seed state is a non-trainable variable)
      -> the label-smoothed loss of t2t_lite.layers.losses, mean over non-padding tokens
      -> gradients -> `optimizer.stateless_apply` (Adam, the paper's schedule)
      -> the new variables, the loss

Keras's own `train_on_batch` does the same work but costs ~200 ms per call on
JAX whatever the batch, so it is never what is timed. On a GPU the variables
are donated: each step updates them in place.
"""

import jax

from bench.gpu.model import build_model  # noqa: F401 (rows.py builds models through here)
from t2t_lite.layers.losses import mean_over_tokens, smoothed_cross_entropy
from t2t_lite.training.optimization import build_optimizer


class JaxTrainStep:
  """`__call__()`: queues one training step on a fixed batch -> the loss (a JAX array).

  inputs, targets: [batch, length] int32 ids. The compute dtype is Keras's global
  dtype policy when the model is built (mixed_bfloat16 on GPUs).
  """

  def __init__(self, hparams, vocab_size, inputs, targets):
    self.model = model = build_model(hparams, vocab_size)
    optimizer = build_optimizer(hparams)
    optimizer.build(model.trainable_variables)
    self.state = ([v.value for v in model.trainable_variables],
                  [v.value for v in model.non_trainable_variables],
                  [v.value for v in optimizer.variables])
    self.features = {"inputs": jax.numpy.asarray(inputs, "int32"),
                     "targets": jax.numpy.asarray(targets, "int32")}
    label_smoothing = hparams.label_smoothing

    def loss_fn(trainable, non_trainable, features):
      logits, non_trainable = model.stateless_call(trainable, non_trainable, features,
                                                   training=True)   # [batch, t, vocab] float32
      targets = features["targets"]
      per_token = smoothed_cross_entropy(targets, logits, label_smoothing)  # [batch, t]
      return mean_over_tokens(per_token, targets), non_trainable

    gradients = jax.value_and_grad(loss_fn, has_aux=True)

    def step(state, features):
      trainable, non_trainable, optimizer_variables = state
      (loss, non_trainable), grads = gradients(trainable, non_trainable, features)
      trainable, optimizer_variables = optimizer.stateless_apply(optimizer_variables, grads,
                                                                 trainable)
      return (trainable, non_trainable, optimizer_variables), loss

    # Donated buffers are reused in place; the CPU backend cannot, and would warn.
    donate = (0,) if jax.default_backend() != "cpu" else ()
    self.step = jax.jit(step, donate_argnums=donate)

  def __call__(self):
    self.state, loss = self.step(self.state, self.features)
    return loss


def wait(output):
  """Blocks until a queued JAX computation's output exists."""
  jax.block_until_ready(output)
