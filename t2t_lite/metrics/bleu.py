"""BLEU as papers, WMT and tensor2tensor report it, computed by sacrebleu.

    report = bleu_report(hypotheses, [references])   # one list of lines per reference
    report.cased.score, report.tensor2tensor_cased.score, report.compound_split.score
    report.lowercased_tokenized.score                # Multi30k papers' figure
    print(report)                                    # one labelled line per score

    report = score_files("out.de", ["newstest2014.de"])   # UserError on bad files

Six scores of the same detokenized text:
  - sacreBLEU, cased and uncased: sacrebleu's own tokenization (13a by default)
    and smoothing; the line carries sacrebleu's signature: the number to quote.
  - BLEU_cased and BLEU_uncased, the numbers tensor2tensor's t2t-bleu prints:
    its `bleu_hook.bleu_tokenize` is mteval-v14's international tokenization,
    which sacrebleu's tokenize="intl" is, and its counts smooth an n-gram order
    without matches as sacrebleu's "exp" does; uncased lowercases both sides.
    The two agree to float precision on any corpus whose hypotheses hold
    4-grams, except next to non-decimal number characters such as "²" (mteval's
    \\p{N}, tensor2tensor's \\d). tensor2tensor scores one reference; several
    count here as sacrebleu counts them.
  - tokenized BLEU with compound splitting, the number the Transformer paper's
    27.3 / 28.4 (newstest2014 en-de) are: tensor2tensor's get_ende_bleu.sh
    tokenizes both sides with Moses' tokenizer.perl -l de (`moses.py`: the same
    tokens, in Python), splits hyphenated compounds with
    `perl -ple 's{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g'` and runs multi-bleu.perl
    (cased, no smoothing), which sacrebleu with tokenize="none" and
    smooth_method="none" counts alike. get_ende_bleu.sh also passes its
    hypotheses, not its reference, through replace-unicode-punctuation.perl
    („ becomes "); that one-sided step is left out (on the perturbed copy of
    newstest2014 in the tests it costs 0.94: 42.65 instead of 43.59).
  - lowercased tokenized BLEU, the figure Multi30k papers report (e.g. 41.02 for
    a text-only Transformer on test_2016_flickr en-de): BLEU of the dataset's
    lowercased, Moses-tokenized text as multi-bleu.perl (and fairseq) count it.
    Both sides become what the release's tok files hold
    (`moses.multi30k_tokenize`; 12,103 tokens in test_2016_flickr.de), then
    the count is the compound-split BLEU's; it equals `multi-bleu.perl -lc` on
    those tokens to 8 decimals (44.06066039 on a perturbed test_2016_flickr.de).
"""

import dataclasses
import re
from typing import Sequence

from sacrebleu.metrics.bleu import BLEU, BLEUScore

from t2t_lite.data.text_files import read_lines
from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import require_file
from t2t_lite.metrics.moses import moses_tokenize, multi30k_tokenize

__all__ = ["Bleu", "BleuReport", "sacre_bleu", "tensor2tensor_bleu", "split_compounds",
           "paper_tokenize", "compound_split_bleu", "lowercased_tokenized_bleu", "bleu_report",
           "read_text_file", "score_files", "BLEU_VARIANTS"]

# perl's `s{(\S)-(\S)}{...}g` reads bytes, where \S is "not ASCII whitespace";
# re.ASCII gives Python's \S the same meaning. Like perl's `g`, re.sub replaces
# non-overlapping matches left to right: "a-b-c" -> "a ##AT##-##AT## b-c".
_COMPOUND_HYPHEN = re.compile(r"(\S)-(\S)", re.ASCII)

# The language of Moses' tokenizer for the compound-split BLEU (tokenizer.perl -l).
DEFAULT_LANGUAGE = "de"

# tensor2tensor's --bleu_variant: which of the cased and uncased scores are shown.
BLEU_VARIANTS = ("both", "cased", "uncased")

# A report's scores in order: (BleuReport field, tag, case).
_REPORT_ORDER = (("cased", "sacreBLEU_cased", "cased"),
                 ("uncased", "sacreBLEU_uncased", "uncased"),
                 ("tensor2tensor_cased", "BLEU_cased", "cased"),
                 ("tensor2tensor_uncased", "BLEU_uncased", "uncased"),
                 ("compound_split", "BLEU_compound_split", "cased"),
                 ("lowercased_tokenized", "BLEU_lowercased_tokenized", "uncased"))


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
  """The six scores of one translation; `str()` gives one labelled line each."""

  cased: Bleu
  uncased: Bleu
  tensor2tensor_cased: Bleu
  tensor2tensor_uncased: Bleu
  compound_split: Bleu
  lowercased_tokenized: Bleu

  def scores(self, variant="both"):
    """{tag: Bleu} of the scores `variant` (one of BLEU_VARIANTS) selects, in report order.

    The compound-split BLEU counts as cased, the lowercased tokenized one as
    uncased. A tag names a score in TensorBoard (tensor2tensor's two keep its
    tags, BLEU_cased and BLEU_uncased).
    """
    if variant not in BLEU_VARIANTS:
      raise ValueError(f"variant {variant!r} is not one of {', '.join(BLEU_VARIANTS)}")
    return {tag: getattr(self, field) for field, tag, case in _REPORT_ORDER
            if variant in ("both", case)}

  def lines(self, variant="both"):
    scores = list(self.scores(variant).values())
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


