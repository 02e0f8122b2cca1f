"""t2t-avg-all's length penalty: the alpha that decodes the dev sentences best, chosen for
the model it writes.

    choice = choose_alpha(run, sentences=200)  # run.model holds the model to write
    print(choice.line(output_dir)); choice.decode_hparams  # "alpha=1.4"

Each of the problem's `DecodeDefaults.dev_alphas` (and its own alpha) decodes the first
`sentences` dev sentences with the problem's beam, scored by its decoding metric
(`DevDecoding`: sacreBLEU, or bracket F1); another alpha replaces the problem's only when
it scores MIN_GAIN higher. The choice is written to the output's decoding.json
(`t2t_lite.run.chosen_decoding`), so that t2t-decoder and t2t-exporter decode with it
unless --decode_hparams says otherwise. Corpora want different lengths: on Multi30k's
captions (beam 5) val's sacreBLEU went from 40.83 at alpha 0.6 to 41.53 at 1.4; on
Europarl's speeches 1.4 lost 1.2 on 200 dev sentences (docs/results.md).
"""

import dataclasses

from t2t_lite.training.average_dev_check import SkippedCheck, dev_decoding
from t2t_lite.training.dev_decoding import DevDecoding

# What another alpha must gain over the problem's on the dev sentences: less is within the
# noise of a few hundred of them. On Europarl's first 18,000 pairs (60 minutes, seed 2)
# alpha 1.0 beat 0.6 by 0.03 on 200 dev sentences, then lost 0.11 on the whole val and
# 0.15 on test (docs/results.md); on Multi30k 1.4 gained 0.70 on the whole val.
MIN_GAIN = 0.3


@dataclasses.dataclass(frozen=True)
class AlphaChoice:
  """Each alpha's score on the same dev sentences, and the one chosen."""
  sentences: int
  beam_size: int
  metric: str
  scores: dict   # {alpha: score}, in the order tried (the problem's alpha first).
  alpha: float

  @property
  def decode_hparams(self):
    return f"alpha={self.alpha:g}"

  def line(self, output_dir):
    """What t2t-avg-all prints: every alpha's score and the one `output_dir` decodes with."""
    scores = ", ".join(f"{alpha:g} {score:.2f}" for alpha, score in self.scores.items())
    problems = next(iter(self.scores))
    kept = (f", the problem's: no other scores {MIN_GAIN:g} higher"
            if self.alpha == problems and max(self.scores.values()) > self.scores[problems]
            else "")
    return (f"t2t-avg-all: on {self.sentences} dev sentences (beam {self.beam_size}) length "
            f"penalty alpha {scores} ({self.metric}): t2t-decoder and t2t-exporter decode "
            f"{output_dir} with alpha {self.alpha:g}{kept} (--decode_hparams=alpha=A decodes "
            f"with another)")

  def record(self):
    """What the output's decoding.json says of the choice."""
    return {"by": "t2t-avg-all", "sentences": self.sentences, "beam_size": self.beam_size,
            "metric": self.metric, "scores": {f"{alpha:g}": score
                                              for alpha, score in self.scores.items()}}


def alphas_to_try(problem):
  """The problem's alpha, then its other `dev_alphas`; () when there is nothing to choose
  (one alpha, or greedy decoding, where alpha changes nothing)."""
  defaults = problem.decode_defaults
  alphas = tuple(dict.fromkeys((defaults.alpha, *defaults.dev_alphas)))
  return alphas if len(alphas) > 1 and defaults.beam_size > 1 else ()


def choose_alpha(run, sentences):
  """-> AlphaChoice for run.model on the first `sentences` dev sentences; None when the
  problem has no alphas to try; SkippedCheck when the run's dev split cannot be read."""
  alphas = alphas_to_try(run.problem)
  if not alphas or not sentences:
    return None
  first = dev_decoding(run, sentences, f"alpha={alphas[0]:g}")
  if isinstance(first, SkippedCheck):
    return first
  scores = {}
  for alpha in alphas:
    dev = first if alpha == alphas[0] else DevDecoding(
        run.problem, run.translator(f"alpha={alpha:g}"), first.sources, first.references)
    metric, scores[alpha] = dev.evaluate()
  return AlphaChoice(len(first.sources), first.translator.settings.beam_size, metric, scores,
                     best_alpha(scores))


def best_alpha(scores):
  """The alpha of {alpha: score} chosen: the first tried (the problem's own), unless
  another scores at least MIN_GAIN higher; then the highest (on a tie the smaller)."""
  problems, *others = scores
  best = max(others, key=lambda alpha: (scores[alpha], -alpha), default=problems)
  return best if scores[best] >= scores[problems] + MIN_GAIN else problems
