"""Decoding settings: the problem's defaults, then `--decode_hparams` overrides.

`decode_hparams` is always the override string, as the flag takes it; the
`DecodeHParams` made from it are called the settings.

tensor2tensor's names are accepted with tensor2tensor's meanings, as
`t2t_lite.cli.tensor2tensor_names.DECODE_HPARAMS` translates them: return_beams=True is
n_best=beam_size, write_beam_scores=True is write_scores=True, max_input_size=N is
max_input_length=N for N > 0 and truncate_inputs=False for N <= 0 (its default, -1).
"""

import dataclasses

from t2t_lite.cli.flag_bounds import bounded, check_bounds
from t2t_lite.cli.overrides import parse_overrides
from t2t_lite.cli.tensor2tensor_names import DECODE_HPARAMS
from t2t_lite.errors import UserError

FLAG = "--decode_hparams"


@dataclasses.dataclass(frozen=True)
class DecodeHParams:
  """How t2t-decoder and t2t-exporter decode (paper: beam 4, alpha 0.6, input + 50)."""
  beam_size: int = bounded(4, minimum=1)          # 1 = greedy decoding.
  alpha: float = bounded(0.6, minimum=0)          # Length penalty ((5 + len) / 6) ** alpha.
  extra_length: int = bounded(50, minimum=0)      # A sentence may decode to its input
                                                  # length + this.
  batch_size: int = bounded(32, minimum=1)        # Sentences decoded together.
  n_best: int = bounded(1, minimum=1)             # Hypotheses written per input line,
                                                  # tab-separated.
  write_scores: bool = False    # Follow each hypothesis by a tab and its score.
  max_input_length: int = bounded(0, minimum=0)   # Longer inputs are truncated; 0 = the
                                                  # model's max_length.
  truncate_inputs: bool = True  # False: inputs are never truncated (see `input_limit`).
  count_rule: bool = True       # Apply the problem's count rule, if it has one (parsing:
                                # one leaf per source word); False: decode without it.
  bracket_rule: bool = True     # With the count rule, the problem's bracket rule, if it has
                                # one (parsing: well-formed trees); False: without it.
  copy_rule: bool = True        # With the bracket rule, the problem's copy rule, if it has
                                # one (parsing with word leaves: the source's words, in
                                # order); False: without it.
  mbr: bool = False             # Rank each line's whole beam by minimum Bayes risk
                                # (mbr.py: the hypothesis the beam agrees with most
                                # first) before n_best is taken; scores stay the beam's
                                # (or the reranking's: t2t_lite.decoding.rerank).

  def __post_init__(self):
    check_bounds(self, name_format=f"{FLAG}: {{}}")  # "--decode_hparams: beam_size=0: it must ..."
    if self.n_best > self.beam_size:
      raise UserError(f"{FLAG}: n_best={self.n_best} exceeds beam_size="
                      f"{self.beam_size}; raise beam_size")
    if self.mbr and self.beam_size < 2:
      raise UserError(f"{FLAG}: mbr=True chooses among a beam's hypotheses; raise beam_size "
                      f"above {self.beam_size} (e.g. beam_size=10)")

  def input_limit(self, hparams):
    """The most tokens (EOS included) an input keeps; None: all of them.

    A model with learned positions (`pos="emb"`) has `max_length` of them, so
    its inputs are cut there even when `truncate_inputs` is False or
    `max_input_length` is larger.
    """
    limit = (self.max_input_length or hparams.max_length) if self.truncate_inputs else None
    if hparams.pos == "emb":
      return min(limit or hparams.max_length, hparams.max_length)
    return limit


# The names `--decode_hparams` reads: DecodeHParams' and tensor2tensor's.
_TENSOR2TENSOR_NAMES = dataclasses.make_dataclass(
    "_Tensor2tensorNames", [(alias, kind, dataclasses.field(default=None))
                            for alias, (kind, _, _) in DECODE_HPARAMS.items()],
    bases=(DecodeHParams,), frozen=True)


def decode_hparams_for(problem, decode_hparams="", chosen=""):
  """The `DecodeHParams` of `problem`: its decoding defaults (beam, alpha, extra length),
  then the run's `chosen` settings (its decoding.json: `t2t_lite.run.chosen_decoding`),
  then the overrides of `decode_hparams` ("beam_size=4,alpha=0.6", as the flag takes them)."""
  defaults = problem.decode_defaults
  return overridden(overridden(DecodeHParams(beam_size=defaults.beam_size, alpha=defaults.alpha,
                                             extra_length=defaults.extra_length), chosen),
                    decode_hparams)


def overridden(base, decode_hparams):
  """`base` (DecodeHParams) with the overrides of `decode_hparams` (as the flag takes them)."""
  values = parse_overrides(decode_hparams, _TENSOR2TENSOR_NAMES, flag=FLAG)
  return dataclasses.replace(base, **_fields_of_tensor2tensor_names(values, base))


def _fields_of_tensor2tensor_names(values, base):
  """Parsed overrides -> DecodeHParams field values, tensor2tensor's names translated
  (the module doc); a field given under both names is a one-line UserError."""
  given = {**dataclasses.asdict(base), **values}
  ours = {name: value for name, value in values.items() if name not in DECODE_HPARAMS}
  for alias, (_, name, translate) in DECODE_HPARAMS.items():
    if alias not in values:
      continue
    if name in values:
      raise UserError(f"{FLAG}: {alias} is tensor2tensor's name for {name}; give one of them")
    ours.update(translate(values[alias], given))
  return ours
