"""BLEU: sacrebleu's own numbers, tensor2tensor's t2t-bleu figures, Moses' tokenizer with
tensor2tensor's compound splitting, Multi30k's lowercased tokenized BLEU, t2t-bleu end to
end."""

import json
import math
import os
import shutil
import subprocess

import pytest
import sacrebleu

from commands import status_and_output
from helpers import write

from t2t_lite.errors import UserError
from t2t_lite.metrics.bleu import (bleu_report, compound_split_bleu,
                                   lowercased_tokenized_bleu, paper_tokenize, read_text_file,
                                   sacre_bleu, score_files, split_compounds, tensor2tensor_bleu)
from t2t_lite.metrics.moses import moses_tokenize, multi30k_tokenize

NEWSTEST2014_DE = os.path.join("wmt14", "newstest2014-full.en-de.de")
LABELS = ("sacreBLEU (cased)", "sacreBLEU (uncased)", "BLEU_cased (tensor2tensor's t2t-bleu)",
          "BLEU_uncased (tensor2tensor's t2t-bleu)",
          "tokenized BLEU, compound-split (paper-comparable)",
          "tokenized BLEU, lowercased (Multi30k papers' multi-bleu)")

# The perturbed copy of newstest2014 (en-de, German side) as other tools score it:
# Moses' tokenizer.perl -l de on both sides, the compound-splitting one-liner, then
# multi-bleu.perl; and tensor2tensor's t2t-bleu (bleu_hook.bleu_wrapper, float32).
MOSES_MULTI_BLEU = 43.59
TENSOR2TENSOR_CASED, TENSOR2TENSOR_UNCASED = 43.66705, 43.680565


@pytest.fixture(scope="module")
def reference_path(shared_data):
  return os.path.join(shared_data, NEWSTEST2014_DE)


@pytest.fixture(scope="module")
def reference(reference_path):
  return read_text_file(reference_path, "reference file")


def perturb(line):
  """A translation with errors: every fifth word dropped, the second and third swapped."""
  words = [word for index, word in enumerate(line.split()) if index % 5 != 4]
  if len(words) > 2:
    words[1], words[2] = words[2], words[1]
  return " ".join(words)


@pytest.mark.slow
def test_reference_against_itself_scores_100(reference):
  report = bleu_report(reference, [reference])
  scores = [bleu.score for bleu in report.scores().values()]
  assert scores == pytest.approx([100.0] * len(LABELS), abs=1e-9)


@pytest.mark.slow
def test_perturbed_scores_are_sacrebleus_own(reference):
  hypotheses = [perturb(line) for line in reference]
  report = bleu_report(hypotheses, [reference])
  assert 30 < report.cased.score < 90
  assert report.cased.score == sacrebleu.corpus_bleu(hypotheses, [reference]).score
  assert report.uncased.score == sacrebleu.corpus_bleu(hypotheses, [reference],
                                                       lowercase=True).score
  assert report.tensor2tensor_cased.score == sacrebleu.corpus_bleu(
      hypotheses, [reference], tokenize="intl").score
  assert report.compound_split.score == sacrebleu.corpus_bleu(
      [paper_tokenize(line) for line in hypotheses], [[paper_tokenize(line) for line in reference]],
      tokenize="none", smooth_method="none", force=True).score
  version = sacrebleu.__version__
  assert report.cased.signature == f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:{version}"
  assert report.uncased.signature == f"nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:{version}"
  assert report.tensor2tensor_cased.signature == (
      f"nrefs:1|case:mixed|eff:no|tok:intl|smooth:exp|version:{version}")
  assert report.tensor2tensor_uncased.signature == (
      f"nrefs:1|case:lc|eff:no|tok:intl|smooth:exp|version:{version}")
  assert report.compound_split.signature == (
      f"nrefs:1|case:mixed|eff:no|tok:moses-de+compound-split|smooth:none|version:{version}")
  assert report.lowercased_tokenized.signature == (
      f"nrefs:1|case:lc|eff:no|tok:multi30k-moses-de|smooth:none|version:{version}")
  lines = str(report).splitlines()
  assert [line.split("  ")[0] for line in lines] == list(LABELS)
  assert f"  {report.cased.score:.2f}  nrefs:1|case:mixed" in lines[0]


