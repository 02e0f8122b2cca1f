"""WMT14 problems: local files instead of downloads, the tfds path on mock data, and one-line
errors when neither local files nor prepared data nor the network are there."""

import os
import time

import pytest

from commands import one_line_error
import tensorflow_datasets as tfds

from t2t_lite.data.problem import DecodeDefaults, Sources
from t2t_lite.problems import translate_wmt14
from t2t_lite.problems.translate_wmt14 import TranslateEndeWmt32k, TranslateEnfrWmt32k
from t2t_lite.registry import PROBLEMS

Builder = tfds.core.DatasetBuilder


def test_registered_names_aliases_and_paper_settings():
  assert PROBLEMS["translate_ende"] is PROBLEMS["translate_ende_wmt32k"] is TranslateEndeWmt32k
  assert PROBLEMS["translate_enfr"] is PROBLEMS["translate_enfr_wmt32k"] is TranslateEnfrWmt32k
  for problem_class in (TranslateEndeWmt32k, TranslateEnfrWmt32k):
    problem = problem_class()
    assert problem.vocab_size == 32768 and problem.shared_vocab
    assert problem.decode_defaults == DecodeDefaults(beam_size=4, alpha=0.6, extra_length=50)
  assert TranslateEndeWmt32k().name == "translate_ende_wmt32k"


@pytest.fixture
def no_tfds(monkeypatch):
  """Any use of tensorflow-datasets fails the test."""
  def forbidden(*args, **kwargs):
    raise AssertionError("tensorflow-datasets was used although local files were given")
  monkeypatch.setattr(tfds, "builder", forbidden)


def test_ende_local_files_give_real_english_to_german_pairs(shared_data, tmp_path, no_tfds):
  europarl = os.path.join(shared_data, "europarl", "europarl-v7.de-en.first20k")
  news = os.path.join(shared_data, "wmt14")
  sources = Sources(tmp_dir=str(tmp_path), files={
      "train": (europarl + ".en", europarl + ".de"),
      "dev": (f"{news}/newstest2013.en", f"{news}/newstest2013.de"),
      "test": (f"{news}/newstest2014-full.en-de.en", f"{news}/newstest2014-full.en-de.de")})
  problem = TranslateEndeWmt32k()
  pairs = {split: list(problem.text_pairs(split, sources)) for split in problem.splits}
  assert {split: len(p) for split, p in pairs.items()} == {"train": 20000, "dev": 3000,
                                                           "test": 3003}
  assert pairs["train"][0] == ("Resumption of the session", "Wiederaufnahme der Sitzungsperiode")
  assert pairs["dev"][0][0].startswith("A Republican strategy to counter the re-election")
  assert pairs["dev"][0][1].startswith("Eine republikanische Strategie")
  assert pairs["test"][0] == ("Gutach: Increased safety for pedestrians",
                              "Gutach: Noch mehr Sicherheit für Fußgänger")


def test_enfr_local_files_and_a_missing_test_split(shared_data, tmp_path, no_tfds):
  news = os.path.join(shared_data, "wmt14")
  sources = Sources(tmp_dir=str(tmp_path), files={
      "train": (f"{news}/newstest2012.en", f"{news}/newstest2012.fr"),
      "dev": (f"{news}/newstest2014-full.en-fr.en", f"{news}/newstest2014-full.en-fr.fr")})
  problem = TranslateEnfrWmt32k()
  assert len(list(problem.text_pairs("train", sources))) == 3003
  source, target = next(iter(problem.text_pairs("dev", sources)))
  assert source.startswith("Spectacular Wingsuit Jump Over Bogota")
  assert "Bogota" in target and target != source
  assert list(problem.text_pairs("test", sources)) == []  # Written empty, never downloaded.


def test_local_files_without_training_text_is_one_line_error(shared_data, tmp_path, no_tfds):
  news = os.path.join(shared_data, "wmt14", "newstest2013")
  sources = Sources(tmp_dir=str(tmp_path), files={"dev": (news + ".en", news + ".de")})
  message = one_line_error(lambda: list(TranslateEndeWmt32k().text_pairs("train", sources)))
  assert "translate_ende_wmt32k" in message and "--train_source" in message


def test_local_tsv_is_read_too(tmp_path, no_tfds):
  path = tmp_path / "train.tsv"
  path.write_text("Good morning.\tGuten Morgen.\n", encoding="utf-8")
  sources = Sources(tmp_dir=str(tmp_path), tsv={"train": str(path)})
  assert list(TranslateEndeWmt32k().text_pairs("train", sources)) == [
      ("Good morning.", "Guten Morgen.")]


