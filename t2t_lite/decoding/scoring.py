"""t2t-decoder --score_file: tensor2tensor's score of given (input, target) pairs.

    scores = score_lines(translator, ["Guten Morgen\tGood morning", ...])  # ["1.234567", ...]

Each line is `input<TAB>target`, the target in the problem's target form (a
linearised tree for parsing). Its score is tensor2tensor's: the model's
training loss on that pair with dropout off, i.e. the label-smoothed
cross-entropy (the run's label_smoothing, less the smoothed target's own
entropy, as in training) averaged over the target's tokens, EOS included; six
decimals, one line per pair, in order. Lower is better; with
label_smoothing=0 it is the negative log-likelihood per token. A right-to-left
run scores each target with its tokens reversed, as it was trained. An ensemble
(`--output_dir=A,B`) scores with the mean of its members' distributions and the first
run's label_smoothing.

`sequence_log_probs` is a model's log-probability of whole targets, which
reranking (rerank.py) sums.
"""

import numpy as np
import tensorflow as tf
from keras import ops

from t2t_lite.constants import PAD_ID
from t2t_lite.data.target_order import target_order
from t2t_lite.errors import UserError
from t2t_lite.layers.losses import non_padding, smoothed_cross_entropy

PAIRS_PER_BATCH = 32


def traced_once(function):
  """function(inputs, targets) as a tf.function that traces once: its arguments are
  [rows, source length] and [rows, target length] int32 ids (`padded`'s)."""
  return tf.function(function, input_signature=[tf.TensorSpec([None, None], tf.int32)] * 2)


def pair_losses(model, inputs, targets):
  """inputs [batch, s], targets [batch, t] (0-padded ids, each ending in EOS) -> [batch]
  float32: each pair's loss per target token (the module doc)."""
  logits = model({"inputs": inputs, "targets": targets}, training=False)  # [batch, t, vocab]
  per_token = smoothed_cross_entropy(targets, logits, model.hparams.label_smoothing)
  return ops.sum(per_token, axis=1) / ops.sum(non_padding(targets), axis=1)


def sequence_log_probs(model, inputs, targets):
  """inputs [batch, s], targets [batch, t] (0-padded ids, each ending in EOS) -> [batch]
  float32: log p(target | input) under the model, the sum over the target's tokens (the
  cross-entropy without label smoothing is -log p per token, 0 on padding)."""
  logits = model({"inputs": inputs, "targets": targets}, training=False)  # [batch, t, vocab]
  return -ops.sum(smoothed_cross_entropy(targets, logits, 0.0), axis=1)


def score_lines(translator, lines, source="--score_file"):
  """`input<TAB>target` lines -> their scores as text, one per line (the module doc).

  translator: a `Translator` (its model, hparams and vocabularies are used) of runs of
    one direction (UserError for a reranking one).
  source names the lines in errors: a line without exactly one tab, or, for a
  model with learned positions, a side longer than its max_length, is a
  one-line UserError naming it.
  """
  if translator.reranker is not None:
    raise UserError(f"{source} scores with runs of one direction; these are left-to-right "
                    f"and right-to-left runs together: score with each direction's runs alone")
  pairs = [_split(line, number, source) for number, line in enumerate(lines, start=1)]
  if not pairs:
    return []
  inputs = _encode(translator.input_vocab, [source_text for source_text, _ in pairs])
  targets = _encode(translator.target_vocab, [target for _, target in pairs])
  in_order = target_order(translator.hparams)
  targets = [in_order(ids) for ids in targets]
  _check_positions(translator.hparams, inputs, targets, source)
  losses = traced_once(lambda i, t: pair_losses(translator.model, i, t))
  scores = [""] * len(pairs)
  order = sorted(range(len(pairs)), key=lambda k: (len(inputs[k]), len(targets[k])))
  for start in range(0, len(order), PAIRS_PER_BATCH):
    batch = order[start:start + PAIRS_PER_BATCH]
    values = losses(padded([inputs[k] for k in batch]), padded([targets[k] for k in batch]))
    for k, value in zip(batch, np.asarray(values)):
      scores[k] = f"{value:.6f}"
  return scores


def _split(line, number, source):
  fields = line.rstrip("\r\n").split("\t")
  if len(fields) != 2:
    raise UserError(f"{source} line {number}: expected input<TAB>target, found "
                    f"{len(fields) - 1} tabs")
  return fields[0].strip(), fields[1].strip()


def _encode(vocabulary, texts):
  """Texts -> lists of ids, each ending with EOS."""
  return vocabulary.encode(tf.constant(texts)).to_list()


def _check_positions(hparams, inputs, targets, source):
  """Learned positions (pos="emb") stop at max_length: longer pairs cannot be scored."""
  if hparams.pos != "emb":
    return
  for number, (input_ids, target_ids) in enumerate(zip(inputs, targets), start=1):
    longest = max(len(input_ids), len(target_ids))
    if longest > hparams.max_length:
      raise UserError(f"{source} line {number} has {longest} tokens; this model's learned "
                      f"positions stop at max_length={hparams.max_length}")


def padded(sequences, width=None):
  """Lists of ids -> [len(sequences), width (default: the longest's length)] int32,
  0-padded."""
  width = width or max(len(ids) for ids in sequences)
  return np.array([ids + [PAD_ID] * (width - len(ids)) for ids in sequences], np.int32)
