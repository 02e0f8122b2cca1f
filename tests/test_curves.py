"""A run's curves.png: read back from its summaries, drawn at every evaluation."""

import os

import numpy as np
import pytest
import tensorflow as tf

from t2t_lite.run import Run
from t2t_lite.training.curves import Curves, _figure, read_scalars, running_mean


def write_summaries(directory, tag, values_by_step):
  writer = tf.summary.create_file_writer(str(directory))
  with writer.as_default():
    for step, value in values_by_step:
      tf.summary.scalar(tag, value, step=step)
  writer.close()


def test_scalars_come_back_by_step_and_a_resumed_step_keeps_its_last_value(tmp_path):
  write_summaries(tmp_path / "train", "loss", [(1, 5.0), (2, 4.0), (3, 3.5)])
  # A resumed run (a new event file) writes step 3 again, then goes on.
  write_summaries(tmp_path / "train", "loss", [(3, 3.0), (4, 2.5)])
  steps, values = read_scalars(str(tmp_path / "train"))["loss"]
  assert steps == [1, 2, 3, 4]
  np.testing.assert_allclose(values, [5.0, 4.0, 3.0, 2.5])
  assert read_scalars(str(tmp_path / "absent")) == {}


def test_a_resumed_step_keeps_its_last_value_whatever_the_files_names(tmp_path):
  # The writers' counter ends the files' names and sorts as text: "...10.v2" before
  # "...9.v2", as in a process whose tenth writer follows its ninth in one second.
  train = tmp_path / "train"
  for counter, values in ((9, [(1, 5.0), (2, 4.0)]), (10, [(2, 3.0)])):
    write_summaries(tmp_path / "new", "loss", values)
    (written,) = os.listdir(tmp_path / "new")
    os.renames(tmp_path / "new" / written, train / f"events.out.tfevents.1.host.1.{counter}.v2")
  assert read_scalars(str(train))["loss"] == ([1, 2], [5.0, 3.0])


def test_running_mean_averages_up_to_the_window():
  np.testing.assert_allclose(running_mean([2.0, 4.0, 6.0, 8.0], 2), [2.0, 3.0, 5.0, 7.0])
  np.testing.assert_allclose(running_mean([1.0, 2.0, 3.0], 10), [1.0, 1.5, 2.0])


def test_the_picture_is_written_only_when_there_is_something_to_draw(tmp_path):
  path = str(tmp_path / "curves.png")
  summaries = {split: str(tmp_path / split) for split in ("train", "eval")}
  assert Curves(path, summaries, "run").draw() is None
  write_summaries(tmp_path / "train", "loss", [(s, 8.0 / s) for s in range(1, 60)])
  write_summaries(tmp_path / "train", "learning_rate", [(s, 1e-3) for s in range(1, 60)])
  write_summaries(tmp_path / "eval", "loss", [(0, 8.3), (50, 3.1)])
  write_summaries(tmp_path / "eval", "bleu", [(0, 0.0), (50, 12.5)])
  assert Curves(path, summaries, "run").draw() == path
  image = tf.io.decode_png(open(path, "rb").read())
  assert image.shape[0] > 400 and image.shape[1] > 600
  assert [name for name in os.listdir(tmp_path) if "curves" in name] == ["curves.png"]


@pytest.mark.parametrize("metric, name", [("bleu", "BLEU"), ("bracket_f1", "bracket F1")])
def test_the_metric_panel_shows_the_problems_decoding_metric(metric, name):
  """Translation reports BLEU, parsing bracket F1 (`decoding_metric`): either is drawn."""
  figure = _figure({}, {metric: ([0, 100], [9.6, 13.2])}, "run")
  panel = figure.axes[1]
  assert panel.get_title() == f"dev {name} of the decoded sentences"
  np.testing.assert_array_equal(panel.lines[0].get_ydata(), [9.6, 13.2])


def test_training_draws_the_curves_at_each_evaluation(trained_run):
  _, output_dir, _ = trained_run
  assert os.path.getsize(os.path.join(output_dir, "curves.png")) > 10_000
  # What it drew: every evaluation (every 20 steps of 60) and every training step.
  run = Run.read(output_dir)
  curves = Curves.for_run(run)
  assert curves.path == os.path.join(output_dir, "curves.png")
  flags = run.description.flags
  assert curves.title == (f"{os.path.basename(output_dir)}: {flags['problem']}, "
                          f"{flags['hparams_set']}")
  assert sorted(curves.series["eval"]["loss"]) == [0, 20, 40, 60]
  assert sorted(curves.series["eval"]["bleu"]) == [0, 20, 40, 60]
  assert sorted(curves.series["train"]["learning_rate"]) == list(range(1, 61))


def test_each_step_records_the_learning_rate_its_update_applied(trained_run):
  """The step reads the rate inside its own function; step s's update applied the
  schedule's rate at iteration s - 1 (the schedule counts from 1)."""
  from t2t_lite.training.optimization import learning_rate_schedule
  _, output_dir, _ = trained_run
  run = Run.read(output_dir)
  schedule = learning_rate_schedule(run.hparams, end_step=60)
  recorded = Curves.for_run(run).series["train"]["learning_rate"]
  # Summaries hold float32; the schedule's own arithmetic is float32 too.
  np.testing.assert_allclose([recorded[step] for step in range(1, 61)],
                             [float(schedule(step - 1)) for step in range(1, 61)], rtol=1e-6)
