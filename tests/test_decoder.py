"""t2t-decoder on real newstest2014 text with a small trained run."""

import os
import shutil

import pytest

from commands import call
from t2t_lite.decoding.mbr import expected_bleus
from trainer_runs import BEAM_WITH_OUTPUTS

ODD_LINES = ["", "   ", "Ünïcödé — “quotes” «guillemets» 😀\ttab", "a\u2028line separator"]


def decode(output_dir, *flags, stdin=""):
  return call("t2t-decoder", f"--output_dir={output_dir}", *flags, stdin=stdin)


@pytest.fixture(scope="module")
def newstest_lines(shared_data):
  """The 12 longest lines of newstest2014 (en), 12 others, and odd ones."""
  path = os.path.join(shared_data, "wmt14", "newstest2014-full.en-de.en")
  with open(path, encoding="utf-8") as f:
    lines = f.read().splitlines()
  longest = sorted(lines, key=len)[-12:]
  return longest[:6] + lines[100:112] + ODD_LINES + longest[6:]


def write_lines(path, lines):
  path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
  return str(path)


def test_one_line_per_input_line_in_order(trained_run, newstest_lines, tmp_path):
  _, output_dir, _ = trained_run
  source = write_lines(tmp_path / "source.en", newstest_lines)
  result = decode(output_dir, f"--decode_from_file={source}",
                  f"--decode_to_file={tmp_path / 'out.de'}",
                  f"--decode_hparams={BEAM_WITH_OUTPUTS},batch_size=4")
  assert result.returncode == 0, result.stderr[-3000:]
  outputs = (tmp_path / "out.de").read_text(encoding="utf-8").split("\n")[:-1]
  assert len(outputs) == len(newstest_lines)
  empty = [i for i, line in enumerate(newstest_lines) if not line.strip()]
  assert all(outputs[i] == "" for i in empty)
  assert any(outputs[i] for i in range(len(outputs)) if i not in empty)
  # The long lines were truncated, each named in a warning.
  assert "truncated to max_input_length=40" in result.stderr
  assert f"line {newstest_lines.index(newstest_lines[-1]) + 1} has" in result.stderr
  assert "sentences/s" in result.stderr and "tokens/s" in result.stderr


def test_order_is_restored_after_sorting_by_length(trained_run, newstest_lines, tmp_path):
  """Reversed input gives reversed output. One sentence per batch, so that each sentence
  is decoded with the same shapes both times (an untrained model's near-ties would
  otherwise flip with float round-off)."""
  _, output_dir, _ = trained_run
  lines = newstest_lines[::4]  # Long, short and odd lines, 7 in all; and two blank ones.
  lines = lines[:3] + ODD_LINES[:2] + lines[3:]
  settings = f"--decode_hparams={BEAM_WITH_OUTPUTS},batch_size=1"
  forward = decode(output_dir, f"--decode_from_file={write_lines(tmp_path / 'f.en', lines)}",
                   settings)
  backward = decode(output_dir,
                    f"--decode_from_file={write_lines(tmp_path / 'b.en', lines[::-1])}",
                    settings)
  assert forward.returncode == 0 and backward.returncode == 0, backward.stderr[-3000:]
  outputs = forward.stdout.split("\n")[:-1]
  assert len(set(outputs)) >= 3, outputs  # Different lines, which a mix-up would show.
  assert outputs == backward.stdout.split("\n")[:-1][::-1]


def test_n_best_with_scores(trained_run, newstest_lines, tmp_path):
  _, output_dir, _ = trained_run
  source = write_lines(tmp_path / "source.en", newstest_lines[6:9])
  result = decode(output_dir, f"--decode_from_file={source}",
                  "--decode_hparams=beam_size=3,n_best=3,write_scores=True,extra_length=4")
  assert result.returncode == 0, result.stderr[-3000:]
  for line in result.stdout.splitlines():
    fields = line.split("\t")
    assert len(fields) == 6
    scores = [float(score) for score in fields[1::2]]
    assert scores == sorted(scores, reverse=True)


def test_mbr_reorders_the_same_beam_by_expected_bleu(trained_run, newstest_lines, tmp_path):
  _, output_dir, _ = trained_run
  source = write_lines(tmp_path / "source.en", newstest_lines[6:9])
  settings = "--decode_hparams=beam_size=4,n_best=4,write_scores=True,extra_length=4"
  by_score, by_mbr = (decode(output_dir, f"--decode_from_file={source}", settings + extra)
                      for extra in ("", ",mbr=True"))
  assert by_score.returncode == by_mbr.returncode == 0, by_mbr.stderr[-3000:]
  for plain, ranked in zip(by_score.stdout.splitlines(), by_mbr.stdout.splitlines(),
                           strict=True):
    plain, ranked = plain.split("\t"), ranked.split("\t")
    pairs = list(zip(plain[0::2], map(float, plain[1::2])))
    assert sorted(pairs) == sorted(zip(ranked[0::2], map(float, ranked[1::2])))
    # Scores are written to 4 decimals: weights off by a factor exp(+-1e-4) at most, so an
    # expected BLEU (0-100) off by 0.01 at most, each way.
    texts, scores = zip(*pairs)
    expected = dict(zip(texts, expected_bleus(texts, scores)))
    assert expected[ranked[0]] >= max(expected.values()) - 0.02


