"""A run directory's layout: every name t2t_lite gives a file or folder in it.

    RUN/hparams.json           HPARAMS_FILE: the HParams the model was built with
    RUN/hparams_history.json   HISTORY_FILE: earlier hparams.json of a run resumed with changes
    RUN/run.json               RUN_FILE: problem, model, vocabulary sizes and files, flags used
    RUN/vocab.*.model          copies of the problem's vocabulary (named in run.json)
    RUN/ckpt-N.index, .data-*  a checkpoint (`checkpoint_prefix`), trusted once listed in
    RUN/checkpoint             STATE_FILE: TensorFlow's list of the directory's checkpoints
    RUN/train/, RUN/eval/      TRAIN_SUMMARIES, EVAL_SUMMARIES: TensorBoard summaries
    RUN/decoding.json          DECODING_FILE: decoding settings chosen on dev for the
                               run's model (t2t-avg-all's length penalty), which
                               t2t-decoder and t2t-exporter take over the problem's
    RUN/curves.png             CURVES_FILE: their picture, redrawn at every evaluation
    RUN/best/                  BEST_DIR (`best_dir`): the best checkpoint, a run directory
                               of its own
    RUN/best/best.json         BEST_RECORD: which evaluation it holds
    RUN/export/                EXPORT_DIR: t2t-exporter's SavedModel by default
    RUN/ctranslate2[_Q]/       `ctranslate2_dir`: its CTranslate2 model by default
    RUN/.worker_N[_best]/      `worker_scratch`: where worker N of several (not the chief)
                               writes the checkpoint it must take part in, then deletes it
    RUN/.t2t_writer.lock       the lock of the one process writing the run
                               (`t2t_lite.files.writer_lock`, which also locks a --data_dir)

Directories a command writes whole are marked by a file of their own: EXPORT_MARKER
(t2t-exporter's SavedModel or CTranslate2 model), AVERAGE_MARKER (t2t-avg-all's run).

Reading and writing them: `t2t_lite.run.description` (the describing files) and
`t2t_lite.run.checkpoints` (the checkpoints). In code the run directory is `output_dir`
(t2t-trainer's flag; `Run.output_dir`); t2t-avg-all's `--model_dir` names the run it reads.
"""

import os
import re

from t2t_lite.errors import UserError
from t2t_lite.files.writer_lock import LOCK_NAME

HPARAMS_FILE = "hparams.json"
HISTORY_FILE = "hparams_history.json"
RUN_FILE = "run.json"
STATE_FILE = "checkpoint"
TRAIN_SUMMARIES = "train"
EVAL_SUMMARIES = "eval"
CURVES_FILE = "curves.png"
DECODING_FILE = "decoding.json"
BEST_DIR = "best"
BEST_RECORD = "best.json"  # Also the marker by which replacing_directory knows best/ as ours.
EXPORT_DIR = "export"
EXPORT_MARKER = "t2t_lite_export.json"
AVERAGE_MARKER = "t2t_lite_average.json"

# A checkpoint's index or data file: ckpt-N.index, ckpt-N.data-00000-of-00001.
CHECKPOINT_FILE = re.compile(r"ckpt-(\d+)\.(index|data-\d+-of-\d+)")
# A checkpoint's name, as the state file lists it: ckpt-N (N an int64).
CHECKPOINT_NAME = re.compile(r"ckpt-\d{1,19}")


def checkpoint_name(step):
  """Checkpoint `step`'s name: ckpt-N."""
  return f"ckpt-{step}"


def checkpoint_prefix(output_dir, step):
  """The path TensorFlow writes checkpoint `step`'s files under: RUN/ckpt-N."""
  return os.path.join(output_dir, checkpoint_name(step))


def best_dir(output_dir):
  """RUN/best: the run's best checkpoint so far, a run directory of its own."""
  return os.path.join(output_dir, BEST_DIR)


def ctranslate2_dir(output_dir, quantization=None):
  """RUN/ctranslate2, or RUN/ctranslate2_<quantization>: a CTranslate2 export's default."""
  return os.path.join(output_dir, "ctranslate2" + (f"_{quantization}" if quantization else ""))


def worker_scratch(output_dir, task_id, what=""):
  """RUN/.worker_<task_id>[_<what>]: a worker's private directory for a save."""
  return os.path.join(output_dir, f".worker_{task_id}" + (f"_{what}" if what else ""))


def checkpoint_step(path):
  """The step in a checkpoint's name (ckpt-N)."""
  return int(path.rsplit("-", 1)[1])


def check_run_directory_name(output_dir, flag="--output_dir"):
  """UserError when a new run directory's path holds a comma: t2t-decoder reads
  --output_dir=A,B (and --checkpoint_path) as an ensemble of the runs A and B, so it could
  never open that run."""
  if "," in output_dir:
    raise UserError(f"{flag}={output_dir}: a run directory's path cannot hold a comma, since "
                    f"t2t-decoder reads --output_dir=A,B as an ensemble of the runs A and B "
                    f"and could never open this one; choose a path without commas")


# The directories a command replaces whole (`atomic_files.replacing_directory`), by the
# marker file each holds: what one is, and when it is replaced.
REPLACED_WHOLE = {
    BEST_RECORD: ("a run's best checkpoint", "at the run's next better evaluation"),
    EXPORT_MARKER: ("an export", "by the next t2t-exporter into it"),
    AVERAGE_MARKER: ("an average of checkpoints", "by the next t2t-avg-all into it"),
}

# What each file or folder directly in a run directory is, and the command that writes it.
_RUN_ENTRIES = {
    HPARAMS_FILE: ("description (hparams.json)", "t2t-trainer"),
    HISTORY_FILE: ("hparams history", "t2t-trainer"),
    RUN_FILE: ("description (run.json)", "t2t-trainer"),
    STATE_FILE: ("checkpoint list", "t2t-trainer"),
    TRAIN_SUMMARIES: ("training summaries", "t2t-trainer"),
    EVAL_SUMMARIES: ("evaluation summaries", "t2t-trainer"),
    CURVES_FILE: ("curves", "t2t-trainer"),
    BEST_DIR: ("best checkpoint", "t2t-trainer"),
    EXPORT_DIR: ("SavedModel export", "t2t-exporter"),
    LOCK_NAME: ("writer lock", "t2t-trainer"),
    **{marker: (f"marker of {what}", "t2t-trainer") for marker, (what, _) in
       REPLACED_WHOLE.items()},
}
_RUN_PATTERNS = (
    (re.compile(r"ckpt-\d+(\.index|\.data-\d+-of-\d+|_temp)"), ("checkpoint", "t2t-trainer")),
    (re.compile(r"vocab\..+\.model"), ("vocabulary copy", "t2t-trainer")),
    (re.compile(r"ctranslate2(_\w+)?"), ("CTranslate2 export", "t2t-exporter")),
    (re.compile(r"\.worker_\d+(_\w+)?"), ("worker's scratch directory", "t2t-trainer")),
)


def run_entry(name):
  """(what the file or folder `name` directly in a run directory is, in words; the command
  that writes it), or None for a name that is not the run's own (a user's file)."""
  if name in _RUN_ENTRIES:
    return _RUN_ENTRIES[name]
  return next((entry for pattern, entry in _RUN_PATTERNS if pattern.fullmatch(name)), None)


def is_run_directory(path):
  """Whether `path` holds a run's description (hparams.json or run.json)."""
  return any(os.path.lexists(os.path.join(path, name)) for name in (HPARAMS_FILE, RUN_FILE))
