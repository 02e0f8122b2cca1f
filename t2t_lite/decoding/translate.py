"""Decoding text with a trained run: what t2t-decoder does.

    translator = Translator.from_run(output_dir, checkpoint_path=None, decode_overrides="")
    outputs = translator.translate(lines)   # one output line per input line, in order

Rules, whatever the input holds:
- every input line gets exactly one output line, in input order;
- an empty (or whitespace-only) line gives an empty line, without decoding;
- a line longer than `max_input_length` tokens (default: the model's
  `max_length`) is truncated to it, with a warning naming the line;
- inputs are sorted by length into batches of `batch_size` sentences, padded
  to tensor2tensor's bucket boundaries (few distinct shapes to compile), and
  restored to their order; several local GPUs decode batches side by side.
"""

import os
import sys
import time

from absl import logging
import numpy as np
import tensorflow as tf

from t2t_lite.data.batching import bucket_boundaries
from t2t_lite.data.vocabulary import EOS_ID, Vocabulary
from t2t_lite.decoding.decode_hparams import decode_hparams_for
from t2t_lite.decoding.model_decoding import decode_ids, n_best
from t2t_lite.errors import UserError
from t2t_lite.registry import PROBLEMS
from t2t_lite.training import run_dir
from t2t_lite.training.checkpoints import (UnreadableCheckpoint, checkpoint_paths,
                                           restore_checkpoint, restore_newest)
from t2t_lite.training.strategy import make_strategy, uses_gpu


def restore_model(output_dir, checkpoint_path=None):
  """(model, hparams, description) of a run, its weights from `checkpoint_path` or else
  from the run's newest checkpoint that reads (older ones replace unreadable ones)."""
  if checkpoint_path:
    if not tf.io.gfile.exists(checkpoint_path + ".index"):
      raise UserError(f"--checkpoint_path={checkpoint_path}: no such checkpoint (expected "
                      f"{checkpoint_path}.index)")
    run_dir.check_checkpoint_fits(output_dir, checkpoint_path)
  elif not checkpoint_paths(output_dir):
    raise UserError(f"no checkpoint in {output_dir}; train first (t2t-trainer) or pass "
                    f"--checkpoint_path")
  model, hparams, description = run_dir.build_model(output_dir)
  checkpoint = tf.train.Checkpoint(model=model)
  if checkpoint_path:
    try:
      path, status = checkpoint_path, restore_checkpoint(checkpoint, checkpoint_path)
    except UnreadableCheckpoint as error:
      raise UserError(f"{error}; pass another --checkpoint_path") from None
  else:
    path, status = restore_newest(checkpoint, output_dir)
  try:
    status.assert_existing_objects_matched()
  except AssertionError:
    raise UserError(f"{path} does not hold every weight of this run's model; was it written "
                    f"by another model or another version of t2t_lite?") from None
  logging.info("decoding with %s", path)
  return model, hparams, description


