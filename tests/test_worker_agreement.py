"""The workers' handshake without workers: what each digests (`worker_handshake`), and how
the rows of several are compared and a difference named (`worker_agreement`)."""

import json
import types

import pytest
import tensorflow as tf

from t2t_lite.training.config import TrainConfig
from t2t_lite.training.worker_agreement import (FIELD_KEYS, LAYOUT, ROW_WORDS, TEXT_BYTES,
                                                TEXT_ROW_WORDS, Task, difference_error,
                                                digest_row, first_difference, of_one_layout,
                                                read_text_rows, text_row)
from t2t_lite.training.worker_handshake import agreement_values, check_workers_agree

CHIEF, WORKER_1, WORKER_2 = Task("worker", 0, True), Task("worker", 1, False), Task("worker", 2,
                                                                                   False)
HPARAMS = {"hidden_size": 64, "learning_rate_constant": 2.0, "learning_rate_schedule": "rsqrt"}
CHIEFS = {
    "version": "0.1.0", "problem": "translate_from_files", "model": "transformer",
    "data": json.dumps({"translate_from_files-train.json": "ab" * 32,
                        "vocab.translate_from_files.model": "cd" * 32}),
    "hparams": json.dumps(HPARAMS), "settings": json.dumps({"train_steps": 10}),
    "output_dir": "/shared/run", "resume_step": "10"}

# Each field differing on worker 1: (its text there, the error line's words for it).
DIFFERENCES = [
    ("version", "0.2.0", "t2t_lite version differs from the chief's (0.2.0 against 0.1.0): "
     "install the same t2t_lite on every worker"),
    ("problem", "translate_ende_multi30k", "problem differs from the chief's "
     "(translate_ende_multi30k against translate_from_files): start every worker with the "
     "same --problem"),
    ("data", json.dumps({"translate_from_files-train.json": "ef" * 32,
                         "vocab.translate_from_files.model": "cd" * 32}),
     "data differ from the chief's (translate_from_files-train.json SHA-256 efefefefefef... "
     "against abababababab...): give every worker the same --data_dir"),
    ("model", "lstm", "model differs from the chief's (lstm against transformer): start every "
     "worker with the same --model"),
    ("hparams", json.dumps(dict(HPARAMS, learning_rate_constant=10.0)),
     "hparams differ from the chief's (learning_rate_constant 10.0 against 2.0): start every "
     "worker with the same --hparams_set and --hparams"),
    ("settings", json.dumps({"train_steps": 20}), "training flags differ from the chief's "
     "(--train_steps 20 against 10): start every worker with the same t2t-trainer flags"),
    ("output_dir", "/local/run", "--output_dir differs from the chief's (/local/run against "
     "/shared/run): give every worker the same --output_dir"),
    ("resume_step", "0", "step to resume from differs from the chief's (step 0 against step "
     "10): every worker resumes from the chief's checkpoints"),
]


def named_difference(workers_values):
  """The error line of workers 1, 2, ... with `workers_values` beside CHIEFS, or None, as
  every worker finds it from the gathered rows and texts."""
  tasks = [CHIEF, WORKER_1, WORKER_2][:1 + len(workers_values)]
  values = [CHIEFS, *workers_values]
  rows = [digest_row(task, each) for task, each in zip(tasks, values)]
  found = first_difference(rows[::-1])  # Any order.
  if found is None:
    return None
  task, field = found
  texts = read_text_rows([text_row(each, value[field.key]) for each, value in zip(tasks, values)])
  return str(difference_error(task, field, texts[task], texts[CHIEF]))


def test_the_table_names_every_field():
  assert sorted(key for key, _, _ in DIFFERENCES) == sorted(FIELD_KEYS) == sorted(CHIEFS)


@pytest.mark.parametrize("key,text,words", DIFFERENCES, ids=[key for key, _, _ in DIFFERENCES])
def test_each_field_that_differs_is_named_with_how_and_what_to_do(key, text, words):
  line = named_difference([dict(CHIEFS, **{key: text})])
  assert line.startswith(f"worker 1's {words}"), line
  assert "\n" not in line


def test_workers_that_agree_find_nothing():
  assert named_difference([dict(CHIEFS), dict(CHIEFS)]) is None


