"""Loads an exported SavedModel with only tensorflow and tensorflow_text, as a server would.

    python export_check.py EXPORT_DIR INPUT_FILE   -> one translation per line on stdout
"""

import sys

import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)

model = tf.saved_model.load(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as f:
  lines = f.read().split("\n")[:-1]
outputs = model.signatures["serving_default"](sentences=tf.constant(lines))
assert not [name for name in sys.modules if name.startswith("t2t_lite")], "t2t_lite imported"
ids = model.signatures["decode_ids"](ids=tf.constant([[5, 6, 7, 1] + [0] * (
    model.signatures["decode_ids"].structured_input_signature[1]["ids"].shape[1] - 4)]))
assert ids["ids"].shape[0] == 1 and ids["scores"].shape[0] == 1
sys.stdout.write("".join(text.decode("utf-8") + "\n" for text in outputs["translations"].numpy()))
