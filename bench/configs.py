"""The shapes every benchmark shares: models, token batches, decoding settings, data paths."""

import dataclasses
import os

import numpy as np

from t2t_lite.models.hyperparameters import HParams

# Training: the paper's vocabulary size class (32k shared BPE) and one fixed token batch.
TRAIN_VOCAB_SIZE = 32768
TRAIN_BATCH = 16         # Sentences per step.
TRAIN_LENGTH = 32        # Tokens per sentence, inputs and targets, no padding.

# Dropout 0.1 everywhere (residuals and embeddings, attention weights, ReLU activations),
# as PyTorch's nn.Transformer applies it, so every implementation does the same work.
_DROPOUT_EVERYWHERE = dict(layer_prepostprocess_dropout=0.1, attention_dropout=0.1,
                           relu_dropout=0.1)
BASE = dataclasses.replace(HParams(), **_DROPOUT_EVERYWHERE)  # transformer_base's shapes.
# transformer_big's widths (d_model 1024, d_ff 4096, 16 heads) at 2 layers instead of 6,
# so that its rows fit the time budget on a small CPU.
BIG_REDUCED = dataclasses.replace(BASE, hidden_size=1024, filter_size=4096, num_heads=16,
                                  num_hidden_layers=2)


def _shape_of(hparams_set):
  """The layer shapes (depth, widths, heads) of a registered hparams set."""
  from t2t_lite.registry import HPARAMS
  hparams = HPARAMS[hparams_set]()
  return {name: getattr(hparams, name)
          for name in ("num_hidden_layers", "hidden_size", "filter_size", "num_heads")}


# transformer_small_multi30k's shapes (N=4, d_model 256, d_ff 1024, h 4), post-norm and
# dropout as the others here.
SMALL_MULTI30K = dataclasses.replace(BASE, **_shape_of("transformer_small_multi30k"))
TRAIN_MODELS = {
    "transformer_base (N=6, d_model 512)": BASE,
    "transformer_big widths, N=2 (d_model 1024)": BIG_REDUCED,
    "transformer_small_multi30k shapes (N=4, d_model 256)": SMALL_MULTI30K,
}

# Decoding: a small untrained model on real sentences; EOS is never chosen before each
# sentence's limit (input length + DECODE_EXTRA), so every implementation emits the
# same number of tokens.
DECODE_HPARAMS = dataclasses.replace(HParams(), num_hidden_layers=3, hidden_size=256,
                                     filter_size=1024, num_heads=4, max_length=512)
DECODE_VOCAB_SIZE = 8000
DECODE_EXTRA = 50        # tensor2tensor's decode length: input length + 50.
BEAM_ALPHA = 0.6
WIDTH_BUCKET = 16        # Batches are padded to a multiple of this width.

SHARED_DATA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "shared",
                                           "data"))
NEWSTEST_EN = os.path.join(SHARED_DATA, "wmt14", "newstest2014-full.en-de.en")
EUROPARL = os.path.join(SHARED_DATA, "europarl", "europarl-v7.de-en.first20k")


def model_label(hparams):
  """`N=6, d_model 512, d_ff 2048, h 8`."""
  return (f"N={hparams.num_hidden_layers}, d_model {hparams.hidden_size}, "
          f"d_ff {hparams.filter_size}, h {hparams.num_heads}")


def random_batch(vocab_size, sentences=TRAIN_BATCH, length=TRAIN_LENGTH, seed=0):
  """(inputs, targets): [sentences, length] int32 ids in [2, vocab_size), no padding."""
  rng = np.random.default_rng(seed)
  return (rng.integers(2, vocab_size, (sentences, length)).astype(np.int32),
          rng.integers(2, vocab_size, (sentences, length)).astype(np.int32))