class Translator:
  """A restored model, its vocabularies and decoding settings; text in, text out."""

  def __init__(self, model, hparams, problem, input_vocab, target_vocab, decode_hparams,
               strategy):
    self.model = model
    self.hparams = hparams
    self.problem = problem
    self.input_vocab = input_vocab
    self.target_vocab = target_vocab
    self.decode_hparams = decode_hparams
    self.strategy = strategy
    self.input_limit = decode_hparams.input_limit(hparams)  # None: inputs are never cut.
    widest = self.input_limit or hparams.max_length
    self.boundaries = bucket_boundaries(widest) + [widest]
    # One trace per (batch, width): widths are bucket boundaries, so few (decode_ids
    # needs static widths, hence no reduce_retracing).
    self._decode = tf.function(self._decode_replicas, jit_compile=uses_gpu(strategy))

  @classmethod
  def from_run(cls, output_dir, checkpoint_path=None, decode_overrides="", problem_name=None):
    """Everything from the run directory: a user never repeats training flags."""
    description = run_dir.read_description(output_dir)
    if problem_name and PROBLEMS.canonical_name(problem_name) != description.problem:
      raise UserError(f"{output_dir} is a run of problem {description.problem}, not "
                      f"{problem_name}; pass that run's problem or another --output_dir")
    problem = PROBLEMS[description.problem]()
    decode_hparams = decode_hparams_for(problem, decode_overrides)
    strategy = make_strategy()
    with strategy.scope():
      model, hparams, _ = restore_model(output_dir, checkpoint_path)
    input_vocab, target_vocab = (
        Vocabulary.load(os.path.join(output_dir, name), description.problem)
        for name in description.vocab_files)
    return cls(model, hparams, problem, input_vocab, target_vocab, decode_hparams, strategy)

  def translate(self, lines, progress=True):
    """Input lines -> output lines (same count, same order)."""
    lines = [line.rstrip("\r\n") for line in lines]
    outputs = [""] * len(lines)
    todo = [i for i, line in enumerate(lines) if line.strip()]
    ids = self._encode([lines[i] for i in todo], todo)
    order = sorted(range(len(todo)), key=lambda k: len(ids[k]))  # Shortest first.
    batch_size = self.decode_hparams.batch_size
    replicas = self.strategy.num_replicas_in_sync
    batches = [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
    meter = _Meter(len(todo), sys.stderr if progress else None)
    for start in range(0, len(batches), replicas):
      group = batches[start:start + replicas]
      for batch, hypotheses in zip(group, self._decode_group([[ids[k] for k in b] for b in group])):
        for k, sentence_hypotheses in zip(batch, hypotheses):
          outputs[todo[k]] = self._format(lines[todo[k]], sentence_hypotheses)
        meter.update(len(batch), sum(len(h[0][0]) for h in hypotheses if h))
    meter.finish()
    return outputs

  def _encode(self, texts, line_indices):
    """Texts -> lists of ids ending with EOS, truncated to `input_limit` (warned)."""
    if not texts:
      return []
    encoded = self.input_vocab.encode(tf.constant(texts)).to_list()
    limit = self.input_limit
    for k, sentence in enumerate(encoded):
      if limit and len(sentence) > limit:
        logging.warning("line %d has %d tokens; truncated to max_input_length=%d",
                        line_indices[k] + 1, len(sentence), limit)
        encoded[k] = sentence[:limit - 1] + [EOS_ID]
    return encoded

  def _width(self, longest):
    """The padded width of a batch: the first bucket boundary >= its longest input; past
    the last one (inputs never truncated), the next multiple of the last one."""
    widest = self.boundaries[-1]
    return next((b for b in self.boundaries if b >= longest), -(-longest // widest) * widest)

  def _decode_group(self, group):
    """Up to `replicas` batches of id lists -> per batch, per sentence, its n-best list."""
    width = self._width(max(len(s) for batch in group for s in batch))
    padded = [np.array([s + [0] * (width - len(s)) for s in batch], np.int32) for batch in group]
    idle = self.strategy.num_replicas_in_sync - len(padded)
    padded += [padded[0][:1]] * idle  # Replicas without a batch decode a copy of one line.
    if self.strategy.num_replicas_in_sync == 1:
      ids, scores = self._decode(tf.constant(padded[0]))
      results = [(ids, scores)]
    else:
      values = self.strategy.experimental_distribute_values_from_function(
          lambda context: tf.constant(padded[context.replica_id_in_sync_group]))
      per_replica = self.strategy.run(self._decode, args=(values,))
      results = list(zip(self.strategy.experimental_local_results(per_replica[0]),
                         self.strategy.experimental_local_results(per_replica[1])))
    return [n_best(ids, scores, self.decode_hparams.n_best) for ids, scores in results[:len(group)]]

  def _decode_replicas(self, inputs):
    settings = self.decode_hparams
    return decode_ids(self.model, inputs, beam_size=settings.beam_size, alpha=settings.alpha,
                      extra_length=settings.extra_length)

  def _format(self, source, hypotheses):
    """n-best (ids, score) of one sentence -> its output line."""
    if not hypotheses:
      return ""
    texts = self.target_vocab.decode(
        tf.ragged.constant([ids for ids, _ in hypotheses], dtype=tf.int32)).numpy()
    fields = []
    for text, (_, score) in zip(texts, hypotheses):
      text = self.problem.decoded_text(source, text.decode("utf-8"))
      fields.append(" ".join(text.splitlines()))  # One output line per input line.
      if self.decode_hparams.write_scores:
        fields.append(f"{score:.4f}")
    return "\t".join(fields)


class _Meter:
  """Progress on stderr: sentences and tokens per second."""

  def __init__(self, total, stream):
    self.total, self.stream = total, stream
    self.done = self.tokens = 0
    self.start = time.monotonic()

  def update(self, sentences, tokens):
    self.done += sentences
    self.tokens += tokens
    if self.stream:
      elapsed = max(time.monotonic() - self.start, 1e-9)
      end = "\r" if self.stream.isatty() else "\n"
      self.stream.write(f"decoded {self.done}/{self.total} sentences | "
                        f"{self.done / elapsed:.1f} sentences/s | "
                        f"{self.tokens / elapsed:.0f} tokens/s{end}")
      self.stream.flush()

  def finish(self):
    if self.stream and self.stream.isatty():
      self.stream.write("\n")
