"""HeadProjection computes EinsumDense's projections and reads its checkpoints."""

import numpy as np
import pytest
import tensorflow as tf
import keras

from t2t_lite.layers.head_projection import HeadProjection

# (equation, in_dims, out_dims, input shape): into heads and out of heads.
CASES = [("btd,dhk->bthk", (12,), (3, 4), (2, 5, 12)),
         ("bthv,hvd->btd", (3, 4), (12,), (2, 5, 3, 4))]


@pytest.mark.parametrize("equation, in_dims, out_dims, input_shape", CASES,
                         ids=["into_heads", "out_of_heads"])
def test_same_product_as_einsum_dense_from_its_checkpoint(tmp_path, equation, in_dims, out_dims,
                                                          input_shape):
  x = np.random.default_rng(0).standard_normal(input_shape).astype(np.float32)
  einsum = keras.layers.EinsumDense(equation, output_shape=(None,) + out_dims)
  expected = np.asarray(einsum(x))
  path = tf.train.Checkpoint(layer=einsum).save(str(tmp_path / "ckpt"))

  projection = HeadProjection(in_dims, out_dims)
  projection.build()
  tf.train.Checkpoint(layer=projection).restore(path).assert_existing_objects_matched()
  np.testing.assert_array_equal(projection.kernel.numpy(), einsum.kernel.numpy())
  actual = np.asarray(projection(x))
  assert actual.shape == expected.shape
  # The same sums of 12 products in another order: a few ulps of the largest term.
  scale = np.abs(x).max() * np.abs(einsum.kernel.numpy()).max() * 12
  np.testing.assert_allclose(actual, expected, rtol=0,
                             atol=4 * np.finfo(np.float32).eps * scale)
