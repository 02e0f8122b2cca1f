"""Keras 3 layers of the Transformer, written with `keras.ops` (any backend)."""
