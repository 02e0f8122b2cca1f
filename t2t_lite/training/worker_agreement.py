"""What the workers of one multi-worker run must have in common, and how two differ.

    values = {"version": "0.1.0", "problem": "translate_from_files", ...}   # each a text
    row = digest_row(Task("worker", 1, chief=False), values)     # ROW_WORDS int64s
    found = first_difference(rows)              # the rows of every worker, any order
    if found:
      task, field = found
      raise difference_error(task, field, worker_text, chief_text)

Each field's text is digested (SHA-256, its first 16 bytes as two int64s) into a row of a
fixed ROW_WORDS int64s whatever the texts, so that exchanging rows (`worker_handshake`) can
never fail on a shape. The texts of the one field that differs are exchanged afterwards, in
rows of a fixed TEXT_ROW_WORDS, to say how it differs (`text_row`, `read_text_rows`).
"""

import dataclasses
import hashlib
import json

import numpy as np

from t2t_lite.errors import UserError

# Which layout of rows this is: workers whose rows carry another cannot compare them.
LAYOUT = 0x7432745F61677231  # "t2t_agr1"
ROW_WORDS = 32  # LAYOUT, the task (3 words), 2 words per field, and room for more fields.
TEXT_BYTES = 32768  # The longest text exchanged whole (an hparams JSON is about 3 KB).
TEXT_ROW_WORDS = 4 + TEXT_BYTES // 8  # The task, the text's length, its bytes.
_JOBS = ("chief", "worker")


@dataclasses.dataclass(frozen=True)
class Task:
  """One process of the run: its job, its index in it, and whether it writes the run."""
  job: str
  index: int
  chief: bool

  def __str__(self):
    return f"{self.job} {self.index}"


@dataclasses.dataclass(frozen=True)
class Field:
  """What must be equal: its key in the values, how the error line names it, and what to do."""
  key: str
  label: str
  verb: str  # "differs" or "differ", after the label.
  remedy: str
  describe: object = None  # (worker's text, chief's text) -> the difference in words.


def _plain(worker, chief):
  return f"{worker} against {chief}"


def _changed_keys(worker, chief, prefix=""):
  """'learning_rate_constant 10.0 against 2.0, ...' of two JSON objects' differing keys."""
  worker, chief = json.loads(worker), json.loads(chief)
  keys = sorted(key for key in set(worker) | set(chief) if worker.get(key) != chief.get(key))
  shown = [f"{prefix}{key} {_value(worker, key)} against {_value(chief, key)}"
           for key in keys[:3]]
  return ", ".join(shown + ([f"and {len(keys) - 3} more"] if len(keys) > 3 else []))


def _value(values, key):
  if key not in values:
    return "unset"
  value = values[key]
  return value if isinstance(value, str) else json.dumps(value)


def _changed_files(worker, chief):
  """'translate_from_files-train.json SHA-256 51ab12345678... against 9f2c...' of the first
  data file whose digest differs."""
  worker, chief = json.loads(worker), json.loads(chief)
  for name in sorted(set(worker) | set(chief)):
    if worker.get(name) != chief.get(name):
      return f"{name} SHA-256 {_short(worker.get(name))} against {_short(chief.get(name))}"
  return ""


def _short(digest):
  return f"{digest[:12]}..." if digest else "missing"


