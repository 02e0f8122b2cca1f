"""Writes `AttentionMaps` as PNG heat maps and HTML pages to browse them offline.

    <dir>/index.html                      per kind: a grid, layer rows, head columns
                                          and a "mean" column (heads averaged)
    <dir>/<kind>_layer<L>_head<H>.png     one head's weights
    <dir>/<kind>_layer<L>_mean.png        the layer's heads averaged
    <dir>/<kind>_layer<L>_head<H>.html    the full-size map with its tokens beside it
    <dir>/<kind>_layer<L>_mean.html       (likewise)

<kind> is encoder, decoder or memory (encoder-decoder); layers count from 0
at the bottom. The pages need nothing but the files beside them.
"""

import html
import os

from t2t_lite.atomic_files import write_bytes_atomic, write_text_atomic
from t2t_lite.visualization.attention_maps import KINDS
from t2t_lite.visualization.heatmap import cell_pixels, heatmap_png

THUMBNAIL_PIXELS = 160
MEAN = "mean"

STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table.grid td, table.grid th { padding: 4px; text-align: center; }
table.grid img { width: %dpx; image-rendering: pixelated; border: 1px solid #ccc; }
.tokens span { display: inline-block; margin: 1px; padding: 0 3px; background: #eef; }
.map { display: grid; grid-template-columns: auto auto; justify-content: start; }
.columns { display: flex; align-items: flex-end; }
.columns span, .rows span { font: 11px monospace; white-space: pre; overflow: hidden;
                            flex: none; }
.columns span { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; }
.rows { display: flex; flex-direction: column; align-items: flex-end; padding-right: 4px; }
.map img { image-rendering: pixelated; display: block; }
""" % THUMBNAIL_PIXELS

AXES = {
    "source": "source tokens",
    "target": "the target token each position predicts",
    "decoder_inputs": "decoder inputs (the previous target token)",
}


def map_name(kind, layer, head):
  """The file stem of one map; head is a head index or MEAN."""
  return f"{kind.name}_layer{layer}_{MEAN if head == MEAN else f'head{head}'}"


def write_visualization(maps, directory):
  """Writes the files the module doc lists; returns their names (index.html first)."""
  os.makedirs(directory, exist_ok=True)
  written = ["index.html"]
  for kind in KINDS:
    weights = maps.weights[kind.name]                       # [layers, heads, q, k]
    rows, columns = maps.labels(kind)
    cell = cell_pixels(len(rows), len(columns))
    for layer in range(maps.num_layers):
      for head in list(range(maps.num_heads)) + [MEAN]:
        grid = weights[layer].mean(axis=0) if head == MEAN else weights[layer, head]  # [q, k]
        name = map_name(kind, layer, head)
        write_bytes_atomic(os.path.join(directory, name + ".png"), heatmap_png(grid, cell))
        write_text_atomic(os.path.join(directory, name + ".html"),
                          _map_page(maps, kind, layer, head, cell))
        written += [name + ".png", name + ".html"]
  write_text_atomic(os.path.join(directory, "index.html"), _index_page(maps))
  return written


def _page(title, body):
  return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
          f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
          f"<body>\n{body}\n</body></html>\n")


def _tokens(pieces):
  return "<div class=\"tokens\">" + "".join(
      f"<span>{html.escape(piece)}</span>" for piece in pieces) + "</div>"


def _head_title(head):
  return "mean of heads" if head == MEAN else f"head {head}"


def _index_page(maps):
  target_how = "given (teacher-forced)" if maps.teacher_forced else "greedy translation"
  parts = [
      "<h1>Attention</h1>",
      f"<p>Source: {html.escape(maps.source_text)}</p>", _tokens(maps.source),
      f"<p>Target, {target_how}: {html.escape(maps.target_text)}</p>", _tokens(maps.target),
      "<p>Rows are queries, columns keys; white is weight 0, dark blue weight 1. "
      "Click a map for its tokens.</p>",
  ]
  for kind in KINDS:
    parts.append(f"<h2 id=\"{kind.name}\">{kind.title}</h2>"
                 f"<p>Rows: {AXES[kind.rows]}; columns: {AXES[kind.columns]}.</p>")
    header = "".join(f"<th>{_head_title(head)}</th>"
                     for head in list(range(maps.num_heads)) + [MEAN])
    table = [f"<table class=\"grid\"><tr><th></th>{header}</tr>"]
    for layer in range(maps.num_layers):
      cells = "".join(
          f"<td><a href=\"{map_name(kind, layer, head)}.html\">"
          f"<img src=\"{map_name(kind, layer, head)}.png\" "
          f"alt=\"{kind.title}, layer {layer}, {_head_title(head)}\"></a></td>"
          for head in list(range(maps.num_heads)) + [MEAN])
      table.append(f"<tr><th>layer {layer}</th>{cells}</tr>")
    parts.append("".join(table) + "</table>")
  return _page("Attention", "\n".join(parts))


def _map_page(maps, kind, layer, head, cell):
  """One map at full size: column tokens above it, row tokens at its left."""
  rows, columns = maps.labels(kind)
  title = f"{kind.title}, layer {layer}, {_head_title(head)}"
  others = " | ".join(
      f"<a href=\"{map_name(kind, layer, other)}.html\">{_head_title(other)}</a>"
      for other in list(range(maps.num_heads)) + [MEAN] if other != head)
  column_labels = "".join(f"<span style=\"width:{cell}px\">{html.escape(piece)}</span>"
                          for piece in columns)
  row_labels = "".join(f"<span style=\"height:{cell}px;line-height:{cell}px\">"
                       f"{html.escape(piece)}</span>" for piece in rows)
  name = map_name(kind, layer, head)
  body = (f"<p><a href=\"index.html#{kind.name}\">all maps</a> | layer {layer}: {others}</p>"
          f"<h1>{html.escape(title)}</h1>"
          f"<p>Rows: {AXES[kind.rows]}; columns: {AXES[kind.columns]}. "
          f"White is weight 0, dark blue weight 1.</p>"
          f"<div class=\"map\"><div></div><div class=\"columns\">{column_labels}</div>"
          f"<div class=\"rows\">{row_labels}</div>"
          f"<img src=\"{name}.png\" width=\"{len(columns) * cell}\" "
          f"height=\"{len(rows) * cell}\" alt=\"{html.escape(title)}\"></div>")
  return _page(title, body)