def test_tensor2tensors_decode_hparams_return_every_beam_with_its_score(trained_run,
                                                                       newstest_lines, tmp_path):
  _, output_dir, _ = trained_run
  source = write_lines(tmp_path / "source.en", newstest_lines[6:9])
  result = decode(output_dir, f"--decode_from_file={source}",
                  "--decode_hparams=beam_size=4,alpha=0.6,return_beams=True,"
                  "write_beam_scores=True")
  assert result.returncode == 0, result.stderr[-3000:]
  lines = result.stdout.splitlines()
  assert len(lines) == 3
  for line in lines:
    fields = line.split("\t")
    assert len(fields) == 8
    scores = [float(score) for score in fields[1::2]]
    assert scores == sorted(scores, reverse=True)


def test_score_file_writes_each_pairs_loss_in_order(trained_run, newstest_lines, tmp_path):
  from t2t_lite.decoding.scoring import score_lines
  from t2t_lite.run import Run
  _, output_dir, _ = trained_run
  pairs = [f"{source}\t{target}" for source, target in
           zip(newstest_lines[6:12], ["Guten Morgen.", "", "Die Sitzung ist eröffnet.",
                                      "Das ist gut-gemeint.", "Ja", "Nein, danke."])]
  scores_path = tmp_path / "scores.txt"
  result = decode(output_dir, f"--score_file={write_lines(tmp_path / 'pairs.tsv', pairs)}",
                  f"--decode_to_file={scores_path}")
  assert result.returncode == 0, result.stderr[-3000:]
  written = scores_path.read_text().splitlines()
  assert len(written) == 6 and all(len(score.split(".")[1]) == 6 for score in written)
  assert all(float(score) > 0 for score in written)
  expected = score_lines(Run.open(output_dir).translator(), pairs)
  assert [float(score) for score in written] == pytest.approx(
      [float(score) for score in expected], abs=2e-6)
  result = decode(output_dir, f"--score_file={write_lines(tmp_path / 'bad.tsv', ['no tab'])}")
  assert result.returncode == 2 and "Traceback" not in result.stderr
  assert result.stderr.strip().splitlines()[-1] == (
      "t2t-decoder: error: --score_file line 1: expected input<TAB>target, found 0 tabs")


def test_interactive(trained_run):
  _, output_dir, _ = trained_run
  result = decode(output_dir, "--decode_interactive", "--decode_hparams=beam_size=1",
                  stdin="Resumption of the session\n\nI declare resumed the session.\n")
  assert result.returncode == 0, result.stderr[-3000:]
  lines = result.stdout.split("\n")[:-1]
  assert len(lines) == 3 and lines[0] and lines[1] == "" and lines[2]


def test_bad_input_is_one_line(trained_run, tmp_path):
  _, output_dir, _ = trained_run
  empty_run = tmp_path / "empty_run"
  empty_run.mkdir()
  for name in ("hparams.json", "run.json"):
    shutil.copy(os.path.join(output_dir, name), empty_run / name)
  source = write_lines(tmp_path / "source.en", ["Hello"])
  cases = [
      ((f"--decode_from_file={source}",), str(empty_run), "no checkpoint in"),
      ((f"--decode_from_file={source}", "--problem=translate_ende_wmt32k"), output_dir,
       "is a run of problem translate_from_files, not translate_ende_wmt32k"),
      ((f"--decode_from_file={source}", "--decode_hparams=beam_size=four"), output_dir,
       "--decode_hparams: beam_size=four is not a valid int"),
      ((f"--decode_from_file={source}", "--decode_hparams=beam=4"), output_dir,
       "--decode_hparams: unknown name 'beam'; valid names: alpha, batch_size, beam_size"),
      ((f"--decode_from_file={tmp_path / 'missing.en'}",), output_dir, "no such file"),
      ((f"--decode_from_file={source}", f"--checkpoint_path={output_dir}/ckpt-999"),
       output_dir, "no such checkpoint"),
      ((f"--decode_from_file={source}",), str(tmp_path), "is not a run directory"),
      (("--decode_interactive", f"--decode_to_file={tmp_path / 'out.de'}"), output_dir,
       "--decode_to_file goes with --decode_from_file"),
  ]
  for flags, run, message in cases:
    result = decode(run, *flags)
    assert result.returncode == 2, (flags, result.stderr[-2000:])
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("t2t-decoder: error:") and message in last_line, last_line
    assert "Traceback" not in result.stderr


def test_max_input_size_minus_one_never_truncates(trained_run, newstest_lines, caplog):
  """tensor2tensor's max_input_size=-1: a line longer than max_length is decoded whole."""
  from t2t_lite.run import Run
  _, output_dir, _ = trained_run
  translator = Run.open(output_dir).translator("max_input_size=-1,beam_size=1,extra_length=2")
  long_line = " ".join(newstest_lines[-3:] * 3)
  assert len(translator._encode([long_line], [0])[0]) > translator.hparams.max_length
  with caplog.at_level("WARNING"):
    outputs = translator.translate([long_line, "Resumption of the session"], progress=False)
  assert len(outputs) == 2 and "truncated" not in caplog.text
