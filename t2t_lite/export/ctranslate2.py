"""A CTranslate2 model directory of a trained run (t2t-exporter --export_format=ctranslate2).

    export_ctranslate2(output_dir, export_dir=None, checkpoint_path=None, quantization=None)
    transformer_spec(model, source_tokens, target_tokens)   # the ctranslate2.specs model

The directory holds CTranslate2's model.bin, config.json and vocabulary, and the run's
SentencePiece model beside them (`SENTENCEPIECE_FILES`); it needs only the `ctranslate2`
and `sentencepiece` packages (the `ctranslate2` extra: `pip install -e ".[ctranslate2]"`):

    import ctranslate2, sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file="DIR/sentencepiece.model")
    translator = ctranslate2.Translator("DIR")
    results = translator.translate_batch(sp.encode(["Hello."], out_type=str), beam_size=4)
    sp.decode(results[0].hypotheses[0])

How t2t_lite's Transformer maps onto CTranslate2's TransformerSpec:
  - Vocabulary: the SentencePiece pieces in id order, so that ids agree. Sources end with
    EOS ("</s>", id 1), which CTranslate2 appends (config add_source_eos). The decoder
    starts from id 0 ("<pad>", the decoder start token), which t2t_lite embeds as the zero
    vector: CTranslate2's start_from_zero_embedding.
  - Embeddings times sqrt(d_model), as CTranslate2's scale_embeddings does. Shared
    embeddings and the tied softmax are the same matrix, written once (CTranslate2 aliases
    equal variables); the softmax has no bias.
  - Positions: CTranslate2's own sinusoids differ from t2t_lite's (timescales
    10000^(-i/(d/2 - 1)), positions counted from 1), so the table t2t_lite adds is written
    out: `sinusoids` (sin and cos halves, the paper's 1/10000^(2i/d)) for POSITIONS
    positions, or the learned table (pos="emb").
  - Post-norm (the paper, transformer_base) and pre-norm (tensor2tensor v3, with the
    stacks' final norm) are CTranslate2's pre_norm flag; the norm epsilon is the config's
    layer_norm_epsilon.
  - Attention projections: t2t_lite's kernels [d_model, heads, depth] (into heads) and
    [heads, depth, d_model] (out of heads) become CTranslate2's [out, in] linear weights,
    the queries, keys and values of self-attention fused into one, the keys and values of
    encoder-decoder attention into another.
Decoding: greedy, CTranslate2 gives t2t_lite's outputs. Its beam search divides a
hypothesis's log-probability by length ** length_penalty (length without EOS), t2t_lite's by
((5 + length) / 6) ** alpha (length with EOS, GNMT's); the two grow alike around outputs of
L tokens when length_penalty = alpha * L / (L + 6) (0.4 for alpha 0.6 and L = 12). Its
searches stop at one max_decoding_length per call, t2t_lite's at each sentence's input
length + extra_length (`bench.ctranslate2_decoding.ctranslate2_translator` groups sentences
by length to match).
"""

import json
import os
import shutil

from absl import logging
import numpy as np

from t2t_lite.constants import EOS_ID, PAD_ID, UNK_ID
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import replacing_directory

INSTALL_HINT = "pip install -e \".[ctranslate2]\" in the checkout's .venv"

# Weight types CTranslate2 converts to (its ACCEPTED_MODEL_TYPES); None keeps float32.
QUANTIZATIONS = ("float32", "int8", "int8_float32", "int8_float16", "int8_bfloat16", "int16",
                 "float16", "bfloat16")

# Rows of the sinusoid tables written out: positions 0..POSITIONS-1, enough for
# CTranslate2's default limits (max_input_length 1024 source tokens; max_decoding_length
# 256 target tokens after the start token).
POSITIONS = 1025

# The SentencePiece model(s) copied beside the model: one when source and target share it.
SENTENCEPIECE_FILES = {"shared": "sentencepiece.model", "source": "source_sentencepiece.model",
                       "target": "target_sentencepiece.model"}


def import_ctranslate2():
  """The ctranslate2 module; UserError saying how to install it when it is missing."""
  try:
    import ctranslate2
  except ImportError:
    raise UserError(f"--export_format=ctranslate2 needs the ctranslate2 package, which is not "
                    f"installed; run {INSTALL_HINT}") from None
  return ctranslate2


