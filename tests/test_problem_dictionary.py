"""The Ding dictionary problem: which alternatives become sentence pairs, the stable split,
and the real extraction from Debian's trans-de-en (/usr/share/trans/de-en)."""

import collections
import os
import sys

import pytest

from t2t_lite.data.problem import DecodeDefaults, Drop, Sources
from t2t_lite.data.text_files import read_lines
from t2t_lite.errors import UserError
from t2t_lite.problems import translate_dictionary_deen as ding
from t2t_lite.problems.translate_dictionary_deen import (TranslateDeenDing8k, example_items,
                                                         is_sentence, split_of)
from t2t_lite.registry import PROBLEMS

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "docs"))
from ding_corpus import write_corpus  # noqa: E402

# Entries in the dictionary's format, written for these tests.
ENTRIES = """\
# Version :: test
Hund {m} | Hunde {pl} | Der Hund schläft. | Bellt er? :: dog | dogs | The dog is asleep. | Does it bark?
laufen {vi} | Sie läuft schnell.; Sie rennt. :: to run | She runs fast.; She is running.
lauf | Lauf! [ugs.] :: run | Run! [coll.]
Tisch {m} | Der Tisch ist rund. | Er deckte den Tisch/Esstisch. :: table | round table | He laid the table.
Haus {n} | Das Haus (am See) ist alt. | Er kauft etw. :: house | The house (by the lake) is old. | He buys sth.
Neu | Das {n} ist neu. :: new | That is new.
Weg {m} | Er ging … weg. | Der Hund schläft. :: way | He went … away. | The dog is asleep.
Baum {m} | Bäume {pl} :: tree | trees
"""


def items_of(text):
  return list(example_items(text.splitlines()))


def test_registered_name_alias_vocabulary_and_decode_defaults():
  assert PROBLEMS["translate_deen_ding"] is PROBLEMS["translate_deen_ding8k"] is (
      TranslateDeenDing8k)
  problem = TranslateDeenDing8k()
  assert problem.name == "translate_deen_ding8k"
  assert problem.vocab_size == 8192 and problem.shared_vocab
  assert problem.decode_defaults == DecodeDefaults(beam_size=4, alpha=0.6, extra_length=50)


def test_example_items_keep_aligned_sentences_and_name_each_drop():
  assert items_of(ENTRIES) == [
      ("Der Hund schläft.", "The dog is asleep."),
      ("Bellt er?", "Does it bark?"),
      ("Sie läuft schnell.", "She runs fast."),   # The first ;-variant of each side.
      ("Lauf!", "Run!"),                          # Trailing usage labels are not text.
      ("Der Tisch ist rund.", Drop(ding.DROP_ONE_SIDED)),
      ("Er deckte den Tisch/Esstisch.", Drop(ding.DROP_SLASH)),
      ("Das Haus (am See) ist alt.", Drop(ding.DROP_PARENTHESES)),
      ("Er kauft etw.", Drop(ding.DROP_PLACEHOLDER)),
      ("Das {n} ist neu.", Drop(ding.DROP_MARKUP)),
      ("Er ging … weg.", Drop(ding.DROP_ELLIPSIS)),
      ("Der Hund schläft.", Drop(ding.DROP_DUPLICATE)),
  ]


def test_entries_that_do_not_pair_up_are_dropped_whole():
  assert items_of("Hund {m} | Der Hund bellt. :: dog\nkein Trenner hier\n") == [
      ("Hund {m} | Der Hund bellt.", Drop(ding.DROP_UNALIGNED)),
      ("kein Trenner hier", Drop(ding.DROP_MALFORMED))]


@pytest.mark.parametrize("text, expected", [
    ("Sie schläft.", True), ("„Halt!“", True), ("Wie spät ist es?", True),
    ("3 Äpfel reichen.", True), ("Schach!", True),
    ("Hund {m}", False), ("to run", False), ("der Hund schläft.", False),
    ("(persönliche) Entscheidung (über etw.)", False), ("", False),
])
def test_is_sentence(text, expected):
  assert is_sentence(text) is expected


def test_split_is_a_stable_hash_of_the_german_sentence():
  # Golden values: the split of a sentence never changes with the file's version or order.
  assert [split_of(f"Satz Nummer {i}.") for i in (13, 14, 15, 60, 61)] == [
      "train", "dev", "dev", "train", "test"]
  assert split_of("Sie schüttelte traurig den Kopf.") == "train"
  counts = collections.Counter(split_of(f"Satz Nummer {i}.") for i in range(16000))
  assert 850 < counts["dev"] < 1150 and 850 < counts["test"] < 1150


