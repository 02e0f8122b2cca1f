"""Attention weights as PNG heat maps with their tokens on the axes and a title.

Like the paper's figures 3-5: row i is query token i, column j key token j;
the colour goes from white (weight 0) to dark blue (weight 1) on the same
scale for every map, so a sharp head looks dark and a diffuse one pale.
"""

import io

import numpy as np

CMAP = "Blues"
INCHES_PER_TOKEN = 0.22   # Room for one tick label of 9-point text.
SMALLEST_INCHES = 3.0
DPI = 100
TITLE_FONT_SIZE = 11


def heatmap_figure(weights, rows, columns, *, title, row_axis, column_axis):
  """[len(rows), len(columns)] weights in [0, 1] -> a matplotlib Figure: the map with the
  row tokens at its left, the column tokens above it, the axes' names and the title."""
  from matplotlib.figure import Figure
  weights = _checked(weights, rows, columns)                                   # [r, c]
  width = max(SMALLEST_INCHES, INCHES_PER_TOKEN * len(columns)) + 2.5  # + labels, colour bar.
  height = max(SMALLEST_INCHES, INCHES_PER_TOKEN * len(rows)) + 2.0
  figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
  axis = figure.add_subplot()
  image = axis.imshow(weights, cmap=CMAP, vmin=0.0, vmax=1.0, aspect="equal",
                      interpolation="nearest")
  axis.set_xticks(range(len(columns)), labels=list(columns), rotation=90, fontsize=9)
  axis.set_yticks(range(len(rows)), labels=list(rows), fontsize=9)
  axis.xaxis.tick_top()
  axis.xaxis.set_label_position("top")
  axis.set_xlabel(column_axis)
  axis.set_ylabel(row_axis)
  axis.set_title(title, fontsize=TITLE_FONT_SIZE)
  figure.colorbar(image, ax=axis, shrink=0.6, label="attention weight")
  return figure


def heatmap_pngs(titled_weights, rows, columns, *, row_axis, column_axis):
  """(title, [len(rows), len(columns)] weights) pairs that share their tokens -> the PNG
  bytes of each one's `heatmap_figure`, in order.

  The figure is built and laid out once, with the longest title in place, then redrawn
  with each map's weights and title: a map costs one draw, not a figure and a layout pass
  (measuring every tick label), which is most of the time of a fresh figure.
  """
  titled_weights = list(titled_weights)
  longest = max((title for title, _ in titled_weights), key=len)
  figure = heatmap_figure(titled_weights[0][1], rows, columns, title=longest,
                          row_axis=row_axis, column_axis=column_axis)
  figure.draw_without_rendering()  # Runs the constrained layout ...
  # ... and drops the engine, keeping its positions for every map: with any engine set
  # (even "none"'s placeholder), savefig would draw each map twice.
  figure.set_layout_engine(None)
  axis = figure.axes[0]
  for title, weights in titled_weights:
    axis.images[0].set_data(_checked(weights, rows, columns))
    axis.set_title(title, fontsize=TITLE_FONT_SIZE)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    yield buffer.getvalue()


def _checked(weights, rows, columns):
  """Weights as float32 in [0, 1]; ValueError unless [len(rows), len(columns)]."""
  weights = np.clip(np.asarray(weights, np.float32), 0.0, 1.0)
  if weights.shape != (len(rows), len(columns)):
    raise ValueError(f"weights of shape {weights.shape} for {len(rows)} row and "
                     f"{len(columns)} column tokens")
  return weights
