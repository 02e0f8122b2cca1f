"""BLEU as papers and WMT report it, computed by sacrebleu.

    report = bleu_report(hypotheses, [references])   # one list of lines per reference
    report.cased.score, report.uncased.score, report.compound_split.score
    print(report)                                    # one labelled line per score

    report = score_files("out.de", ["newstest2014.de"])   # UserError on bad files

Three scores of the same detokenized text:
  - sacreBLEU, cased and uncased: sacrebleu's own tokenization (13a by default)
    and smoothing; the line carries sacrebleu's signature, the number to quote.
  - tokenized BLEU with compound splitting, the number the Transformer paper's
    27.3 / 28.4 (newstest2014 en-de) are. tensor2tensor's get_ende_bleu.sh
    Moses-tokenizes both sides (tokenizer.perl -l de; the hypothesis after
    replace-unicode-punctuation.perl, not applied here), splits hyphenated
    compounds with `perl -ple 's{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g'` and runs
    multi-bleu.perl (cased, no smoothing). Here sacrebleu's 13a tokenizer stands
    in for Moses' tokenizer.perl: it APPROXIMATES it. 13a keeps hyphens inside
    words as Moses does, but leaves non-ASCII punctuation such as „ “ › ‹ glued
    to words and splits abbreviation periods ("Assn.") that Moses keeps; on
    noisy copies of newstest2014 the two differ by 0.1 to 0.3 BLEU. The BLEU
    itself is sacrebleu's with tokenize="none" and smooth_method="none", which
    counts like multi-bleu.perl.
"""

import dataclasses
import os
import re
from typing import Sequence

from sacrebleu.metrics.bleu import BLEU, BLEUScore
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from t2t_lite.data.text_files import read_lines
from t2t_lite.errors import UserError

__all__ = ["Bleu", "BleuReport", "sacre_bleu", "split_compounds", "paper_tokenize",
           "compound_split_bleu", "bleu_report", "read_text_file", "score_files"]

# perl's `s{(\S)-(\S)}{...}g` reads bytes, where \S is "not ASCII whitespace";
# re.ASCII gives Python's \S the same meaning. Like perl's `g`, re.sub replaces
# non-overlapping matches left to right: "a-b-c" -> "a ##AT##-##AT## b-c".
_COMPOUND_HYPHEN = re.compile(r"(\S)-(\S)", re.ASCII)
_TOKENIZER_13A = Tokenizer13a()
COMPOUND_SPLIT_TOKENIZER = "13a-approximating-moses+compound-split"


@dataclasses.dataclass(frozen=True)
class Bleu:
  """One BLEU score: `score` in [0, 100], its signature, sacrebleu's full result.

  Two are equal when label, score and signature are.
  """

  label: str
  score: float
  signature: str
  details: BLEUScore = dataclasses.field(compare=False)  # Precisions, brevity penalty, lengths.

  def format(self, label_width=0):
    """`<label>  <score, 2 decimals>  <signature>`, the label padded to `label_width`."""
    return f"{self.label:<{label_width}}  {self.score:6.2f}  {self.signature}"


@dataclasses.dataclass(frozen=True)
class BleuReport:
  """The three scores of one translation; `str()` gives one labelled line each."""

  cased: Bleu
  uncased: Bleu
  compound_split: Bleu

  def lines(self):
    scores = (self.cased, self.uncased, self.compound_split)
    width = max(len(bleu.label) for bleu in scores)
    return [bleu.format(width) for bleu in scores]

  def __str__(self):
    return "\n".join(self.lines())


def _check_streams(hypotheses, references):
  """Raises ValueError unless `references` is a non-empty list of streams as long as
  the non-empty `hypotheses`."""
  if isinstance(hypotheses, str) or not len(hypotheses):
    raise ValueError("hypotheses must be a non-empty list of strings")
  if isinstance(references, str) or not len(references) or any(
      isinstance(stream, str) for stream in references):
    raise ValueError("references must be a non-empty list of reference streams, each a "
                     "list of strings (for one reference: [reference_lines])")
  for number, stream in enumerate(references, start=1):
    if len(stream) != len(hypotheses):
      raise ValueError(f"reference stream {number} has {len(stream)} lines but there are "
                       f"{len(hypotheses)} hypotheses")


