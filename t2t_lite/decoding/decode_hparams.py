"""Decoding settings: the problem's defaults, then `--decode_hparams` overrides."""

import dataclasses

from t2t_lite.errors import UserError
from t2t_lite.overrides import parse_overrides


@dataclasses.dataclass(frozen=True)
class DecodeHParams:
  """How t2t-decoder and t2t-exporter decode (paper: beam 4, alpha 0.6, input + 50)."""
  beam_size: int = 4            # 1 = greedy decoding.
  alpha: float = 0.6            # Length penalty ((5 + len) / 6) ** alpha.
  extra_length: int = 50        # A sentence may decode to its input length + this.
  batch_size: int = 32          # Sentences decoded together.
  n_best: int = 1               # Hypotheses written per input line, tab-separated.
  write_scores: bool = False    # Follow each hypothesis by a tab and its score.
  max_input_length: int = 0     # Longer inputs are truncated; 0 = the model's max_length.

  def __post_init__(self):
    for name in ("beam_size", "batch_size", "n_best"):
      if getattr(self, name) < 1:
        raise UserError(f"--decode_hparams: {name}={getattr(self, name)} must be at least 1")
    if self.n_best > self.beam_size:
      raise UserError(f"--decode_hparams: n_best={self.n_best} exceeds beam_size="
                      f"{self.beam_size}; raise beam_size")
    if self.extra_length < 0 or self.max_input_length < 0 or self.alpha < 0:
      raise UserError("--decode_hparams: extra_length, max_input_length and alpha must be >= 0")


def decode_hparams_for(problem, overrides=""):
  """The problem's decoding defaults (beam, alpha, extra length) with `overrides` applied."""
  defaults = problem.decode_defaults
  base = DecodeHParams(beam_size=defaults.beam_size, alpha=defaults.alpha,
                       extra_length=defaults.extra_length)
  return dataclasses.replace(base, **parse_overrides(overrides, DecodeHParams,
                                                     flag="--decode_hparams"))
