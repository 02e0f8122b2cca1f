"""The files by which a run directory describes itself: hparams, problem, vocabulary, flags.

    <output_dir>/hparams.json     the HParams the model was built with
    <output_dir>/hparams_history.json  earlier hparams.json of a run resumed with
                                  changes (list of {"until": checkpoint, "hparams": ...})
    <output_dir>/run.json         problem, model, vocabulary sizes and files, flags used
    <output_dir>/vocab.*.model    copies of the problem's vocabulary
    <output_dir>/ckpt-N.*         checkpoints (see `t2t_lite.run.checkpoints`)
    <output_dir>/train/, eval/    TensorBoard summaries of training and of evaluations
    <output_dir>/curves.png       their picture, redrawn at every evaluation

The decoder and exporter read these (through `t2t_lite.run.Run`), so a user
never repeats training flags.
"""

import dataclasses
import json
import os

from absl import logging
import tensorflow as tf

from t2t_lite.atomic_files import copy_file_atomic, write_text_atomic
from t2t_lite.errors import UserError
from t2t_lite.hparams import HParams

HPARAMS_FILE = "hparams.json"
HISTORY_FILE = "hparams_history.json"
RUN_FILE = "run.json"


@dataclasses.dataclass(frozen=True)
class RunDescription:
  """What a run directory says about itself (run.json)."""
  problem: str
  model: str
  input_vocab_size: int
  target_vocab_size: int
  vocab_files: tuple            # File names inside the run dir: (inputs, targets).
  flags: dict = dataclasses.field(default_factory=dict)

  def to_json(self):
    return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

  @classmethod
  def from_json(cls, text):
    values = json.loads(text)
    values["vocab_files"] = tuple(values["vocab_files"])
    return cls(**values)


def describe(output_dir, hparams, description, vocab_paths):
  """Writes hparams.json, run.json and the vocabulary copies; checks a resumed run.

  A directory that already has hparams.json must describe the same model: any
  difference is a one-line error naming the differing fields. A change that
  keeps the architecture replaces hparams.json, the old one going to HISTORY_FILE.
  """
  tf.io.gfile.makedirs(output_dir)
  existing = read_hparams(output_dir) if has_run(output_dir) else None
  if existing is not None:
    check_same_hparams(existing, hparams, output_dir)
    previous = read_description(output_dir)
    if previous.problem != description.problem:
      raise UserError(f"{output_dir} holds a run of problem {previous.problem}, not "
                      f"{description.problem}; use another --output_dir")
  for source, name in zip(vocab_paths, description.vocab_files):
    target = os.path.join(output_dir, name)
    if not tf.io.gfile.exists(target):
      copy_file_atomic(source, target)
  if existing is not None and existing != hparams:
    _append_history(output_dir, existing)
  if existing != hparams:
    write_text_atomic(os.path.join(output_dir, HPARAMS_FILE), hparams.to_json())
  write_text_atomic(os.path.join(output_dir, RUN_FILE), description.to_json())


def _append_history(output_dir, hparams):
  """Adds the hparams a run used until its latest checkpoint to HISTORY_FILE."""
  path = os.path.join(output_dir, HISTORY_FILE)
  history = json.loads(_read_run_file(output_dir, HISTORY_FILE)) if tf.io.gfile.exists(
      path) else []
  latest = tf.train.latest_checkpoint(output_dir)
  history.append({"until": latest and os.path.basename(latest),
                  "hparams": json.loads(hparams.to_json())})
  write_text_atomic(path, json.dumps(history, indent=2, sort_keys=True))


def has_run(output_dir):
  return tf.io.gfile.exists(os.path.join(output_dir, HPARAMS_FILE))


def read_hparams(output_dir):
  return HParams.from_json(_read_run_file(output_dir, HPARAMS_FILE))


def read_description(output_dir):
  return RunDescription.from_json(_read_run_file(output_dir, RUN_FILE))


def _read_run_file(output_dir, name):
  path = os.path.join(output_dir, name)
  if not tf.io.gfile.exists(path):
    raise UserError(f"{output_dir} is not a run directory (no {name}); pass the "
                    f"--output_dir that t2t-trainer wrote")
  with tf.io.gfile.GFile(path) as f:
    return f.read()


# Fields that shape the weights: a checkpoint cannot be resumed with other values.
ARCHITECTURE_FIELDS = ("num_hidden_layers", "hidden_size", "filter_size", "num_heads",
                       "attention_key_channels", "attention_value_channels", "pos",
                       "pre_norm", "shared_embedding", "shared_embedding_and_softmax_weights")


def check_same_hparams(existing, requested, output_dir):
  """A resumed run must keep the architecture; other changes (dropout, learning rate,
  batch size...) are allowed and logged.

  Raises a one-line UserError naming every differing architecture field.
  """
  incompatible = _differences(existing, requested, _architecture(existing))
  if incompatible:
    raise UserError(f"{output_dir} holds a model with other hparams "
                    f"({'; '.join(incompatible)}); resume with the same --hparams_set and "
                    f"--hparams, or use a new --output_dir")
  changed = allowed_changes(existing, requested)
  if changed:
    logging.warning("resuming %s with changed hparams: %s", output_dir, "; ".join(changed))


def allowed_changes(existing, requested):
  """["name old -> new"] of the differing hparams that leave the weights' shapes alone."""
  architecture = _architecture(existing)
  return _differences(existing, requested, [field.name for field in dataclasses.fields(HParams)
                                            if field.name not in architecture])


def _architecture(hparams):
  if hparams.pos == "emb":  # The learned position table has max_length rows.
    return ARCHITECTURE_FIELDS + ("max_length",)
  return ARCHITECTURE_FIELDS


def _differences(existing, requested, names):
  return [f"{name} {getattr(existing, name)!r} -> {getattr(requested, name)!r}"
          for name in names if getattr(existing, name) != getattr(requested, name)]


def check_checkpoint_fits(output_dir, checkpoint_path):
  """UserError naming the differing fields when `checkpoint_path` lies in another run
  directory whose model (architecture, vocabulary sizes) differs from output_dir's."""
  other = os.path.dirname(os.path.abspath(checkpoint_path))
  if not has_run(other) or os.path.realpath(other) == os.path.realpath(output_dir):
    return
  mine, theirs = read_description(output_dir), read_description(other)
  differences = _differences(theirs, mine, ("model", "input_vocab_size", "target_vocab_size"))
  differences += _differences(read_hparams(other), read_hparams(output_dir),
                              _architecture(read_hparams(other)))
  if differences:
    raise UserError(f"--checkpoint_path={checkpoint_path} belongs to a run with another model "
                    f"than {output_dir} ({'; '.join(differences)}); pass a checkpoint of that "
                    f"run or its own --output_dir")


def copy_description(source_dir, target_dir):
  """Copies hparams.json, run.json and the vocabulary files to another directory."""
  description = read_description(source_dir)
  tf.io.gfile.makedirs(target_dir)
  for name in (HPARAMS_FILE, RUN_FILE) + tuple(dict.fromkeys(description.vocab_files)):
    tf.io.gfile.copy(os.path.join(source_dir, name), os.path.join(target_dir, name),
                     overwrite=True)
