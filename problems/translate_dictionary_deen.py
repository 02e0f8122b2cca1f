"""translate_deen_ding8k: German -> English example sentences of the Ding dictionary.

The built-in offline problem: Debian's package `trans-de-en` installs the Ding
German-English dictionary (GPL, https://dict.tu-chemnitz.de/) as
/usr/share/trans/de-en. Beside its headwords it holds thousands of example
sentences with their translations; they are extracted at datagen time, never
shipped.

    apt-get install trans-de-en
    t2t-datagen --problem=translate_deen_ding8k --data_dir=DIR

Without the package, download the dictionary from the Ding site (de-en.txt.gz)
and unpack it into --tmp_dir: a `de-en.txt` there is read instead of the
installed file.

The file's format: one entry a line, `German :: English`; each side holds
alternatives separated by ` | ` (headword, plural, examples, ... in the same
order on both sides) and each alternative holds variants separated by `;`.
Which aligned alternatives become a pair (`example_items`):
  1. The first `;`-variant of each side is taken (the others are synonyms),
     without usage labels at its end ("Alle Wege führen nach Rom. [übtr.]").
  2. A variant is a sentence when it starts with an uppercase letter, a digit
     or an opening quote and ends with `.`, `!` or `?` (maybe followed by a
     closing quote). Alternatives where neither side is a sentence are
     headwords, not examples, and are skipped silently.
  3. A candidate is dropped, with its reason counted, when only one side is a
     sentence, or either side holds dictionary markup (`[coll.]`, `{f}`,
     `<...>`), inline alternatives with `/` ("sheer/pure"), optional words in
     parentheses, the placeholders `etw.`, `jdn.`, `sth.`, `sb.` (a pattern,
     not a sentence), or an ellipsis (a fragment); and when the same pair
     occurred before.
Each pair's split is fixed by a hash of its German sentence (1/16 dev, 1/16
test, the rest train), so a sentence never lands in two splits and the
split does not depend on the file's order or version.
"""

import hashlib
import os
import re

from t2t_lite.built_in import problem
from t2t_lite.data.problem import DecodeDefaults, Drop, TextPairProblem
from t2t_lite.data.text_files import read_lines
from t2t_lite.errors import UserError

INSTALLED_PATH = "/usr/share/trans/de-en"  # Debian package trans-de-en.
DOWNLOADED_NAME = "de-en.txt"              # The Ding site's file name, looked for in tmp_dir.

SPLIT_BUCKETS = 16                         # Hash buckets: 0 -> dev, 1 -> test, others train.

_OPENING = "\"'„“‚‘»«¿¡"
_SENTENCE_END = re.compile(r"[.!?][\"'“”‘’»«]*$")
# Usage labels after a variant ("[coll.]", "{interj}", "<stehen>", "/TGIF/"): not text.
_TRAILING_LABELS = re.compile(r"(\s+(\[[^\]]*\]|\{[^}]*\}|<[^>]*>|/[^/]+/))+$")
_MARKUP = re.compile(r"[\[\]{}<>]")
_PLACEHOLDER = re.compile(r"(?<![\w-])(etw|jdm|jdn|jds|jd|sth|sb|sb's)\.", re.IGNORECASE)
_ELLIPSIS = re.compile(r"…|\.\.\.")

DROP_ONE_SIDED = "example sentence on one side only"
DROP_MARKUP = "dictionary markup ([...], {...}, <...>)"
DROP_SLASH = "inline alternatives with /"
DROP_PARENTHESES = "optional words in parentheses"
DROP_PLACEHOLDER = "placeholder (etw., jdn., sth., sb.)"
DROP_ELLIPSIS = "fragment with an ellipsis"
DROP_DUPLICATE = "duplicate pair"
DROP_UNALIGNED = "entry whose sides differ in number of |-alternatives"
DROP_MALFORMED = "entry without exactly one ' :: '"