def tensor2tensor_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                       lowercase=False) -> Bleu:
  """tensor2tensor's t2t-bleu number, BLEU_cased (or, lowercase, BLEU_uncased): sacrebleu
  with mteval-v14's international tokenization (the module doc)."""
  bleu = sacre_bleu(hypotheses, references, lowercase=lowercase, tokenize="intl")
  label = f"BLEU_{'uncased' if lowercase else 'cased'} (tensor2tensor's t2t-bleu)"
  return dataclasses.replace(bleu, label=label)


def split_compounds(line: str) -> str:
  """tensor2tensor's compound splitting: `well-known` -> `well ##AT##-##AT## known`.

  Same output as `perl -ple 's{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g'`: a hyphen
  between two non-space characters is split; a standalone ` - ` is not; in
  `a-b-c` only the first hyphen is, since `b` was consumed by the first match.
  """
  return _COMPOUND_HYPHEN.sub(r"\1 ##AT##-##AT## \2", line)


def paper_tokenize(line: str, language=DEFAULT_LANGUAGE) -> str:
  """A detokenized line as the paper-comparable BLEU sees it: Moses' tokenizer.perl
  -l language (`moses.py`), then `split_compounds`."""
  return split_compounds(moses_tokenize(line, language))


def _multi_bleu(hypotheses, references, tokenize, tokenizer_name, label, lowercased=False):
  """multi-bleu.perl's BLEU (no smoothing, closest reference length) of detokenized text
  after `tokenize(line)` on both sides; `tokenizer_name` and `lowercased` go into the
  signature (sacrebleu's `tok:none|case:mixed` would hide what was done here)."""
  _check_streams(hypotheses, references)
  metric = BLEU(tokenize="none", smooth_method="none", force=True)
  details, signature = _corpus_score(
      metric, [tokenize(line) for line in hypotheses],
      [[tokenize(line) for line in stream] for stream in references])
  signature.info["tok"] = tokenizer_name
  if lowercased:
    signature.info["case"] = "lc"
  return Bleu(label, details.score, signature.format(), details)


def compound_split_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                        language=DEFAULT_LANGUAGE) -> Bleu:
  """Tokenized, cased BLEU with compound splitting (paper-comparable) of detokenized text.

  Both sides go through `paper_tokenize`; the count is multi-bleu.perl's (no
  smoothing, closest reference length). The signature says which tokenizer:
  `tok:moses-de+compound-split`.
  """
  return _multi_bleu(hypotheses, references, lambda line: paper_tokenize(line, language),
                     f"moses-{language}+compound-split",
                     "tokenized BLEU, compound-split (paper-comparable)")


def lowercased_tokenized_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                              language=DEFAULT_LANGUAGE) -> Bleu:
  """Lowercased tokenized BLEU of detokenized text, the Multi30k papers' figure.

  Both sides go through `multi30k_tokenize` (lowercased, punctuation normalized,
  Moses' tokens as the Multi30k release's tok files hold them); the count is
  multi-bleu.perl's, as `multi-bleu.perl -lc reference < hypotheses` on those
  tokens prints it. Signature: `case:lc|...|tok:multi30k-moses-de`.
  """
  return _multi_bleu(hypotheses, references, lambda line: multi30k_tokenize(line, language),
                     f"multi30k-moses-{language}",
                     "tokenized BLEU, lowercased (Multi30k papers' multi-bleu)",
                     lowercased=True)


def bleu_report(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                language=DEFAULT_LANGUAGE) -> BleuReport:
  """The six scores of the same text (the module doc); `language` is the target
  language, for Moses' tokenizer."""
  return BleuReport(cased=sacre_bleu(hypotheses, references),
                    uncased=sacre_bleu(hypotheses, references, lowercase=True),
                    tensor2tensor_cased=tensor2tensor_bleu(hypotheses, references),
                    tensor2tensor_uncased=tensor2tensor_bleu(hypotheses, references,
                                                             lowercase=True),
                    compound_split=compound_split_bleu(hypotheses, references, language),
                    lowercased_tokenized=lowercased_tokenized_bleu(hypotheses, references,
                                                                   language))


def read_text_file(path, what):
  """The lines of a UTF-8 text file, without line endings.

  `what` names the file in errors ("translation file"): UserError when the
  file is missing, a directory, or a line is not UTF-8 (naming file and line).
  """
  require_file(path, what)
  return list(read_lines(path))


def score_files(translation_path, reference_paths, language=DEFAULT_LANGUAGE) -> BleuReport:
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
  return bleu_report(hypotheses, references, language)
