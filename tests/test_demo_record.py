"""docs/demo_record.py: make demo's record, from the times of its phases and its last
evaluation's line."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))

import demo_record  # noqa: E402
from demo_record import main  # noqa: E402

EVALUATION = ("eval at step 0: loss 8.5411, accuracy 0.0002, perplexity 17423.80 (13971 tokens), "
              "bleu 0.00 (100 dev sentences, greedy)\n"
              "I1202 18:18:13.85 train_input.py:74] input position: ckpt-2000\n"
              "eval at step 2000: loss 3.6565, accuracy 0.3908, perplexity 54.41 (13971 tokens), "
              "bleu 4.83 (1109 dev sentences, greedy)\n")


def write_demo_dir(demo_dir, timeline, evaluation=EVALUATION):
  (demo_dir / "timeline.tsv").write_text(timeline, encoding="utf-8")
  (demo_dir / "evaluate.log").write_text(evaluation, encoding="utf-8")


def test_the_record_holds_the_last_evaluation_and_each_phases_seconds(tmp_path, capsys,
                                                                      monkeypatch):
  monkeypatch.setattr(demo_record, "commit", lambda: "abc1234")  # No git in the unit tier.
  write_demo_dir(tmp_path, "start 1000\ninstalled 0\nprepared 1097\ntrained 1623\n"
                           "translated 1633\nevaluated 1660\n")
  assert main(["demo_record.py", f"--demo_dir={tmp_path}"]) == 0
  record = json.loads((tmp_path / "record.json").read_text(encoding="utf-8"))
  assert (record["figure"], record["steps"], record["seconds"]) == (4.83, 2000, 660)
  assert record["phases"] == {"prepared": 97, "trained": 526, "translated": 10,
                              "evaluated": 27}
  assert record["installed_before"] is False and record["command"] == "make demo"
  assert record["commit"] == "abc1234"
  assert len(record["load"]) == 3 and record["machine"]["cores"] == os.cpu_count()
  assert capsys.readouterr().out == (
      f"make demo: 11:00 in all (training 8:46), whole-dev greedy BLEU 4.83; the record: "
      f"{tmp_path}/record.json\n")


def test_a_demo_that_stopped_before_its_evaluation_writes_no_record(tmp_path, capsys):
  write_demo_dir(tmp_path, "start 1000\ninstalled 1\nprepared 1010\ntrained 1500\n",
                 evaluation="eval at step 0: loss 8.5411 (13971 tokens)\n")
  assert main(["demo_record.py", f"--demo_dir={tmp_path}"]) == 1
  assert not (tmp_path / "record.json").exists()
  assert capsys.readouterr().err == (
      f"demo_record.py: error: no record written: {tmp_path}/evaluate.log: no evaluation "
      f"line with a decoded metric\n")
