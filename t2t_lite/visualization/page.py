"""Writes `AttentionMaps` as PNG heat maps and HTML pages to browse them offline.

    <dir>/index.html                      per kind: a grid, layer rows, head columns
                                          and a "mean" column (heads averaged)
    <dir>/<kind>_layer<L>_head<H>.png     one head's weights, tokens on the axes, a title
    <dir>/<kind>_layer<L>_mean.png        the layer's heads averaged
    <dir>/<kind>_layer<L>_head<H>.html    the map at full size, with links to the others
    <dir>/<kind>_layer<L>_mean.html       (likewise)

<kind> is encoder, decoder or memory (encoder-decoder); layers count from 0
at the bottom. The pages need nothing but the files beside them.
"""

import html
import os

from t2t_lite.files.atomic_files import write_bytes_atomic, write_text_atomic
from t2t_lite.visualization.attention_maps import KINDS
from t2t_lite.visualization.heatmap import heatmap_pngs

THUMBNAIL_PIXELS = 160
MEAN = "mean"

STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
table.grid td, table.grid th { padding: 4px; text-align: center; }
table.grid img { width: %dpx; border: 1px solid #ccc; }
.tokens span { display: inline-block; margin: 1px; padding: 0 3px; background: #eef; }
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
    layer_heads = [(layer, head) for layer in range(maps.num_layers)
                   for head in list(range(maps.num_heads)) + [MEAN]]
    grids = ((map_title(kind, layer, head),
              weights[layer].mean(axis=0) if head == MEAN else weights[layer, head])  # [q, k]
             for layer, head in layer_heads)
    pngs = heatmap_pngs(grids, rows, columns, row_axis=AXES[kind.rows],
                        column_axis=AXES[kind.columns])
    for (layer, head), png in zip(layer_heads, pngs):
      name = map_name(kind, layer, head)
      write_bytes_atomic(os.path.join(directory, name + ".png"), png)
      write_text_atomic(os.path.join(directory, name + ".html"),
                        _map_page(kind, layer, head, maps.num_heads, rows, columns))
      written += [name + ".png", name + ".html"]
  write_text_atomic(os.path.join(directory, "index.html"), _index_page(maps))
  return written


def _page(title, body):
  return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
          f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
          f"<body>\n{body}\n</body></html>\n")


def _tokens(pieces, role=""):
  return f"<div class=\"tokens {role}\">" + "".join(
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
      "Click a map to see it at full size.</p>",
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


def map_title(kind, layer, head):
  return f"{kind.title}, layer {layer}, {_head_title(head)}"


def _map_page(kind, layer, head, num_heads, rows, columns):
  """One map at full size, its tokens listed as text below it, and links to its layer's
  other maps."""
  title = map_title(kind, layer, head)
  others = " | ".join(
      f"<a href=\"{map_name(kind, layer, other)}.html\">{_head_title(other)}</a>"
      for other in list(range(num_heads)) + [MEAN] if other != head)
  name = map_name(kind, layer, head)
  body = (f"<p><a href=\"index.html#{kind.name}\">all maps</a> | layer {layer}: {others}</p>"
          f"<h1>{html.escape(title)}</h1>"
          f"<p>Rows: {AXES[kind.rows]}; columns: {AXES[kind.columns]}. "
          f"White is weight 0, dark blue weight 1.</p>"
          f"<img src=\"{name}.png\" alt=\"{html.escape(title)}\">"
          f"<p>Rows, top to bottom:</p>{_tokens(rows, 'rows')}"
          f"<p>Columns, left to right:</p>{_tokens(columns, 'columns')}")
  return _page(title, body)