def test_the_first_field_in_order_and_the_lowest_worker_are_named():
  line = named_difference([dict(CHIEFS, resume_step="0"),
                           dict(CHIEFS, problem="other", resume_step="0")])
  assert line.startswith("worker 2's problem differs"), line  # The problem comes first.
  line = named_difference([dict(CHIEFS, resume_step="0"), dict(CHIEFS, resume_step="3")])
  assert line.startswith("worker 1's step to resume from differs"), line


def test_a_chief_task_and_a_worker_0_beside_it():
  chief, worker_0 = Task("chief", 0, True), Task("worker", 0, False)
  rows = [digest_row(worker_0, dict(CHIEFS, model="lstm")), digest_row(chief, CHIEFS)]
  task, field = first_difference(rows)
  assert str(difference_error(task, field)).startswith(
      "worker 0's model differs from the chief's: start every worker with the same --model")


def test_rows_have_fixed_shapes_whatever_the_texts():
  longest = dict(CHIEFS, hparams="x" * (3 * TEXT_BYTES))
  assert digest_row(CHIEF, CHIEFS).shape == digest_row(CHIEF, longest).shape == (ROW_WORDS,)
  assert text_row(CHIEF, "").shape == text_row(CHIEF, "é" * TEXT_BYTES).shape == (
      TEXT_ROW_WORDS,)


def test_a_text_cut_short_leaves_out_the_how_but_names_the_field():
  long_hparams = dict(HPARAMS, padding="x" * TEXT_BYTES)
  line = named_difference([dict(CHIEFS, hparams=json.dumps(dict(long_hparams, hidden_size=8)))])
  assert line == ("worker 1's hparams differ from the chief's: start every worker with the "
                  "same --hparams_set and --hparams")


def test_a_row_of_another_layout_is_another_version():
  other = digest_row(WORKER_1, CHIEFS)
  other[0] = LAYOUT + 1
  rows = [digest_row(CHIEF, CHIEFS), other]
  assert not of_one_layout(rows)
  task, field = first_difference(rows)
  assert (task, field.key) == (WORKER_1, "version")


def test_one_process_exchanges_and_computes_nothing():
  run = types.SimpleNamespace(strategy=tf.distribute.get_strategy())  # No description to read.
  assert check_workers_agree(run, config=None, data_dir=None) is None


def test_what_a_worker_digests(tmp_path):
  data_dir, output_dir = tmp_path / "data", tmp_path / "run"
  data_dir.mkdir()
  (data_dir / "translate_from_files-dev.json").write_text("{}", encoding="utf-8")
  run = types.SimpleNamespace(
      description=types.SimpleNamespace(
          problem="translate_from_files", model="transformer",
          vocab_sha256={"vocab.model": "cd" * 32}, data_sha256={"t-train.json": "ab" * 32}),
      hparams=types.SimpleNamespace(to_json=lambda: json.dumps(HPARAMS)),
      location=str(output_dir))  # Run.location: the run directory's absolute path.
  config = TrainConfig(output_dir=str(output_dir), train_steps=10)
  values = agreement_values(run, config, str(data_dir), None)
  assert sorted(values) == sorted(FIELD_KEYS)
  assert values["resume_step"] == "0" and values["output_dir"] == str(output_dir)
  assert json.loads(values["settings"])["train_steps"] == 10
  assert sorted(json.loads(values["data"])) == ["t-train.json", "translate_from_files-dev.json",
                                                 "vocab.model"]
  assert agreement_values(run, config, str(data_dir), str(output_dir / "ckpt-8"))[
      "resume_step"] == "8"


def test_many_hparams_differing_show_three_and_a_count():
  other = {"hidden_size": 8, "learning_rate_constant": 1.0, "learning_rate_schedule": "x",
           "num_heads": 2, "filter_size": 32}
  line = named_difference([dict(CHIEFS, hparams=json.dumps(other))])
  assert line.startswith("worker 1's hparams differ from the chief's (filter_size 32 against "
                         "unset, hidden_size 8 against 64, learning_rate_constant 1.0 against "
                         "2.0, and 2 more): "), line
