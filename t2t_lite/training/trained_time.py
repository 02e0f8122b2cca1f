"""The wall-clock seconds a run has trained, kept in every checkpoint, so that --train_minutes
is the run's total across restarts.

    trained = TrainedTime()
    checkpoint = tf.train.Checkpoint(model=..., **trained.trackables())
    ... restore ...; trained.seconds()       # 0.0 from a checkpoint that predates it
    trained.record(seconds); ... save ...    # before each save

A tf.Variable in the checkpoint is written with the weights, in the same files: a run
killed at any moment resumes with the time of the step it resumes from.
"""

import tensorflow as tf

TRAINED_SECONDS = "trained_seconds"  # Its name in a checkpoint.


class TrainedTime:
  """The run's training time (its loops' wall clock, evaluations included), in seconds."""

  def __init__(self):
    self._saved = tf.Variable(0.0, dtype=tf.float64, trainable=False, name=TRAINED_SECONDS)

  def trackables(self):
    """What a checkpoint saves of it: {name: trackable}."""
    return {TRAINED_SECONDS: self._saved}

  def seconds(self):
    """As restored (or last recorded); 0 for a new run, or one whose checkpoints predate
    it (a restore leaves a variable the checkpoint lacks as it was)."""
    return float(self._saved.numpy())

  def record(self, seconds):
    self._saved.assign(seconds)
