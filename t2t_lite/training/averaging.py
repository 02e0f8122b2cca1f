"""Checkpoint averaging (paper section 6.1: the last 5 checkpoints for base, 20 for big)."""

import itertools
import json
import os

from absl import logging
import numpy as np
import tensorflow as tf

from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import replacing_directory
from t2t_lite.output_paths import check_output_directory
from t2t_lite.run import Run
from t2t_lite.run.checkpoints import checkpoint_paths, readable_checkpoints
from t2t_lite.run.description import save_as_run
from t2t_lite.run.layout import AVERAGE_MARKER, check_run_directory_name, checkpoint_step


def average_checkpoints(model_dir, output_dir, n):
  """Writes the mean of the model weights of model_dir's last n checkpoints to output_dir.

  output_dir gets a checkpoint named after the newest averaged step and a copy of
  the run description, so t2t-decoder and t2t-exporter can use it as a run
  directory. It must be new, empty, or an earlier average (holding AVERAGE_MARKER),
  which is replaced once the new one is complete. A checkpoint that does not
  read is named in a warning and the next older one is averaged instead.
  Returns the written checkpoint's path.
  """
  if n < 1:
    raise UserError(f"--n={n}: average at least one checkpoint")
  if os.path.realpath(model_dir) == os.path.realpath(output_dir):
    raise UserError(f"--output_dir={output_dir} is --model_dir={model_dir}: averaging must not "
                    f"mix its result with the checkpoints it reads; pass a new directory")
  if not checkpoint_paths(model_dir):
    raise UserError(f"--model_dir={model_dir} has no checkpoints; pass a t2t-trainer "
                    f"--output_dir")
  check_run_directory_name(output_dir)
  check_output_directory(output_dir, "--output_dir", "t2t-avg-all", AVERAGE_MARKER)
  output_dir = os.path.abspath(output_dir)
  marker = json.dumps({"model_dir": os.path.abspath(model_dir), "n": n})
  with replacing_directory(output_dir, AVERAGE_MARKER, marker,
                           f"--output_dir={output_dir}") as staging:
    model = Run.read(model_dir).build_model()
    checkpoint = tf.train.Checkpoint(model=model)
    paths, sums = [], None
    for path, status in itertools.islice(readable_checkpoints(checkpoint, model_dir), n):
      status.assert_existing_objects_matched()
      values = [np.asarray(v, dtype=np.float64) for v in model.weights]
      sums = values if sums is None else [s + v for s, v in zip(sums, values)]
      paths.insert(0, path)
    if not paths:
      raise UserError(f"no checkpoint of {model_dir} can be read (see the warnings above)")
    if len(paths) < n:
      logging.warning("only %d readable checkpoint(s) in %s; averaging those", len(paths),
                      model_dir)
    for variable, total in zip(model.weights, sums):
      variable.assign((total / len(paths)).astype(variable.dtype))
    name = save_as_run(model, model_dir, staging, checkpoint_step(paths[-1]))
  written = os.path.join(output_dir, name)
  print(f"averaged {len(paths)} checkpoint(s) ({', '.join(os.path.basename(p) for p in paths)})"
        f" into {written}", flush=True)
  return written
