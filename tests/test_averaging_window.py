"""t2t-avg-all averages only the end of training (--window), and says so in one line when
fewer checkpoints than --n are there."""

import json
import os

import pytest

from commands import call
from helpers import edit_json
from t2t_lite.run.run_layout import AVERAGE_MARKER, RUN_FILE, checkpoint_step
from t2t_lite.training.checkpoint_choice import CheckpointChoice
from tiny_runs import truncate

# (steps listed, n, window, min_steps) -> the steps averaged: the newest n of those from
# step (1 - window) x the newest on, and from min_steps on.
CHOICES = [
    ([283, 772], 20, 0.2, 0, [772]),                 # A short run: its end only.
    ([1000, 2000, 3000, 4000, 5000, 6000, 6359], 20, 0.2, 0, [6000, 6359]),
    (list(range(0, 8401, 420)), 20, 0.2, 0, [6720, 7140, 7560, 7980, 8400]),
    (list(range(0, 8401, 420)), 3, 0.2, 0, [7560, 7980, 8400]),
    ([80, 100], 5, 0.2, 0, [80, 100]),               # The first step is in.
    ([6, 7, 10], 5, 0.3, 0, [7, 10]),                # 0.7 x 10 is 7, not 7.000000000000001.
    ([283, 772], 20, 1, 0, [283, 772]),              # --window=1: the whole run.
    ([20, 40, 60], 2, 1, 0, [40, 60]),
    ([20, 40, 60], 5, 1, 40, [40, 60]),              # --min_steps leaves out more...
    ([20, 40, 60], 5, 0.5, 10, [40, 60]),            # ... or less than the window.
    ([20, 40, 60], 5, 0.2, 100, []),
    ([], 5, 0.2, 0, []),
]


@pytest.mark.parametrize("steps, n, window, min_steps, averaged", CHOICES)
def test_the_newest_n_checkpoints_in_the_window_are_chosen(steps, n, window, min_steps,
                                                           averaged):
  choice = CheckpointChoice(n, window, min_steps)
  candidates = choice.candidates([f"run/ckpt-{step}" for step in steps])
  assert [checkpoint_step(path) for path in candidates][-n:] == averaged


def paths(*steps):
  return [f"run/ckpt-{step}" for step in steps]


SHORTFALLS = [
    (CheckpointChoice(20, 0.2), 3, paths(6720, 7560, 8400), 0,
     "t2t-avg-all: 3 of the 20 checkpoints asked for are in the run's last 20% (steps 6,720 "
     "to 8,400); averaging those (--window=1 reaches further back)"),
    (CheckpointChoice(5, 0.2), 1, paths(1, 2, 3), 0,
     "t2t-avg-all: 1 of the 5 checkpoints asked for is in the run's last 20% (steps 3 to 3); "
     "using it alone (--window=1 reaches further back)"),
    (CheckpointChoice(5, 1, 40), 2, paths(20, 40, 60), 0,
     "t2t-avg-all: 2 of the 5 checkpoints asked for are from --min_steps=40 on (steps 40 to "
     "60); averaging those (a lower --min_steps reaches further back)"),
    (CheckpointChoice(5, 1), 2, paths(1, 2, 3), 1,
     "t2t-avg-all: 2 of the 5 checkpoints asked for are in the run (steps 0 to 3) and can be "
     "read; averaging those (t2t-trainer's --keep_checkpoint_max sets how many a run keeps)"),
]


@pytest.mark.parametrize("choice, found, listed, unreadable, line", SHORTFALLS)
def test_fewer_checkpoints_than_asked_is_one_line(choice, found, listed, unreadable, line):
  assert choice.shortfall_line(found, listed, unreadable) == line


