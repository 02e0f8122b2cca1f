"""The attention maps the page at / shows: t2t-visualize's heat maps of one sentence, each
layer's heads averaged, for each kind (encoder, decoder, encoder-decoder attention).

    pictures(maps) -> [{"kind", "layer", "title", "png": base64 PNG}]
"""

import base64

from t2t_lite.visualization.attention_maps import KINDS
from t2t_lite.visualization.heatmap import heatmap_pngs
from t2t_lite.visualization.page import AXES, MEAN, map_title


def pictures(maps):
  """`AttentionMaps` -> one picture per kind and layer (its heads' mean), in KINDS' order."""
  drawn = []
  for kind in KINDS:
    weights = maps.weights[kind.name]                     # [layers, heads, queries, keys]
    rows, columns = maps.labels(kind)
    titled = [(map_title(kind, layer, MEAN), weights[layer].mean(axis=0))   # [q, k]
              for layer in range(maps.num_layers)]
    pngs = heatmap_pngs(titled, rows, columns, row_axis=AXES[kind.rows],
                        column_axis=AXES[kind.columns])
    drawn += [{"kind": kind.title, "layer": layer, "title": title,
               "png": base64.b64encode(png).decode("ascii")}
              for layer, ((title, _), png) in enumerate(zip(titled, pngs))]
  return drawn
