"""Checkpoint averaging (paper section 6.1: the last 5 checkpoints for base, 20 for big)."""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from t2t_lite.errors import UserError
from t2t_lite.training import run_dir
from t2t_lite.training.checkpoints import checkpoint_paths


def average_checkpoints(model_dir, output_dir, n):
  """Writes the mean of the model weights of model_dir's last n checkpoints to output_dir.

  output_dir gets a checkpoint named after the newest averaged step and a copy of
  the run description, so t2t-decoder and t2t-exporter can use it as a run
  directory. Returns the written checkpoint's path.
  """
  if n < 1:
    raise UserError(f"--n={n}: average at least one checkpoint")
  if os.path.abspath(model_dir) == os.path.abspath(output_dir):
    raise UserError("--output_dir must differ from --model_dir: averaging must not mix its "
                    "result with the checkpoints it reads")
  paths = checkpoint_paths(model_dir)
  if not paths:
    raise UserError(f"--model_dir={model_dir} has no checkpoints; pass a t2t-trainer "
                    f"--output_dir")
  paths = paths[-n:]
  if len(paths) < n:
    logging.warning("only %d checkpoint(s) in %s; averaging those", len(paths), model_dir)
  model, _, _ = run_dir.build_model(model_dir)
  checkpoint = tf.train.Checkpoint(model=model)
  sums = None
  for path in paths:
    checkpoint.restore(path).expect_partial().assert_existing_objects_matched()
    values = [np.asarray(v, dtype=np.float64) for v in model.weights]
    sums = values if sums is None else [s + v for s, v in zip(sums, values)]
  for variable, total in zip(model.weights, sums):
    variable.assign((total / len(paths)).astype(variable.dtype))
  run_dir.copy_description(model_dir, output_dir)
  step = int(paths[-1].rsplit("-", 1)[1])
  manager = tf.train.CheckpointManager(checkpoint, output_dir, max_to_keep=1,
                                       checkpoint_name="ckpt")
  written = manager.save(checkpoint_number=step)
  print(f"averaged {len(paths)} checkpoint(s) ({', '.join(os.path.basename(p) for p in paths)})"
        f" into {written}", flush=True)
  return written
