"""Evaluation on the dev split: loss, per-token accuracy, perplexity (teacher-forced)."""

import math

import tensorflow as tf

from t2t_lite.training.train_step import STAT_NAMES, token_statistics


class Evaluator:
  """Runs the model over up to `eval_steps` dev batches per replica (0 = the whole split),
  then, when `dev_decoding` is set, decodes its dev sentences and scores them."""

  dev_decoding = None

  def __init__(self, strategy, model, label_smoothing, dataset_fn, eval_steps):
    self.strategy = strategy
    self.model = model
    self.label_smoothing = label_smoothing
    self.dataset_fn = dataset_fn
    self.eval_steps = eval_steps
    self._step = tf.function(self._distributed_step, reduce_retracing=True,
                             autograph=False)  # As the training step's (train_step.py).

  def _distributed_step(self, features):
    def replica_step(features):
      logits = self.model(features, training=False)
      stats = token_statistics(features, logits, self.label_smoothing)
      return tf.stack([tf.cast(stats[name], tf.float32) for name in STAT_NAMES])
    per_replica = self.strategy.run(replica_step, args=(features,))
    sums = self.strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)  # One.
    return dict(zip(STAT_NAMES, tf.unstack(sums)))

  def evaluate(self):
    """-> `evaluate_loss`'s results, and "decoded": (metric name, value, description) when
    decoding is on."""
    results = self.evaluate_loss()
    if self.dev_decoding is not None:
      name, value = self.dev_decoding.evaluate()
      results["decoded"] = (name, value, self.dev_decoding.describe())
    return results

  def evaluate_loss(self):
    """-> {"loss", "accuracy", "perplexity", "tokens"} over the dev batches (teacher-forced,
    nothing decoded)."""
    totals = dict.fromkeys(STAT_NAMES, 0.0)
    dataset = self.strategy.distribute_datasets_from_function(self.dataset_fn)
    for index, features in enumerate(dataset):
      if self.eval_steps and index >= self.eval_steps:
        break
      for name, value in self._step(features).items():
        totals[name] += float(value)
    return summarize(totals)


def summarize(totals):
  """Summed step statistics -> per-token loss, accuracy and perplexity."""
  tokens = max(totals["tokens"], 1.0)
  nll = totals["nll_sum"] / tokens
  return {"loss": totals["loss_sum"] / tokens, "accuracy": totals["correct"] / tokens,
          "perplexity": perplexity(nll), "tokens": totals["tokens"]}


def perplexity(nll):
  """exp(nll) of a per-token negative log-likelihood, capped at e^700 so that a huge
  (diverging) loss never overflows."""
  return math.exp(min(float(nll), 700.0))


def eval_line(step, results):
  """The line of an evaluation at `step`: its metrics, and its decoding's when it has one."""
  line = (f"eval at step {step}: loss {results['loss']:.4f}, accuracy "
          f"{results['accuracy']:.4f}, perplexity {results['perplexity']:.2f} "
          f"({results['tokens']:.0f} tokens)")
  if "decoded" in results:
    name, value, description = results["decoded"]
    line += f", {name} {value:.2f} ({description})"
  return line
