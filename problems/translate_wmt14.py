"""translate_ende_wmt32k, translate_enfr_wmt32k: the paper's WMT 2014 translation tasks.

English -> German and English -> French, one shared 32k SentencePiece
vocabulary, decoded with beam 4, alpha 0.6, max length input + 50 (paper).

Text comes from one of two places:
  - local files given to t2t-datagen (`--train_source/--train_target`,
    likewise dev and test, or `--train_tsv=F` ...), read like
    translate_from_files: English is the source side. Nothing is downloaded.
  - otherwise tensorflow-datasets' `wmt14_translate/de-en` or `/fr-en`
    (the WMT14 training corpora; dev newstest2013, test newstest2014),
    prepared under `<tmp_dir>/tfds`. A copy prepared there is used as is;
    without one it is downloaded (several GB; hours), which needs internet.
    tensor2tensor's own mix for en-de (Europarl v7, Common Crawl, News
    Commentary v13) is tfds' `wmt_t2t_translate/de-en`: a subclass setting
    `tfds_name` to it uses that instead.

    t2t-datagen --problem=translate_ende_wmt32k --tmp_dir=T --data_dir=D

On a machine without internet, prepare T/tfds elsewhere (the same command,
or `tfds build wmt14_translate/de-en --data_dir=T/tfds`) and copy it over.
"""

import os
import urllib.error
import urllib.request

from t2t_lite.built_in import problem
from t2t_lite.data.problem import DecodeDefaults
from t2t_lite.errors import UserError
from t2t_lite.problems.translate_from_files import TranslateFromFiles

# Our split names -> tfds split names (validation is newstest2013, test newstest2014).
TFDS_SPLITS = {"train": "train", "dev": "validation", "test": "test"}

# Where tfds downloads WMT from; probed before a download so that a machine
# without internet fails in seconds, not after minutes of retries.
DOWNLOAD_PROBE_URL = "http://www.statmt.org/"
PROBE_TIMEOUT_S = 10

LOCAL_FILES_HINT = ("--train_source=F --train_target=F (and --dev_*, --test_*), or "
                    "--train_tsv=F")


def tfds_data_dir(tmp_dir):
  """Where tensorflow-datasets keeps the prepared WMT data: `<tmp_dir>/tfds`."""
  return os.path.join(tmp_dir, "tfds")


def url_reachable(url, timeout=PROBE_TIMEOUT_S):
  """Whether an HTTP request to `url` gets any answer (an HTTP error status counts as one).

  Honours the usual proxy environment variables, as the download itself does.
  """
  try:
    with urllib.request.urlopen(url, timeout=timeout):
      return True
  except urllib.error.HTTPError:
    return True
  except (urllib.error.URLError, OSError, ValueError):
    return False


class Wmt14Translation(TranslateFromFiles):
  """English -> `target_language` on WMT14 (a base; the registered problems set the language)."""

  vocab_size = 32768
  shared_vocab = True
  decode_defaults = DecodeDefaults(beam_size=4, alpha=0.6, extra_length=50)
  source_language = "en"
  target_language = None       # "de" or "fr".
  tfds_name = None             # e.g. "wmt14_translate/de-en".

  def text_pairs(self, split, sources):
    """Local files when any were given, else the tfds split; yields (English, other)."""
    if sources.files or sources.tsv:
      yield from super().text_pairs(split, sources)
    else:
      yield from self.tfds_pairs(split, sources.tmp_dir)

  def tfds_pairs(self, split, tmp_dir):
    """(source, target) texts of `split` from tensorflow-datasets, preparing the data if needed.

    Raises UserError (one line: how to download, or to pass local files) when
    the data is not prepared and cannot be downloaded.
    """
    import tensorflow_datasets as tfds  # Heavy; only this path needs it.
    data_dir = tfds_data_dir(tmp_dir)
    builder = tfds.builder(self.tfds_name, data_dir=data_dir)
    if not builder.is_prepared():
      self._download_and_prepare(builder, tmp_dir)
    dataset = builder.as_dataset(split=TFDS_SPLITS[split], shuffle_files=False)
    for example in dataset.as_numpy_iterator():
      yield (example[self.source_language].decode("utf-8"),
             example[self.target_language].decode("utf-8"))

  def _download_and_prepare(self, builder, tmp_dir):
    data_dir = tfds_data_dir(tmp_dir)
    todo = (f"run this t2t-datagen command (--tmp_dir={tmp_dir}) where there is internet "
            f"and copy {data_dir} here, or pass local text to t2t-datagen: {LOCAL_FILES_HINT}")
    if not url_reachable(DOWNLOAD_PROBE_URL):
      raise UserError(f"{self.name}: {self.tfds_name} is not prepared in {data_dir} and "
                      f"{DOWNLOAD_PROBE_URL} cannot be reached to download it; {todo}")
    try:
      builder.download_and_prepare(download_dir=os.path.join(tmp_dir, "downloads"))
    except Exception as error:  # tfds raises many kinds; the user needs one line.
      if isinstance(error, ModuleNotFoundError) and error.name:
        raise UserError(f"{self.name}: tensorflow-datasets needs the module '{error.name}' "
                        f"to download {self.tfds_name}: pip install {error.name}") from error
      first_line = (str(error).splitlines() or [""])[0]
      raise UserError(f"{self.name}: downloading {self.tfds_name} into {data_dir} failed "
                      f"({type(error).__name__}: {first_line}); {todo}") from error


@problem(aliases=("translate_ende",))
class TranslateEndeWmt32k(Wmt14Translation):
  """WMT14 English -> German (about 4.5M training pairs); newstest2014 is the paper's test."""

  target_language = "de"
  tfds_name = "wmt14_translate/de-en"


@problem(aliases=("translate_enfr",))
class TranslateEnfrWmt32k(Wmt14Translation):
  """WMT14 English -> French (about 40M training pairs); newstest2014 is the paper's test."""

  target_language = "fr"
  tfds_name = "wmt14_translate/fr-en"
