"""Minimum Bayes risk (MBR) selection: a sentence's output picked from its beam by consensus.

Beam search outputs the hypothesis the model scores highest. With `mbr=True`
(`DecodeHParams`), t2t-decoder outputs the one the whole beam agrees with most: of
hypotheses h_1..h_n with beam scores s_1..s_n (length-penalised log-probabilities),

    expected_bleu(h_i) = sum_j p_j * sentence_bleu(h_i, reference=h_j),  p = softmax(s)

and the hypotheses are ranked by it, highest first (ties keep the beam's order). The
sum includes j = i (a term p_i * 100), as in Kumar and Byrne (2004). Sentence BLEU is
sacreBLEU's `sentence_bleu(..., smooth_method="add-k", smooth_value=1)`: BLEU-4 on 13a
tokens, one added to the 2- to 4-gram matches and counts (Lin and Och 2004), the
brevity penalty against the pseudo-reference; an empty hypothesis scores 0. Counted
here, each hypothesis's n-grams once, for the n * n pairs.
"""

import collections
import math

from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

MAX_ORDER = 4
_TOKENIZE = Tokenizer13a()


def mbr_order(texts, scores):
  """A sentence's hypotheses (texts) and beam scores -> their indices, best MBR pick first."""
  expected = expected_bleus(texts, scores)
  return sorted(range(len(texts)), key=lambda i: -expected[i])  # sorted() is stable.


def expected_bleus(texts, scores):
  """A sentence's hypotheses (texts) and beam scores -> each one's expected BLEU (0-100)
  against them all, weighted by softmax(scores)."""
  if len(texts) != len(scores):
    raise ValueError(f"{len(texts)} hypotheses but {len(scores)} scores")
  if not texts:
    return []
  counted = [NgramCounts(text) for text in texts]
  weights = _softmax(scores)
  return [sum(w * sentence_bleu(h, reference) for w, reference in zip(weights, counted))
          for h in counted]


def sentence_bleu(hypothesis, reference):
  """Smoothed sentence BLEU (0-100) of one hypothesis against one reference (NgramCounts)."""
  if not hypothesis.length or not reference.length:
    return 100.0 if hypothesis.length == reference.length else 0.0
  log_precision = 0.0
  for order in range(1, MAX_ORDER + 1):
    matches = sum((hypothesis.ngrams[order] & reference.ngrams[order]).values())
    total = max(hypothesis.length - order + 1, 0)
    smoothing = 0 if order == 1 else 1  # Lin and Och: add one to 2- to 4-gram counts.
    if matches + smoothing == 0:
      return 0.0
    log_precision += math.log((matches + smoothing) / (total + smoothing)) / MAX_ORDER
  brevity = min(0.0, 1.0 - reference.length / hypothesis.length)
  return 100.0 * math.exp(log_precision + brevity)


class NgramCounts:
  """A text's 13a tokens, counted: `length` tokens, `ngrams[order]` a Counter of n-grams."""

  def __init__(self, text):
    tokens = _TOKENIZE(text).split()
    self.length = len(tokens)
    self.ngrams = {order: collections.Counter(tuple(tokens[k:k + order])
                                              for k in range(len(tokens) - order + 1))
                   for order in range(1, MAX_ORDER + 1)}


def _softmax(scores):
  """Beam scores (log domain) -> weights summing to 1."""
  top = max(scores)
  exps = [math.exp(s - top) for s in scores]
  total = sum(exps)
  return [e / total for e in exps]
