"""RUN/best: the run's best checkpoint by its evaluation metric, a run directory of its own.

    RUN/best/best.json        which evaluation it holds: metric, value, step, checkpoint
    RUN/best/ckpt-N.*, checkpoint, hparams.json, run.json, vocab.*.model

t2t-decoder and t2t-exporter read it as `--output_dir=RUN/best`. It lives apart
from the rolling checkpoints, so `--keep_checkpoint_max` never prunes it, and it
holds the model's weights only (no optimizer state). A better evaluation
replaces it whole: the new directory is built beside it and swapped in
(`t2t_lite.files.atomic_files.replacing_directory`, as t2t-avg-all replaces its average).
"""

import json
import os

import tensorflow as tf

from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import OLD_SUFFIX, TEMP_SUFFIX, replacing_directory
from t2t_lite.files.json_files import read_object
from t2t_lite.files.writer_lock import LOCK_NAME
from t2t_lite.run.checkpoints import write_only_checkpoint
from t2t_lite.run.run_layout import BEST_DIR, BEST_RECORD
from t2t_lite.distribute.strategy import is_chief


def read_record(path):
  """The record in best.json of a run's best/ at `path` (`Run.best_dir`): {"metric",
  "minimize", "value", "step", ...}, or None when the run has no best/ yet; UserError when
  `path` holds something else.

  A process killed between replacing_directory's two renames leaves no best/ but
  best.old and the complete new one, best.incomplete: the record is the new one's
  (the next write completes that swap before it replaces the result).
  """
  staging, old = path + TEMP_SUFFIX, path + OLD_SUFFIX
  if not os.path.isfile(os.path.join(path, BEST_RECORD)) and os.path.isdir(old):
    path = staging if os.path.isdir(staging) else old
  record_path = os.path.join(path, BEST_RECORD)
  if os.path.isfile(record_path):
    return read_object(record_path, remedy=f"remove {path} (the next evaluation writes a new "
                       f"one) or restore it from a backup")
  if os.path.lexists(path) and (not os.path.isdir(path) or set(os.listdir(path)) - {LOCK_NAME}):
    raise UserError(f"{path} exists but holds no {BEST_RECORD}: the run keeps its best "
                    f"checkpoint there; move that away, then run again")
  return None


def keep(run, record):
  """Writes the weights of `run`'s model (a `t2t_lite.run.Run` in training) as its best/,
  replacing the earlier best, with `record` (a dict with "step") as best.json. Under
  MultiWorkerMirroredStrategy every worker calls this (a save takes part in collective
  ops); only the chief's copy is kept."""
  step = record["step"]
  if is_chief(run.strategy):
    path = run.best_dir
    with replacing_directory(path, BEST_RECORD, json.dumps(record, indent=2, sort_keys=True),
                             path) as staging:
      run.save_copy(staging, step)
  else:
    scratch = run.worker_scratch(BEST_DIR)
    write_only_checkpoint(scratch, step, model=run.model)
    tf.io.gfile.rmtree(scratch)
