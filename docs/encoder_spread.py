"""Do a trained run's encoder positions stay distinct? Their spread, layer by layer.

    .venv/bin/python docs/encoder_spread.py RUN_DIR "a source sentence"

Spread of [s, d_model] vectors: the mean distance of each position's vector from the
positions' mean, over the mean vector norm. Near 0 means every position carries the
same vector (the encoder has collapsed): encoder-decoder attention then weighs every
source position equally, whatever it learns, since all keys are equal.
"""

import sys

import numpy as np

from t2t_lite.constants import EOS_ID
from t2t_lite.layers.attention_bias import padding_bias
from t2t_lite.run import Run


def spread(states):
  """[1, s, d] -> the positions' spread (see the module's doc)."""
  states = np.asarray(states)[0]                                  # [s, d]
  distances = np.linalg.norm(states - states.mean(axis=0), axis=-1)
  return float(distances.mean() / np.linalg.norm(states, axis=-1).mean())


def main(run_dir, sentence):
  run = Run.open(run_dir)
  model = run.model
  ids = np.array([run.input_vocab.encode(sentence).numpy().tolist() + [EOS_ID]], np.int32)
  bias = padding_bias(ids)                                        # [1, 1, 1, s]
  x = model._embed(model.input_embedding, model.input_positions, ids, 0, False)
  print(f"{ids.shape[1]} source tokens; embedded input: spread {spread(x):.3f}")
  for index, layer in enumerate(model.encoder.blocks):
    x = layer(x, bias, training=False)                            # [1, s, d_model]
    print(f"after encoder layer {index}: spread {spread(x):.3f}")
  memory, _ = model.encode(ids, training=False)
  print(f"encoder output (the decoder's memory): spread {spread(memory):.3f}")


if __name__ == "__main__":
  if len(sys.argv) != 3:
    raise SystemExit(__doc__.splitlines()[2].strip())
  main(*sys.argv[1:])
