"""Attention weights (`Transformer.attention_weights`) and t2t-visualize."""

import html
import io
import json
import os
import re
import shutil

import numpy as np
import pytest
import tensorflow as tf

from commands import call
from model_fixtures import VARIANTS, random_batch, small_model
from t2t_lite.data.vocabulary import Vocabulary
from t2t_lite.layers.attention_bias import causal_bias, padding_bias
from t2t_lite.layers.encoder import apply_final_norm
from t2t_lite.models.transformer import shift_right
from t2t_lite.visualization.heatmap import heatmap_figure, heatmap_pngs

KINDS = ("encoder", "decoder", "memory")


def weights_of(model, inputs, targets):
  return {kind: [np.asarray(w) for w in layers]
          for kind, layers in model.attention_weights(inputs, targets).items()}


@pytest.mark.parametrize("variant", ["paper", "pre_norm", "key_value_depths"])
def test_shapes_and_rows_sum_to_one(variant):
  model = small_model(VARIANTS[variant])
  inputs, targets = random_batch(batch=3, input_length=7, target_length=6)
  weights = weights_of(model, inputs, targets)
  assert sorted(weights) == sorted(KINDS)
  shapes = {"encoder": (3, 4, 7, 7), "decoder": (3, 4, 6, 6), "memory": (3, 4, 6, 7)}
  for kind in KINDS:
    assert len(weights[kind]) == 2
    for layer in weights[kind]:
      assert layer.shape == shapes[kind] and layer.dtype == np.float32
      assert layer.min() >= 0
      np.testing.assert_allclose(layer.sum(axis=-1), 1.0, atol=1e-5)


def test_decoder_self_attention_is_causal():
  model = small_model()
  inputs, targets = random_batch()
  for layer in weights_of(model, inputs, targets)["decoder"]:
    future = np.triu(np.ones(layer.shape[-2:], bool), k=1)  # [t, t]: key j > query i
    assert np.all(layer[..., future] == 0)
    assert np.all(layer[..., ~future] > 0)


def test_padding_keys_get_zero_weight():
  model = small_model()
  inputs, targets = random_batch()  # inputs[0, -2:] is padding, the other rows have none.
  weights = weights_of(model, inputs, targets)
  for kind in ("encoder", "memory"):
    for layer in weights[kind]:
      assert np.all(layer[0, ..., -2:] == 0)
      assert np.all(layer[0, ..., :-2] > 0) and np.all(layer[1:] > 0)


def test_weights_reproduce_the_attention_outputs():
  """Each layer's weights times its values, through the output projection, equal the
  attention sublayer's own output; the layers are re-run here step by step."""
  model = small_model(VARIANTS["pre_norm"])
  inputs, targets = random_batch()
  weights = weights_of(model, inputs, targets)

  def from_weights(attention, probabilities, memory):
    _, values = attention.project_memory(memory)                       # [b, s, h, d_v]
    context = np.einsum("bhts,bshv->bthv", probabilities, np.asarray(values))
    return np.asarray(attention.output_dense(context))                 # [b, t, d_model]

  bias = padding_bias(inputs)
  x = model._embed(model.input_embedding, model.input_positions, inputs, 0, False)
  for layer, probabilities in zip(model.encoder.blocks, weights["encoder"]):
    y = layer.self_attention_residual.preprocess(x)
    np.testing.assert_allclose(from_weights(layer.self_attention, probabilities, y),
                               np.asarray(layer.self_attention(y, y, bias)), atol=1e-5)
    x = layer(x, bias)
  memory, _ = model.encode(inputs)

  self_bias = causal_bias(targets.shape[1])
  x = model._embed(model.target_embedding, model.target_positions, shift_right(targets), 0,
                   False)
  for i, layer in enumerate(model.decoder.blocks):
    y = layer.self_attention_residual.preprocess(x)
    attended = np.asarray(layer.self_attention(y, y, self_bias))
    np.testing.assert_allclose(from_weights(layer.self_attention, weights["decoder"][i], y),
                               attended, atol=1e-5)
    z = layer.memory_attention_residual.preprocess(
        layer.self_attention_residual.postprocess(x, attended))
    np.testing.assert_allclose(
        from_weights(layer.memory_attention, weights["memory"][i], memory),
        np.asarray(layer.memory_attention(z, memory, bias)), atol=1e-5)
    x = layer(x, memory, self_bias, bias)
  # The stack re-run here is the model's: the same logits.
  logits = np.asarray(model._logits(apply_final_norm(model.decoder.final_norm, x)))
  np.testing.assert_allclose(logits, np.asarray(model({"inputs": inputs, "targets": targets})),
                             atol=1e-4)


