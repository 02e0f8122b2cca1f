"""The handshake of a multi-worker run: every worker checks, before the model is built and
before any step, that the others train what it trains.

    check_workers_agree(run, config, data_dir)   # after Run.create, before run.build_model

Each worker digests what must be equal (`worker_agreement`: t2t_lite's version, the
problem, the data's digests, the model, the resolved hparams, the training flags, the
--output_dir and the step it resumes from) into a row of a fixed shape, and the strategy
gathers every worker's row. Every worker then sees the same rows: on a difference, they
gather the texts of that one field too, and each ends with the same line naming the worker
and the field (a UserError), before anything is trained or written. One process trains
alone: nothing is computed or exchanged.
"""

import json

import numpy as np
import tensorflow as tf

from t2t_lite import __version__
from t2t_lite.run.digests import data_digests
from t2t_lite.run.run_layout import checkpoint_step
from t2t_lite.distribute.strategy import is_chief, is_multi_worker
from t2t_lite.training.lost_worker import PEER_ERRORS, lost_worker_error
from t2t_lite.training.worker_agreement import (Task, difference_error, digest_row,
                                                first_difference, of_one_layout,
                                                read_text_rows, text_row)

# The t2t-trainer flags every worker must share: they decide the steps, saves and
# evaluations the workers take part in together. (--output_dir is a field of its own.)
SHARED_SETTINGS = (
    "train_steps", "train_minutes", "schedule", "eval_steps", "local_eval_frequency",
    "eval_every_minutes", "keep_checkpoint_max", "save_checkpoints_steps",
    "save_checkpoints_secs", "mixed_precision", "gradient_accumulation_steps", "random_seed",
    "warm_start_from", "eval_early_stopping_steps", "eval_early_stopping_metric",
    "eval_early_stopping_metric_delta", "eval_early_stopping_metric_minimize")


def check_workers_agree(run, config, data_dir):
  """The module doc's handshake of `run` (made by Run.create, its model not yet built)."""
  strategy = run.strategy
  if not is_multi_worker(strategy):
    return
  resolver = strategy.cluster_resolver
  task = Task(resolver.task_type or "worker", resolver.task_id or 0, is_chief(strategy))
  latest = run.latest_checkpoint()
  values = agreement_values(run, config, data_dir, latest)
  try:
    rows = _gather(strategy, digest_row(task, values))
    found = first_difference(rows)
    if found is None:
      return
    other, field = found
    if not of_one_layout(rows):  # Another version's texts come in rows of another shape.
      raise difference_error(other, field)
    texts = read_text_rows(_gather(strategy, text_row(task, values[field.key])))
  except PEER_ERRORS as error:  # A worker gone before or during the handshake.
    raise lost_worker_error(error, latest) from None
  chief = next((each for each in texts if each.chief), None)
  raise difference_error(other, field, texts.get(other), texts.get(chief))


def agreement_values(run, config, data_dir, latest_checkpoint):
  """{field key: text} of this worker (`worker_agreement.FIELDS`)."""
  description = run.description
  data = {**description.vocab_sha256, **description.data_sha256,
          **data_digests(data_dir, description.problem, "dev")}
  return {
      "version": __version__, "problem": description.problem,
      "data": json.dumps(data, sort_keys=True), "model": description.model,
      "hparams": run.hparams.to_json(),
      "settings": json.dumps({name: getattr(config, name) for name in SHARED_SETTINGS},
                             sort_keys=True),
      "output_dir": run.location,
      "resume_step": str(checkpoint_step(latest_checkpoint) if latest_checkpoint else 0)}


def _gather(strategy, row):
  """Every replica's `row` (of every worker), one a row -> a numpy array."""
  value = tf.constant(row[np.newaxis])
  rows = strategy.gather(
      strategy.experimental_distribute_values_from_function(lambda _: value), axis=0)
  return rows.numpy()