def check_expressible(hparams):
  """UserError naming the setting when CTranslate2's Transformer cannot express the model."""
  if hparams.key_channels != hparams.value_channels:
    raise UserError(f"CTranslate2 cannot express attention_key_channels={hparams.key_channels} "
                    f"with attention_value_channels={hparams.value_channels}: its attention "
                    f"has one depth per head for queries, keys and values; export this run "
                    f"as a SavedModel (the default --export_format)")
  if hparams.right_to_left:
    raise UserError("CTranslate2 would write this right-to-left run's outputs reversed "
                    "(hparams right_to_left=True): export it as a SavedModel (the default "
                    "--export_format), which turns them back")


def check_quantization(quantization):
  """UserError unless `quantization` is None (float32) or one of QUANTIZATIONS."""
  if quantization not in (None,) + QUANTIZATIONS:
    raise UserError(f"--quantization={quantization} is not one of {', '.join(QUANTIZATIONS)}")


def transformer_spec(model, source_tokens, target_tokens):
  """A t2t_lite `Transformer` (weights built) -> ctranslate2.specs.TransformerSpec.

  source_tokens, target_tokens: the token of every id (the vocabulary's pieces by id); PAD,
  EOS and UNK are the ids of t2t_lite.constants. See the module doc for the mapping.
  """
  ctranslate2 = import_ctranslate2()
  specs = ctranslate2.specs
  hparams = model.hparams
  check_expressible(hparams)
  head_dim = hparams.key_channels // hparams.num_heads
  shape = dict(num_layers=hparams.num_hidden_layers, num_heads=hparams.num_heads,
               pre_norm=hparams.pre_norm, activation=specs.Activation.RELU,
               head_dim=None if head_dim * hparams.num_heads == hparams.hidden_size else head_dim)
  encoder = specs.TransformerEncoderSpec(**shape)
  decoder = specs.TransformerDecoderSpec(**shape)

  encoder.embeddings[0].weight = _numpy(model.input_embedding.embeddings)
  encoder.position_encodings.encodings = _position_table(model.input_positions)
  for spec, layer in zip(encoder.layer, model.encoder.blocks):
    _set_self_attention(spec.self_attention, layer.self_attention,
                        layer.self_attention_residual)
    _set_feed_forward(spec.ffn, layer.feed_forward, layer.feed_forward_residual)

  target_embeddings = _numpy(model.target_embedding.embeddings)          # [vocab, d_model]
  decoder.embeddings.weight = target_embeddings
  decoder.start_from_zero_embedding = True
  decoder.position_encodings.encodings = _position_table(model.target_positions)
  for spec, layer in zip(decoder.layer, model.decoder.blocks):
    _set_self_attention(spec.self_attention, layer.self_attention,
                        layer.self_attention_residual)
    _set_memory_attention(spec.attention, layer.memory_attention,
                          layer.memory_attention_residual)
    _set_feed_forward(spec.ffn, layer.feed_forward, layer.feed_forward_residual)
  decoder.projection.weight = (target_embeddings if model.softmax is None else
                               _numpy(model.softmax.kernel).T)          # [vocab, d_model]

  if hparams.pre_norm:
    _set_norm(encoder.layer_norm, model.encoder.final_norm)
    _set_norm(decoder.layer_norm, model.decoder.final_norm)

  spec = specs.TransformerSpec(encoder, decoder)
  spec.register_source_vocabulary(list(source_tokens))
  spec.register_target_vocabulary(list(target_tokens))
  config = spec.config
  config.unk_token = target_tokens[UNK_ID]
  config.eos_token = target_tokens[EOS_ID]
  config.bos_token = target_tokens[PAD_ID]
  config.decoder_start_token = target_tokens[PAD_ID]
  config.add_source_eos = True
  config.layer_norm_epsilon = float(hparams.norm_epsilon)
  return spec


def save_spec(spec, directory, quantization=None):
  """Writes a spec (validated, weights converted to `quantization`) into `directory`."""
  check_quantization(quantization)
  spec.validate()
  spec.optimize(quantization=quantization)
  spec.save(directory)


