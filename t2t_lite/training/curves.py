"""A run's training curves as one picture, `RUN/curves.png`: no TensorBoard needed.

Four panels against the step: training loss (per step, and its 50-step mean)
with the dev loss, the dev decoding metric (BLEU, or F1 for parsing), the
learning rate, and training tokens per second. `Curves` reads the run's own
summaries (`train/` and `eval/` event files) once, so the picture of a resumed
run shows its whole history, then keeps what training adds in memory; any run
can also be drawn afterwards:

    from t2t_lite.run import Run
    from t2t_lite.training.curves import Curves
    Curves.for_run(Run.read("runs/multi30k")).draw()   # -> runs/multi30k/curves.png
"""

import collections
import glob
import os

import numpy as np

from t2t_lite.files.atomic_files import atomic_write_path
from t2t_lite.run.run_layout import EVAL_SUMMARIES, TRAIN_SUMMARIES

MEAN_WINDOW = 50          # Steps in the training loss's running mean.
# The dev decoding metrics a problem reports (`DevDecoding.evaluate`) -> their names.
DECODING_METRICS = {"bleu": "BLEU", "bracket_f1": "bracket F1"}


def read_scalar_events(event_dir):
  """Yields (step, wall time, tag, value) of every scalar summary under `event_dir`, in file
  and write order: tf.summary.scalar's tensor values and single-event simple values alike."""
  import tensorflow as tf
  for path in sorted(glob.glob(os.path.join(event_dir, "events.out.tfevents.*"))):
    try:
      for record in tf.data.TFRecordDataset(path):
        event = tf.compat.v1.Event.FromString(record.numpy())
        for value in event.summary.value:
          number = (float(tf.make_ndarray(value.tensor)) if value.HasField("tensor")
                    else float(value.simple_value))
          yield int(event.step), event.wall_time, value.tag, number
    except tf.errors.DataLossError:  # The last record of a file being written.
      continue


def read_scalars(event_dir):
  """{tag: ([steps], [values])} of the scalar summaries under `event_dir`, by step; a step
  written twice (a run resumed from an earlier checkpoint) keeps its last value, the one of
  the later wall time (the files' names do not sort by time: their counter, "...9.v2" and
  "...10.v2", sorts as text)."""
  series = collections.defaultdict(dict)  # {tag: {step: (wall time, value)}}
  for step, wall_time, tag, value in read_scalar_events(event_dir):
    if wall_time >= series[tag].get(step, (wall_time, None))[0]:
      series[tag][step] = (wall_time, value)
  return {tag: (sorted(by_step), [by_step[s][1] for s in sorted(by_step)])
          for tag, by_step in series.items()}


def running_mean(values, window):
  """The mean of each value with up to `window - 1` values before it."""
  values = np.asarray(values, np.float64)
  sums = np.cumsum(np.concatenate([[0.0], values]))
  ends = np.arange(1, len(values) + 1)
  starts = np.maximum(ends - window, 0)
  return (sums[ends] - sums[starts]) / (ends - starts)


class Curves:
  """A run's scalars by split ("train", "eval"), tag and step: read from its summaries
  once, then extended by `add` as training writes new ones.

  path: the picture `draw` writes; summary_dirs: {split: the folder of its summaries};
  title: the picture's.
  """

  def __init__(self, path, summary_dirs, title):
    self.path, self.title = path, title
    self.series = {split: {tag: dict(zip(steps, values)) for tag, (steps, values) in
                           read_scalars(summary_dirs[split]).items()}
                   for split in (TRAIN_SUMMARIES, EVAL_SUMMARIES)}

  @classmethod
  def for_run(cls, run):
    """The curves of `run` (a `t2t_lite.run.Run`), drawn into RUN/curves.png under the
    title "<run directory's name>: <problem>, <hparams set>"."""
    flags = run.description.flags
    names = [flags[k] for k in ("problem", "hparams_set") if flags.get(k)]
    title = os.path.basename(run.location) + (f": {', '.join(names)}" if names else "")
    return cls(run.curves_path, {split: run.summary_dir(split)
                                 for split in (TRAIN_SUMMARIES, EVAL_SUMMARIES)}, title)

  def add(self, split, step, values):
    """values: {tag: number} of `split` at `step`."""
    for tag, value in values.items():
      self.series[split].setdefault(tag, {})[int(step)] = float(value)

  def draw(self):
    """Draws the picture at `path` (written atomically); returns its path, or None when
    there is nothing to draw yet."""
    train, dev = ({tag: (sorted(by_step), [by_step[s] for s in sorted(by_step)])
                   for tag, by_step in self.series[split].items()}
                  for split in (TRAIN_SUMMARIES, EVAL_SUMMARIES))
    if not train and not dev:
      return None
    figure = _figure(train, dev, self.title)
    with atomic_write_path(self.path) as partial:
      figure.savefig(partial, format="png", dpi=100)
    return self.path


def _figure(train, dev, title):
  """The four panels; train and dev: {tag: ([steps], [values])}."""
  from matplotlib.figure import Figure
  figure = Figure(figsize=(11, 7), layout="constrained")
  loss, metric, rate, speed = figure.subplots(2, 2).flat
  if "loss" in train:
    steps, values = train["loss"]
    loss.plot(steps, values, color="#9ecae1", linewidth=0.6, label="train (step)")
    loss.plot(steps, running_mean(values, MEAN_WINDOW), color="#08519c",
              label=f"train ({MEAN_WINDOW}-step mean)")
  if "loss" in dev:
    loss.plot(*dev["loss"], "o-", color="#d94801", label="dev")
  _panel(loss, "loss (label-smoothed cross-entropy per token)", legend=True)

  name = next((m for m in DECODING_METRICS if m in dev), None)
  if name:
    metric.plot(*dev[name], "o-", color="#238b45")
    for step, value in zip(*dev[name]):
      metric.annotate(f"{value:.1f}", (step, value), textcoords="offset points",
                      xytext=(0, 5), ha="center", fontsize=7)
  _panel(metric, f"dev {DECODING_METRICS[name]} of the decoded sentences" if name
         else "dev decoding: none")

  for panel, tag, label, colour in ((rate, "learning_rate", "learning rate", "#6a51a3"),
                                    (speed, "tokens_per_second",
                                     "training target tokens/s (mean since the start)",
                                     "#525252")):
    if tag in train:
      panel.plot(*train[tag], color=colour)
    _panel(panel, label)
  figure.suptitle(title)
  return figure


def _panel(axis, title, legend=False):
  axis.set_title(title, fontsize=10)
  axis.set_xlabel("step")
  axis.grid(alpha=0.3)
  if legend and axis.get_legend_handles_labels()[0]:
    axis.legend(fontsize=8)
