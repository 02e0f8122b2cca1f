"""Keras's Adam, updated by one fused kernel per variable on the TensorFlow backend.

Keras's `Adam.update_step` is written in backend ops: on TensorFlow every variable's
update is some ten kernels, each a pass over the variable, its gradient and its two
moments (`g - m`, its scaling, `assign_add`, `g * g`, ..., `sqrt`, a division,
`assign_sub`). TensorFlow's `ResourceApplyAdam` does the same arithmetic in one pass:

  alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
  m += (g - m) * (1 - beta1)
  v += (g * g - v) * (1 - beta2)
  var -= m * alpha / (sqrt(v) + epsilon)

the formulas of `keras.optimizers.Adam` term for term, on the same variables (so
checkpoints are interchangeable with Keras's Adam). Other backends, AMSGrad and
non-float32 variables take Keras's path.
"""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="t2t_lite")
class FusedAdam(keras.optimizers.Adam):
  """`keras.optimizers.Adam` with a one-kernel update on TensorFlow (see module doc).

  Named "adam" by default, as Keras's Adam is: its variables get the same paths.
  """

  def __init__(self, *args, name="adam", **kwargs):
    super().__init__(*args, name=name, **kwargs)

  def update_step(self, gradient, variable, learning_rate):
    if not self._fused(variable):
      return super().update_step(gradient, variable, learning_rate)
    import tensorflow as tf  # Only reached on the TensorFlow backend.
    index = self._get_variable_index(variable)
    step = ops.cast(self.iterations + 1, "float32")
    beta_1, beta_2 = ops.cast(self.beta_1, "float32"), ops.cast(self.beta_2, "float32")
    gradient = tf.convert_to_tensor(gradient)  # A dense gradient (IndexedSlices summed).
    tf.raw_ops.ResourceApplyAdam(
        var=_handle(variable), m=_handle(self._momentums[index]),
        v=_handle(self._velocities[index]),
        beta1_power=ops.power(beta_1, step), beta2_power=ops.power(beta_2, step),
        lr=ops.cast(learning_rate, "float32"), beta1=beta_1, beta2=beta_2,
        epsilon=ops.cast(self.epsilon, "float32"),
        grad=ops.cast(gradient, "float32"), use_locking=False, use_nesterov=False)

  def _fused(self, variable):
    return (keras.backend.backend() == "tensorflow" and not self.amsgrad
            and keras.backend.standardize_dtype(variable.dtype) == "float32")


def _handle(variable):
  """The resource handle of a Keras or TensorFlow variable (this replica's, if mirrored)."""
  if isinstance(variable, keras.Variable):
    variable = variable.value
  return variable.handle
