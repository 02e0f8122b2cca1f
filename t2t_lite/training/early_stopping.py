"""The metric a run watches at its evaluations: best/ by it, and early stopping on it.

    watch = MetricWatch.for_run(config, run, dev_decoding, step)  # or None
    watch.observe(step, evaluation_results, message)   # at each evaluation
    watch.stop_reason                                  # a line once training should stop

tensor2tensor's flags with its meanings: --eval_early_stopping_metric (default
here: the decoded dev metric, BLEU or bracket F1, when evaluations decode, else
`loss`), --eval_early_stopping_metric_minimize (default: follows the metric),
--eval_early_stopping_metric_delta (0.1) and --eval_early_stopping_steps (off).

The rule (`Patience`): training stops at an evaluation when no evaluation of the
last `steps` steps improved by more than `delta` on the reference, the last
evaluation that did (the first evaluation to begin with). That is tensor2tensor's
train_and_evaluate rule (its ValidationMonitor: no better value for N steps) with
the delta of its plateau hook; improvements smaller than delta add up, as they do
against the hook's value of N steps ago. Every strictly better value replaces
best/ (`t2t_lite.training.best_checkpoint`), whose best.json also holds the
reference, so a resumed run goes on with both.
"""

import math

from absl import logging

from t2t_lite.cli import tensor2tensor_names
from t2t_lite.errors import UserError
from t2t_lite.files.json_files import check_field
from t2t_lite.run.run_layout import BEST_DIR, BEST_RECORD, checkpoint_name
from t2t_lite.training import best_checkpoint

# The teacher-forced metrics of every evaluation -> whether lower is better.
EVALUATION_METRICS = {"loss": True, "accuracy": False, "perplexity": True}


def is_better(value, than, minimize, by=0.0):
  """Whether `value` improves on `than` by more than `by`."""
  return than - value > by if minimize else value - than > by


class Patience:
  """The early-stopping rule (module doc): `steps` (None: never stop), `delta`, `minimize`;
  `reference` is (step, value) of the last evaluation that improved by more than delta."""

  def __init__(self, steps, delta, minimize, reference=None):
    self.steps, self.delta, self.minimize = steps, delta, minimize
    self.reference = reference

  def observe(self, step, value):
    if self.reference is None or is_better(value, self.reference[1], self.minimize, self.delta):
      self.reference = (step, value)

  def stop_reason(self, step, metric):
    """A line saying why training stops at `step`, or None while it goes on."""
    if not self.steps or self.reference is None or step - self.reference[0] < self.steps:
      return None
    since, value = self.reference
    return (f"early stopping at step {step}: {metric} has not improved by more than "
            f"{self.delta:g} since step {since} (then {value:.4g}), {step - since} >= "
            f"--eval_early_stopping_steps={self.steps} steps")


def choose_metric(config, decoded_metric):
  """(name, minimize) of the metric to watch per config's --eval_early_stopping_* flags.

  decoded_metric: the problem's `decoding_metric_name` where evaluations decode (bleu;
  parsing: bracket_f1), else None. UserError (one line) for a metric the evaluations do
  not report.
  """
  name = _our_name(config.eval_early_stopping_metric)
  if name is None:
    name = "loss" if decoded_metric is None else decoded_metric
  elif name not in EVALUATION_METRICS and name != decoded_metric:
    raise UserError(f"--eval_early_stopping_metric={config.eval_early_stopping_metric}: "
                    f"{_not_reported(decoded_metric)}")
  minimize = config.eval_early_stopping_metric_minimize
  return name, EVALUATION_METRICS.get(name, False) if minimize is None else minimize


def _our_name(name):
  """A metric name as the flag gives it -> ours (tensor2tensor's translated); None: unset."""
  if not name:
    return None
  name = name.rsplit("/", 1)[-1] if name.startswith("metrics-") else name
  return tensor2tensor_names.METRICS.get(name, name)


def _not_reported(decoded_metric):
  """The rest of the error line for a metric the evaluations do not report."""
  names = ", ".join(EVALUATION_METRICS)
  if decoded_metric is None:
    return (f"not one of {names}; a decoded metric (bleu) needs dev decoding: "
            f"--eval_decode_sentences > 0 and --schedule=train_and_evaluate")
  return f"not one of {names}, {decoded_metric}"


