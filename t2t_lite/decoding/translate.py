"""Decoding text with a trained run's model: what t2t-decoder does.

    translator = Translator(model, (input_vocab, target_vocab), problem.target_form, settings,
                            strategy)          # settings: DecodeHParams
    outputs = translator.translate(lines)   # one output line per input line, in order
    translation = translator.translation(lines)   # the lines, and how many were repaired

(`Run.open(output_dir).translator("beam_size=4")` makes one from a run directory.)

Rules, whatever the input holds:
- every input line gets exactly one output line, in input order;
- an empty (or whitespace-only) line gives an empty line, without decoding;
- a line longer than `max_input_length` tokens (default: the model's
  `max_length`) is truncated to it, with a warning naming the line;
- inputs are sorted by length into batches of `batch_size` sentences
  (`batches_by_length`, which t2t-serve's batches share), padded to one of few widths
  (`input_widths`: each new width is a trace, seconds on a CPU), and restored to their
  order; several local GPUs decode batches side by side;
- targets of a form with a count rule (parsing: one leaf per source word) decode
  under it unless the settings say `count_rule=False` (token_counts.py), and with a
  bracket rule (parsing: well-formed trees) under that too unless they say
  `bracket_rule=False` (bracket_rule.py), and with a copy rule (parsing with word
  leaves: the source's words, in order) on top unless they say `copy_rule=False`
  (copy_rule.py); the form turns each decoded target into its output line
  (t2t_lite.data.target_form);
- a right-to-left model's outputs are turned back into reading order
  (t2t_lite.decoding.right_to_left); given `rerank_models`, models of both directions,
  the whole beam is scored again by all of them and ranked anew (rerank.py).
"""

import collections
import sys
import typing

from absl import logging
import numpy as np
import tensorflow as tf

from t2t_lite.constants import EOS_ID
from t2t_lite.data.target_order import target_order
from t2t_lite.decoding.mbr import mbr_order
from t2t_lite.decoding.model_decoding import decode_ids, input_widths, n_best
from t2t_lite.decoding.rerank import Reranker
from t2t_lite.decoding.right_to_left import check_rules
from t2t_lite.decoding.scoring import padded
from t2t_lite.decoding.sentence_batches import batches_by_length
from t2t_lite.decoding.token_counts import rule_tables
from t2t_lite.errors import UserError
from t2t_lite.progress_line import ProgressLine
from t2t_lite.distribute.strategy import uses_gpu


class Translation(typing.NamedTuple):
  """What `Translator.translation` gives back."""
  lines: list     # One output line per input line, in order.
  decoded: int    # How many lines were decoded (the non-empty ones).
  repaired: int   # How many of their best outputs the target form had to repair.
  malformations: collections.Counter  # {what was repaired: in how many best outputs}.
  n_best: tuple = ()  # Per input line, its n_best (output text, score) pairs as ranked in
                     # its line ([] for a blank line).

  def repair_line(self):
    """E.g. "3 of 237 decoded lines were malformed and repaired (brackets left open 2, ...)"."""
    kinds = ", ".join(f"{kind} {count}" for kind, count in self.malformations.most_common())
    return (f"{self.repaired} of {self.decoded} decoded lines were malformed and repaired"
            + (f" ({kinds})" if kinds else ""))


