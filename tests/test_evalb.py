"""EVALB-compatible scoring: the golden sample, parameter files, hand-made cases, the command."""

import dataclasses
import json
import os
import sys

import pytest

from commands import run

from t2t_lite.errors import UserError
from t2t_lite.metrics.evalb import (COLLINS, ERROR, OK, SKIP, EvalbParams, format_report,
                                    main, read_params, score_corpus, score_sentence)

GOLD = "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .))"


def sample_path(shared_data, name):
  return os.path.join(shared_data, "evalb", "sample", name)


def read_lines(path):
  with open(path, encoding="utf-8") as handle:
    return handle.read().splitlines()


@pytest.fixture(scope="module")
def sample(shared_data):
  """(result, expected report lines) of EVALB's own sample."""
  params = read_params(sample_path(shared_data, "sample.prm"))
  result = score_corpus(read_lines(sample_path(shared_data, "sample.gld")),
                        read_lines(sample_path(shared_data, "sample.tst")), params)
  return result, read_lines(sample_path(shared_data, "sample.rsl"))


def test_sample_summary_numbers(sample):
  result, _ = sample
  assert f"{result.all.recall:.2f} {result.all.precision:.2f}" == "87.76 90.53"
  assert (result.all.matched, result.all.gold_brackets, result.all.test_brackets) == (86, 98, 95)
  assert (result.all.error_sentences, result.all.skip_sentences) == (5, 2)
  assert (result.short.sentences, result.short.valid_sentences) == (23, 16)
  assert result.messages == ("12 : Words unmatch (is|was)", "13 : Length unmatch (4|5)",
                             "16 : Length unmatch (4|5)", "17 : Length unmatch (4|6)",
                             "20 : Words unmatch (this|That)")


def test_sample_report_reproduces_sample_rsl(sample):
  result, expected = sample
  ours = format_report(result, fmeasure=False).splitlines()
  assert len(ours) == len(expected) == 56
  footer = 28  # The totals row under the second rule.
  for number, (our_line, their_line) in enumerate(zip(ours, expected)):
    if number != footer:
      assert our_line == their_line, f"report line {number + 1}"
  # The footer differs in one column only: sample.rsl prints 16 under Cross,
  # where its own rows sum to 1 crossing bracket (and its summary says 0.06 x 17).
  our_fields, their_fields = ours[footer].split(), expected[footer].split()
  assert our_fields[:5] + our_fields[6:] == their_fields[:5] + their_fields[6:]
  assert our_fields[5] == str(sum(s.crossing for s in result.sentences)) == "1"
  assert their_fields[5] == "16"


def test_report_has_fmeasure_lines_by_default(sample):
  result, _ = sample
  lines = format_report(result).splitlines()
  fmeasures = [line for line in lines if line.startswith("Bracketing FMeasure")]
  f1 = 2 * 87.75510204 * 90.52631579 / (87.75510204 + 90.52631579)
  assert fmeasures[0] == f"Bracketing FMeasure       = {f1:6.2f}"
  assert len(fmeasures) == 2 and len(lines) == 58


def test_collins_prm_is_the_default(shared_data):
  assert read_params(os.path.join(shared_data, "evalb", "COLLINS.prm")) == COLLINS
  nk = read_params(os.path.join(shared_data, "evalb", "nk.prm"))
  assert nk.max_error == 10000 and "POS" in nk.quote_labels and "?" in nk.delete_labels


def test_sample_prm_fields(shared_data):
  params = read_params(sample_path(shared_data, "sample.prm"))
  assert params == EvalbParams(
      delete_labels=("TOP", "-NONE-", ",", ":", "``", "''"),
      delete_labels_for_length=("-NONE-",), eq_labels=(("T", "TT"),),
      eq_words=(("This", "this"),))


@pytest.mark.parametrize("line, complaint", [
    ("DELETE_LABELS ,", "unknown EVALB parameter 'DELETE_LABELS'"),
    ("MAX_ERROR ten", "MAX_ERROR needs an integer, got 'ten'"),
    ("LABELED 2", "LABELED must be 0 or 1"),
    ("EQ_LABEL ADVP", "EQ_LABEL takes 2 values, got 1"),
    ("DELETE_LABEL", "DELETE_LABEL takes 1 value, got 0"),
])
def test_bad_parameter_line_is_one_line_error(tmp_path, line, complaint):
  path = tmp_path / "bad.prm"
  path.write_text(f"# comment\nDEBUG 0\n{line}\n")
  with pytest.raises(UserError) as caught:
    read_params(str(path))
  assert str(caught.value).startswith(f"{path}: line 3: {complaint}")


def test_missing_parameter_file(tmp_path):
  with pytest.raises(UserError, match="EVALB parameter file .*none.prm: no such file"):
    read_params(str(tmp_path / "none.prm"))