def test_a_de_en_txt_in_tmp_dir_is_read_instead_of_the_installed_file(tmp_path, monkeypatch):
  monkeypatch.setattr(ding, "INSTALLED_PATH", str(tmp_path / "not-installed"))
  (tmp_path / "de-en.txt").write_text(ENTRIES, encoding="utf-8")
  problem, sources = TranslateDeenDing8k(), Sources(tmp_dir=str(tmp_path))
  kept = {pair for split in problem.splits for pair in problem.text_pairs(split, sources)
          if not isinstance(pair, Drop)}
  assert kept == {("Der Hund schläft.", "The dog is asleep."), ("Bellt er?", "Does it bark?"),
                  ("Sie läuft schnell.", "She runs fast."), ("Lauf!", "Run!")}


def test_missing_dictionary_says_how_to_install_it(tmp_path, monkeypatch):
  monkeypatch.setattr(ding, "INSTALLED_PATH", str(tmp_path / "not-installed"))
  with pytest.raises(UserError) as caught:
    list(TranslateDeenDing8k().text_pairs("train", Sources(tmp_dir=str(tmp_path))))
  message = str(caught.value)
  assert "apt-get install trans-de-en" in message and "de-en.txt" in message
  assert "\n" not in message


def test_invalid_utf8_is_one_line_error(tmp_path):
  (tmp_path / "de-en.txt").write_bytes(b"Hund {m} :: dog\nK\xe4se {m} :: cheese\n")
  with pytest.raises(UserError, match=r"de-en\.txt:2: invalid UTF-8"):
    list(TranslateDeenDing8k().text_pairs("train", Sources(tmp_dir=str(tmp_path))))


def test_local_text_files_are_refused_with_the_problem_to_use(tmp_path):
  sources = Sources(tmp_dir=str(tmp_path), files={"train": ("a.de", "a.en")})
  with pytest.raises(UserError, match="translate_from_files"):
    list(TranslateDeenDing8k().text_pairs("train", sources))


# The real dictionary.

@pytest.fixture(scope="module")
def installed():
  """The installed dictionary's items: skips when absent, fails when under CI."""
  if not os.path.isfile(ding.INSTALLED_PATH):
    if os.environ.get("CI"):
      pytest.fail(f"CI is set but {ding.INSTALLED_PATH} is missing: apt-get install trans-de-en")
    pytest.skip(f"{ding.INSTALLED_PATH} is absent: apt-get install trans-de-en to run this")
  return list(example_items(read_lines(ding.INSTALLED_PATH)))


def test_real_dictionary_gives_thousands_of_clean_pairs(installed):
  pairs = [item for item in installed if not isinstance(item[1], Drop)]
  drops = collections.Counter(item[1].reason for item in installed if isinstance(item[1], Drop))
  assert 15000 < len(pairs) < 20000
  assert sum(drops.values()) < len(pairs) / 2
  assert drops[ding.DROP_SLASH] > 0 and drops[ding.DROP_ONE_SIDED] > 0
  for real in [("Sie schüttelte traurig den Kopf.", "She shook her head sadly."),
               ("Alle Wege führen nach Rom.", "All roads lead to Rome.")]:
    assert real in pairs
  assert len(set(pairs)) == len(pairs)
  for german, english in pairs:
    assert is_sentence(german) and is_sentence(english)
    for mark in "[]{}<>()/…;":
      assert mark not in german and mark not in english


def test_real_splits_are_disjoint_sized_and_what_text_pairs_yields(installed):
  by_split = collections.defaultdict(list)
  for german, english in installed:
    if not isinstance(english, Drop):
      by_split[split_of(german)].append((german, english))
  assert 900 < len(by_split["dev"]) < 1300 and 900 < len(by_split["test"]) < 1300
  germans = {split: {german for german, _ in pairs} for split, pairs in by_split.items()}
  assert not germans["train"] & germans["dev"]
  assert not germans["train"] & germans["test"]
  assert not germans["dev"] & germans["test"]
  sources = Sources(tmp_dir="/nonexistent-tmp-dir")
  dev = [item for item in TranslateDeenDing8k().text_pairs("dev", sources)
         if not isinstance(item, Drop)]
  assert dev == by_split["dev"]


def test_the_own_data_corpus_is_the_problems_splits_as_parallel_files(tmp_path, monkeypatch):
  """docs/ding_corpus.py: each split's clean pairs, German and English line for line."""
  monkeypatch.setattr(ding, "INSTALLED_PATH", str(tmp_path / "not-installed"))
  (tmp_path / "de-en.txt").write_text(ENTRIES, encoding="utf-8")
  out = tmp_path / "ding"
  written = write_corpus(str(out), str(tmp_path))
  problem = TranslateDeenDing8k()
  for split, name in (("train", "train"), ("dev", "val"), ("test", "test")):
    pairs = list(problem.clean_pairs(split, Sources(tmp_dir=str(tmp_path)),
                                     collections.Counter()))
    german = (out / f"{name}.de").read_text(encoding="utf-8").splitlines()
    english = (out / f"{name}.en").read_text(encoding="utf-8").splitlines()
    assert list(zip(german, english)) == pairs and written[name] == len(pairs)
  assert sum(written.values()) == 4  # ENTRIES' four clean pairs, each in one split.