class Translator:
  """A model, its vocabularies and decoding settings; text in, text out.

  model: a built model with `hparams` (a Transformer, or an ensemble of them).
  vocabularies: (input Vocabulary, target Vocabulary).
  target_form: what the targets need beyond being text (`Problem.target_form`).
  settings: the `DecodeHParams` to decode with.
  strategy: the tf.distribute strategy the model lives in.
  rerank_models: () or the models (of both directions, `model`'s members among them) that
    score the whole beam again (rerank.py).
  any_batch_size: trace the search once per width with the batch dimension left open, for
    batches of every size (t2t-serve's); by default each (batch, width) is a trace of its
    own: t2t-decoder's batches all hold `batch_size` sentences but the last.
  """

  def __init__(self, model, vocabularies, target_form, settings, strategy, rerank_models=(),
               any_batch_size=False):
    self.model, self.hparams, self.target_form = model, model.hparams, target_form
    self.input_vocab, self.target_vocab = vocabularies
    self.strategy = strategy
    self.settings = settings
    self.input_limit = settings.input_limit(self.hparams)  # None: inputs are never cut.
    self.widths = input_widths(self.input_limit or self.hparams.max_length, step=1.25)
    # One trace per (batch, width), and few widths (decode_ids needs static widths,
    # hence no reduce_retracing). The searches write their own while loops: no autograph
    # needed.
    jit_compile = uses_gpu(self.strategy)
    # Finished sentences leave a beam search's batch (retiring.py), but under XLA, whose
    # shapes are static. Read when a search is traced.
    self.retire_finished = not jit_compile
    self._decode = tf.function(self._decode_replicas, jit_compile=jit_compile, autograph=False)
    # The count rule's tables (and the bracket rule's), or None: no rule.
    self.rule_tables = rule_tables(target_form, vocabularies, settings)
    self.reranker = Reranker(rerank_models, settings.alpha) if rerank_models else None
    self.first_line_number = 1  # The number its input's first line has in its file.
    self.any_batch_size = any_batch_size and strategy.num_replicas_in_sync == 1
    self._open_batch_searches = {}  # width -> the search traced for [any batch, width].

  def translate(self, lines, progress=True):
    """Input lines -> output lines (same count, same order)."""
    return self.translation(lines, progress).lines

  def translation(self, lines, progress=True):
    """Input lines -> their `Translation`. Warnings name line i as `first_line_number` + i."""
    self.check_settings()
    lines = [line.rstrip("\r\n") for line in lines]
    outputs = [""] * len(lines)
    n_best_lists = [[] for _ in lines]
    malformations = collections.Counter()
    repaired = 0
    todo = [i for i, line in enumerate(lines) if line.strip()]
    ids = self._encode([lines[i] for i in todo], [i + self.first_line_number for i in todo])
    required = self._required_counts([lines[i] for i in todo])
    replicas = self.strategy.num_replicas_in_sync
    batches = batches_by_length([len(sentence) for sentence in ids], self.settings.batch_size)
    meter = _Meter(len(todo), sys.stderr if progress else None)
    for start in range(0, len(batches), replicas):
      group = batches[start:start + replicas]
      decoded = self._decode_group([[ids[k] for k in b] for b in group],
                                   [[required[k] for k in b] for b in group])
      for batch, hypotheses in zip(group, decoded):
        if self.reranker is not None:
          hypotheses = self.reranker.rerank([ids[k] for k in batch], hypotheses)
        for k, sentence_hypotheses, texts in zip(batch, hypotheses,
                                                 self._detokenized(hypotheses)):
          ranked, malformed = self._ranked(lines[todo[k]], sentence_hypotheses, texts)
          n_best_lists[todo[k]] = ranked
          outputs[todo[k]] = self._line(ranked)
          repaired += bool(malformed)
          malformations.update(malformed)
        meter.update(len(batch), sum(len(h[0][0]) for h in hypotheses if h))
    meter.finish()
    return Translation(outputs, len(todo), repaired, malformations, n_best_lists)

  def input_lengths(self, lines):
    """Input lines -> the tokens (EOS included) each is decoded with, after truncation to
    `input_limit`: what batches are sorted by. A blank line counts 0 (never decoded)."""
    texts = [line.rstrip("\r\n") for line in lines]
    lengths = self.input_vocab.encode(tf.constant(texts)).row_lengths().numpy() if texts else []
    limit = self.input_limit or max(lengths, default=0)
    return [0 if not text.strip() else int(min(length, limit))
            for text, length in zip(texts, lengths)]

  def check_settings(self):
    """UserError when the settings cannot decode with this model (checked when decoding,
    not when built: scoring and attention maps need no search)."""
    check_rules(self.hparams, self.rule_tables)
    if self.reranker is not None and self.settings.beam_size < 2:
      raise UserError("runs of both directions rerank a beam, and beam_size=1 keeps one "
                      "hypothesis: pass --decode_hparams=beam_size=N with N >= 2")

  def _required_counts(self, lines):
    """The count rule's required count of each line ([] of int; zeros without the rule)."""
    if self.rule_tables is None or not lines:
      return [0] * len(lines)
    return self.target_form.required_counts(tf.constant(lines)).numpy().tolist()

  def _encode(self, texts, line_numbers):
    """Texts -> lists of ids ending with EOS, truncated to `input_limit` (warned)."""
    if not texts:
      return []
    encoded = self.input_vocab.encode(tf.constant(texts)).to_list()
    limit = self.input_limit
    for k, sentence in enumerate(encoded):
      if limit and len(sentence) > limit:
        logging.warning("line %d has %d tokens; truncated to max_input_length=%d",
                        line_numbers[k], len(sentence), limit)
        encoded[k] = sentence[:limit - 1] + [EOS_ID]
    return encoded

  def _width(self, longest):
    """The padded width of a batch: the first of `widths` >= its longest input; past the
    last one (inputs never truncated), the next multiple of the last one."""
    widest = self.widths[-1]
    return next((w for w in self.widths if w >= longest), -(-longest // widest) * widest)

  def _decode_group(self, group, required_group):
    """Up to `replicas` batches of id lists, and each sentence's required count (the count
    rule's) -> per batch, per sentence, its n-best list."""
    width = self._width(max(len(s) for batch in group for s in batch))
    inputs = [padded(batch, width) for batch in group]  # Each [batch, width].
    required = [np.array(counts, np.int32) for counts in required_group]
    idle = self.strategy.num_replicas_in_sync - len(inputs)
    inputs += [inputs[0][:1]] * idle  # Replicas without a batch decode a copy of one line.
    required += [required[0][:1]] * idle
    if self.any_batch_size:
      ids, scores = self._open_batch_search(width)(tf.constant(inputs[0]),
                                                   tf.constant(required[0]))
      results = [(ids, scores)]
    elif self.strategy.num_replicas_in_sync == 1:
      ids, scores = self._decode(tf.constant(inputs[0]), tf.constant(required[0]))
      results = [(ids, scores)]
    else:
      values = self.strategy.experimental_distribute_values_from_function(
          lambda context: (tf.constant(inputs[context.replica_id_in_sync_group]),
                           tf.constant(required[context.replica_id_in_sync_group])))
      per_replica = self.strategy.run(self._decode, args=values)
      results = list(zip(self.strategy.experimental_local_results(per_replica[0]),
                         self.strategy.experimental_local_results(per_replica[1])))
    reranked = self.settings.mbr or self.reranker is not None
    kept = self.settings.beam_size if reranked else self.settings.n_best
    return [n_best(ids, scores, kept) for ids, scores in results[:len(group)]]

  def _open_batch_search(self, width):
    """The search traced for inputs [any batch, width] (once per width)."""
    if width not in self._open_batch_searches:
      self._open_batch_searches[width] = self._decode.get_concrete_function(
          tf.TensorSpec([None, width], tf.int32), tf.TensorSpec([None], tf.int32))
    return self._open_batch_searches[width]

  def _decode_replicas(self, inputs, required):
    """inputs [batch, width] int32; required [batch] int32, the count rule's counts."""
    settings = self.settings
    rule = None if self.rule_tables is None else self.rule_tables.rule(required, inputs)
    return decode_ids(self.model, inputs, beam_size=settings.beam_size, alpha=settings.alpha,
                      extra_length=settings.extra_length, count_rule=rule,
                      retire_finished=self.retire_finished)

  def _line(self, ranked):
    """A sentence's ranked (text, score) pairs -> its output line: the texts, tab-separated,
    each followed by its score with `write_scores`."""
    fields = []
    for text, score in ranked:
      fields.append(text)
      if self.settings.write_scores:
        fields.append(f"{score:.4f}")
    return "\t".join(fields)

  def _detokenized(self, hypotheses):
    """Per sentence of a batch, its hypotheses' (ids, score) -> per sentence, their texts,
    detokenized in one call for the whole batch (a call per sentence costs more than the
    search on a CPU)."""
    in_order = target_order(self.hparams)
    flat = [in_order(ids) for sentence in hypotheses for ids, _ in sentence]
    if not flat:
      return [[] for _ in hypotheses]
    texts = iter(text.decode("utf-8") for text in self.target_vocab.decode(
        tf.constant(padded([list(ids) for ids in flat]))).numpy())
    return [[next(texts) for _ in sentence] for sentence in hypotheses]

  def _ranked(self, source, hypotheses, decoded):
    """n-best (ids, score) of one sentence (with mbr or reranking, its whole beam) and their
    detokenized texts -> (its n_best (output text, score) pairs in the order its line gives
    them, what the best output had repaired: the target form's malformations, () for
    none)."""
    if not hypotheses:
      return [], ()
    texts = [" ".join(self.target_form.output_text(source, text).splitlines())
             for text in decoded]  # One output line per input line.
    scores = [score for _, score in hypotheses]
    order = mbr_order(texts, scores) if self.settings.mbr else list(range(len(texts)))
    order = order[:self.settings.n_best]
    malformed = (self.target_form.malformations(source, decoded[order[0]])
                 if self.target_form.repairs else ())
    return [(texts[k], scores[k]) for k in order], malformed


class _Meter:
  """Decoding's status line: sentences and tokens per second."""

  def __init__(self, total, stream):
    self.total = total
    self.line = ProgressLine(stream, enabled=stream is not None, interval=10.0)
    self.done = self.tokens = 0

  def update(self, sentences, tokens):
    self.done += sentences
    self.tokens += tokens
    last = self.done >= self.total
    if last or self.line.due():
      elapsed = self.line.elapsed()
      self.line.show(f"decoded {self.done}/{self.total} sentences | "
                     f"{self.done / elapsed:.1f} sentences/s | "
                     f"{self.tokens / elapsed:.0f} tokens/s", force=last)

  def finish(self):
    self.line.close()
