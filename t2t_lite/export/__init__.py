"""A trained run exported for serving (t2t-exporter).

  saved_model.py  a SavedModel: strings in, translations out, everything in the graph.
  ctranslate2.py  a CTranslate2 model directory (--export_format=ctranslate2).
"""
