"""The files by which a run directory describes itself: hparams, problem, vocabulary, flags.

    RUN/hparams.json           the HParams the model was built with
    RUN/hparams_history.json   earlier hparams.json of a run resumed with changes
                               (list of {"until": checkpoint, "hparams": ...})
    RUN/run.json               problem, model, vocabulary sizes and files, flags used, and
                               the digests of what the run depends on (`digests`)
    RUN/vocab.*.model          copies of the problem's vocabulary

(the whole layout: `t2t_lite.run.run_layout`).

The decoder and exporter read these (through `t2t_lite.run.Run`), so a user
never repeats training flags.
"""

import dataclasses
import json
import os

from absl import logging
import tensorflow as tf

from t2t_lite.data.vocabulary import read_model_file, vocab_size_of
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import copy_file_atomic, write_text_atomic
from t2t_lite.files.file_reading import SMALL_FILE_BYTES, read_bytes, read_text
from t2t_lite.files.json_files import DamagedFile, check_field, parse_json, parse_object
from t2t_lite.models.hyperparameters import HParams
from t2t_lite.models.size import check_model_fits
from t2t_lite.run import digests
from t2t_lite.run.checkpoints import checkpoint_paths
from t2t_lite.run.run_layout import HISTORY_FILE, HPARAMS_FILE, RUN_FILE


@dataclasses.dataclass(frozen=True)
class RunDescription:
  """What a run directory says about itself (run.json)."""
  problem: str
  model: str
  input_vocab_size: int
  target_vocab_size: int
  vocab_files: tuple            # File names inside the run dir: (inputs, targets).
  flags: dict = dataclasses.field(default_factory=dict)
  # {file name: SHA-256} of the vocabulary copies and the data's train marker (`digests`).
  vocab_sha256: dict = dataclasses.field(default_factory=dict)
  data_sha256: dict = dataclasses.field(default_factory=dict)

  def to_json(self):
    return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

  @classmethod
  def from_json(cls, text, path=RUN_FILE):
    """The description run.json's text holds; a `DamagedFile` naming `path` and the field
    when a field is missing, of another type, or out of range."""
    values = parse_object(text, path, RESTORE)
    unknown = sorted(set(values) - {field.name for field in dataclasses.fields(cls)})
    if unknown:
      raise DamagedFile(path, f"unknown fields {', '.join(unknown)} (written by another "
                        f"version of t2t_lite?)", RESTORE)
    for name in ("problem", "model"):
      check_field(values, name, str, path, RESTORE)
    for name in ("input_vocab_size", "target_vocab_size"):
      if check_field(values, name, int, path, RESTORE) < 2:
        raise DamagedFile(path, f"field '{name}' is {values[name]}, fewer than the 2 ids of "
                          f"padding and EOS", RESTORE)
    files = check_field(values, "vocab_files", tuple, path, RESTORE)
    if len(files) != 2 or not all(isinstance(name, str) and name and os.path.basename(name)
                                  == name and name not in (".", "..") for name in files):
      raise DamagedFile(path, f"field 'vocab_files' is {json.dumps(files)[:80]}, not the names "
                        f"of the two vocabulary files beside it (inputs, targets)", RESTORE)
    check_field(values, "flags", dict, path, RESTORE, required=False)
    for name in digests.FIELDS:
      digests.check_field(values, name, path, RESTORE)
    values["vocab_files"] = tuple(files)
    return cls(**values)


# What an error about a damaged run file tells the user to do.
RESTORE = "restore it from a copy of the run, or train anew in another --output_dir"


def describe(output_dir, hparams, description, vocab_paths):
  """Writes hparams.json, run.json and the vocabulary copies; checks a resumed run.

  A directory that already has hparams.json must describe the same model: any
  difference is a one-line error naming the differing fields. A change that
  keeps the architecture replaces hparams.json, the old one going to HISTORY_FILE.
  Every check comes before the first write, so a refused run changes no file.
  """
  check_description(output_dir, hparams, description, vocab_paths)
  write_description(output_dir, hparams, description, vocab_paths)


