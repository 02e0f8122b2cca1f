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

from t2t_lite.built_in import problem
from t2t_lite.data.download import raw_text_file
from t2t_lite.data.problem import DecodeDefaults, TextPairProblem
from t2t_lite.data.text_files import read_parallel_files
from t2t_lite.errors import UserError

RAW_URL = "https://github.com/multi30k/dataset/raw/master/data/task1/raw/{name}.gz"

# Our split -> (the dataset's file stem, lines in each language's file).
SPLIT_FILES = {"train": ("train", 29000), "dev": ("val", 1014),
               "test": ("test_2016_flickr", 1000)}
# Each file's SHA-256 (data/task1/raw/*.gz of the multi30k/dataset repository, unpacked): a
# file of the right length but another content (train.fr as train.de) is refused by name.
PUBLISHED_SHA256 = {
    "test_2016_flickr.de": "4be6b5b3236b79c25475c6bb829800a7ce559e9ba7a1f6c2394fe4d40be46d16",
    "test_2016_flickr.en": "399a4382932c1aadd3ceb9bef1008d388a64c76d4ae4e9d4728c6f4301cac182",
    "test_2016_flickr.fr": "cb3160d69b002bb638e66cc7612fcd56cb0af82eadc9c142dedc438afb885ef6",
    "train.de": "2c2b73fd2b548fbcde3a875e0a78d6ee94d498bfdee6bd3eae3945779e9ddf72",
    "train.en": "460a15fbd157e34a7a9957ee388c1ca247fe47af3ef25fb50442af6c274e0fc6",
    "train.fr": "5925a3c18f1587b6b54b87743106e6e8ab93618edb6f65d19eac0621f853a10d",
    "val.de": "660e09eb7e1da2f856ea13ee5ad3cf6d36b3d5b0b733c857e94c5747a3dfc660",
    "val.en": "1f2a23d992769b5b3d209b0a10dd0b77c08cceb1f20dfb97ed0aafa49d107227",
    "val.fr": "5304e444d842e962b2dda4d816b70b22a1765b15401642b7ca37a67477e708dc",
}


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
  return problem(type(name, (Multi30kTranslation,), {
      "__doc__": summary, "__module__": __name__, "lowercase": lowercase,
      "source_language": source, "target_language": target}))


TranslateEndeMulti30k = _language_pair("en", "de", "Multi30k English -> German.")
TranslateDeenMulti30k = _language_pair("de", "en", "Multi30k German -> English.")
TranslateEnfrMulti30k = _language_pair("en", "fr", "Multi30k English -> French.")
TranslateFrenMulti30k = _language_pair("fr", "en", "Multi30k French -> English.")
TranslateEndeMulti30kLc = _language_pair("en", "de", "Multi30k English -> German, lowercased.",
                                         lowercase=True)
TranslateEnfrMulti30kLc = _language_pair("en", "fr", "Multi30k English -> French, lowercased.",
                                         lowercase=True)
