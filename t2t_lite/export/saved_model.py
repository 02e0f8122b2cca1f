"""A SavedModel of a trained run: strings in, translations out, everything in the graph.

    export_run(output_dir, export_dir, checkpoint_path=None, decode_hparams="")

Signatures (load with `tf.saved_model.load`, needing only tensorflow and
tensorflow_text):
  serving_default(sentences: [batch] string; a single string counts as a batch of one) ->
      translations [batch] string (the best hypothesis), scores [batch] float32,
      n_best [batch, n_best] string, n_best_scores [batch, n_best] float32
  decode_ids(ids: [batch, max_input_length] int32, 0-padded, each ending in EOS[,
             required_counts: [batch] int32 where the problem has a count rule]) ->
      ids [batch, beam, length] int32, scores [batch, beam] float32
and, as a function of the loaded object (not a signature), `input_lengths(sentences
[batch] string) -> [batch] int32`: each sentence's tokens (EOS included, truncated as the
search truncates), by which t2t-serve sorts its batches.

The SentencePiece tokenizer, beam search (or greedy decoding) and detokenizer
run inside the graph. Inputs are truncated to `max_input_length` tokens and
blank inputs give blank outputs, as in t2t-decoder. The search needs a static input
width, and its cost grows with it (every step attends over width + extra_length cache
positions and the whole padded memory): a batch is decoded at the first of
`input_widths(max_input_length, step=2)` (powers of two, then max_input_length) that
holds its longest input, one traced search per width, and its ids padded back to the
length of the widest.
Problems whose targets are a representation of text (parsing: linearised trees)
return that representation; t2t-decoder turns it into trees. A problem's count rule
(parsing: one leaf per source word; t2t_lite.decoding.token_counts) and its bracket rule
(parsing: well-formed trees; bracket_rule.py) and its copy rule (parsing with word
leaves: the source's words; copy_rule.py) hold in both signatures, as in t2t-decoder,
unless the decode settings lift them (`count_rule=False`, `bracket_rule=False`,
`copy_rule=False`):
serving_default counts each sentence's requirement in the graph, decode_ids takes it.
A right-to-left run (hparams right_to_left) returns its ids and texts in reading order,
as t2t-decoder does.
"""

import dataclasses
import json
import os

from absl import logging
import tensorflow as tf

from t2t_lite.constants import EOS_ID, PAD_ID
from t2t_lite.data.target_order import reversed_before_eos
from t2t_lite.decoding.decode_hparams import decode_hparams_for
from t2t_lite.decoding.model_decoding import decode_ids, decode_length, input_widths
from t2t_lite.decoding.right_to_left import check_rules
from t2t_lite.decoding.token_counts import rule_tables
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import replacing_directory
from t2t_lite.run import Run
from t2t_lite.run.output_paths import check_output_directory
from t2t_lite.run.run_layout import EXPORT_DIR, EXPORT_MARKER