def check_description(output_dir, hparams, description, vocab_paths):
  """What `describe` checks before writing: the model fits in memory, and a directory that
  holds a run keeps its architecture, its problem and (once it has checkpoints) its
  vocabulary. Raises a one-line UserError; writes nothing."""
  check_model_fits(hparams, description.input_vocab_size, description.target_vocab_size,
                   "--hparams_set, --hparams and the data's vocabularies describe")
  if not has_run(output_dir):
    return
  check_same_hparams(read_hparams(output_dir), hparams, output_dir)
  previous = read_description(output_dir)
  if previous.problem != description.problem:
    raise UserError(f"{output_dir} holds a run of problem {previous.problem}, not "
                    f"{description.problem}; use another --output_dir")
  if checkpoint_paths(output_dir):  # Without one, nothing was trained with its copies yet.
    digests.check_vocabulary(_copies(output_dir, previous), previous)
    check_same_vocabulary(output_dir, previous, vocab_paths)
    _check_same_data(output_dir, previous, description, os.path.dirname(vocab_paths[0]))


def _copies(output_dir, description):
  """{file name: path} of the vocabulary copies in output_dir whose digests run.json
  records."""
  return {name: os.path.join(output_dir, name) for name in description.vocab_sha256}


def _check_same_data(output_dir, previous, current, data_dir):
  """UserError when the data directory's marker differs from the one the run in
  output_dir recorded (`previous`) as it resumes on `current`'s."""
  difference = digests.data_difference(previous, current)
  if difference:
    name, how = difference
    raise UserError(
        f"{os.path.join(data_dir, name)} is not the data the run in {output_dir} trained on "
        f"({how}; was the data generated anew since?): resuming would read other examples; "
        f"pass the --data_dir it trained on, or train in a new --output_dir "
        f"(--warm_start_from={output_dir} starts from its weights)")


def check_same_vocabulary(output_dir, previous, vocab_paths):
  """UserError when a vocabulary copy in output_dir (described by `previous`, its
  RunDescription) differs from the data's file at `vocab_paths`: the model knows only the
  ids of its own."""
  for name, source in dict(zip(previous.vocab_files, vocab_paths)).items():
    copy = os.path.join(output_dir, name)
    if read_model_file(copy, RESTORE) == _file_bytes(source):  # DamagedFile: missing, bad.
      continue
    sizes = [vocab_size_of(path, previous.problem) for path in (copy, source)]
    what = (f"{sizes[0]} pieces against {sizes[1]}" if sizes[0] != sizes[1] else
            f"both {sizes[0]} pieces, other ones")
    raise UserError(f"the data's vocabulary {source} differs from {copy}, the one the run in "
                    f"{output_dir} was trained with ({what}; the data was generated anew "
                    f"since?): its model knows only its own ids; train on this data in a new "
                    f"--output_dir, or pass the --data_dir that run was trained on")


def _file_bytes(path):
  return read_bytes(path, remedy=RESTORE)


def write_description(output_dir, hparams, description, vocab_paths):
  """Writes what `describe` writes, unchecked: the vocabulary copies (those missing or
  differing), hparams.json when it changes (the old one going to HISTORY_FILE) and run.json
  when it changes."""
  tf.io.gfile.makedirs(output_dir)
  existing = read_hparams(output_dir) if has_run(output_dir) else None
  for source, name in dict(zip(vocab_paths, description.vocab_files)).items():
    target = os.path.join(output_dir, name)
    if not tf.io.gfile.exists(target) or _file_bytes(target) != _file_bytes(source):
      copy_file_atomic(source, target)
  if existing is not None and existing != hparams:
    _append_history(output_dir, existing)
  if existing != hparams:
    write_text_atomic(os.path.join(output_dir, HPARAMS_FILE), hparams.to_json())
  run_file = os.path.join(output_dir, RUN_FILE)
  text = description.to_json()
  if not tf.io.gfile.exists(run_file) or _file_bytes(run_file) != text.encode("utf-8"):
    write_text_atomic(run_file, text)


