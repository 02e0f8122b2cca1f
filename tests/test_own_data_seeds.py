"""docs/own_data_seeds.py: one setting's seeds as one record whose figure is their mean."""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))

from own_data_seeds import main, merged  # noqa: E402


def record(seed, val, test, average_test=None, steps=2800, root="runs/a"):
  """A record as own_data_record.py writes it, for `seed`."""
  return {
      "figure": test, "metric": "sacreBLEU_cased on corpora/e18/test.de",
      "candidates": {"run": {"val": val, "test": average_test or test},
                     "run_avg": {"val": val, "test": test}},
      "rule": "the walkthrough's own", "auto_choice": ["transformer_auto: 18,000 training pairs"],
      "stop": "", "averaging": [], "repeats": {"test_output": 7, "reference": 7},
      "load": {"mean": 2.0}, "date": f"2026-12-0{seed}", "machine": {"cpu": "cpu"},
      "command": f"docs/reproduce_own_data.sh corpora/e18 en de {root}  (TRAIN_MINUTES=0 "
                 f"TRAIN_STEPS={steps} HPARAMS_SET=transformer_auto HPARAMS= VOCAB=8192 "
                 f"SEED={seed})",
      "commit": "abc", "minutes": 0.0, "train_steps": steps, "steps": steps, "seconds": 1700,
      "seeds": [{"seed": seed, "val": val, "test": test}]}


def test_the_figure_is_the_mean_of_the_seeds_and_every_run_is_kept():
  both = merged([record(1, 6.0, 7.0), record(2, 7.0, 8.0, root="runs/b")])
  assert both["figure"] == pytest.approx(7.5)
  assert both["candidates"]["run_avg"] == {"val": pytest.approx(6.5), "test": pytest.approx(7.5)}
  assert both["spread"] == {"val": [6.0, 7.0], "test": [7.0, 8.0]}
  assert [seed["seed"] for seed in both["seeds"]] == [1, 2]
  assert [run["date"] for run in both["runs"]] == ["2026-12-01", "2026-12-02"]
  assert both["date"] == "2026-12-02"
  assert both["rule"].endswith("the figure is the mean over the seeds of what it kept")


def test_a_third_seed_joins_a_merged_record_with_its_weight():
  three = merged([merged([record(1, 6.0, 7.0), record(2, 7.0, 8.0)]), record(3, 8.0, 12.0)])
  assert three["figure"] == pytest.approx(9.0)
  assert three["candidates"]["run_avg"]["val"] == pytest.approx(7.0)
  assert len(three["runs"]) == 3
  assert three["rule"].count("the figure is the mean") == 1


@pytest.mark.parametrize("other, words", [
    (record(1, 6.0, 7.0), "a seed given twice"),
    (record(2, 6.0, 7.0, steps=5600), "not one setting"),
])
def test_records_that_are_not_seeds_of_one_setting_are_refused_in_one_line(
    tmp_path, capsys, other, words):
  paths = []
  for name, each in (("a.json", record(1, 6.0, 7.0)), ("b.json", other)):
    paths.append(str(tmp_path / name))
    (tmp_path / name).write_text(json.dumps(each), encoding="utf-8")
  assert main(["own_data_seeds.py", str(tmp_path / "out.json"), *paths]) == 2
  error = capsys.readouterr().err.strip()
  assert error.startswith("own_data_seeds.py: ") and words in error and "\n" not in error
  assert not (tmp_path / "out.json").exists()