def _corpus_score(metric, hypotheses, references):
  """sacrebleu's result and signature object for `metric` over the corpus."""
  details = metric.corpus_score(list(hypotheses), [list(stream) for stream in references])
  return details, metric.get_signature()


def sacre_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
               lowercase=False, tokenize="13a") -> Bleu:
  """sacreBLEU of detokenized `hypotheses` against reference streams.

  `references[k][i]` is reference k of hypothesis i. Smoothing is sacrebleu's
  default ("exp"); the signature is sacrebleu's, e.g.
  `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`.
  """
  _check_streams(hypotheses, references)
  details, signature = _corpus_score(BLEU(lowercase=lowercase, tokenize=tokenize),
                                     hypotheses, references)
  label = f"sacreBLEU ({'uncased' if lowercase else 'cased'})"
  return Bleu(label, details.score, signature.format(), details)


def split_compounds(line: str) -> str:
  """tensor2tensor's compound splitting: `well-known` -> `well ##AT##-##AT## known`.

  Same output as `perl -ple 's{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g'`: a hyphen
  between two non-space characters is split; a standalone ` - ` is not; in
  `a-b-c` only the first hyphen is, since `b` was consumed by the first match.
  """
  return _COMPOUND_HYPHEN.sub(r"\1 ##AT##-##AT## \2", line)


def paper_tokenize(line: str) -> str:
  """A detokenized line as the paper-comparable BLEU sees it: sacrebleu's 13a
  tokenization (approximating Moses tokenizer.perl), then `split_compounds`."""
  return split_compounds(_TOKENIZER_13A(line))


def compound_split_bleu(hypotheses: Sequence[str],
                        references: Sequence[Sequence[str]]) -> Bleu:
  """Tokenized, cased BLEU with compound splitting (paper-comparable) of detokenized text.

  Both sides go through `paper_tokenize`; the count is multi-bleu.perl's (no
  smoothing, closest reference length). The signature says which tokenizer:
  `tok:13a-approximating-moses+compound-split`.
  """
  _check_streams(hypotheses, references)
  metric = BLEU(tokenize="none", smooth_method="none", force=True)
  details, signature = _corpus_score(
      metric, [paper_tokenize(line) for line in hypotheses],
      [[paper_tokenize(line) for line in stream] for stream in references])
  # sacrebleu's "none" would hide that the text was tokenized here, and how.
  signature.info["tok"] = COMPOUND_SPLIT_TOKENIZER
  return Bleu("tokenized BLEU, compound-split (paper-comparable)", details.score,
              signature.format(), details)


def bleu_report(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> BleuReport:
  """sacreBLEU cased and uncased, and the compound-split BLEU, of the same text."""
  return BleuReport(cased=sacre_bleu(hypotheses, references),
                    uncased=sacre_bleu(hypotheses, references, lowercase=True),
                    compound_split=compound_split_bleu(hypotheses, references))


def read_text_file(path, what):
  """The lines of a UTF-8 text file, without line endings.

  `what` names the file in errors ("translation file"): UserError when the
  file is missing or a line is not UTF-8 (naming file and line).
  """
  if not os.path.isfile(path):
    raise UserError(f"{what} {path}: no such file")
  return list(read_lines(path))


def score_files(translation_path, reference_paths) -> BleuReport:
  """`bleu_report` of a translation file against one or more reference files.

  `reference_paths` is a list of paths (one path as a string is one reference).
  Line i of each file is sentence i. UserError (one line) when a file is
  missing or not UTF-8, the translation file is empty, or a reference file's
  line count differs from the translation's.
  """
  if isinstance(reference_paths, str):
    reference_paths = [reference_paths]
  if not reference_paths:
    raise UserError("no reference file given")
  hypotheses = read_text_file(translation_path, "translation file")
  references = [read_text_file(path, "reference file") for path in reference_paths]
  if not hypotheses:
    raise UserError(f"translation file {translation_path} is empty; expected one "
                    f"translated sentence per line")
  for path, stream in zip(reference_paths, references):
    if len(stream) != len(hypotheses):
      raise UserError(f"line counts differ: translation file {translation_path} has "
                      f"{len(hypotheses)} lines but reference file {path} has {len(stream)}; "
                      f"line i of each must be the same sentence")
  return bleu_report(hypotheses, references)