def test_the_command_averages_the_end_and_says_when_fewer_are_there(run_copy, tmp_path):
  averaged = tmp_path / "averaged"
  result = call("t2t-avg-all", f"--model_dir={run_copy}", f"--output_dir={averaged}", "--n=5")
  assert result.returncode == 0, result.stderr[-2000:]
  assert result.stdout.splitlines() == [
      "t2t-avg-all: 1 of the 5 checkpoints asked for is in the run's last 10% (steps 3 to 3); "
      "using it alone (--window=1 reaches further back)",
      # The tiny run was trained in-process: no command line, no --data_dir recorded.
      f"t2t-avg-all: no length penalty chosen on dev ({run_copy}/{RUN_FILE} records no "
      f"--data_dir)",
      f"averaged 1 checkpoint(s) (ckpt-3) into {averaged}/ckpt-3"]
  result = call("t2t-avg-all", f"--model_dir={run_copy}", f"--output_dir={averaged}", "--n=5",
                "--window=1")
  assert result.returncode == 0, result.stderr[-2000:]
  assert result.stdout.splitlines() == [
      "t2t-avg-all: 3 of the 5 checkpoints asked for are in the run (steps 0 to 3); averaging "
      "those (t2t-trainer's --keep_checkpoint_max sets how many a run keeps)",
      f"t2t-avg-all: no dev check ({run_copy}/{RUN_FILE} records no --data_dir); {averaged} "
      f"holds the average of 3 checkpoints",
      f"averaged 3 checkpoint(s) (ckpt-1, ckpt-2, ckpt-3) into {averaged}/ckpt-3"]
  marker = json.loads((averaged / AVERAGE_MARKER).read_text())
  assert marker["holds"] == marker["averaged"] == ["ckpt-1", "ckpt-2", "ckpt-3"]
  assert marker["window"] == 1 and marker["dev_check"] == {
      "skipped": f"{run_copy}/{RUN_FILE} records no --data_dir"}


@pytest.mark.parametrize("data_dir, reason", [
    ("gone", "the run's --data_dir={data_dir} is not there"),
    ("empty", "{data_dir} holds no dev split of translate_from_files")], ids=["gone", "empty"])
def test_a_run_without_dev_data_skips_the_dev_check_in_one_line(run_copy, tmp_path, data_dir,
                                                                reason):
  data_dir = tmp_path / data_dir
  if data_dir.name == "empty":
    data_dir.mkdir()
  edit_json(os.path.join(run_copy, RUN_FILE),
            lambda run: run["flags"].update(data_dir=str(data_dir)))
  result = call("t2t-avg-all", f"--model_dir={run_copy}", f"--output_dir={tmp_path / 'avg'}",
                "--n=2", "--window=1")
  assert result.returncode == 0, result.stderr[-2000:]
  assert (f"t2t-avg-all: no dev check ({reason.format(data_dir=data_dir)}); "
          f"{tmp_path / 'avg'} holds the average of 2 checkpoints") in result.stdout.splitlines()


def test_an_unreadable_checkpoint_in_the_window_is_not_replaced_by_an_older_one(run_copy,
                                                                                tmp_path):
  truncate(os.path.join(run_copy, "ckpt-3.data-00000-of-00001"))
  result = call("t2t-avg-all", f"--model_dir={run_copy}", f"--output_dir={tmp_path / 'avg'}")
  assert result.returncode == 2
  assert f"checkpoint {run_copy}/ckpt-3 cannot be read" in result.stderr
  assert result.stderr.strip().splitlines()[-1] == (
      f"t2t-avg-all: error: none of the 1 checkpoint(s) of {run_copy} from step 3 on can be "
      f"read (see the warnings above)")
  assert not os.path.exists(tmp_path / "avg")


def test_bad_flags_are_one_line_errors(run_copy, tmp_path):
  for flag, error in (("--window=0", "--window=0: it must be more than 0 and at most 1 (1: "
                                     "the whole run)"),
                      ("--dev_sentences=-1", "--dev_sentences=-1: it must be at least 0 (0: "
                                             "no dev check)")):
    result = call("t2t-avg-all", f"--model_dir={run_copy}", f"--output_dir={tmp_path / 'avg'}",
                  flag)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"t2t-avg-all: error: {error}")
