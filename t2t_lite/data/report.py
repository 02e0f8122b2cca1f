"""What t2t-datagen tells the user: a progress line while it reads, a summary at the end."""

import dataclasses
import os

from t2t_lite.progress_line import ProgressLine

PERCENTILES = (50, 90, 99)


@dataclasses.dataclass
class SplitSummary:
  """One split: pairs read, dropped (by reason), examples written, tokens, length percentiles.

  Lengths count tokens with EOS; percentiles are {"p50", "p90", "p99", "max"}.
  """
  split: str
  pairs_read: int
  dropped: dict
  examples: int
  input_tokens: int
  target_tokens: int
  input_lengths: dict
  target_lengths: dict
  seconds: float

  @classmethod
  def from_length_counts(cls, split, counts, input_lengths, target_lengths, seconds):
    """counts: Counter with "read" and drop reasons; lengths: {length: examples} of each
    side (a histogram: its size does not grow with the split)."""
    return cls(split=split, pairs_read=counts["read"],
               dropped={k: v for k, v in sorted(counts.items()) if k != "read"},
               examples=sum(input_lengths.values()),
               input_tokens=sum(length * n for length, n in input_lengths.items()),
               target_tokens=sum(length * n for length, n in target_lengths.items()),
               input_lengths=length_percentiles(input_lengths),
               target_lengths=length_percentiles(target_lengths), seconds=seconds)

  def to_dict(self):
    return dataclasses.asdict(self)


def length_percentiles(length_counts):
  """{length: examples} -> {"p50", "p90", "p99", "max"}: for each, the smallest length at
  least that percent of the examples do not exceed (numpy's "inverted_cdf")."""
  if not length_counts:
    return {}
  total, below, result = sum(length_counts.values()), 0, {}
  percents = list(PERCENTILES)
  for length in sorted(length_counts):
    below += length_counts[length]
    while percents and below * 100 >= percents[0] * total:
      result[f"p{percents.pop(0)}"] = int(length)
  result["max"] = int(max(length_counts))
  return result


@dataclasses.dataclass
class VocabSummary:
  paths: list
  size: int
  shared: bool
  sentences: int
  seconds: float


@dataclasses.dataclass
class DatagenSummary:
  """The result of `TextPairProblem.generate_data`; `str()` is the printed report."""
  problem: str
  data_dir: str
  vocab: VocabSummary
  splits: list

  def split(self, name):
    return next(s for s in self.splits if s.split == name)

  def __str__(self):
    names = ", ".join(os.path.basename(p) for p in self.vocab.paths)
    lines = [
        f"{self.problem} -> {self.data_dir}",
        f"vocabulary: {names}: {self.vocab.size} pieces (BPE, "
        f"{'shared by inputs and targets' if self.vocab.shared else 'inputs and targets apart'}"
        f"), trained on {self.vocab.sentences:,} sentences in {self.vocab.seconds:.1f}s",
    ]
    header = ("split", "read", "dropped", "examples", "input tokens", "target tokens",
              "input len p50/p90/p99/max", "target len p50/p90/p99/max", "time")
    rows = [header] + [(
        s.split, f"{s.pairs_read:,}", f"{sum(s.dropped.values()):,}", f"{s.examples:,}",
        f"{s.input_tokens:,}", f"{s.target_tokens:,}", _lengths(s.input_lengths),
        _lengths(s.target_lengths), f"{s.seconds:.1f}s") for s in self.splits]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines += ["  ".join(cell.rjust(w) if i else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
              for row in rows]
    for s in self.splits:
      if s.dropped:
        reasons = ", ".join(f"{n:,} {reason}" for reason, n in s.dropped.items())
        lines.append(f"dropped from {s.split}: {reasons}")
      if not s.examples:
        why = "every pair was dropped" if s.pairs_read else "no text was given for it"
        lines.append(f"{s.split}: no examples ({why})")
    return "\n".join(lines)


def _lengths(p):
  return "/".join(str(p[k]) for k in ("p50", "p90", "p99", "max")) if p else "-"


class PairProgress:
  """t2t-datagen's status line: pairs read (and written), pairs per second."""

  def __init__(self, label, enabled=True, stream=None):
    self.label = label
    self.line = ProgressLine(stream, enabled=enabled)

  def update(self, read, written=None):
    if self.line.due():
      self.line.show(f"{self.label}: {read:,} pairs read" + (
          f", {written:,} written" if written is not None else "") +
          f" ({read / self.line.elapsed():,.0f}/s)")

  def close(self):
    self.line.close()