SHARED_DIR = "on a file system they all share"
FIELDS = (  # In the order they are compared: a difference is named by its cause first.
    Field("version", "t2t_lite version", "differs",
          "install the same t2t_lite on every worker", _plain),
    Field("problem", "problem", "differs", "start every worker with the same --problem", _plain),
    Field("data", "data", "differ", f"give every worker the same --data_dir (one t2t-datagen "
          f"output, {SHARED_DIR})", _changed_files),
    Field("model", "model", "differs", "start every worker with the same --model", _plain),
    Field("hparams", "hparams", "differ",
          "start every worker with the same --hparams_set and --hparams", _changed_keys),
    Field("settings", "training flags", "differ", "start every worker with the same "
          "t2t-trainer flags", lambda worker, chief: _changed_keys(worker, chief, "--")),
    Field("output_dir", "--output_dir", "differs",
          f"give every worker the same --output_dir, {SHARED_DIR}", _plain),
    Field("resume_step", "step to resume from", "differs", f"every worker resumes from the "
          f"chief's checkpoints: give them the same --output_dir, {SHARED_DIR}",
          lambda worker, chief: f"step {worker} against step {chief}"),
)
FIELD_KEYS = tuple(field.key for field in FIELDS)
assert 4 + 2 * len(FIELDS) <= ROW_WORDS


def digest_row(task, values):
  """The ROW_WORDS int64s of `task` and the digests of its `values` ({field key: text})."""
  row = np.zeros(ROW_WORDS, np.int64)
  row[:4] = (LAYOUT, *_task_words(task))
  for position, key in enumerate(FIELD_KEYS):
    digest = hashlib.sha256(values[key].encode("utf-8")).digest()[:16]
    row[4 + 2 * position:6 + 2 * position] = np.frombuffer(digest, "<i8")
  return row


def _task_words(task):
  return (_JOBS.index(task.job), task.index, int(task.chief))


def _task_of(words):
  job, index, chief = (int(word) for word in words)
  return Task(_JOBS[job] if 0 <= job < len(_JOBS) else f"job {job}", index, bool(chief))


def first_difference(rows):
  """(the Task, the Field) of the first field, in FIELDS' order, in which a worker's row
  differs from the chief's, the lowest task first; None when every row agrees. A row of
  another layout differs in its version."""
  rows = [tuple(int(word) for word in row) for row in rows]
  chief = next((row for row in rows if row[3]), None)
  if chief is None:  # Rows of another layout, where no word says which is the chief.
    return _task_of(rows[0][1:4]), FIELDS[0]
  others = sorted(((_task_of(row[1:4]), row) for row in rows if not row[3]),
                  key=lambda pair: (pair[0].job, pair[0].index))
  for task, row in others:
    if row[0] != LAYOUT or chief[0] != LAYOUT:
      return task, FIELDS[0]
  for position, field in enumerate(FIELDS):
    words = slice(4 + 2 * position, 6 + 2 * position)
    for task, row in others:
      if row[words] != chief[words]:
        return task, field
  return None


def of_one_layout(rows):
  """Whether every row is of this layout (then their texts can be exchanged too)."""
  return all(int(row[0]) == LAYOUT for row in rows)


def text_row(task, text):
  """The TEXT_ROW_WORDS int64s of `task` and `text` (its first TEXT_BYTES bytes)."""
  data = text.encode("utf-8")[:TEXT_BYTES]
  row = np.zeros(TEXT_ROW_WORDS, np.int64)
  row[:4] = (*_task_words(task), len(data))
  row[4:] = np.frombuffer(data.ljust(TEXT_BYTES, b"\0"), "<i8")
  return row


def read_text_rows(rows):
  """{Task: text} of rows made by `text_row`."""
  texts = {}
  for row in np.asarray(rows, np.int64):
    length = int(row[3])
    texts[_task_of(row[:3])] = row[4:].astype("<i8").tobytes()[:length].decode(
        "utf-8", errors="replace")
  return texts


def difference_error(task, field, worker_text=None, chief_text=None):
  """The one-line UserError: which worker differs from the chief, in what, how, what to do.
  Texts that do not say how (cut short, or not exchanged) leave out the how."""
  detail = ""
  if worker_text is not None and chief_text is not None:
    try:
      detail = field.describe(worker_text, chief_text)
    except (ValueError, AttributeError):  # A JSON text cut at TEXT_BYTES.
      detail = ""
  how = f" ({detail})" if detail else ""
  return UserError(f"{task}'s {field.label} {field.verb} from the chief's{how}: {field.remedy}")