def dictionary_path(tmp_dir):
  """The dictionary file to read: `<tmp_dir>/de-en.txt` if present, else the installed one.

  Raises UserError, saying how to get the file, when neither exists.
  """
  downloaded = os.path.join(tmp_dir, DOWNLOADED_NAME)
  for path in (downloaded, INSTALLED_PATH):
    if os.path.isfile(path):
      return path
  raise UserError(f"the Ding dictionary is missing: install it with `apt-get install "
                  f"trans-de-en` (gives {INSTALLED_PATH}) or put its {DOWNLOADED_NAME} "
                  f"into --tmp_dir ({tmp_dir})")


def is_sentence(text):
  """Whether a dictionary variant reads as a whole sentence (see the module docstring)."""
  if not text:
    return False
  first = text[0]
  starts = first.isupper() or first.isdigit() or (first in _OPENING)
  return starts and _SENTENCE_END.search(text) is not None


def example_items(lines):
  """Yields, from the dictionary's lines, `(german, english)` pairs or `(german, Drop)`.

  Every example candidate gives one item: its sentence pair, or the German
  text it came from and the `Drop` saying why it was not kept (the German
  text fixes the item's split). Comment lines (`#`) and blank lines are
  skipped; headword alternatives give nothing.
  """
  seen = set()
  for line in lines:
    if not line.strip() or line.startswith("#"):
      continue
    sides = line.split(" :: ")
    if len(sides) != 2:
      yield line, Drop(DROP_MALFORMED)
      continue
    german_alternatives, english_alternatives = (side.split("|") for side in sides)
    if len(german_alternatives) != len(english_alternatives):
      yield sides[0], Drop(DROP_UNALIGNED)
      continue
    for german, english in zip(german_alternatives, english_alternatives):
      german, english = _first_variant(german), _first_variant(english)
      german_is, english_is = is_sentence(german), is_sentence(english)
      if not (german_is or english_is):
        continue
      reason = _drop_reason(german, english, german_is and english_is)
      if reason is None and (german, english) in seen:
        reason = DROP_DUPLICATE
      if reason is None:
        seen.add((german, english))
        yield german, english
      else:
        yield german, Drop(reason)


def split_of(german):
  """"train", "dev" or "test" for a German sentence, by a stable hash of its text."""
  digest = hashlib.sha256(german.encode("utf-8")).digest()
  bucket = int.from_bytes(digest[:8], "big") % SPLIT_BUCKETS
  return {0: "dev", 1: "test"}.get(bucket, "train")


def _first_variant(alternative):
  """The first `;`-variant, without trailing usage labels, whitespace collapsed."""
  variant = " ".join(alternative.split(";")[0].split())
  return _TRAILING_LABELS.sub("", variant) if variant.endswith(("]", "}", ">", "/")) else variant


def _drop_reason(german, english, both_sentences):
  if not both_sentences:
    return DROP_ONE_SIDED
  text = german + "\n" + english
  for pattern, reason in ((_MARKUP, DROP_MARKUP), (_PLACEHOLDER, DROP_PLACEHOLDER),
                          (_ELLIPSIS, DROP_ELLIPSIS)):
    if pattern.search(text):
      return reason
  if "/" in text:
    return DROP_SLASH
  if "(" in text or ")" in text:
    return DROP_PARENTHESES
  return None


@problem(aliases=("translate_deen_ding",))
class TranslateDeenDing8k(TextPairProblem):
  """German -> English on the Ding dictionary's example sentences; 8k shared vocabulary."""

  vocab_size = 8192
  shared_vocab = True
  decode_defaults = DecodeDefaults(beam_size=4, alpha=0.6, extra_length=50)

  def text_pairs(self, split, sources):
    if sources.files or sources.tsv:
      raise UserError(f"{self.name} reads the Ding dictionary, not local text files; use "
                      f"--problem=translate_from_files for your own parallel text")
    for german, english in example_items(read_lines(dictionary_path(sources.tmp_dir))):
      if split_of(german) == split:
        yield english if isinstance(english, Drop) else (german, english)
