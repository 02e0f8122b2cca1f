"""Keras's global dtype policy for the duration of a run."""

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
