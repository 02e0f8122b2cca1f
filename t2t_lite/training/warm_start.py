"""--warm_start_from=RUN: a new run starts from another run's weights, on its vocabulary or not.

    warm_start(run, "OLD_RUN")          # run: the new `Run`, its model built
    warm_start(run, "OLD_RUN/ckpt-N")   # that checkpoint rather than the newest

Every weight is copied from the old model, matched by its place in the model (its
path, less the model's own name). The vocabulary's weights are matched piece by
piece: the input embedding's rows by the input vocabulary, the target embedding's
rows and the untied softmax's columns by the target vocabulary (one matrix when the
model shares them). A row of a piece both vocabularies hold gets the old model's row
of that piece; the rows of new pieces keep the values the new model was initialised
with, as a fresh model has them. One log line says how many rows were kept and how
many initialised. With the same vocabulary every row is kept, as a plain restore.

Weights of other shapes or places (another architecture) are a one-line UserError
naming the first that differs. A run of the other target order (`right_to_left`) has the
same weights: it is warm-started, with a warning. A checkpoint outside a run directory (no
run.json: no vocabulary to match) is restored as it is, for a model of the same vocabulary.
"""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from t2t_lite.errors import UserError
from t2t_lite.run import Run
from t2t_lite.run.checkpoints import (UnreadableCheckpoint, checkpoint_exists, checkpoint_paths,
                                      restore_checkpoint)
from t2t_lite.run.description import has_run

FLAG = "--warm_start_from"


def warm_start(run, path):
  """Copies the weights of the checkpoint `path` (or the newest of run directory `path`)
  into `run.model`, keeping the rows of the pieces both vocabularies share."""
  source_output_dir, checkpoint = ((path, None) if tf.io.gfile.isdir(path)
                                   else (os.path.dirname(path) or ".", path))
  listed = checkpoint_paths(source_output_dir) if checkpoint is None else [checkpoint]
  if not listed or not checkpoint_exists(listed[-1]):
    raise UserError(f"{FLAG}={path}: no checkpoint there")
  if not has_run(source_output_dir):  # No vocabulary to match: the same one is assumed.
    try:
      restore_checkpoint(tf.train.Checkpoint(model=run.model), listed[-1])
    except UnreadableCheckpoint as error:
      raise UserError(f"{FLAG}: {error}") from None
    logging.info("model weights warm-started from %s", listed[-1])
    return
  source = Run.read(source_output_dir)
  restored = source.restore(checkpoint)
  rows = {side: piece_rows(getattr(run, f"{side}_vocab").pieces(),
                           getattr(source, f"{side}_vocab").pieces())
          for side in ("input", "target")}
  copy_weights(run.model, source.model, rows, restored)
  logging.info("model weights warm-started from %s%s", restored, _vocabulary_note(run, source,
                                                                                  rows))
  if source.hparams.right_to_left != run.hparams.right_to_left:
    logging.warning("%s warm-starts a %s run from a %s one: its decoder learned targets in "
                    "the other order", FLAG, _direction(run), _direction(source))


def _direction(run):
  return "right-to-left" if run.hparams.right_to_left else "left-to-right"


def _vocabulary_note(run, source, rows):
  """"" when both vocabularies are the old ones; else the rows kept and initialised."""
  changed = {side: r for side, r in rows.items()
             if len(r) != getattr(source.description, f"{side}_vocab_size")
             or np.any(r != np.arange(len(r)))}
  if not changed:
    return ""
  if run.input_vocab is run.target_vocab and np.array_equal(rows["input"], rows["target"]):
    changed = {"": rows["target"]}  # One vocabulary: one count.
  return " on another vocabulary: " + "; ".join(
      f"{side + ': ' if side else ''}{int((r >= 0).sum()):,} embedding rows of shared pieces "
      f"kept, {int((r < 0).sum()):,} initialised" for side, r in changed.items())


def piece_rows(new_pieces, old_pieces):
  """[len(new_pieces)] int64: for each piece of the new vocabulary, its id in the old one,
  or -1 when the old vocabulary lacks it."""
  old_ids = {piece: i for i, piece in enumerate(old_pieces)}
  return np.array([old_ids.get(piece, -1) for piece in new_pieces], np.int64)


def vocabulary_weights(model):
  """{id(variable): (side, axis)} of a model's weights indexed by a vocabulary along `axis`:
  the embeddings' rows, the untied softmax's columns (what a `Transformer` has of them)."""
  found = {}
  for side, layer in (("input", "input_embedding"), ("target", "target_embedding")):
    embedding = getattr(model, layer, None)
    if embedding is not None and id(embedding.embeddings) not in found:
      found[id(embedding.embeddings)] = (side, 0)
  softmax = getattr(model, "softmax", None)
  if softmax is not None:
    found[id(softmax.kernel)] = ("target", 1)
  return found


def copy_weights(model, source_model, rows, source_name):
  """Assigns every weight of `source_model` to the same weight of `model`, vocabulary weights
  through `rows` ({"input" | "target": piece_rows}); UserError naming the first weight whose
  place or shape differs."""
  targets, sources = model.weights, source_model.weights
  indexed = vocabulary_weights(model)
  values = []  # Every value checked before any is assigned.
  for target, source in zip(targets, sources):
    name, old_name = _relative_path(target), _relative_path(source)
    if name != old_name:
      raise _mismatch(source_name, f"where this model has weight {name}, it has {old_name}")
    value = source.numpy()
    if id(target) in indexed:
      value = _mapped(target.numpy(), value, *indexed[id(target)], rows, name, source_name)
    elif tuple(target.shape) != value.shape:
      raise _mismatch(source_name, f"weight {name} has shape {value.shape}, this model's "
                      f"{tuple(target.shape)}")
    values.append(value)
  if len(targets) > len(sources):
    raise _mismatch(source_name, f"it lacks weight {_relative_path(targets[len(sources)])}")
  if len(sources) > len(targets):
    raise _mismatch(source_name, f"it has weight {_relative_path(sources[len(targets)])}, "
                    f"which this model lacks")
  for target, value in zip(targets, values):
    target.assign(value)


def _mapped(fresh, old, side, axis, rows, name, source_name):
  """The new value of a vocabulary weight: `fresh` (the new model's, [vocab, d] or [d, vocab]
  along `axis`) with the old rows of shared pieces."""
  fresh, old = np.moveaxis(fresh, axis, 0), np.moveaxis(old, axis, 0)  # [vocab, ...]
  side_rows = rows[side]
  if fresh.shape[1:] != old.shape[1:] or len(side_rows) != fresh.shape[0] or (
      side_rows.max(initial=-1) >= old.shape[0]):
    raise _mismatch(source_name, f"weight {name} has shape {np.moveaxis(old, 0, axis).shape}, "
                    f"this model's {np.moveaxis(fresh, 0, axis).shape}")
  kept = side_rows >= 0
  fresh = fresh.copy()
  fresh[kept] = old[side_rows[kept]]
  return np.moveaxis(fresh, 0, axis)


def _relative_path(variable):
  """A weight's path without the model's own name: "encoder/layer_0/norm/gamma"."""
  return variable.path.split("/", 1)[-1]


def _mismatch(source_name, what):
  return UserError(f"{FLAG}: {source_name} holds another architecture: {what}; warm-start "
                   f"from a run of the same hparams (only the vocabulary may differ)")