class MetricWatch:
  """Follows the chosen metric over a run's evaluations: keeps RUN/best by it and sets
  `stop_reason` (a line) once early stopping ends training."""

  def __init__(self, name, minimize, rule, run):
    self.name, self.minimize, self.rule = name, minimize, rule
    self.run = run  # The `t2t_lite.run.Run` in training (its model built).
    self.best = None         # best.json's record of the best evaluation so far.
    self.stop_reason = None  # Set at the evaluation that ends training.

  @classmethod
  def for_run(cls, config, run, dev_decoding, step):
    """The watch of a train_and_evaluate run now at `step` (resuming: with the best so far
    and the early-stopping reference from RUN/best/best.json); None for other schedules."""
    if config.schedule != "train_and_evaluate":
      if config.eval_early_stopping_steps:
        raise UserError(f"--eval_early_stopping_steps needs evaluations during training: "
                        f"--schedule=train_and_evaluate, not {config.schedule}")
      return None
    decoded = None if dev_decoding is None else dev_decoding.problem.decoding_metric_name
    name, minimize = choose_metric(config, decoded)
    rule = Patience(config.eval_early_stopping_steps, config.eval_early_stopping_metric_delta,
                    minimize)
    watch = cls(name, minimize, rule, run)
    watch._resume(best_checkpoint.read_record(run.best_dir))
    if step % config.local_eval_frequency == 0:  # The evaluation at `step` took place.
      watch.stop_reason = rule.stop_reason(step, watch.name)
    return watch

  def _resume(self, record):
    """Takes over the best so far from best.json's `record` when it is by this metric."""
    if record is None:
      return
    path = self.run.best_dir
    remedy = f"remove {path} (the next evaluation writes it anew)"
    where = f"{path}/{BEST_RECORD}"
    metric = check_field(record, "metric", str, where, remedy)
    minimize = check_field(record, "minimize", bool, where, remedy)
    for field, kind in (("value", float), ("step", int), ("reference_value", float),
                        ("reference_step", int)):
      check_field(record, field, kind, where, remedy)
    if metric != self.name or minimize != self.minimize:
      logging.warning("%s holds the best checkpoint by %s (%s is better); this run watches %s "
                      "(%s is better): the next evaluation replaces it", path, metric,
                      _direction(minimize), self.name,
                      _direction(self.minimize))
      return
    self.best = record
    self.rule.reference = (record["reference_step"], record["reference_value"])

  def observe(self, step, results, message):
    """Takes in the evaluation `results` at `step` (`Evaluator.evaluate`'s); writes best/
    when they are the best so far after step 0, saying so through `message` (a line)."""
    if self.name not in EVALUATION_METRICS and "decoded" not in results:
      return  # An evaluation that decoded nothing: a timed run's baseline.
    value, description = self._value(results)
    if not math.isfinite(value):
      logging.warning("%s is %s at step %d: not a candidate for %s, nor counted for early "
                      "stopping", self.name, value, step, BEST_DIR)
      return
    self.rule.observe(step, value)
    previous = self.best
    if step == 0:  # The untrained model: early stopping's baseline, never the best model.
      return
    if previous is None or is_better(value, previous["value"], self.minimize):
      reference_step, reference_value = self.rule.reference
      self.best = {"metric": self.name, "minimize": self.minimize, "value": value,
                   "step": step, "checkpoint": checkpoint_name(step), "evaluation": description,
                   "reference_step": reference_step, "reference_value": reference_value}
      self.run.write_description()  # best/ copies it (a new run writes it at its first save).
      best_checkpoint.keep(self.run, self.best)
      was = "" if previous is None else (
          f" (before: {previous['value']:.4g} at step {previous['step']})")
      message(f"best checkpoint: step {step}, {self.name} {value:.4g}{was}, in "
              f"{self.run.best_dir}")
    self.stop_reason = self.rule.stop_reason(step, self.name)

  def _value(self, results):
    """(value, what was evaluated) of the watched metric in `results`."""
    if self.name in EVALUATION_METRICS:
      return results[self.name], f"{results['tokens']:.0f} dev tokens"
    _, value, description = results["decoded"]
    return value, description


def _direction(minimize):
  return "lower" if minimize else "higher"