def test_one_wrong_label_gives_known_recall_and_precision():
  test = GOLD.replace("(PP", "(ADJP")
  s = score_sentence(GOLD, test, COLLINS)
  assert (s.status, s.matched, s.gold_brackets, s.test_brackets, s.crossing) == (OK, 4, 5, 5, 0)
  assert (s.recall, s.precision) == (80.0, 80.0)
  # Length counts the final "." (punctuation is only deleted for scoring).
  assert (s.length, s.words, s.correct_tags) == (7, 6, 6)


def test_wrong_attachment_crosses_a_gold_bracket():
  # (VP sat on) (NP the mat) instead of (VP sat (PP on (NP the mat))).
  test = ("(S (NP (DT The) (NN cat)) (VP (VBD sat) (IN on)) (NP (DT the) (NN mat)) (. .))")
  s = score_sentence(GOLD, test, COLLINS)
  assert (s.matched, s.gold_brackets, s.test_brackets) == (3, 5, 4)
  assert s.crossing == 1   # Test VP [1, 3) crosses gold PP [2, 5).
  assert (s.recall, s.precision) == (60.0, 75.0)


def test_brackets_count_as_multisets():
  s = score_sentence("(S (NP (NP (DT the) (NN man))) (VP (VBD left)))",
                     "(S (NP (DT the) (NN man)) (VP (VBD left)))")
  assert (s.matched, s.gold_brackets, s.test_brackets) == (3, 4, 3)
  assert (s.recall, s.precision) == (75.0, 100.0)


def test_function_tags_eq_label_and_unlabeled():
  gold = "(S (NP-SBJ (PRP He)) (VP (VBD gave) (PRT (RP up))))"
  s = score_sentence(gold, "(S (NP (PRP He)) (VP (VBD gave) (ADVP (RB up))))", COLLINS)
  assert (s.matched, s.correct_tags) == (4, 2)
  s = score_sentence(gold, "(S (NP (PRP He)) (VP (VBD gave) (ADJP (RP up))))", COLLINS)
  assert s.matched == 3
  unlabeled = dataclasses.replace(COLLINS, labeled=False)
  assert score_sentence(gold, "(X (Y (PRP He)) (Z (VBD gave) (W (RP up))))", unlabeled).matched == 4


def test_length_mismatch_is_an_error_row_like_evalb():
  result = score_corpus([GOLD], [GOLD.replace("(VBD sat)", "(VBD sat) (RB down)")], COLLINS)
  (s,) = result.sentences
  assert (s.status, s.message) == (ERROR, "Length unmatch (6|7)")
  assert result.messages == ("1 : Length unmatch (6|7)",)
  row = format_report(result).splitlines()[3]
  assert row == "   1    7    1    0.00   0.00     0      0    0      0      6     0     0.00"
  assert (result.all.error_sentences, result.all.valid_sentences) == (1, 0)


def test_words_mismatch_skip_and_unparsable_lines():
  words = score_sentence(GOLD, GOLD.replace("cat", "dog"))
  assert (words.status, words.message) == (ERROR, "Words unmatch (cat|dog)")
  assert score_sentence(GOLD, "").status == SKIP
  assert score_sentence(GOLD, "(S (-NONE- *))").status == SKIP
  broken = score_sentence(GOLD, GOLD[:-1])
  assert broken.status == ERROR and "unbalanced parentheses" in broken.message


def test_quote_deleted_on_one_side_is_put_back():
  gold = "(S (NP (NP (NNP Jones) (POS ')) (NN car)) (VP (VBD left)))"
  test = "(S (NP (NP (NNP Jones) ('' ')) (NN car)) (VP (VBD left)))"
  assert score_sentence(gold, test, COLLINS).message == "Length unmatch (4|3)"
  quotes = dataclasses.replace(COLLINS, quote_labels=("''", "POS"))
  s = score_sentence(gold, test, quotes)
  assert (s.status, s.matched, s.gold_brackets, s.test_brackets) == (OK, 4, 4, 4)
  assert (s.words, s.correct_tags) == (4, 3)


def test_cutoff_len_splits_the_summary():
  short = "(S (NP (PRP I)) (VP (VBD ran)))"
  long = "(S " + " ".join(["(NP (NN x))"] * 41) + ")"
  result = score_corpus([short, long], [short, long], COLLINS)
  assert (result.all.sentences, result.short.sentences) == (2, 1)
  assert (result.all.gold_brackets, result.short.gold_brackets) == (3 + 42, 3)
  assert "-- len<=40 --" in format_report(result)


def test_too_many_errors_give_up_like_evalb():
  bad = GOLD.replace("cat", "dog")
  params = dataclasses.replace(COLLINS, max_error=1)
  assert score_corpus([GOLD] * 2, [bad] * 2, params).all.error_sentences == 2
  with pytest.raises(UserError, match=r"line 3: Words unmatch \(cat\|dog\); giving up after 3"):
    score_corpus([GOLD] * 3, [bad] * 3, params)


