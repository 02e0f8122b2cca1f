"""What t2t_lite relies on beyond Keras's and TensorFlow's public API, one test per module
that relies on it. Each failure names the installed versions and the module to revisit: an
upgrade past the range setup.py pins (keras 3.15, tensorflow 2.21) starts here."""

import os

import keras
import tensorflow as tf

from t2t_lite.layers.head_projection import HeadProjection

VERSIONS = f"keras {keras.__version__}, tensorflow {tf.__version__}"


def changed(module, what):
  return f"{VERSIONS} changed {what}, which t2t_lite/{module} relies on: revisit it"


def test_fused_adam_finds_kerass_moments_by_variable_index():
  optimizer = keras.optimizers.Adam()
  variables = [keras.Variable(tf.zeros([3])), keras.Variable(tf.zeros([2, 5]))]
  optimizer.build(variables)
  for variable in variables:
    assert hasattr(optimizer, "_get_variable_index"), changed(
        "fused_adam.py", "Optimizer._get_variable_index")
    index = optimizer._get_variable_index(variable)
    for slots in ("_momentums", "_velocities"):
      assert hasattr(optimizer, slots), changed("fused_adam.py", f"Adam.{slots}")
      assert getattr(optimizer, slots)[index].shape == variable.shape, changed(
          "fused_adam.py", f"the order of Adam.{slots}")


def test_head_projection_keeps_einsum_denses_checkpoint_name():
  einsum = keras.layers.EinsumDense("btd,dhk->bthk", output_shape=(None, 2, 4))
  einsum.build((None, None, 8))
  projection = HeadProjection((8,), (2, 4))
  projection.build()
  assert list(einsum._trackable_children()) == list(projection._trackable_children()), changed(
      "layers/head_projection.py", "the name EinsumDense tracks its kernel under")
  assert einsum.kernel.shape == projection.kernel.shape, changed(
      "layers/head_projection.py", "EinsumDense's kernel layout")


def test_dropout_draws_from_kerass_seed_generator():
  dropout = keras.layers.Dropout(0.1, seed=3)
  assert hasattr(dropout, "seed_generator"), changed("layers/dropout.py",
                                                     "Dropout.seed_generator")
  seed = dropout.seed_generator.next()
  assert tuple(seed.shape) == (2,), changed("layers/dropout.py", "the seeds it draws")


def test_a_layer_with_its_own_build_is_called_once_on_its_first_call():
  """BuiltByFirstCall (layers/built_by_first_call.py) relies on Keras calling a layer's
  own `build` instead of running its call an extra time to find its weights (a layer
  without one is called twice here)."""
  from t2t_lite.layers.built_by_first_call import BuiltByFirstCall
  calls = []

  class Outer(BuiltByFirstCall, keras.layers.Layer):
    def __init__(self):
      super().__init__()
      self.inner = keras.layers.Dense(3)

    def call(self, x):
      calls.append(isinstance(x, keras.KerasTensor))
      return self.inner(x)

  Outer()(tf.ones([2, 4]))
  assert calls == [False], changed("layers/built_by_first_call.py",
                                    "how a layer's first call builds it")


def test_file_errors_finds_tensorflows_op_error_where_it_looks():
  from t2t_lite.files.file_errors import _is_tensorflow_error
  error = tf.errors.NotFoundError(None, None, "RUN/ckpt-1.index; No such file or directory")
  assert _is_tensorflow_error(error), changed(
      "file_errors.py", "the module tensorflow.python.framework.errors_impl (OpError's home)")


def test_tensorflow_reads_its_onednn_switch_as_t2t_lite_sets_it():
  from tensorflow.python.util import _pywrap_util_port  # Where TensorFlow reports the switch.
  wanted = os.environ.get("TF_ENABLE_ONEDNN_OPTS") == "1"  # t2t_lite's default (__init__.py).
  assert _pywrap_util_port.IsMklEnabled() == wanted, changed(
      "__init__.py", "how TF_ENABLE_ONEDNN_OPTS turns the oneDNN kernels on")