class Exported(tf.Module):
  """The exported object: model, vocabularies and decoding settings."""

  def __init__(self, model, target_form, input_vocab, target_vocab, settings, max_input_length):
    super().__init__(name="t2t_lite_export")
    # The weights are tracked as plain variables, and the Keras model is reached
    # through a closure: as a tracked child, Keras would add a serving function
    # of its own to the SavedModel, traced with guessed float inputs.
    self.model_variables = [weight.value for weight in model.weights]
    self._model = lambda: model
    self.target_form = target_form  # Reached while tracing only (its count rule's ops).
    self.input_vocab = input_vocab
    self.target_vocab = target_vocab
    self.settings = settings  # DecodeHParams.
    self.max_input_length = max_input_length
    self.rule_tables = rule_tables(target_form, (input_vocab, target_vocab),
                                   settings)  # None: no rule.
    check_rules(model.hparams, self.rule_tables)
    self.widths = input_widths(max_input_length, step=2)
    self.decode_length = decode_length(model.hparams, max_input_length, settings.extra_length)
    # autograph=False: nothing traced here branches on a tensor in Python, and converting
    # the search's and the model's code to graph code cost half of a one-width export.
    self.translate = tf.function(
        self._translate, input_signature=[tf.TensorSpec(None, tf.string, name="sentences")],
        autograph=False)
    ids_spec = [tf.TensorSpec([None, max_input_length], tf.int32, name="ids")]
    if self.rule_tables is None:
      self.decode_ids = tf.function(lambda ids: self._decode_ids(ids), input_signature=ids_spec,
                                    autograph=False)
    else:
      self.decode_ids = tf.function(
          self._decode_ids,
          input_signature=ids_spec + [tf.TensorSpec([None], tf.int32, name="required_counts")],
          autograph=False)
    # Not a signature: what t2t-serve sorts the sentences of its batches by.
    self.input_lengths = tf.function(
        self._input_lengths, input_signature=[tf.TensorSpec([None], tf.string, name="sentences")],
        autograph=False)

  def _input_lengths(self, sentences):
    """[batch] strings -> [batch] int32: the tokens (EOS included) each is decoded with,
    after truncation to max_input_length."""
    lengths = tf.cast(self.input_vocab.encode(sentences).row_lengths(), tf.int32)  # [batch]
    return tf.minimum(lengths, self.max_input_length)

  def _decode_ids(self, ids, required_counts=None):
    """[batch, max_input_length] ids (and [batch] required counts under a count rule) ->
    {"ids": [batch, beam, decode_length], "scores": [batch, beam]}, decoded at the first
    serving width that holds the longest input (the module doc)."""
    input_lengths = tf.reduce_sum(tf.cast(tf.not_equal(ids, PAD_ID), tf.int32), axis=1)  # [batch]
    longest = tf.reduce_max(tf.concat([input_lengths, [0]], axis=0))  # 0 for no sentence.
    narrower = tf.reduce_sum(tf.cast(tf.constant(self.widths) < longest, tf.int32))
    branches = [lambda width=width: self._decode_at_width(ids[:, :width], required_counts)
                for width in self.widths]
    decoded_ids, scores = tf.switch_case(tf.minimum(narrower, len(self.widths) - 1), branches)
    if self._model().hparams.right_to_left:  # Into reading order, EOS and padding in place.
      shape = tf.shape(decoded_ids)                                   # [batch, beam, length]
      decoded_ids = tf.reshape(reversed_before_eos(tf.reshape(decoded_ids, [-1, shape[2]])),
                               shape)
    return {"ids": decoded_ids, "scores": scores}

  def _decode_at_width(self, ids, required_counts):
    """ids [batch, width] -> (ids [batch, beam, decode_length], zero-padded; scores
    [batch, beam])."""
    settings = self.settings
    rule = (None if self.rule_tables is None
            else self.rule_tables.rule(required_counts, ids))
    ids, scores = decode_ids(self._model(), ids, beam_size=settings.beam_size,
                             alpha=settings.alpha, extra_length=settings.extra_length,
                             count_rule=rule, retire_finished=True)
    padding = self.decode_length - ids.shape[2]
    return tf.pad(ids, [[0, 0], [0, 0], [0, padding]]), scores

  def _translate(self, sentences):
    """[batch] strings (or one) -> translations [batch], scores [batch], n_best [batch, n]."""
    sentences = tf.reshape(sentences, [-1])                         # [batch]
    with tf.control_dependencies([assert_utf8(sentences)]):        # As t2t-decoder refuses.
      sentences = tf.identity(sentences)
    tokens = self.input_vocab.encode(sentences)                     # [batch, (length)]
    limit = self.max_input_length
    too_long = tokens.row_lengths() > limit                         # [batch]
    tokens = tokens[:, :limit]
    # A truncated sentence keeps EOS as its last token, as t2t-decoder does.
    ids = tokens.to_tensor(default_value=PAD_ID, shape=[None, limit])  # [batch, limit]
    last = tf.equal(tf.range(limit), limit - 1)[None, :]              # [1, limit]
    ids = tf.where(tf.logical_and(too_long[:, None], last), EOS_ID, ids)
    if self.rule_tables is None:
      decoded = self.decode_ids(ids)
    else:
      decoded = self.decode_ids(ids, self.target_form.required_counts(sentences))  # [batch]
    n = self.settings.n_best
    best_ids = decoded["ids"][:, :n]                                # [batch, n, length]
    batch = tf.shape(best_ids)[0]
    texts = self.target_vocab.decode(tf.reshape(best_ids, [batch * n, -1]))
    texts = tf.reshape(texts, [batch, n])                           # [batch, n]
    scores = decoded["scores"][:, :n]                               # [batch, n]
    # Blank inputs give blank outputs, as in t2t-decoder.
    blank = tf.equal(tf.strings.length(tf.strings.strip(sentences)), 0)[:, None]  # [batch, 1]
    texts = tf.where(blank, "", texts)
    return {"translations": texts[:, 0], "scores": scores[:, 0], "n_best": texts,
            "n_best_scores": scores}


