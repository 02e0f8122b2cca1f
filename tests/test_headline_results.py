"""docs/reference_pages.py's headline table: an entry that names a record shows the record's
figure, val, rule, command, machine and date, not numbers typed beside it."""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))

from reference_pages import headline_row, shown_command  # noqa: E402

RECORD = {"figure": 74.02, "val": 77.31, "rule": "the candidate dev chose: avg.preset 77.31",
          "command": "docs/reproduce_parsing.sh runs/ptb (TRAIN_STEPS=10000) ",
          "date": "2026-12-07", "machine": {"cpu": "AMD EPYC", "cores": 2, "cpu_flags": []}}


def test_an_entry_naming_a_record_shows_the_record(tmp_path):
  (tmp_path / "figures").mkdir()
  (tmp_path / "figures" / "parsing.json").write_text(json.dumps(RECORD), encoding="utf-8")
  entry = {"task": "WSJ sample", "record": str(tmp_path / "figures" / "parsing.json"),
           "training": "10,000 steps", "published": "none", "rerun": "none yet",
           "section": "#parsing"}
  shown = headline_row(entry, docs="")
  assert (shown["test"], shown["val"], shown["rule"]) == (74.02, 77.31, RECORD["rule"])
  assert shown["command"] == "TRAIN_STEPS=10000 docs/reproduce_parsing.sh runs/ptb"
  assert shown["machine"] == "2-core AMD EPYC, 10,000 steps"
  assert shown["date"] == f"[2026-12-07]({tmp_path}/figures/parsing.json)"
  relative = dict(entry, record="figures/parsing.json")
  with pytest.MonkeyPatch.context() as patch:
    patch.setattr("reference_pages.DOCS", str(tmp_path))
    assert headline_row(relative, docs="docs/")["date"] == (
        "[2026-12-07](docs/figures/parsing.json)")


def test_a_shown_command_puts_its_settings_first_and_shortens_absolute_folders():
  assert shown_command("docs/reproduce_own_data.sh /home/a/corpora/europarl en de /x/runs/e18 "
                       " (TRAIN_MINUTES=60 SEED=2)") == (
      "TRAIN_MINUTES=60 SEED=2 docs/reproduce_own_data.sh corpora/europarl en de runs/e18")
  typed = "MEMBERS=4 TRAIN_MINUTES=60 docs/reproduce_multi30k_ensemble.sh ende_lc runs/r2l4"
  assert shown_command(typed) == typed


def test_an_entry_without_a_record_says_so_beside_its_date():
  entry = {"task": "Multi30k", "test": 42.78, "val": 43.25, "date": "2026-11-27"}
  shown = headline_row(entry, docs="docs/")
  assert (shown["date"], shown["test"]) == ("2026-11-27 (no record: before records were kept)",
                                            42.78)


def test_every_record_an_entry_names_is_committed():
  with open(os.path.join(ROOT, "docs", "headline_results.json"), encoding="utf-8") as f:
    entries = json.load(f)
  for entry in entries:
    if "record" in entry:
      assert entry["record"].startswith("figures/"), entry["record"]
      assert os.path.isfile(os.path.join(ROOT, "docs", entry["record"])), entry["record"]
      assert "training" in entry, entry["task"]  # What the record's machine ran, in words.
      assert not {"test", "val", "rule", "command", "machine", "date"} & entry.keys(), \
          entry["task"]
    else:
      assert {"test", "val", "rule", "command", "machine", "date"} <= entry.keys()