def _append_history(output_dir, hparams):
  """Adds the hparams a run used until its latest checkpoint to HISTORY_FILE."""
  path = os.path.join(output_dir, HISTORY_FILE)
  history = _read_history(output_dir) if tf.io.gfile.exists(path) else []
  latest = checkpoint_paths(output_dir)[-1:]
  history.append({"until": os.path.basename(latest[0]) if latest else None,
                  "hparams": json.loads(hparams.to_json())})
  write_text_atomic(path, json.dumps(history, indent=2, sort_keys=True))


def _read_history(output_dir):
  """HISTORY_FILE's list; UserError naming it when it is not a JSON list."""
  path = os.path.join(output_dir, HISTORY_FILE)
  text = _read_run_file(output_dir, HISTORY_FILE, HISTORY_BYTES)
  return parse_json(text, path, RESTORE, list, "a list")


def has_run(output_dir):
  return tf.io.gfile.exists(os.path.join(output_dir, HPARAMS_FILE))


def read_hparams(output_dir):
  """The run's HParams; UserError naming hparams.json and the field when it is damaged."""
  path = os.path.join(output_dir, HPARAMS_FILE)
  return HParams.from_json(_read_run_file(output_dir, HPARAMS_FILE), path, RESTORE)


def read_description(output_dir):
  """The run's RunDescription; UserError naming run.json and the field when it is damaged."""
  path = os.path.join(output_dir, RUN_FILE)
  return RunDescription.from_json(_read_run_file(output_dir, RUN_FILE), path)


def read_run(output_dir):
  """(HParams, RunDescription) of a run directory, each file validated (the vocabulary
  copies too, once it has checkpoints), and the model they describe checked to fit in
  memory before anything is built."""
  hparams, description = read_hparams(output_dir), read_description(output_dir)
  if checkpoint_paths(output_dir):  # Without a checkpoint, that is the error to report.
    for name in dict.fromkeys(description.vocab_files):
      read_model_file(os.path.join(output_dir, name), RESTORE)
    digests.check_vocabulary(_copies(output_dir, description), description)
  check_model_fits(hparams, description.input_vocab_size, description.target_vocab_size,
                   f"{os.path.join(output_dir, HPARAMS_FILE)} and "
                   f"{os.path.join(output_dir, RUN_FILE)} describe")
  return hparams, description


def _read_run_file(output_dir, name, limit=SMALL_FILE_BYTES):
  """The UTF-8 text of output_dir/name, at most `limit` bytes; UserError when output_dir
  has no such file (it is not a run directory), DamagedFile when it is not a regular file,
  larger or not UTF-8."""
  path = os.path.join(output_dir, name)
  if not os.path.lexists(path):
    raise UserError(f"{output_dir} is not a run directory (no {name}); pass the "
                    f"--output_dir that t2t-trainer wrote")
  return read_text(path, remedy=RESTORE, limit=limit)


# hparams_history.json grows by one hparams.json each time a run resumes with changes.
HISTORY_BYTES = 64 * SMALL_FILE_BYTES


# Fields that shape the weights, or what they mean (right_to_left: the targets' order): a
# checkpoint cannot be resumed with other values.
ARCHITECTURE_FIELDS = ("num_hidden_layers", "hidden_size", "filter_size", "num_heads",
                       "attention_key_channels", "attention_value_channels", "pos",
                       "pre_norm", "shared_embedding", "shared_embedding_and_softmax_weights",
                       "right_to_left")


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


def copy_description(output_dir, new_output_dir):
  """Copies hparams.json, run.json and the vocabulary files to another directory."""
  description = read_description(output_dir)
  tf.io.gfile.makedirs(new_output_dir)
  for name in (HPARAMS_FILE, RUN_FILE) + tuple(dict.fromkeys(description.vocab_files)):
    tf.io.gfile.copy(os.path.join(output_dir, name), os.path.join(new_output_dir, name),
                     overwrite=True)

