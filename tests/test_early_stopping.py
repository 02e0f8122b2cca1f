"""Early stopping and RUN/best: the rule, the metric flags, and tiny runs whose evaluation
loss is scripted, so that which evaluation is best and where training stops are known."""

import json
import os

import numpy as np
import pytest

from commands import call, error_line, one_line_error
from helpers import listed_steps
from tiny_runs import TINY_HPARAMS, copy_run, tiny_run
from t2t_lite.training.config import TrainConfig
from t2t_lite.training.early_stopping import Patience, choose_metric


def stop_step(evaluations, steps, delta, minimize):
  """The step at which `Patience` stops a run whose evaluations give these (step, value)
  pairs, in order; None when it would not stop."""
  rule = Patience(steps, delta, minimize)
  for step, value in evaluations:
    rule.observe(step, value)
    if rule.stop_reason(step, "metric"):
      return step
  return None


@pytest.mark.parametrize("evaluations, steps, delta, minimize, expected", [
    # No gain above delta for 200 steps after step 100's.
    ([(0, 1.0), (100, 2.0), (200, 2.05), (300, 2.05)], 200, 0.1, False, 300),
    # Gains below delta add up: step 200 is 0.16 above step 0, so the count starts anew there.
    ([(0, 10.0), (100, 10.08), (200, 10.16), (300, 10.2), (400, 10.24)], 200, 0.1, False, 400),
    # A loss that keeps falling by more than delta never stops.
    ([(0, 5.0), (100, 4.0), (200, 3.0), (300, 2.0)], 100, 0.5, True, None),
    # An improvement of exactly delta does not count.
    ([(0, 4.0), (100, 3.5), (200, 3.5)], 200, 0.5, True, 200),
    ([(0, 4.0), (100, 3.5), (200, 3.5)], 200, 0.25, True, None),
    # Patience that is no multiple of the evaluation interval: the first evaluation past it.
    ([(0, 1.0), (100, 1.0), (200, 1.0)], 150, 0.0, False, 200),
    # Off.
    ([(0, 1.0), (100, 1.0), (200, 1.0)], None, 0.0, False, None),
])
def test_the_stopping_rule(evaluations, steps, delta, minimize, expected):
  assert stop_step(evaluations, steps, delta, minimize) == expected


def config(**flags):
  return TrainConfig(output_dir="RUN", **flags)


@pytest.mark.parametrize("flags, decoded, expected", [
    ({}, "bleu", ("bleu", False)),             # The decoded metric when evaluations decode,
    ({}, None, ("loss", True)),                # else the loss.
    ({}, "bracket_f1", ("bracket_f1", False)),  # A problem's own metric (parsing's).
    ({"eval_early_stopping_metric": "accuracy"}, None, ("accuracy", False)),
    ({"eval_early_stopping_metric": "perplexity"}, "bleu", ("perplexity", True)),
    ({"eval_early_stopping_metric": "approx_bleu_score"}, "bleu", ("bleu", False)),
    ({"eval_early_stopping_metric": "metrics-translate_ende_wmt32k/targets/accuracy"}, "bleu",
     ("accuracy", False)),
    ({"eval_early_stopping_metric": "bracket_f1"}, "bracket_f1", ("bracket_f1", False)),
    ({"eval_early_stopping_metric": "loss", "eval_early_stopping_metric_minimize": False}, None,
     ("loss", False)),
])
def test_the_metric_and_its_direction(flags, decoded, expected):
  assert choose_metric(config(**flags), decoded) == expected


@pytest.mark.parametrize("flags, decoded, words", [
    ({"eval_early_stopping_metric": "blue"}, "bleu", "not one of loss, accuracy, perplexity, bleu"),
    ({"eval_early_stopping_metric": "bleu"}, None, "--eval_decode_sentences > 0"),
    ({"eval_early_stopping_metric": "bleu"}, "bracket_f1",
     "not one of loss, accuracy, perplexity, bracket_f1"),
])
def test_a_metric_the_evaluations_do_not_report_is_one_line(flags, decoded, words):
  assert words in one_line_error(lambda: choose_metric(config(**flags), decoded))


