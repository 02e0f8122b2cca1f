"""Does the encoder-decoder attention learn alignments? Train on reversing random sequences.

    .venv/bin/python docs/alignment_check.py [--hparams_set=transformer_small_multi30k]
        [--hparams=num_hidden_layers=2] [--learning_rate=1e-3] [--steps=300]

The target is the source reversed (then EOS): each target token needs exactly one
source position, so a working memory path shows as encoder-decoder attention that
sharpens from uniform towards one key per query. Prints, every 100 steps, the
training loss, the token accuracy of a fresh batch (teacher-forced) and each
decoder layer's memory sharpness: the largest encoder-decoder attention weight per
query, averaged (1 / SOURCE_LENGTH is uniform). Adam (0.9, 0.98, 1e-9) at a
constant learning rate and the trainer's label-smoothed loss.
"""

import argparse

import numpy as np

from t2t_lite.quiet import import_tensorflow

tf = import_tensorflow()

import keras  # noqa: E402

from t2t_lite.constants import EOS_ID  # noqa: E402
from t2t_lite.layers.losses import mean_over_tokens, smoothed_cross_entropy  # noqa: E402
from t2t_lite.models.transformer import Transformer  # noqa: E402
from t2t_lite.registry import HPARAMS  # noqa: E402

VOCAB_SIZE = 40
SOURCE_LENGTH = 10
BATCH = 64
FIRST_ID = 3  # Ids below are PAD, EOS, UNK.


def reversal_batch(rng):
  """-> inputs [BATCH, SOURCE_LENGTH], targets [BATCH, SOURCE_LENGTH + 1] (reversed, EOS)."""
  inputs = rng.integers(FIRST_ID, VOCAB_SIZE, size=(BATCH, SOURCE_LENGTH)).astype("int32")
  eos = np.full((BATCH, 1), EOS_ID, "int32")
  return inputs, np.concatenate([inputs[:, ::-1], eos], axis=1)


def memory_sharpness(model, inputs, targets):
  """[mean over batch, heads, queries of the largest encoder-decoder weight] per layer."""
  layers = model.attention_weights(inputs, targets)["memory"]   # each [b, h, t, s]
  return [float(np.mean(np.max(np.asarray(weights), axis=-1))) for weights in layers]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--hparams_set", default="transformer_small_multi30k")
  parser.add_argument("--hparams", default="num_hidden_layers=2")
  parser.add_argument("--learning_rate", type=float, default=1e-3)
  parser.add_argument("--steps", type=int, default=300)
  args = parser.parse_args()
  hparams = HPARAMS[args.hparams_set]().override(args.hparams)
  keras.utils.set_random_seed(0)
  rng = np.random.default_rng(0)
  model = Transformer(hparams, VOCAB_SIZE, VOCAB_SIZE)
  optimizer = keras.optimizers.Adam(args.learning_rate, beta_1=0.9, beta_2=0.98, epsilon=1e-9)

  @tf.function
  def train_step(inputs, targets):
    with tf.GradientTape() as tape:
      logits = model({"inputs": inputs, "targets": targets}, training=True)
      loss = mean_over_tokens(
          smoothed_cross_entropy(targets, logits, hparams.label_smoothing), targets)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss

  print(f"{hparams.num_hidden_layers} layers, d_model "
        f"{hparams.hidden_size}; uniform memory attention = {1 / SOURCE_LENGTH:.2f}")
  for step in range(args.steps + 1):
    loss = train_step(*reversal_batch(rng))
    if step % 100 == 0:
      inputs, targets = reversal_batch(rng)
      logits = model({"inputs": inputs, "targets": targets}, training=False)
      accuracy = float(np.mean(np.argmax(logits, axis=-1) == targets))
      sharpness = " / ".join(f"{value:.2f}" for value in memory_sharpness(model, inputs, targets))
      print(f"step {step}: loss {float(loss):.2f}, token accuracy {accuracy:.2f}, "
            f"memory sharpness per layer {sharpness}", flush=True)


if __name__ == "__main__":
  main()