def mock_pairs(problem, target_language, split, tmp_path, monkeypatch, num_examples=7):
  """(`problem.text_pairs(split)` on tfds mock data, the tfds splits it asked for, the
  (English, target_language) pairs of the mock data)."""
  asked = []
  with tfds.testing.mock_data(num_examples=num_examples):
    mocked_as_dataset = Builder.as_dataset
    with monkeypatch.context() as patch:  # Undone before mock_data restores tfds.
      patch.setattr(translate_wmt14, "url_reachable", lambda url, timeout=None: True)

      def as_dataset(self, *args, split=None, **kwargs):
        asked.append(split)
        return mocked_as_dataset(self, *args, split=split, **kwargs)

      patch.setattr(Builder, "as_dataset", as_dataset)
      pairs = list(problem.text_pairs(split, Sources(tmp_dir=str(tmp_path))))
      expected = [(example["en"].decode(), example[target_language].decode())
                  for example in mocked_as_dataset(
                      tfds.builder(problem.tfds_name), split=asked[0],
                      shuffle_files=False).as_numpy_iterator()]
  return pairs, asked, expected


@pytest.mark.parametrize("problem_class, target_language", [(TranslateEndeWmt32k, "de"),
                                                            (TranslateEnfrWmt32k, "fr")])
@pytest.mark.parametrize("split, tfds_split", [("train", "train"), ("dev", "validation"),
                                               ("test", "test")])
def test_tfds_path_on_mock_data(problem_class, target_language, split, tfds_split, tmp_path,
                                monkeypatch):
  pairs, asked, expected = mock_pairs(problem_class(), target_language, split, tmp_path,
                                      monkeypatch)
  assert asked == [tfds_split]
  assert len(pairs) == 7 and pairs == expected  # English first, then the other language.
  assert all(isinstance(text, str) for pair in pairs for text in pair)


def test_prepared_tfds_data_is_used_without_network_or_download(tmp_path, monkeypatch):
  def unexpected(*args, **kwargs):
    raise AssertionError("network or download used although the data is prepared")
  with tfds.testing.mock_data(num_examples=3):
    with monkeypatch.context() as patch:
      patch.setattr(Builder, "is_prepared", lambda self: True)
      patch.setattr(Builder, "download_and_prepare", unexpected)
      patch.setattr(translate_wmt14, "url_reachable", unexpected)
      pairs = list(TranslateEndeWmt32k().text_pairs("test", Sources(tmp_dir=str(tmp_path))))
  assert len(pairs) == 3


@pytest.fixture
def no_download(monkeypatch):
  def unexpected(*args, **kwargs):
    raise AssertionError("download attempted without network")
  monkeypatch.setattr(Builder, "download_and_prepare", unexpected)


def test_without_network_fails_fast_in_one_line_saying_what_to_do(tmp_path, monkeypatch,
                                                                   no_download):
  monkeypatch.setattr(translate_wmt14, "url_reachable", lambda url, timeout=None: False)
  start = time.time()
  message = one_line_error(
      lambda: list(TranslateEndeWmt32k().text_pairs("train", Sources(tmp_dir=str(tmp_path)))))
  assert time.time() - start < 30
  assert message.startswith("translate_ende_wmt32k: wmt14_translate/de-en is not prepared in "
                            f"{tmp_path}/tfds")
  assert f"t2t-datagen command (--tmp_dir={tmp_path}) where there is internet" in message
  assert "--train_source=F --train_target=F" in message and "--train_tsv=F" in message


@pytest.mark.parametrize("error, expected", [
    (ConnectionError("HTTPConnectionPool(host='www.statmt.org'): Max retries exceeded\nmore"),
     "downloading wmt14_translate/fr-en into"),
    (ModuleNotFoundError("No module named 'importlib_resources'", name="importlib_resources"),
     "pip install importlib_resources"),
])
def test_a_failed_download_is_one_line_error(error, expected, tmp_path, monkeypatch):
  def fail(*args, **kwargs):
    raise error
  monkeypatch.setattr(translate_wmt14, "url_reachable", lambda url, timeout=None: True)
  monkeypatch.setattr(Builder, "download_and_prepare", fail)
  message = one_line_error(
      lambda: list(TranslateEnfrWmt32k().text_pairs("dev", Sources(tmp_dir=str(tmp_path)))))
  assert message.startswith("translate_enfr_wmt32k: ") and expected in message


def test_url_reachable_is_false_for_a_name_that_never_resolves():
  start = time.time()
  assert not translate_wmt14.url_reachable("http://t2t-lite-probe.invalid/", timeout=5)
  assert time.time() - start < 30
