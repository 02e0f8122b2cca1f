"""A record file cut short (at a record's end too) or with a flipped byte (its CRC no longer
matches) is named in one line by every reader of records: t2t-trainer's training, its
evaluation (--schedule=evaluate) and its dev decoding, and t2t-avg-all's dev check; never an
87-line DataLossError naming no file, never a run on part of the data."""

import os
import shutil

import pytest

from commands import call
from helpers import edit_json
from t2t_lite.data import records
from t2t_lite.data.damaged_records import find_damaged_file
from tiny_runs import copy_run, tiny_data, tiny_trainer

PROBLEM = "translate_from_files"


def cut_short(path):
  """Drops the file's last 7 bytes: its last record ends early."""
  with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) - 7)


def flip_a_byte(path):
  """Flips one bit of the byte in the middle of the file."""
  with open(path, "r+b") as f:
    f.seek(os.path.getsize(path) // 2)
    byte = f.read(1)[0]
    f.seek(-1, os.SEEK_CUR)
    f.write(bytes([byte ^ 0x10]))


def cut_at_a_record_end(path):
  """Keeps the file's first record only: what is left reads whole (a TFRecord is its
  length in 8 bytes, their CRC, the data, its CRC)."""
  with open(path, "r+b") as f:
    length = int.from_bytes(f.read(8), "little")
    f.truncate(8 + 4 + length + 4)


SIZE_CHANGED = "bytes where t2t-datagen wrote"  # The marker's size, checked before reading.
# damage -> (how, what the reader says of the file, what t2t-trainer's line says).
DAMAGES = {"cut short": (cut_short, "truncated record at", SIZE_CHANGED),
           "a flipped byte": (flip_a_byte, "corrupted record at", "corrupted record at"),
           "cut at a record's end": (cut_at_a_record_end, None, SIZE_CHANGED)}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  """(data_dir, output_dir): the tiny data and a run trained two steps on it (ckpt-1,
  ckpt-2)."""
  work = tmp_path_factory.mktemp("damaged")
  data_dir = tiny_data(str(work))
  output_dir = str(work / "run")
  result = tiny_trainer(data_dir, output_dir, "--train_steps=2", "--schedule=train",
                        "--save_checkpoints_steps=1")
  assert result.returncode == 0, result.stderr[-2000:]
  return data_dir, output_dir


def damaged_copy(trained, tmp_path, split, damage):
  """(data_dir, output_dir, the damaged file): copies of the tiny data and run, one file of
  `split` damaged by `damage`."""
  data_dir, output_dir = trained
  data_copy = str(tmp_path / "data")
  shutil.copytree(data_dir, data_copy)
  path = records.read_split_info(data_copy, PROBLEM, split).files[-1]
  DAMAGES[damage][0](path)
  return data_copy, copy_run(output_dir, tmp_path / "run"), path


@pytest.mark.parametrize("damage", ["cut short", "a flipped byte"])
def test_the_damaged_file_is_found_with_what_is_wrong(trained, tmp_path, damage):
  data_dir, _, path = damaged_copy(trained, tmp_path, "train", damage)
  files = [os.path.join(data_dir, os.path.basename(name))  # The marker refuses a cut file.
           for name in records.read_split_info(trained[0], PROBLEM, "train").files]
  found, reason = find_damaged_file(files)
  assert found == path and reason.startswith(DAMAGES[damage][1])
  assert find_damaged_file(files[:-1]) is None


@pytest.mark.parametrize("damage, split, flags", [
    ("cut short", "train", ["--schedule=train", "--train_steps=3"]),
    ("cut at a record's end", "train", ["--schedule=train", "--train_steps=3"]),
    ("a flipped byte", "train", ["--schedule=train", "--train_steps=3"]),
    ("a flipped byte", "dev", ["--schedule=evaluate"]),
    ("cut short", "dev", ["--schedule=evaluate"]),
    ("a flipped byte", "dev", ["--train_steps=3", "--eval_decode_sentences=3"]),
])
def test_the_trainer_names_the_damaged_file_in_one_line(trained, tmp_path, damage, split,
                                                        flags):
  """A new run for training (a resumed one holds the records read before in its iterator's
  state); the trained run for --schedule=evaluate."""
  data_dir, trained_copy, path = damaged_copy(trained, tmp_path, split, damage)
  evaluating = "--schedule=evaluate" in flags
  result = tiny_trainer(data_dir, trained_copy if evaluating else str(tmp_path / "new"),
                        *flags)
  assert result.returncode == 2, result.stderr[-3000:]
  assert "Traceback" not in result.stderr
  errors = [line for line in result.stderr.splitlines() if line.startswith("t2t-trainer:")]
  assert len(errors) == 1, result.stderr[-2000:]
  assert errors[0].startswith(f"t2t-trainer: error: {path}: damaged record file (")
  assert DAMAGES[damage][2] in errors[0]
  assert errors[0].endswith(f"); regenerate the data with t2t-datagen --problem={PROBLEM} "
                            f"--data_dir={data_dir}")


def test_t2t_avg_all_skips_its_dev_check_naming_the_damaged_file(trained, tmp_path):
  data_dir, run_dir, path = damaged_copy(trained, tmp_path, "dev", "a flipped byte")
  edit_json(os.path.join(run_dir, "run.json"),
            lambda run: run["flags"].update(data_dir=data_dir))
  averaged = tmp_path / "averaged"
  result = call("t2t-avg-all", f"--model_dir={run_dir}", f"--output_dir={averaged}", "--n=2",
                "--window=1")
  assert result.returncode == 0, result.stderr[-2000:]
  skipped = [line for line in result.stdout.splitlines() if "no dev check" in line]
  assert len(skipped) == 1, result.stdout
  assert skipped[0].startswith(
      f"t2t-avg-all: no dev check ({path}: damaged record file (corrupted record at ")
  assert f"regenerate the data with t2t-datagen --problem={PROBLEM} --data_dir={data_dir})" \
      in skipped[0]
