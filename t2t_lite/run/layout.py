"""A run directory's layout: every name t2t_lite gives a file or folder in it.

    RUN/hparams.json           HPARAMS_FILE: the HParams the model was built with
    RUN/hparams_history.json   HISTORY_FILE: earlier hparams.json of a run resumed with changes
    RUN/run.json               RUN_FILE: problem, model, vocabulary sizes and files, flags used
    RUN/vocab.*.model          copies of the problem's vocabulary (named in run.json)
    RUN/ckpt-N.index, .data-*  a checkpoint (`checkpoint_prefix`), trusted once listed in
    RUN/checkpoint             STATE_FILE: TensorFlow's list of the directory's checkpoints
    RUN/train/, RUN/eval/      TRAIN_SUMMARIES, EVAL_SUMMARIES: TensorBoard summaries
    RUN/curves.png             CURVES_FILE: their picture, redrawn at every evaluation
    RUN/best/                  BEST_DIR: the best checkpoint, a run directory of its own
    RUN/export/                EXPORT_DIR: t2t-exporter's SavedModel by default

Reading and writing them: `t2t_lite.run.description` (the describing files) and
`t2t_lite.run.checkpoints` (the checkpoints). In code the run directory is `output_dir`
(t2t-trainer's flag; `Run.output_dir`); t2t-avg-all's `--model_dir` names the run it reads.
"""

import os
import re

HPARAMS_FILE = "hparams.json"
HISTORY_FILE = "hparams_history.json"
RUN_FILE = "run.json"
STATE_FILE = "checkpoint"
TRAIN_SUMMARIES = "train"
EVAL_SUMMARIES = "eval"
CURVES_FILE = "curves.png"
BEST_DIR = "best"
EXPORT_DIR = "export"

# A checkpoint's index or data file: ckpt-N.index, ckpt-N.data-00000-of-00001.
CHECKPOINT_FILE = re.compile(r"ckpt-(\d+)\.(index|data-\d+-of-\d+)")


def checkpoint_name(step):
  """Checkpoint `step`'s name: ckpt-N."""
  return f"ckpt-{step}"


def checkpoint_prefix(output_dir, step):
  """The path TensorFlow writes checkpoint `step`'s files under: RUN/ckpt-N."""
  return os.path.join(output_dir, checkpoint_name(step))


def checkpoint_step(path):
  """The step in a checkpoint's name (ckpt-N)."""
  return int(path.rsplit("-", 1)[1])
