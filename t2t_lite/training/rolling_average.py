"""t2t-avg-all on a run still training: the newest N checkpoints averaged as they appear.

    average_as_they_appear(model_dir, output_dir, CheckpointChoice(n=20, min_steps=100000),
                           wait_minutes=15)

Checkpoints the choice leaves out (before `min_steps`, or before the run's last `window`
of steps: `checkpoint_choice`) are ignored. Each time a newer checkpoint is listed in
model_dir, output_dir is replaced by the average of the newest n the choice allows (see
`averaging.average_checkpoints`), as tensor2tensor's t2t-avg-all does with --min_steps
and --wait_minutes; the command stops once no new checkpoint appeared for
`wait_minutes`. While fewer than n are there, it waits for more; when the wait ends (or
at once, with wait_minutes=0) it averages those there are, with a line saying so.
"""

from t2t_lite.cli.command_line import check_declared
from t2t_lite.files.step_files import as_they_appear
from t2t_lite.run.checkpoints import checkpoint_paths
from t2t_lite.run.run_layout import checkpoint_step
from t2t_lite.training.average_settings import AVERAGING, DEFAULT_DEV_SENTENCES
from t2t_lite.training.averaging import average_checkpoints


def average_as_they_appear(model_dir, output_dir, choice, wait_minutes=0,
                           dev_sentences=DEFAULT_DEV_SENTENCES):
  """Keeps output_dir the average of the checkpoints of model_dir that `choice` (a
  `CheckpointChoice`) picks, until none appeared for wait_minutes (the module doc).
  Returns the last written path."""
  for name, value in (("wait_minutes", wait_minutes), ("dev_sentences", dev_sentences)):
    check_declared(AVERAGING, name, value)  # Before any wait for a checkpoint.
  written = None
  for step, _ in as_they_appear(lambda: _listed(model_dir), wait_minutes, choice.min_steps):
    listed = checkpoint_paths(model_dir)
    newest = max(map(checkpoint_step, listed), default=step)
    if step < newest or (len(choice.candidates(listed)) < choice.n and wait_minutes):
      continue  # A newer checkpoint is there already, or more are coming.
    written = average_checkpoints(model_dir, output_dir, choice, dev_sentences)
  if written is None:
    written = average_checkpoints(model_dir, output_dir, choice, dev_sentences)
  return written


def _listed(model_dir):
  """[(step, path)] of the checkpoints model_dir's state file lists."""
  return [(checkpoint_step(path), path) for path in checkpoint_paths(model_dir)]