def export_ctranslate2(output_dir, export_dir=None, checkpoint_path=None, quantization=None):
  """Writes the CTranslate2 model directory of a run; returns its path.

  export_dir: default <output_dir>/ctranslate2 (ctranslate2_<quantization> when quantized);
  it must be new, empty, or an earlier export (holding EXPORT_MARKER), replaced only once
  the new one is complete. quantization: one of QUANTIZATIONS, or None for float32.
  """
  from t2t_lite.run.output_paths import check_output_directory
  from t2t_lite.run import Run  # TensorFlow: after the checks that need none.
  from t2t_lite.run.run_layout import EXPORT_MARKER, ctranslate2_dir
  import_ctranslate2()
  check_quantization(quantization)
  run = Run.read(output_dir)
  check_expressible(run.hparams)
  export_dir = os.path.abspath(export_dir or ctranslate2_dir(output_dir, quantization))
  check_output_directory(export_dir, "--export_dir", "t2t-exporter", EXPORT_MARKER)
  marker = json.dumps({"run": os.path.abspath(output_dir), "checkpoint": checkpoint_path,
                       "format": "ctranslate2", "quantization": quantization or "float32"})
  with replacing_directory(export_dir, EXPORT_MARKER, marker,
                           f"--export_dir={export_dir}") as staging:
    run.restore(checkpoint_path)
    spec = transformer_spec(run.model, run.input_vocab.pieces(), run.target_vocab.pieces())
    save_spec(spec, staging, quantization)
    for name, path in sentencepiece_files(run).items():
      shutil.copyfile(path, os.path.join(staging, name))
  logging.info("exported %s", export_dir)
  return export_dir


def sentencepiece_files(run):
  """{name in the export: the run's SentencePiece model file} (`SENTENCEPIECE_FILES`)."""
  source, target = (os.path.join(run.output_dir, name) for name in run.description.vocab_files)
  if os.path.abspath(source) == os.path.abspath(target):
    return {SENTENCEPIECE_FILES["shared"]: source}
  return {SENTENCEPIECE_FILES["source"]: source, SENTENCEPIECE_FILES["target"]: target}


def _numpy(weight):
  return np.asarray(weight.numpy() if hasattr(weight, "numpy") else weight, dtype=np.float32)


def _position_table(positions):
  """A `PositionalEncoding` layer -> the [positions, d_model] table it adds."""
  if positions.pos == "emb":
    return _numpy(positions.table)                                       # [max_length, d]
  from t2t_lite.layers.embedding import sinusoids
  return _numpy(sinusoids(np.arange(POSITIONS), positions.hidden_size))  # [POSITIONS, d]


def _linear(projection):
  """A `HeadProjection` kernel [*in_dims, *out_dims] -> CTranslate2's weight [out, in]."""
  kernel = _numpy(projection.kernel)
  rows = int(np.prod(projection.in_dims))
  return kernel.reshape(rows, -1).T


def _set_norm(spec, norm):
  spec.gamma = _numpy(norm.gamma)
  spec.beta = _numpy(norm.beta)


def _set_self_attention(spec, attention, residual):
  """Queries, keys and values fused: linear[0] [3 * h * d_k, d_model]; linear[1] the output."""
  _set_norm(spec.layer_norm, residual.norm)
  spec.linear[0].weight = np.concatenate([_linear(attention.query_dense),
                                          _linear(attention.key_dense),
                                          _linear(attention.value_dense)])
  spec.linear[1].weight = _linear(attention.output_dense)


def _set_memory_attention(spec, attention, residual):
  """linear[0] the queries; linear[1] keys and values fused; linear[2] the output."""
  _set_norm(spec.layer_norm, residual.norm)
  spec.linear[0].weight = _linear(attention.query_dense)
  spec.linear[1].weight = np.concatenate([_linear(attention.key_dense),
                                          _linear(attention.value_dense)])
  spec.linear[2].weight = _linear(attention.output_dense)


def _set_feed_forward(spec, feed_forward, residual):
  _set_norm(spec.layer_norm, residual.norm)
  for linear, dense in ((spec.linear_0, feed_forward.filter_dense),
                        (spec.linear_1, feed_forward.output_dense)):
    linear.weight = _numpy(dense.kernel).T                               # [out, in]
    linear.bias = _numpy(dense.bias)