def test_heatmap_has_its_tokens_on_the_axes_and_a_title():
  weights = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]], np.float32)
  rows, columns = ["Wieder", "</s>"], ["▁Resum", "ption", "</s>"]
  figure = heatmap_figure(weights, rows, columns, title="Encoder self-attention, layer 0",
                          row_axis="queries", column_axis="keys")
  axis = figure.axes[0]
  assert [t.get_text() for t in axis.get_yticklabels()] == rows
  assert [t.get_text() for t in axis.get_xticklabels()] == columns
  assert axis.get_title() == "Encoder self-attention, layer 0"
  assert (axis.get_ylabel(), axis.get_xlabel()) == ("queries", "keys")
  # Row i, column j is weight [i, j]; one colour scale, 0 to 1, for every map.
  image = axis.images[0]
  np.testing.assert_array_equal(image.get_array(), weights)
  assert image.get_clim() == (0.0, 1.0)
  png = next(heatmap_pngs([("t", weights)], rows, columns, row_axis="r", column_axis="c"))
  assert tf.io.decode_png(png).shape[-1] in (3, 4)
  with pytest.raises(ValueError, match="3 column tokens"):
    heatmap_figure(weights.T, rows, columns, title="t", row_axis="r", column_axis="c")


def test_a_series_of_maps_draws_what_each_map_alone_draws():
  """heatmap_pngs lays the figure out once for all its maps: each PNG is pixel for pixel
  the one a figure of its own gives."""
  rows = columns = ["▁Die", "▁Sitzung", "</s>"]
  grids = np.random.default_rng(0).random((3, 3, 3), dtype=np.float32)  # [maps, r, c]
  titles = ["Encoder self-attention, layer 0, head 0", "Encoder self-attention, layer 0, head 1",
            "Encoder self-attention, layer 0, mean of heads"]
  series = list(heatmap_pngs(zip(titles, grids), rows, columns, row_axis="queries",
                             column_axis="keys"))
  assert len(series) == 3
  for title, grid, png in zip(titles, grids, series):
    figure = heatmap_figure(grid, rows, columns, title=title, row_axis="queries",
                            column_axis="keys")
    alone = io.BytesIO()
    figure.savefig(alone, format="png")  # Laid out for this map alone.
    np.testing.assert_array_equal(tf.io.decode_png(png).numpy(),
                                  tf.io.decode_png(alone.getvalue()).numpy())
  with pytest.raises(ValueError, match="weights of shape \\(2, 3\\) for 3 row"):
    list(heatmap_pngs([("fits", grids[0]), ("a row short", grids[1][:2])], rows, columns,
                      row_axis="queries", column_axis="keys"))


def visualize(*flags):
  return call("t2t-visualize", *flags)


