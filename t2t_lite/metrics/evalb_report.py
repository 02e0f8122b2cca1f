"""What EVALB reports: a row per sentence, totals over sentences, and the printed report.

    result.sentences[12].status        # OK, ERROR or SKIP
    result.all.recall                  # percent, like every rate here
    format_report(result)              # the text EVALB prints on stdout

Rates are percentages, 0.0 where EVALB would divide by zero.
"""

import dataclasses

OK, ERROR, SKIP = 0, 1, 2       # EVALB's sentence status.


def _percent(part, whole):
  """A property: attribute `part` in percent of attribute `whole`, 0.0 where that is 0."""
  def rate(self):
    total = getattr(self, whole)
    return 100.0 * getattr(self, part) / total if total else 0.0
  return property(rate)


class _Rates:
  """Recall, precision and tagging accuracy from the counts of a row or of totals."""

  recall = _percent("matched", "gold_brackets")
  precision = _percent("matched", "test_brackets")
  tagging_accuracy = _percent("correct_tags", "words")


@dataclasses.dataclass(frozen=True)
class SentenceResult(_Rates):
  """One row of EVALB's table; a skip or error row is all 0 but for length and words."""

  id: int                 # 1-based line number.
  length: int             # Gold words whose tag is not in DELETE_LABEL_FOR_LENGTH.
  status: int             # OK, ERROR or SKIP.
  matched: int            # Matched brackets.
  gold_brackets: int
  test_brackets: int
  crossing: int           # Test brackets crossing a gold bracket.
  words: int              # Gold words left after DELETE_LABEL.
  correct_tags: int
  message: str = ""       # Why an error sentence was not scored, e.g. "Length unmatch (4|5)".


@dataclasses.dataclass(frozen=True)
class Totals(_Rates):
  """Counts over a set of sentences; only valid (status 0) ones add brackets, words, crossings."""

  sentences: int = 0
  error_sentences: int = 0
  skip_sentences: int = 0
  matched: int = 0
  gold_brackets: int = 0
  test_brackets: int = 0
  crossing: int = 0
  complete_match_sentences: int = 0
  no_crossing_sentences: int = 0
  two_or_less_crossing_sentences: int = 0
  words: int = 0
  correct_tags: int = 0

  def add(self, s):
    """These totals plus sentence `s` (a SentenceResult)."""
    if s.status != OK:
      return dataclasses.replace(self, sentences=self.sentences + 1,
                                 error_sentences=self.error_sentences + (s.status == ERROR),
                                 skip_sentences=self.skip_sentences + (s.status == SKIP))
    complete = s.gold_brackets == s.test_brackets == s.matched
    return dataclasses.replace(
        self, sentences=self.sentences + 1, matched=self.matched + s.matched,
        gold_brackets=self.gold_brackets + s.gold_brackets,
        test_brackets=self.test_brackets + s.test_brackets,
        crossing=self.crossing + s.crossing,
        complete_match_sentences=self.complete_match_sentences + complete,
        no_crossing_sentences=self.no_crossing_sentences + (s.crossing == 0),
        two_or_less_crossing_sentences=self.two_or_less_crossing_sentences + (s.crossing <= 2),
        words=self.words + s.words, correct_tags=self.correct_tags + s.correct_tags)

  @property
  def valid_sentences(self):
    return self.sentences - self.error_sentences - self.skip_sentences

  @property
  def f1(self):
    """Of the percentages, as EVALB computes it; 0.0 where EVALB prints nan."""
    total = self.precision + self.recall
    return 2 * self.precision * self.recall / total if total else 0.0

  complete_match = _percent("complete_match_sentences", "valid_sentences")
  no_crossing = _percent("no_crossing_sentences", "valid_sentences")
  two_or_less_crossing = _percent("two_or_less_crossing_sentences", "valid_sentences")

  @property
  def average_crossing(self):
    return self.crossing / self.valid_sentences if self.valid_sentences else 0.0


@dataclasses.dataclass(frozen=True)
class CorpusResult:
  """Everything EVALB reports: rows, the two summary blocks, and its stderr lines."""

  sentences: tuple        # (SentenceResult, ...) in line order.
  all: Totals             # Every sentence.
  short: Totals           # Sentences of length <= cutoff_len.
  cutoff_len: int
  messages: tuple         # ("13 : Length unmatch (4|5)", ...): what EVALB prints on stderr.


def format_report(result, fmeasure=True):
  """EVALB's report on stdout for `result` (a CorpusResult), ending in a newline.

  The layout is that of sample.rsl, the expected output EVALB ships; the 2006
  release added the "Bracketing FMeasure" lines, which fmeasure=False leaves
  out. Error and skip rows show the gold word count under Words, as sample.rsl
  does. The footer's Cross column is the crossing total, as in the 2006
  release; sample.rsl shows 16 there although its summary (average crossing
  0.06 over 17 sentences) and its rows give a total of 1.
  """
  rule = "=" * 76
  lines = [
      "  Sent.                        Matched  Bracket   Cross        Correct Tag",
      " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy",
      rule,
  ]
  for s in result.sentences:
    lines.append(f"{s.id:4d}  {s.length:3d}    {s.status:d}  {s.recall:6.2f} {s.precision:6.2f}"
                 f"   {s.matched:3d}    {s.gold_brackets:3d}  {s.test_brackets:3d}"
                 f"    {s.crossing:3d}   {s.words:4d}  {s.correct_tags:4d}   {s.tagging_accuracy:6.2f}")
  t = result.all
  lines.append(rule)
  lines.append(f"                {t.recall:6.2f} {t.precision:6.2f} {t.matched:6d}"
               f" {t.gold_brackets:6d} {t.test_brackets:4d} {t.crossing:6d}"
               f"  {t.words:5d} {t.correct_tags:5d}   {t.tagging_accuracy:6.2f}")
  lines.append("=== Summary ===")
  for title, totals in (("All", result.all), (f"len<={result.cutoff_len}", result.short)):
    lines += ["", f"-- {title} --"] + _summary_lines(totals, fmeasure)
  return "\n".join(lines) + "\n"


def _summary_lines(t, fmeasure):
  rows = [
      ("Number of sentence", f"{t.sentences:6d}"),
      ("Number of Error sentence", f"{t.error_sentences:6d}"),
      ("Number of Skip  sentence", f"{t.skip_sentences:6d}"),
      ("Number of Valid sentence", f"{t.valid_sentences:6d}"),
      ("Bracketing Recall", f"{t.recall:6.2f}"),
      ("Bracketing Precision", f"{t.precision:6.2f}"),
      ("Bracketing FMeasure", f"{t.f1:6.2f}") if fmeasure else None,
      ("Complete match", f"{t.complete_match:6.2f}"),
      ("Average crossing", f"{t.average_crossing:6.2f}"),
      ("No crossing", f"{t.no_crossing:6.2f}"),
      ("2 or less crossing", f"{t.two_or_less_crossing:6.2f}"),
      ("Tagging accuracy", f"{t.tagging_accuracy:6.2f}"),
  ]
  return [f"{name:<26}= {value}" for name, value in filter(None, rows)]
