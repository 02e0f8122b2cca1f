"""Mixed precision in a run: Keras's global dtype policy, and float16's loss scaling."""

import contextlib

import keras


@contextlib.contextmanager
def dtype_policy(mixed_precision):
  """Keras's global dtype policy "mixed_<mixed_precision>" inside (unchanged if None);
  afterwards what it was before (models built later are unaffected)."""
  previous = keras.mixed_precision.dtype_policy()
  if mixed_precision:
    keras.mixed_precision.set_dtype_policy(f"mixed_{mixed_precision}")
  try:
    yield
  finally:
    keras.mixed_precision.set_dtype_policy(previous)


def skipped_updates_line(skipped, optimizer):
  """`float16 loss scaling skipped 12 update(s) ...`: steps whose gradients overflowed (the
  LossScaleOptimizer halves its scale and applies nothing), with the scale reached."""
  scale = getattr(optimizer, "dynamic_scale", None)
  reached = f"; the loss scale is now {float(scale):g}" if scale is not None else ""
  return (f"float16 loss scaling skipped {skipped} update(s) whose gradients overflowed "
          f"(the step count did not advance for them){reached}")