def test_command_writes_every_map(trained_run, tmp_path):
  _, output_dir, _ = trained_run
  with open(os.path.join(output_dir, "hparams.json")) as f:
    hparams = json.load(f)
  layers, heads = hparams["num_hidden_layers"], hparams["num_heads"]
  target = "Wiederaufnahme der Sitzungsperiode"
  runs = {"greedy": (), "forced": (f"--target={target}",)}
  for name, flags in runs.items():
    out = tmp_path / name
    result = visualize(f"--output_dir={output_dir}", "--sentence=Resumption of the session",
                       f"--visualize_dir={out}", *flags)
    assert result.returncode == 0, result.stderr[-3000:]
    pngs = sorted(p.name for p in out.glob("*.png"))
    # Every head and each layer's mean, for each of the 3 kinds.
    assert len(pngs) == 3 * layers * (heads + 1), pngs
    assert f"encoder_layer{layers - 1}_head{heads - 1}.png" in pngs
    assert "memory_layer0_mean.png" in pngs
    index = (out / "index.html").read_text(encoding="utf-8")
    assert sorted(set(re.findall(r'src="([^"]+)"', index))) == pngs
    for png in pngs:
      page = (out / png.replace(".png", ".html")).read_text(encoding="utf-8")
      assert f'src="{png}"' in page
      assert tf.io.decode_png((out / png).read_bytes()).shape[-1] in (3, 4)
    # The source's SentencePiece pieces label the maps, EOS included, in order.
    source = pieces(output_dir, 0, "Resumption of the session")
    assert source[-1] == "</s>" and len(source) > 2
    assert labels(out / "encoder_layer1_head2.html") == (source, source)
  assert f"target: {target}" in result.stdout
  forced = pieces(output_dir, 1, target)
  assert labels(out / "memory_layer0_head0.html") == (forced, source)
  assert labels(out / "decoder_layer1_mean.html") == (forced, ["<start>"] + forced[:-1])


def pieces(output_dir, side, text):
  """The SentencePiece pieces of `text` with the run's vocabulary (0: inputs, 1: targets)."""
  with open(os.path.join(output_dir, "run.json")) as f:
    vocab_file = json.load(f)["vocab_files"][side]
  vocab = Vocabulary.load(os.path.join(output_dir, vocab_file), "test")
  ids = vocab.encode(tf.constant(text))
  return [piece.decode("utf-8") for piece in vocab.id_to_piece(ids).numpy()]


def labels(page_path):
  """(row labels, column labels) of a map page, unescaped."""
  page = page_path.read_text(encoding="utf-8")
  rows, columns = (re.findall(r"<span>([^<]*)</span>",
                              re.search(f'<div class="tokens {role}">(.*?)</div>', page)[1])
                   for role in ("rows", "columns"))
  return [html.unescape(r) for r in rows], [html.unescape(c) for c in columns]


def test_bad_input_is_one_line(trained_run, tmp_path):
  _, output_dir, _ = trained_run
  empty_run = tmp_path / "empty_run"
  empty_run.mkdir()
  for name in ("hparams.json", "run.json"):
    shutil.copy(os.path.join(output_dir, name), empty_run / name)
  out = f"--visualize_dir={tmp_path / 'out'}"
  cases = [
      ((f"--output_dir={output_dir}", out), "--sentence is required"),
      ((f"--output_dir={empty_run}", "--sentence=Resumption", out), "no checkpoint in"),
      ((f"--output_dir={output_dir}", "--sentence=  ", out), "--sentence is empty"),
  ]
  for flags, message in cases:
    result = visualize(*flags)
    assert result.returncode == 2, (flags, result.stderr[-2000:])
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("t2t-visualize: error:") and message in last_line, last_line
    assert "Traceback" not in result.stderr
  assert not (tmp_path / "out").exists()


def test_bad_texts_are_user_errors(trained_run):
  from t2t_lite.errors import UserError
  from t2t_lite.run import Run
  from t2t_lite.visualization.attention_maps import sentence_attention
  _, output_dir, _ = trained_run
  translator = Run.open(output_dir).translator("beam_size=1")
  cases = [(("Resumption", ""), "--target is empty"),
           (("\t \n", None), "--sentence is empty"),
           (("word " * 2000, None), "--sentence has"),
           (("Resumption", "Wort " * 2000), "--target has")]
  for (sentence, target), message in cases:
    with pytest.raises(UserError, match=message) as error:
      sentence_attention(translator, sentence, target)
    assert f"at most max_length={translator.hparams.max_length}" in str(error.value) or \
        "is empty" in message
