"""A beam reranked by runs of both directions: what t2t-decoder does when --output_dir lists
left-to-right and right-to-left runs (hparams right_to_left) together.

    reranker = Reranker([model_a, model_b, model_r2l], alpha=0.6)
    hypotheses = reranker.rerank(inputs, hypotheses)   # per sentence, best first again

The left-to-right runs search, as one ensemble, and their whole beam is kept; then every
run, of either direction, scores each hypothesis whole, teacher-forced, in its own order
(a right-to-left run reads it reversed, EOS last), and each sentence's hypotheses are
ranked by

    score(y) = ((1 / M) * sum_m log p_m(y)) / ((5 + |y|) / 6) ** alpha

the M runs' mean log-probability under the beam's own length penalty (|y| counts the
EOS): Sennrich et al. 2016's right-to-left reranking, though with every run weighted
alike where they weighted each direction's ensemble alike. These
scores replace the beam's; n_best, write_scores and mbr apply after.
"""

import numpy as np

from t2t_lite.constants import EOS_ID
from t2t_lite.data.target_order import target_order
from t2t_lite.decoding.lengths import length_penalty
from t2t_lite.decoding.scoring import padded, sequence_log_probs, traced_once

ROWS_PER_CALL = 32  # Hypotheses scored together: [rows, length, vocab] logits at once.


class Reranker:
  """models: the runs' models, each with `hparams.right_to_left`; alpha: the length
  penalty's exponent (the decoding's)."""

  def __init__(self, models, alpha):
    self.models, self.alpha = list(models), alpha
    self._log_probs = [traced_once(lambda i, t, m=m: sequence_log_probs(m, i, t))
                       for m in self.models]

  def rerank(self, inputs, hypotheses):
    """inputs: per sentence its input ids (EOS last); hypotheses: per sentence its
    [(ids before EOS, score)] -> per sentence [(ids, new score)], best first (ties keep
    the beam's order)."""
    rows = [(k, ids) for k, sentence in enumerate(hypotheses) for ids, _ in sentence]
    if not rows:
      return hypotheses
    total = np.zeros(len(rows))
    for start in range(0, len(rows), ROWS_PER_CALL):
      chunk = rows[start:start + ROWS_PER_CALL]
      sources = padded([inputs[k] for k, _ in chunk])
      for model, log_probs in zip(self.models, self._log_probs):
        in_order = target_order(model.hparams)
        targets = padded([in_order(ids) + [EOS_ID] for _, ids in chunk])
        total[start:start + len(chunk)] += np.asarray(log_probs(sources, targets))
    lengths = np.array([len(ids) + 1 for _, ids in rows])
    scores = total / len(self.models) / np.asarray(length_penalty(lengths, self.alpha))
    reranked = [[] for _ in hypotheses]
    for (k, ids), score in zip(rows, scores):
      reranked[k].append((ids, float(score)))
    return [sorted(sentence, key=lambda hypothesis: -hypothesis[1]) for sentence in reranked]