def assert_utf8(sentences):
  """sentences [batch] tf.string -> an op that fails (InvalidArgumentError naming the first
  such sentence's index) when one is not valid UTF-8: decoding it with invalid bytes dropped
  and encoding it again gives fewer bytes exactly then."""
  codepoints = tf.strings.unicode_decode(sentences, "UTF-8", errors="ignore")  # [batch, (n)]
  valid = tf.equal(tf.strings.length(tf.strings.unicode_encode(codepoints, "UTF-8")),
                   tf.strings.length(sentences))                     # [batch]
  invalid = tf.reshape(tf.where(tf.logical_not(valid)), [-1])[:1]    # [0 or 1]
  return tf.debugging.Assert(
      tf.reduce_all(valid),
      ["sentence", invalid, "(counting from 0) is not valid UTF-8 text; send UTF-8, as "
       "t2t-decoder requires"])


def export_run(output_dir, export_dir=None, checkpoint_path=None, decode_hparams=""):
  """Writes the SavedModel of a run (default: <output_dir>/export); returns its path.

  decode_hparams: decoding overrides, as --decode_hparams takes them.
  export_dir must be new, empty, or an earlier export (holding EXPORT_MARKER), which
  is replaced only once the new SavedModel is complete.
  """
  run = Run.read(output_dir)  # On one device: the SavedModel holds plain variables.
  settings = decode_hparams_for(run.problem, decode_hparams, run.chosen_decoding)
  if settings.mbr:
    raise UserError("--decode_hparams: mbr=True is t2t-decoder's alone; a SavedModel returns "
                    "the beam's n_best hypotheses and scores, to rank outside it")
  export_dir = os.path.abspath(export_dir or os.path.join(output_dir, EXPORT_DIR))
  check_output_directory(export_dir, "--export_dir", "t2t-exporter", EXPORT_MARKER)
  marker = json.dumps({"run": os.path.abspath(output_dir), "checkpoint": checkpoint_path,
                       "decoding": dataclasses.asdict(settings)})  # What its search does.
  with replacing_directory(export_dir, EXPORT_MARKER, marker,
                           f"--export_dir={export_dir}") as staging:
    run.restore(checkpoint_path)
    # A SavedModel's search has a static input width: "never truncate" keeps max_length.
    max_input_length = settings.input_limit(run.hparams) or run.hparams.max_length
    exported = Exported(run.model, run.problem.target_form, run.input_vocab, run.target_vocab,
                        settings, max_input_length)
    tf.saved_model.save(exported, staging, signatures={
        "serving_default": exported.translate, "decode_ids": exported.decode_ids})
  logging.info("exported %s", export_dir)
  return export_dir
