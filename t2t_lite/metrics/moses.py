"""Moses' tokenizer.perl in Python: sacremoses, plus the one rule it lacks.

    moses_tokenize("Das kostet 3,5 Mio. Euro, sagte er am 26.", "de")
    # "Das kostet 3,5 Mio. Euro , sagte er am 26 ."
    multi30k_tokenize("Ein Mann mit einem orangefarbenen Hut, der etwas anstarrt.", "de")
    # "ein mann mit einem orangefarbenen hut , der etwas anstarrt ."

sacremoses reimplements tokenizer.perl; `moses_tokenize` uses it with
tokenizer.perl's defaults (special characters escaped, `&` -> `&amp;`; no
aggressive hyphen splitting). tokenizer.perl splits the period off a line's
last word unconditionally, non-breaking prefix or not ("26." above: "26" is a
German non-breaking prefix, which elsewhere keeps "26." whole); sacremoses does
not, so `_PerlRules` adds that rule where tokenizer.perl has it. With it, the
output equals `tokenizer.perl -l LANG` line for line on newstest2013 and
newstest2014 (de, en, fr).

`multi30k_tokenize` is the Multi30k release's preprocessing instead (its
data/task1/tok files, the text its papers score): lowercase.perl |
normalize-punctuation.perl -l LANG | tokenizer.perl -l LANG, with the
tokenizer.perl of Moses commit 3a0631a that the release ships. That one keeps a
non-breaking prefix's period on the last word too ("nummer 10."), as sacremoses
does, so it is sacremoses as it is. It gives the release's test_2016_flickr.de
line for line (12,103 tokens), and val, test_2016_flickr, test_2017_flickr and
test_2017_mscoco in de, en and fr but for 3 of their 10,425 lines, where the two
punctuation normalizers differ (a quote after a line's last period; `’` in fr).
"""

import functools
import re

from sacremoses import MosesPunctNormalizer, MosesTokenizer
from sacremoses.corpus import NonbreakingPrefixes

_ENDS_WITH_PERIOD = re.compile(r"^(\S+)\.$")


class _PerlRules(MosesTokenizer):
  """sacremoses' tokenizer with tokenizer.perl's split of the last word's period."""

  def handles_nonbreaking_prefixes(self, text):
    tokens = text.split()
    if tokens:
      tokens[-1] = _ENDS_WITH_PERIOD.sub(r"\1 .", tokens[-1])
    return super().handles_nonbreaking_prefixes(" ".join(tokens))


@functools.lru_cache(maxsize=None)
def _tokenizer(language):
  return _PerlRules(lang=language)


def knows_abbreviations_of(language):
  """Whether Moses has `language`'s non-breaking prefixes (de, en, fr, ...). For any other
  code its tokenizer uses English's, as `tokenizer.perl -l` does after a warning."""
  return language in NonbreakingPrefixes().available_langs


def moses_tokenize(line, language):
  """`tokenizer.perl -l language` of one line: its tokens joined by single spaces."""
  return _tokenizer(language).tokenize(line, return_str=True, escape=True)


@functools.lru_cache(maxsize=None)
def _multi30k_steps(language):
  return MosesPunctNormalizer(lang=language), MosesTokenizer(lang=language)


def multi30k_tokenize(line, language):
  """A line as Multi30k's tok files hold it: lowercased, punctuation normalized and
  tokenized as its scripts/task1-tokenize.sh does (the module doc)."""
  normalizer, tokenizer = _multi30k_steps(language)
  return tokenizer.tokenize(normalizer.normalize(line.lower()), return_str=True, escape=True)