@pytest.mark.parametrize("flags, words", [
    ({"eval_early_stopping_steps": 0}, "--eval_early_stopping_steps=0: it must be at least 1"),
    ({"eval_early_stopping_metric_delta": -0.5},
     "--eval_early_stopping_metric_delta=-0.5: it must be at least 0"),
    ({"eval_early_stopping_metric_delta": float("nan")},
     "--eval_early_stopping_metric_delta=nan: it must be at least 0"),
])
def test_bad_numbers_are_one_line(flags, words):
  assert words in one_line_error(lambda: config(**flags))


def test_best_json_is_read_also_after_a_kill_in_the_middle_of_its_swap(tmp_path):
  from t2t_lite.training.best_checkpoint import read_record
  assert read_record(str(tmp_path / "best")) is None
  for name, step in (("best.old", 10), ("best.incomplete", 20)):  # No best/ between renames.
    (tmp_path / name).mkdir()
    (tmp_path / name / "best.json").write_text(json.dumps({"step": step}), encoding="utf-8")
  assert read_record(str(tmp_path / "best")) == {"step": 20}  # The new one, which the swap completes.


def test_a_best_directory_of_other_files_is_one_line(tmp_path):
  from t2t_lite.training.best_checkpoint import read_record
  (tmp_path / "best").mkdir()
  (tmp_path / "best" / "notes.txt").write_text("mine", encoding="utf-8")
  assert "holds no best.json" in one_line_error(lambda: read_record(str(tmp_path / "best")))


def trainer(data_dir, output_dir, *flags):
  """t2t-trainer in this process on the tiny data: evaluations every 2 steps (no decoding),
  a checkpoint every 2 steps."""
  return call("t2t-trainer", "--problem=translate_from_files", f"--data_dir={data_dir}",
              f"--output_dir={output_dir}", "--hparams_set=transformer_test_small",
              f"--hparams={TINY_HPARAMS}", "--random_seed=1", "--eval_decode_sentences=0",
              "--local_eval_frequency=2", "--save_checkpoints_steps=2",
              "--save_checkpoints_secs=0", *flags)


@pytest.mark.parametrize("flags, words", [
    (["--eval_early_stopping_metric=bleu"], "a decoded metric (bleu) needs dev decoding"),
    (["--eval_early_stopping_steps=10", "--schedule=train"],
     "--eval_early_stopping_steps needs evaluations during training"),
])
def test_the_trainer_refuses_them_in_one_line(tmp_path_factory, tmp_path, flags, words):
  data_dir, _ = tiny_run(tmp_path_factory)
  result = trainer(data_dir, tmp_path / "run", "--train_steps=5", *flags)
  assert result.returncode == 2, result.stderr[-2000:]
  assert error_line(result.stderr).startswith("t2t-trainer: error: ")
  assert words in error_line(result.stderr)


class ScriptedLoss:
  """Evaluator.evaluate with its loss replaced by the next of `losses`; keeps the model's
  weights at each evaluation."""

  def __init__(self, losses):
    from t2t_lite.training.evaluation import Evaluator
    self.losses, self.weights, self.real = iter(losses), [], Evaluator.evaluate

  def __call__(self, evaluator):
    results = self.real(evaluator)
    results["loss"] = next(self.losses)
    self.weights.append([w.numpy().copy() for w in evaluator.model.weights])
    return results


def scripted_training(monkeypatch, data_dir, output_dir, losses, *flags):
  """(t2t-trainer's output, stdout and stderr, ScriptedLoss) of a run whose evaluations
  report `losses`."""
  from t2t_lite.training.evaluation import Evaluator
  script = ScriptedLoss(losses)
  monkeypatch.setattr(Evaluator, "evaluate", lambda evaluator: script(evaluator))
  result = trainer(data_dir, output_dir, *flags)
  output = result.stdout + result.stderr
  assert result.returncode == 0, output[-3000:]
  return output, script


def best_record(output_dir):
  with open(os.path.join(output_dir, "best", "best.json"), encoding="utf-8") as f:
    return json.load(f)


