"""Multi30k task 1: image captions, English with German and French translations.

    translate_ende_multi30k  English -> German     translate_deen_multi30k  German -> English
    translate_enfr_multi30k  English -> French     translate_fren_multi30k  French -> English
    translate_ende_multi30k_lc, translate_enfr_multi30k_lc: the same, lowercased

The `_lc` problems train as the Multi30k papers do, on lowercased text (their
scores are lowercased, tokenized BLEU): the vocabulary case-folds everything it
encodes, so datagen, t2t-decoder and an exported model all take cased input and
write lowercased output.

29,000 training pairs (train), 1,014 dev (val) and the usual test set,
test_2016_flickr (1,000); one shared 8k SentencePiece vocabulary; decoded with
beam 4, alpha 0.6, max length input + 50.

The raw files are those of the multi30k/dataset repository
(data/task1/raw/<split>.<language>.gz). t2t-datagen looks for them in --tmp_dir,
unpacked (`train.de`) or packed (`train.de.gz`), and downloads only what is
missing there, checking each file's line count and content (its SHA-256):

    t2t-datagen --problem=translate_ende_multi30k --tmp_dir=T --data_dir=D

A folder holding the unpacked files works as --tmp_dir as it is (nothing is
written into it), so a machine without internet can use files fetched elsewhere.
"""

from t2t_lite.data.download import raw_text_file
from t2t_lite.data.published_files import MULTI30K
from t2t_lite.data.problem import DecodeDefaults, TextPairProblem
from t2t_lite.data.text_files import read_parallel_files
from t2t_lite.errors import UserError

RAW_URL = "https://github.com/multi30k/dataset/raw/master/data/task1/raw/{name}.gz"

# Our split -> (the dataset's file stem, lines in each language's file).
SPLIT_FILES = {"train": ("train", 29000), "dev": ("val", 1014),
               "test": ("test_2016_flickr", 1000)}
# Each file's SHA-256: a file of the right length but another content (train.fr as
# train.de) is refused by name.
PUBLISHED_SHA256 = MULTI30K


def split_file(tmp_dir, split, language, progress=True):
  """The unpacked raw text of `split` in `language` ("en", "de", "fr"), fetched if missing."""
  stem, lines = SPLIT_FILES[split]
  name = f"{stem}.{language}"
  return raw_text_file(tmp_dir, name, url=RAW_URL.format(name=name), expected_lines=lines,
                       published=(PUBLISHED_SHA256, "Multi30k"), progress=progress)


class Multi30kTranslation(TextPairProblem):
  """`source_language` -> `target_language` captions (a base; subclasses set the two)."""

  vocab_size = 8192
  shared_vocab = True
  decode_defaults = DecodeDefaults(beam_size=4, alpha=0.6, extra_length=50)
  record_shards = {"train": 4, "dev": 1, "test": 1}
  source_language = None
  target_language = None

  def text_pairs(self, split, sources):
    if sources.files or sources.tsv:
      raise UserError(f"{self.name} reads the Multi30k files from --tmp_dir, not --train_* "
                      f"flags; use --problem=translate_from_files for your own parallel text")
    yield from read_parallel_files(split_file(sources.tmp_dir, split, self.source_language),
                                   split_file(sources.tmp_dir, split, self.target_language))


def _language_pair(source, target, summary, *, lowercase=False):
  """The registered Multi30k problem `source` -> `target`, named as tensor2tensor names
  its translation problems (`translate_ende_multi30k`; `_lc` when lowercased)."""
  name = f"Translate{(source + target).title()}Multi30k" + ("Lc" if lowercase else "")
  return type(name, (Multi30kTranslation,), {
      "__doc__": summary, "__module__": __name__, "lowercase": lowercase,
      "source_language": source, "target_language": target})


TranslateEndeMulti30k = _language_pair("en", "de", "Multi30k English -> German.")
TranslateDeenMulti30k = _language_pair("de", "en", "Multi30k German -> English.")
TranslateEnfrMulti30k = _language_pair("en", "fr", "Multi30k English -> French.")
TranslateFrenMulti30k = _language_pair("fr", "en", "Multi30k French -> English.")
TranslateEndeMulti30kLc = _language_pair("en", "de", "Multi30k English -> German, lowercased.",
                                         lowercase=True)
TranslateEnfrMulti30kLc = _language_pair("en", "fr", "Multi30k English -> French, lowercased.",
                                         lowercase=True)
