"""Attention weights as PNG heat maps, drawn as pixels (no plotting library).

Each weight is a square of `cell` × `cell` pixels whose colour goes linearly
from white (weight 0) to dark blue (weight 1): the same scale for every map,
so a sharp head looks dark and a diffuse one pale.
"""

import numpy as np
import tensorflow as tf

ZERO_COLOUR = np.array([255, 255, 255], np.float32)  # RGB of weight 0.
ONE_COLOUR = np.array([8, 48, 107], np.float32)       # RGB of weight 1.


def cell_pixels(rows, columns, width=720, smallest=12, largest=24):
  """The side of one weight's square: a map about `width` pixels across, within the limits
  (large enough for a line of label text beside each row and column)."""
  return int(np.clip(width // max(rows, columns, 1), smallest, largest))


def heatmap_rgb(weights, cell):
  """[rows, columns] weights in [0, 1] -> [rows * cell, columns * cell, 3] uint8 pixels."""
  weights = np.clip(np.asarray(weights, np.float32), 0.0, 1.0)[..., None]       # [r, c, 1]
  colours = np.rint(ZERO_COLOUR + (ONE_COLOUR - ZERO_COLOUR) * weights)           # [r, c, 3]
  return np.repeat(np.repeat(colours.astype(np.uint8), cell, axis=0), cell, axis=1)


def heatmap_png(weights, cell):
  """[rows, columns] weights in [0, 1] -> the bytes of a PNG of `heatmap_rgb`."""
  return tf.io.encode_png(heatmap_rgb(weights, cell)).numpy()
