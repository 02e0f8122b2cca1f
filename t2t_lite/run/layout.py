"""A run directory's layout: every name t2t_lite gives a file or folder in it.

    RUN/hparams.json           HPARAMS_FILE: the HParams the model was built with
    RUN/hparams_history.json   HISTORY_FILE: earlier hparams.json of a run resumed with changes
    RUN/run.json               RUN_FILE: problem, model, vocabulary sizes and files, flags used
    RUN/vocab.*.model          copies of the problem's vocabulary (named in run.json)
    RUN/ckpt-N.index, .data-*  a checkpoint (`checkpoint_prefix`), trusted once listed in
    RUN/checkpoint             STATE_FILE: TensorFlow's list of the directory's checkpoints
    RUN/train/, RUN/eval/      TRAIN_SUMMARIES, EVAL_SUMMARIES: TensorBoard summaries
    RUN/curves.png             CURVES_FILE: their picture, redrawn at every evaluation
    RUN/best/                  BEST_DIR (`best_dir`): the best checkpoint, a run directory
                               of its own
    RUN/best/best.json         BEST_RECORD: which evaluation it holds
    RUN/export/                EXPORT_DIR: t2t-exporter's SavedModel by default
    RUN/ctranslate2[_Q]/       `ctranslate2_dir`: its CTranslate2 model by default
    RUN/.worker_N[_best]/      `worker_scratch`: where worker N of several (not the chief)
                               writes the checkpoint it must take part in, then deletes it
    RUN/.t2t_writer.lock       the lock of the one process writing the run
                               (`t2t_lite.writer_lock`, which also locks a --data_dir)

Directories a command writes whole are marked by a file of their own: EXPORT_MARKER
(t2t-exporter's SavedModel or CTranslate2 model), AVERAGE_MARKER (t2t-avg-all's run).

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
BEST_RECORD = "best.json"  # Also the marker by which replacing_directory knows best/ as ours.
EXPORT_DIR = "export"
EXPORT_MARKER = "t2t_lite_export.json"
AVERAGE_MARKER = "t2t_lite_average.json"

# A checkpoint's index or data file: ckpt-N.index, ckpt-N.data-00000-of-00001.
CHECKPOINT_FILE = re.compile(r"ckpt-(\d+)\.(index|data-\d+-of-\d+)")


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
