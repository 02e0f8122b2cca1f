"""Reading parallel text: aligned files, TSV, and one-line errors naming file and line."""

import os

import pytest

from commands import one_line_error
from helpers import write
from t2t_lite.data.text_files import count_lines, read_lines, read_parallel_files, read_tsv
from t2t_lite.errors import UserError


def test_parallel_files_pair_lines_and_keep_empty_ones(tmp_path):
  source = write(tmp_path / "a.en", "Hello.\r\n\nThe end.")  # CRLF, an empty line, no final \n.
  target = write(tmp_path / "a.de", "Hallo.\n  \nDas Ende.\n")
  assert list(read_parallel_files(source, target)) == [
      ("Hello.", "Hallo."), ("", "  "), ("The end.", "Das Ende.")]


def test_count_lines_counts_a_last_line_without_newline(tmp_path):
  assert count_lines(write(tmp_path / "a", "x\ny")) == 2
  assert count_lines(write(tmp_path / "b", "x\ny\n")) == 2
  assert count_lines(write(tmp_path / "c", "")) == 0


def test_missing_file_names_it(tmp_path):
  present = write(tmp_path / "a.en", "x\n")
  missing = str(tmp_path / "nope.de")
  message = one_line_error(lambda: list(read_parallel_files(present, missing)))
  assert missing in message and "no such file" in message


def test_line_count_mismatch_gives_both_counts_and_files(tmp_path):
  source = write(tmp_path / "a.en", "1\n2\n3\n")
  target = write(tmp_path / "a.de", "1\n2\n")
  message = one_line_error(lambda: list(read_parallel_files(source, target)))
  assert f"{source} has 3 lines" in message and f"{target} has 2" in message


def test_invalid_utf8_names_file_and_line(tmp_path):
  source = write(tmp_path / "a.en", "ok\nstill ok\n")
  target = write(tmp_path / "a.de", b"gut\nsch\xf6n\n")  # Latin-1, not UTF-8.
  message = one_line_error(lambda: list(read_parallel_files(source, target)))
  assert f"{target}:2: invalid UTF-8" in message


def test_tsv_reads_pairs_and_names_a_bad_line(tmp_path):
  good = write(tmp_path / "good.tsv", "Hello.\tHallo.\n\nÉté\tSommer\n")
  assert list(read_tsv(good)) == [("Hello.", "Hallo."), ("", ""), ("Été", "Sommer")]
  bad = write(tmp_path / "bad.tsv", "a\tb\nno tab here\n")
  message = one_line_error(lambda: list(read_tsv(bad)))
  assert f"{bad}:2:" in message and "0 tabs" in message
  assert f"{tmp_path / 'x.tsv'}: no such file" in one_line_error(
      lambda: list(read_tsv(str(tmp_path / "x.tsv"))))


def test_real_news_files_pair_up(shared_data):
  wmt = os.path.join(shared_data, "wmt14")
  pairs = list(read_parallel_files(os.path.join(wmt, "newstest2013.en"),
                                   os.path.join(wmt, "newstest2013.de")))
  assert len(pairs) == 3000
  assert pairs[0] == ("A Republican strategy to counter the re-election of Obama",
                      "Eine republikanische Strategie, um der Wiederwahl von Obama entgegenzutreten")
  assert not any(line.endswith(("\n", "\r")) for pair in pairs for line in pair)


def test_real_files_of_different_lengths_say_both_counts(shared_data):
  en = os.path.join(shared_data, "wmt14", "newstest2013.en")
  de = os.path.join(shared_data, "wmt14", "newstest2014-full.en-de.de")
  message = one_line_error(lambda: list(read_parallel_files(en, de)))
  assert "has 3000 lines" in message and "has 3003" in message


def test_read_lines_is_lazy_about_errors(tmp_path):
  path = write(tmp_path / "a", b"one\ntwo\n\xff\n")
  lines = read_lines(path)
  assert next(lines) == "one" and next(lines) == "two"
  with pytest.raises(UserError, match=r":3: invalid UTF-8"):
    next(lines)


def test_only_newline_ends_a_line(tmp_path):
  """\\x1c, \\x85 and \\u2028 (where str.splitlines splits) stay inside their line."""
  path = write(tmp_path / "a.txt", "a\u2028b\x85c\x1cd\r\ne\n")
  assert list(read_lines(path)) == ["a\u2028b\x85c\x1cd", "e"]


def test_a_named_file_that_cannot_be_read_says_what_it_is(tmp_path):
  message = one_line_error(lambda: list(read_lines(str(tmp_path / "gone.txt"), "gold file")))
  assert message == f"gold file {tmp_path / 'gone.txt'}: no such file; check the path"