def test_unequal_line_counts_are_reported_and_the_rest_scored():
  result = score_corpus([GOLD, GOLD], [GOLD])
  assert result.all.sentences == 1 and result.all.f1 == 100.0
  assert result.messages == ("2 : Number of lines unmatch (too many lines in gold file)",)


def test_command_prints_the_report(shared_data, capsys):
  paths = [sample_path(shared_data, name) for name in ("sample.gld", "sample.tst")]
  assert main(["-p", sample_path(shared_data, "sample.prm")] + paths) == 0
  out, err = capsys.readouterr()
  assert out.splitlines()[3] == read_lines(sample_path(shared_data, "sample.rsl"))[3]
  assert "Bracketing FMeasure       =  89.12" in out
  assert err.splitlines()[0] == "12 : Words unmatch (is|was)"


def test_command_writes_the_f_measure_as_data(shared_data, tmp_path, capsys):
  """--scores_json: the report's F-measure of all sentences, as docs/chosen_figure.py reads
  it; pointed at an input, it is refused and the input kept."""
  paths = [sample_path(shared_data, name) for name in ("sample.gld", "sample.tst")]
  scores = tmp_path / "dev.avg.preset.scores.json"
  assert main(["-p", sample_path(shared_data, "sample.prm"), f"--scores_json={scores}"]
              + paths) == 0
  figure = json.loads(scores.read_text())["bracket_f1"]
  assert figure["score"] == 89.12 and "sample.prm" in figure["signature"]
  capsys.readouterr()
  gold = tmp_path / "gold.txt"
  gold.write_text(GOLD + "\n")
  assert main([f"--scores_json={gold}", str(gold), str(gold)]) == 2
  assert len(capsys.readouterr().err.splitlines()) == 1
  assert gold.read_text() == GOLD + "\n"


def test_command_overrides_cutoff_and_max_error(tmp_path, capsys):
  gold, test = tmp_path / "gold.txt", tmp_path / "test.txt"
  gold.write_text(f"{GOLD}\n{GOLD}\n")
  test.write_text(f"{GOLD}\n{GOLD.replace('cat', 'dog')}\n")
  assert main(["-c", "3", str(gold), str(test)]) == 0
  assert "-- len<=3 --" in capsys.readouterr().out
  assert main(["-e", "-1", str(gold), str(test)]) == 2
  assert main(["-e", "0", str(gold), str(test)]) == 0
  test.write_text(f"{GOLD.replace('cat', 'dog')}\n" * 2)
  assert main(["-e", "0", str(gold), str(test)]) == 2
  assert capsys.readouterr().err.splitlines()[-1].startswith("evalb: error: line 2: Words unmatch")


def test_command_bad_input_is_one_line_and_status_2(tmp_path, capsys):
  trees = tmp_path / "trees.txt"
  trees.write_text(GOLD + "\n")
  assert main([str(trees), str(tmp_path / "missing.txt")]) == 2
  assert capsys.readouterr().err.splitlines() == [
      f"evalb: error: test file {tmp_path / 'missing.txt'}: no such file; check the path"]
  prm = tmp_path / "bad.prm"
  prm.write_text("LABELLED 1\n")
  assert main(["-p", str(prm), str(trees), str(trees)]) == 2
  assert len(capsys.readouterr().err.splitlines()) == 1
  with pytest.raises(SystemExit) as caught:
    main([str(trees)])
  assert caught.value.code == 2
  assert len(capsys.readouterr().err.splitlines()) == 1


@pytest.mark.slow
def test_runs_as_a_module(tmp_path):
  trees = tmp_path / "trees.txt"
  trees.write_text(GOLD + "\n")
  done = run([sys.executable, "-m", "t2t_lite.metrics.evalb", str(trees), str(trees)])
  assert done.returncode == 0, done.stderr
  assert "Bracketing FMeasure       = 100.00" in done.stdout


def test_a_line_separator_inside_a_tree_keeps_gold_and_test_aligned(tmp_path, capsys):
  """Only "\\n" ends a line: a tree holding \\u2028 (or \\x85, \\x1c, which str.splitlines
  splits at) stays one sentence, so gold line i is still scored against test line i."""
  odd = GOLD.replace("(NN cat)", "(NN c\u2028a\x85t)")
  gold, test = tmp_path / "gold.txt", tmp_path / "test.txt"
  gold.write_text(f"{odd}\n{GOLD}\n{GOLD}\n", encoding="utf-8")
  test.write_text(f"{GOLD.replace('(NN cat)', '(NN dog)')}\n{GOLD}\n{GOLD}\n", encoding="utf-8")
  assert main([str(gold), str(test)]) == 0
  out, err = capsys.readouterr()
  assert "Number of lines unmatch" not in err
  assert "Number of sentence        =      3" in out
  assert "Number of Valid sentence  =      2" in out