@pytest.mark.slow
def test_perturbed_scores_equal_moses_multi_bleu_and_tensor2tensors(reference):
  report = bleu_report([perturb(line) for line in reference], [reference])
  assert report.compound_split.score == pytest.approx(MOSES_MULTI_BLEU, abs=0.005)
  assert report.tensor2tensor_cased.score == pytest.approx(TENSOR2TENSOR_CASED, abs=1e-4)
  assert report.tensor2tensor_uncased.score == pytest.approx(TENSOR2TENSOR_UNCASED, abs=1e-4)
  assert [line.split("  ")[0] for line in report.lines("uncased")] == [LABELS[1], LABELS[3],
                                                                        LABELS[5]]
  assert [line.split("  ")[0] for line in report.lines("cased")] == [LABELS[0], LABELS[2],
                                                                      LABELS[4]]


def test_tensor2tensors_bleu_tokenizes_punctuation_but_not_within_numbers():
  # mteval-v14's international tokenization: "3,5" and "2.000" stay whole.
  line = "Er zahlte 3,5 Mio.-Euro (2.000 $)."  # Er zahlte 3,5 Mio . - Euro ( 2.000 $ ) .
  bleu = tensor2tensor_bleu([line], [[line]])
  assert bleu.details.sys_len == 12 and bleu.score == pytest.approx(100.0)


def test_cased_and_uncased_differ_on_a_lowercased_hypothesis(reference):
  lowercased = [line.lower() for line in reference]
  assert sacre_bleu(lowercased, [reference], lowercase=True).score == pytest.approx(100.0)
  cased = sacre_bleu(lowercased, [reference]).score
  assert cased == sacrebleu.corpus_bleu(lowercased, [reference]).score
  assert cased < 90


@pytest.mark.parametrize("line, split", [
    ("a-b", "a ##AT##-##AT## b"),
    ("ein well-known Fall", "ein well ##AT##-##AT## known Fall"),
    ("a-b-c", "a ##AT##-##AT## b-c"),               # perl's g: `b` was consumed by `a-b`.
    ("a-b-c-d", "a ##AT##-##AT## b-c ##AT##-##AT## d"),
    ("x--y", "x ##AT##-##AT## -y"),
    ("worden - in", "worden - in"),                   # A standalone hyphen stays.
    ("-a- Verkehrs- und", "-a- Verkehrs- und"),
    ("70-minütige", "70 ##AT##-##AT## minütige"),
])
def test_split_compounds_examples(line, split):
  assert split_compounds(line) == split


@pytest.mark.slow
def test_split_compounds_equals_the_perl_one_liner_on_newstest(reference):
  if shutil.which("perl") is None:
    pytest.skip("perl is not installed")
  lines = reference + [paper_tokenize(line) for line in reference] + [
      "é-ü\u00a0-x a-\u00a0b Straßen-Bahn-Linie"]  # Non-ASCII: perl's \S reads bytes.
  text = "\n".join(lines) + "\n"
  perl = subprocess.run(["perl", "-ple", "s{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g"],
                        input=text.encode("utf-8"), capture_output=True, check=True)
  assert perl.stdout.decode("utf-8").splitlines() == [split_compounds(line) for line in lines]


@pytest.mark.parametrize("line, tokens", [
    # German non-breaking prefixes keep their period, except on a line's last word.
    ("Die 70-minütige Performance kostet 3,5 Mio. Euro - oder mehr?",
     "Die 70-minütige Performance kostet 3,5 Mio. Euro - oder mehr ?"),
    ("Der Preis stieg am 26. Mai auf 26.", "Der Preis stieg am 26. Mai auf 26 ."),
    ("Er sagte: „Das ist gut-gemeint.“", "Er sagte : „ Das ist gut-gemeint . “"),
    ('Tom & Jerry sind "gut" ...', "Tom &amp; Jerry sind &quot; gut &quot; ..."),
])
def test_moses_tokenize_is_tokenizer_perl(line, tokens):
  assert moses_tokenize(line, "de") == tokens