# Evaluations at steps 0, 2, 4, 6, 8: the best is step 4's, and with a patience of 4
# steps and delta 0.1 nothing after it counts, so training stops at step 8 of 16.
LOSSES = [5.0, 4.0, 3.0, 3.5, 3.2]
STOPPING = ("--train_steps=16", "--keep_checkpoint_max=1", "--eval_early_stopping_steps=4",
            "--eval_early_stopping_metric=loss", "--eval_early_stopping_metric_delta=0.1")


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
  """(data_dir, output_dir, t2t-trainer's output, weights at each evaluation) of a run that
  stopped early with best/ at step 4."""
  data_dir, _ = tiny_run(tmp_path_factory)
  output_dir = tmp_path_factory.mktemp("early_stopping") / "run"
  with pytest.MonkeyPatch.context() as monkeypatch:
    output, script = scripted_training(monkeypatch, data_dir, output_dir, LOSSES, *STOPPING)
  return data_dir, str(output_dir), output, script.weights


@pytest.mark.slow
def test_training_stops_early_with_a_line_saying_why(stopped_run):
  _, output_dir, output, weights = stopped_run
  assert len(weights) == len(LOSSES)  # No evaluation after the stop.
  assert ("early stopping at step 8: loss has not improved by more than 0.1 since step 4 "
          "(then 3), 4 >= --eval_early_stopping_steps=4 steps") in output
  assert listed_steps(output_dir) == [8]  # The last checkpoint, saved at the stop.


@pytest.mark.slow
def test_best_is_a_run_directory_holding_the_best_step_that_pruning_leaves_alone(
    stopped_run, tmp_path):
  from t2t_lite.run import Run
  _, output_dir, output, weights = stopped_run
  assert "best checkpoint: step 4, loss 3 (before: 4 at step 2)" in output
  record = best_record(output_dir)
  assert (record["metric"], record["value"], record["step"], record["minimize"]) == (
      "loss", 3.0, 4, True)
  assert not os.path.exists(os.path.join(output_dir, "ckpt-4.index"))  # Pruned (keep 1),
  assert os.path.exists(os.path.join(output_dir, "best", "ckpt-4.index"))  # but not best/'s.
  best = Run.open(os.path.join(output_dir, "best"))
  at_4, at_8 = weights[2], weights[4]
  restored = [w.numpy() for w in best.model.weights]
  assert all(np.array_equal(r, w) for r, w in zip(restored, at_4))  # Bit for bit.
  assert not all(np.array_equal(r, w) for r, w in zip(restored, at_8))
  source = tmp_path / "in.txt"
  source.write_text("the number 3 is here\nthe number 12 is here\n", encoding="utf-8")
  decoded = call("t2t-decoder", f"--output_dir={output_dir}/best",
                 f"--decode_from_file={source}", f"--decode_to_file={tmp_path / 'out.txt'}",
                 "--decode_hparams=beam_size=1,extra_length=3")
  assert decoded.returncode == 0, decoded.stderr[-2000:]
  assert len((tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()) == 2


@pytest.mark.slow
def test_a_resumed_run_keeps_the_best_so_far(stopped_run, tmp_path, monkeypatch):
  data_dir, output_dir, _, _ = stopped_run
  run = copy_run(output_dir, tmp_path / "run")
  again = trainer(data_dir, run, *STOPPING)  # The same command: it has stopped.
  assert again.returncode == 0 and "; nothing to do" in again.stdout, again.stdout[-2000:]
  assert listed_steps(run) == [8]
  # With more patience it trains on. Step 10's 3.05 is worse than the stored best (step 4's
  # 3.0); step 12's 2.95 is better, but by less than delta: early stopping still counts
  # from step 4.
  output, _ = scripted_training(monkeypatch, data_dir, run, [3.05, 2.95], "--train_steps=12",
                                *STOPPING[1:2], "--eval_early_stopping_steps=100")
  assert "best checkpoint: step 10" not in output
  assert "best checkpoint: step 12, loss 2.95 (before: 3 at step 4)" in output
  record = best_record(run)
  assert (record["step"], record["value"], record["reference_step"]) == (12, 2.95, 4)
