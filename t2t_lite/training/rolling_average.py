"""t2t-avg-all on a run still training: the newest N checkpoints averaged as they appear.

    average_as_they_appear(model_dir, output_dir, n=20, min_steps=100000, wait_minutes=15)

Checkpoints before `min_steps` are ignored. Each time a newer checkpoint is
listed in model_dir, output_dir is replaced by the average of the newest n
(see `averaging.average_checkpoints`), as tensor2tensor's t2t-avg-all does
with --min_steps and --wait_minutes; the command stops once no new checkpoint
appeared for `wait_minutes`. While fewer than n checkpoints are there, it
waits for more; when the wait ends (or at once, with wait_minutes=0) it
averages those there are, with a warning.
"""

from absl import logging

from t2t_lite.errors import UserError
from t2t_lite.files.step_files import as_they_appear
from t2t_lite.run.checkpoints import checkpoint_paths
from t2t_lite.run.layout import checkpoint_step
from t2t_lite.training.averaging import average_checkpoints


def average_as_they_appear(model_dir, output_dir, n, min_steps=0, wait_minutes=0):
  """Keeps output_dir the average of model_dir's newest n checkpoints from min_steps on,
  until none appeared for wait_minutes (the module doc). Returns the last written path."""
  if min_steps < 0 or wait_minutes < 0:
    raise UserError(f"--min_steps={min_steps} and --wait_minutes={wait_minutes} must be >= 0")
  written = None
  for step, _ in as_they_appear(lambda: _listed(model_dir), wait_minutes, min_steps):
    steps = [s for s, _ in _listed(model_dir) if s >= min_steps]
    if step < max(steps, default=step) or (len(steps) < n and wait_minutes):
      continue  # A newer checkpoint is there already, or more are coming.
    written = _average_newest(model_dir, output_dir, n, steps, min_steps)
  if written is None:
    steps = [s for s, _ in _listed(model_dir) if s >= min_steps]
    written = _average_newest(model_dir, output_dir, n, steps, min_steps)
  return written


def _listed(model_dir):
  """[(step, path)] of the checkpoints model_dir's state file lists."""
  return [(checkpoint_step(path), path) for path in checkpoint_paths(model_dir)]


def _average_newest(model_dir, output_dir, n, steps, min_steps):
  """The average of the newest n checkpoints (of fewer, with a warning, if only `steps`
  are from min_steps on)."""
  if not min_steps:
    return average_checkpoints(model_dir, output_dir, n)
  if not steps:
    raise UserError(f"--model_dir={model_dir} has no checkpoint from step {min_steps} on; "
                    f"lower --min_steps or wait longer (--wait_minutes)")
  if len(steps) < n:
    logging.warning("only %d checkpoint(s) from step %d on in %s; averaging those",
                    len(steps), min_steps, model_dir)
  return average_checkpoints(model_dir, output_dir, min(n, len(steps)))