def test_paper_tokenize_is_moses_then_compound_splitting():
  assert paper_tokenize("Die 70-minütige Performance kostet 3,5 Mio. Euro - oder mehr?") == (
      "Die 70 ##AT##-##AT## minütige Performance kostet 3,5 Mio. Euro - oder mehr ?")
  assert paper_tokenize("Er sagte: „Das ist gut-gemeint.“") == (
      "Er sagte : „ Das ist gut ##AT##-##AT## gemeint . “")
  split = compound_split_bleu(["Das ist gut-gemeint und gut-gemacht ."],
                              [["Das ist gut-gemeint und gut-gemacht ."]])
  assert split.details.sys_len == 10 and split.score == pytest.approx(100.0)


# Two sentences as Multi30k's tok files hold them (lowercased, Moses tokens):
#   hypothesis "ein mann , der läuft ."         reference "ein hund , der läuft schnell ."
#   hypothesis "zwei kinder spielen im park ."  reference the same (only its case differs)
# matched / total n-grams, n = 1..4: 1: 5/6 + 6/6; 2: 2/5 (", der", "der läuft") + 5/5;
# 3: 1/4 (", der läuft") + 4/4; 4: 0/3 + 3/3. Lengths: hypotheses 12, references 13.
SMALL_HYPOTHESES = ["Ein Mann, der läuft.", "Zwei Kinder spielen im Park."]
SMALL_REFERENCES = ["Ein Hund, der läuft schnell.", "zwei Kinder spielen im Park."]
SMALL_MATCHES, SMALL_TOTALS = [11, 7, 5, 3], [12, 10, 8, 6]
SMALL_BLEU = 100 * math.exp(1 - 13 / 12) * math.prod(
    match / total for match, total in zip(SMALL_MATCHES, SMALL_TOTALS)) ** (1 / 4)


def test_lowercased_tokenized_bleu_is_multi_bleus_count():
  bleu = lowercased_tokenized_bleu(SMALL_HYPOTHESES, [SMALL_REFERENCES])
  assert (bleu.details.counts, bleu.details.totals) == (SMALL_MATCHES, SMALL_TOTALS)
  assert (bleu.details.sys_len, bleu.details.ref_len) == (12, 13)
  assert bleu.score == pytest.approx(SMALL_BLEU, rel=1e-12)  # Float rounding only.
  # No n-gram order without a match, no smoothing: one 4-gram short gives 0.
  assert lowercased_tokenized_bleu(SMALL_HYPOTHESES[:1], [SMALL_REFERENCES[:1]]).score == 0


@pytest.mark.slow
def test_lowercased_tokenized_bleu_equals_multi_bleu_perl(tmp_path, shared_data):
  """Against Moses' multi-bleu.perl, where env MULTI_BLEU_PERL names a copy (the project
  does not ship it): a perturbed test_2016_flickr.de, both sides tokenized as Multi30k's."""
  script = os.environ.get("MULTI_BLEU_PERL")
  if not script or shutil.which("perl") is None:
    pytest.skip("set MULTI_BLEU_PERL to a copy of Moses' multi-bleu.perl (and install perl)")
  reference = read_text_file(os.path.join(shared_data, "multi30k", "test_2016_flickr.de"),
                             "reference file")
  hypotheses = [perturb(line).upper() if index % 7 == 0 else perturb(line)
                for index, line in enumerate(reference)]
  ref_path = write(tmp_path / "ref.tok", "".join(multi30k_tokenize(line, "de") + "\n"
                                                 for line in reference))
  hypothesis_text = "".join(multi30k_tokenize(line, "de") + "\n" for line in hypotheses)
  perl = subprocess.run(["perl", script, "-lc", ref_path], input=hypothesis_text.encode(),
                        capture_output=True, check=True)
  printed = float(perl.stdout.decode().split()[2].rstrip(","))  # "BLEU = 44.06, ..."
  score = lowercased_tokenized_bleu(hypotheses, [reference], "de").score
  assert round(score, 2) == pytest.approx(printed, abs=1e-9)


