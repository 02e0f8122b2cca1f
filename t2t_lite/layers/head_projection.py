"""Attention's projections into and out of heads, each computed as one 2-D matmul."""

import math

import keras
from keras import ops


class HeadProjection(keras.layers.Layer):
  """[..., *in_dims] -> [..., *out_dims] through a kernel [*in_dims, *out_dims], no bias.

  Into heads: in_dims (d_model,), out_dims (heads, depth); out of heads: in_dims
  (heads, depth), out_dims (d_model,). The kernel keeps the heads as their own axes
  (the layout of `keras.layers.EinsumDense` with "btd,dhk->bthk" and "bthv,hvd->btd",
  whose checkpoints it reads), while the product runs on the flattened
  [tokens, prod(in_dims)] x [prod(in_dims), prod(out_dims)]: on TensorFlow an einsum of a
  batched input with a shared kernel is a batched matmul, one small product per sentence,
  and its kernel gradient a [batch, in, out] tensor summed afterwards (measured: the
  projections of transformer_base ran at 170 GFLOP/s on a CPU whose plain matmuls ran
  at 230). On JAX both forms compile to the same dot.
  """

  def __init__(self, in_dims, out_dims, **kwargs):
    super().__init__(**kwargs)
    self.in_dims = tuple(in_dims)
    self.out_dims = tuple(out_dims)

  def build(self, input_shape=None):
    del input_shape  # The kernel's shape is known from the constructor.
    # Tracked as `_kernel`, EinsumDense's attribute: checkpoints find it under that name.
    self._kernel = self.add_weight(name="kernel", shape=self.in_dims + self.out_dims,
                                   initializer="glorot_uniform")
    self.built = True

  @property
  def kernel(self):
    return self._kernel

  def call(self, x):
    leading = ops.shape(x)[:len(x.shape) - len(self.in_dims)]
    rows = ops.reshape(x, (-1, math.prod(self.in_dims)))               # [tokens, in]
    kernel = ops.reshape(ops.cast(self.kernel, self.compute_dtype),
                         (math.prod(self.in_dims), math.prod(self.out_dims)))
    return ops.reshape(ops.matmul(rows, kernel), tuple(leading) + self.out_dims)
