"""Paper Table 3: every variation is an override of transformer_base, with the right size."""

import gc

import pytest

from t2t_lite.models.parameter_summary import format_summary, parameter_counts
from t2t_lite.models.transformer import Transformer
from t2t_lite.registry import HPARAMS

VOCAB = 37000  # The paper's shared source-target vocabulary "of about 37000 tokens".

# Table 3 row: (override of transformer_base, the paper's parameter count in millions).
TABLE_3 = {
    "base": ("", 65),
    "A h=1": ("num_heads=1", 65),
    "A h=4": ("num_heads=4", 65),
    "A h=16": ("num_heads=16", 65),
    "A h=32": ("num_heads=32", 65),
    "B dk=16": ("attention_key_channels=128", 58),
    "B dk=32": ("attention_key_channels=256", 60),
    "C N=2": ("num_hidden_layers=2", 36),
    "C N=4": ("num_hidden_layers=4", 50),
    "C N=8": ("num_hidden_layers=8", 80),
    "C d_model=256": ("hidden_size=256", 28),
    "C d_model=1024": ("hidden_size=1024", 168),
    "C d_ff=1024": ("filter_size=1024", 53),
    "C d_ff=4096": ("filter_size=4096", 90),
    "D P_drop=0.2": ("layer_prepostprocess_dropout=0.2", 65),
    "D eps_ls=0.2": ("label_smoothing=0.2", 65),
    "E positional embedding": ("pos=emb", 65),
    "big": ("hidden_size=1024,filter_size=4096,num_heads=16,layer_prepostprocess_dropout=0.3",
            213),
}


def count_by_hand(hparams, vocab):
  """The parameter count from the weight shapes alone."""
  d, f, n = hparams.hidden_size, hparams.filter_size, hparams.num_hidden_layers
  keys, values = hparams.key_channels, hparams.value_channels
  embedding = vocab * d                          # shared: inputs, targets, softmax
  attention = d * keys * 2 + d * values * 2      # W_Q, W_K: d x (h d_k); W_V, W_O: (h d_v)
  feed_forward = d * f + f + f * d + d           # two dense layers with biases
  layer_norm = 2 * d                             # gain and bias
  encoder_layer = attention + feed_forward + 2 * layer_norm
  decoder_layer = 2 * attention + feed_forward + 3 * layer_norm
  positions = 2 * hparams.max_length * d if hparams.pos == "emb" else 0
  return embedding + positions + n * (encoder_layer + decoder_layer)


@pytest.mark.parametrize("row", sorted(TABLE_3))
def test_table_3_counts(row):
  overrides, paper_millions = TABLE_3[row]
  total = count_by_hand(HPARAMS["transformer_base"]().override(overrides), VOCAB)
  # The paper's vocabulary is not published exactly; its rounded totals sit within 7%.
  assert abs(total / 1e6 - paper_millions) / paper_millions < 0.07, total


# Building a model costs seconds: one row per kind of change of shape (heads, key depth,
# layers, widths, positions); the unit tier builds the two smallest.
BUILT_ROWS = ("A h=1", "B dk=16", "C N=2", "C d_model=256", "C d_ff=4096",
              "E positional embedding", "big")
UNIT_TIER_ROWS = ("C N=2", "C d_model=256")


@pytest.mark.parametrize("row", [
    row if row in UNIT_TIER_ROWS else pytest.param(row, marks=pytest.mark.slow)
    for row in BUILT_ROWS])
def test_the_model_has_the_counted_parameters(row):
  hparams = HPARAMS["transformer_base"]().override(TABLE_3[row][0])
  model = Transformer(hparams, VOCAB, VOCAB)
  total = sum(count for _, count in parameter_counts(model))
  assert total == count_by_hand(hparams, VOCAB) == model.count_params()
  del model
  gc.collect()


def test_big_set_is_table_3s_big_row():
  overrides, _ = TABLE_3["big"]
  assert HPARAMS["transformer_big"]() == HPARAMS["transformer_base"]().override(overrides)


def test_pinned_totals_of_base_and_big():
  """Exact totals with a 37,000 vocabulary (what `t2t-trainer --summary` prints)."""
  assert count_by_hand(HPARAMS["transformer_base"](), VOCAB) == 63_045_632
  assert count_by_hand(HPARAMS["transformer_big"](), VOCAB) == 214_171_648


def test_summary_names_every_part_and_ends_with_the_total():
  hparams = HPARAMS["transformer_test_small"]().override(
      "pre_norm=True,pos=emb,shared_embedding_and_softmax_weights=False")
  model = Transformer(hparams, 100, 100)
  lines = format_summary(model).splitlines()
  names = [line.split()[0] for line in lines[:-1]]
  assert names == ["target_embedding", "input_positions", "target_positions",
                   "encoder/layer_0", "encoder/layer_1", "encoder/final_norm",
                   "decoder/layer_0", "decoder/layer_1", "decoder/final_norm", "softmax"]
  assert "(shared: inputs, targets)" in lines[0]
  assert lines[-1] == f"total_params={count_by_hand(hparams, 100) + 100 * 32 + 2 * 2 * 32}"