def test_multi30k_tokenize_gives_the_releases_tokens(shared_data):
  # The release's data/task1/tok/test_2016_flickr.lc.norm.tok.de: 1,000 lines, 12,103 tokens.
  lines = read_text_file(os.path.join(shared_data, "multi30k", "test_2016_flickr.de"),
                         "reference file")
  tokenized = [multi30k_tokenize(line, "de") for line in lines]
  assert sum(len(line.split()) for line in tokenized) == 12103
  assert tokenized[1] == ("ein boston terrier läuft über saftig-grünes gras vor einem "
                          "weißen zaun .")
  assert tokenized[981].endswith(" mit der nummer 10.")  # A prefix's period, as in the release.


def test_several_references_take_the_best_match(reference):
  hypotheses = reference[:200]
  other = [perturb(line) for line in hypotheses]
  report = bleu_report(hypotheses, [other, hypotheses])
  assert report.cased.score == report.compound_split.score == pytest.approx(100.0)
  assert report.cased.signature.startswith("nrefs:2|")


@pytest.mark.parametrize("references, message", [
    (["a", "b"], "references must be a non-empty list of reference streams"),
    ([["a"]], "reference stream 1 has 1 lines but there are 2 hypotheses"),
])
def test_malformed_streams_are_value_errors(references, message):
  with pytest.raises(ValueError, match=message):
    bleu_report(["a", "b"], references)


@pytest.fixture
def files(tmp_path):
  """Paths of small translation and reference files, good and bad."""
  return {
      "ref": write(tmp_path / "ref.de", "Guten Morgen .\nDas ist gut-gemeint .\nEnde .\n"),
      "hyp": write(tmp_path / "hyp.de", "Guten Morgen .\nDas ist gut .\nEnde .\n"),
      "short": write(tmp_path / "short.de", "Guten Morgen .\nEnde .\n"),
      "latin1": write(tmp_path / "latin1.de", b"Guten Morgen .\nFu\xdfg\xe4nger .\nEnde .\n"),
      "empty": write(tmp_path / "empty.de", b""),
      "missing": str(tmp_path / "missing.de"),
      "directory": str(tmp_path),
  }


@pytest.mark.parametrize("translation, references, message", [
    ("missing", ["ref"], "translation file {missing}: no such file"),
    ("hyp", ["ref", "missing"], "reference file {missing}: no such file"),
    ("directory", ["ref"], "translation file {directory}: is a directory, not a file"),
    ("short", ["ref"], "line counts differ: translation file {short} has 2 lines but reference "
                       "file {ref} has 3;"),
    ("latin1", ["ref"], "{latin1}:2: invalid UTF-8"),
    ("empty", ["ref"], "translation file {empty} is empty"),
])
def test_file_errors_are_one_line_user_errors(files, translation, references, message):
  with pytest.raises(UserError) as info:
    score_files(files[translation], [files[name] for name in references])
  assert str(info.value).startswith(message.format(**files))
  assert "\n" not in str(info.value)


def test_score_files_reads_what_bleu_report_scores(files):
  report = score_files(files["hyp"], [files["ref"]])
  hypotheses = ["Guten Morgen .", "Das ist gut .", "Ende ."]
  references = ["Guten Morgen .", "Das ist gut-gemeint .", "Ende ."]
  assert report == bleu_report(hypotheses, [references])


def run_cli(*args):
  """t2t-bleu as a user runs it (in this process) -> (exit status, stdout, stderr)."""
  return status_and_output("t2t-bleu", *args)


@pytest.mark.slow
def test_cli_prints_the_six_labelled_scores(tmp_path, reference, reference_path):
  hypotheses = [perturb(line) for line in reference]
  translation = write(tmp_path / "perturbed.de", "".join(line + "\n" for line in hypotheses))
  code, out, err = run_cli(f"--translation={translation}", f"--reference={reference_path}")
  assert code == 0, err
  assert out.splitlines() == bleu_report(hypotheses, [reference]).lines()
  assert [line.split("  ")[0] for line in out.splitlines()] == list(LABELS)


