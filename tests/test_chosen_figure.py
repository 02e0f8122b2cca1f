"""docs/chosen_figure.py: the figure a reproduce script quotes is the test score of the
candidate val chose, written as data."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))

from chosen_figure import chosen_figure, main  # noqa: E402

TAG = "BLEU_lowercased_tokenized"


def write_scores(out_dir, split, candidate, score):
  path = out_dir / f"{split}.{candidate}.scores.json"
  path.write_text(json.dumps({TAG: {"score": score, "signature": "s"}}), encoding="utf-8")


def test_val_chooses_and_test_is_quoted_even_where_test_would_have_chosen_otherwise(tmp_path):
  for split, last, averaged in (("val", 43.25, 42.87), ("test_2016_flickr", 42.78, 43.10)):
    write_scores(tmp_path, split, "last.beam4.de", last)
    write_scores(tmp_path, split, "avg.beam4.de", averaged)
  write_scores(tmp_path, "val", "avg.beam8.de", 50.0)  # Never scored on test: no candidate.
  figure = chosen_figure(str(tmp_path), "val", "test_2016_flickr", TAG)
  assert figure["chosen"] == "last.beam4.de"
  assert (figure["val"], figure["test"]) == (43.25, 42.78)
  assert figure["rule"] == ("the candidate val chose: last.beam4.de 43.25 against "
                            "avg.beam4.de 42.87")
  assert set(figure["candidates"]) == {"last.beam4.de", "avg.beam4.de"}
  assert main(["chosen_figure.py", str(tmp_path), "--commit=abc1234",
               "--command=make parse"]) == 0
  record = json.loads((tmp_path / "figure.json").read_text(encoding="utf-8"))
  assert {key: record[key] for key in figure} == figure
  assert (record["figure"], record["seeds"]) == (42.78, [{
      "seed": 1, "val": 43.25, "test": 42.78, "chosen": "last.beam4.de"}])
  assert (record["commit"], record["command"]) == ("abc1234", "make parse")
  assert {"date", "machine"} <= record.keys()


@pytest.mark.slow
def test_without_both_splits_the_script_says_so_in_one_line(tmp_path):
  write_scores(tmp_path, "val", "last", 40.0)
  result = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "chosen_figure.py"),
                           str(tmp_path)], capture_output=True, text=True)
  assert result.returncode == 2
  assert result.stderr.strip() == (f"chosen_figure.py: error: {tmp_path}: no candidate scored "
                                   f"on both val and test_2016_flickr (files val.NAME.scores.json "
                                   f"and test_2016_flickr.NAME.scores.json)")
  assert not (tmp_path / "figure.json").exists()


def test_an_ensemble_names_its_members_seeds(tmp_path):
  for split in ("val", "test_2016_flickr"):
    write_scores(tmp_path, split, "last", 40.0)
  assert main(["chosen_figure.py", str(tmp_path), "--seed=5-8", "--commit=abc1234"]) == 0
  record = json.loads((tmp_path / "figure.json").read_text(encoding="utf-8"))
  assert [seed["seed"] for seed in record["seeds"]] == ["5-8"]
