"""Pictures of a trained model's attention (t2t-visualize): heat maps and HTML pages.

  attention_maps.py  one sentence's attention weights with its tokens: what is drawn.
  heatmap.py         attention weights as PNG heat maps, the tokens on the axes.
  page.py            the maps written as PNG heat maps and HTML pages to browse offline.
"""