@pytest.mark.slow
def test_cli_writes_the_printed_scores_as_json(tmp_path, files):
  scores = tmp_path / "scores.json"
  code, out, err = run_cli(f"--translation={files['hyp']}", f"--reference={files['ref']}",
                           "--bleu_variant=uncased", f"--scores_json={scores}")
  assert code == 0, err
  written = json.loads(scores.read_text(encoding="utf-8"))
  report = score_files(files["hyp"], [files["ref"]])
  assert written == {tag: {"score": bleu.score, "signature": bleu.signature}
                     for tag, bleu in report.scores("uncased").items()}
  assert out.splitlines() == report.lines("uncased")
  code, _, err = run_cli(f"--translation={files['hyp']}", f"--reference={files['ref']}",
                         f"--scores_json={files['ref']}")
  assert code == 2 and "is the input file" in err.strip().splitlines()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("language, warned", [("de", False), ("fr", False), ("dee", True)])
def test_cli_warns_of_a_language_moses_has_no_abbreviations_of(reference_path, language,
                                                                warned):
  code, _, err = run_cli(f"--translation={reference_path}", f"--reference={reference_path}",
                         f"--language={language}")
  assert code == 0, err
  assert (f"--language={language}: Moses knows no abbreviations" in err) == warned


@pytest.mark.slow
def test_cli_scores_a_directory_of_translations_in_step_order(tmp_path, files):
  translations = tmp_path / "translations"
  translations.mkdir()
  shutil.copy(files["hyp"], translations / "newstest-1200")
  shutil.copy(files["ref"], translations / "newstest-300")
  (translations / "notes.txt").write_text("not a translation")
  events = tmp_path / "events"
  code, out, err = run_cli(f"--translations_dir={translations}", f"--reference={files['ref']}",
                           "--bleu_variant=uncased", f"--event_dir={events}")
  assert code == 0, err
  expected = [f"{translations / 'newstest-300'} (step 300)",
              *score_files(files["ref"], [files["ref"]]).lines("uncased"),
              f"{translations / 'newstest-1200'} (step 1200)",
              *score_files(files["hyp"], [files["ref"]]).lines("uncased")]
  assert out.splitlines() == expected
  assert os.listdir(events)  # TensorBoard's event file.


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--translations_dir={tmp}", "--translation={ref}"],
     "give --translation=FILE or --translations_dir=DIR, not both"),
    (["--translations_dir={tmp}"], "--translations_dir={tmp} holds no translation file named "
                                   "*-STEP"),
    (["--translations_dir={tmp}/missing"], "--translations_dir={tmp}/missing: No such file"),
    (["--translation={ref}", "--event_dir={tmp}"], "--event_dir goes with --translations_dir"),
    (["--translations_dir={tmp}", "--scores_json={tmp}/s.json"],
     "--scores_json goes with --translation"),
])
def test_cli_directory_errors_are_one_line(tmp_path, files, args, message):
  code, _, err = run_cli(f"--reference={files['ref']}",
                         *(arg.format(tmp=tmp_path, ref=files["ref"]) for arg in args))
  assert code == 2 and "Traceback" not in err
  assert err.strip().splitlines()[-1].startswith("t2t-bleu: error: " + message.format(tmp=tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("translation, message", [
    ("missing", "translation file {missing}: no such file"),
    ("short", "line counts differ: translation file {short} has 3002 lines but reference file "
              "{reference} has 3003;"),
    ("latin1", "{latin1}:2: invalid UTF-8"),
    ("empty", "translation file {empty} is empty"),
    (None, "--translation is required: the file to score (or --translations_dir=DIR)"),
])
def test_cli_errors_are_one_line(tmp_path, reference, reference_path, translation, message):
  paths = {
      "missing": str(tmp_path / "missing.de"),
      "short": write(tmp_path / "short.de", "".join(line + "\n" for line in reference[:-1])),
      "latin1": write(tmp_path / "latin1.de", b"Guten Morgen .\nFu\xdfg\xe4nger .\n"),
      "empty": write(tmp_path / "empty.de", b""),
  }
  args = [f"--reference={reference_path}"]
  if translation:
    args.append(f"--translation={paths[translation]}")
  code, _, err = run_cli(*args)
  assert code == 2
  assert "Traceback" not in err
  last_line = err.strip().splitlines()[-1]
  assert last_line.startswith("t2t-bleu: error: " + message.format(reference=reference_path,
                                                                     **paths))
