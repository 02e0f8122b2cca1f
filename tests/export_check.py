"""Loads an exported SavedModel with only tensorflow and tensorflow_text, as a server would.

    python export_check.py EXPORT_DIR INPUT_FILE   -> one translation per line on stdout

The lines are served as one batch and each alone (a batch of one short line is decoded at
a narrower input width); both must give the same translations.
"""

import sys

import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)

model = tf.saved_model.load(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as f:
  lines = f.read().split("\n")[:-1]
serve = model.signatures["serving_default"]
outputs = serve(sentences=tf.constant(lines))
alone = [serve(sentences=tf.constant([line]))["translations"].numpy()[0] for line in lines]
assert alone == outputs["translations"].numpy().tolist(), "a line alone decodes differently"
assert not [name for name in sys.modules if name.startswith("t2t_lite")], "t2t_lite imported"
ids = model.signatures["decode_ids"](ids=tf.constant([[5, 6, 7, 1] + [0] * (
    model.signatures["decode_ids"].structured_input_signature[1]["ids"].shape[1] - 4)]))
assert ids["ids"].shape[0] == 1 and ids["scores"].shape[0] == 1
sys.stdout.write("".join(text.decode("utf-8") + "\n" for text in outputs["translations"].numpy()))
