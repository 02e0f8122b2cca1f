"""A run directory as one object: its hparams, problem, vocabularies, model and strategy,
and a training run's hold on the directory.

    run = Run.open("RUN")                          # weights of its newest readable checkpoint
    run.translate(["Resumption of the session"])   # one output line per input line
    run.hparams, run.problem, run.input_vocab, run.target_vocab, run.model, run.strategy

    with Run.training(output_dir, problem, hparams, data_dir) as run:   # t2t-trainer's
      model = run.build_model()   # ... a start that fails inside the block is undone

What a run directory holds is in `t2t_lite.run.description`; its checkpoints in
`t2t_lite.run.checkpoints`. The registries load the built-in problems and
models on first lookup, so `Run.open` works from plain Python.

A training run owns its directory (`Run.training`, by `owning`): one writer at a time, and
no stub left by a start that failed. The chief holds the directory's writer lock
(`t2t_lite.files.writer_lock`) throughout; other workers of a multi-worker run write only
their scratch files there and take no lock. When the block fails (any exception, Ctrl-C
included) before it saved a checkpoint, what it wrote is undone: a directory it created is
removed, and in a directory that was there before, the files and directories it added
(summaries included) are removed and the run description files it rewrote (hparams.json,
run.json, the hparams history) get their earlier content back. A block that saved a
checkpoint keeps everything: the run has something of value, and resuming it needs its files.
"""

import contextlib
import os
import shutil

from absl import logging
import tensorflow as tf

from t2t_lite.data.vocabulary import Vocabulary
from t2t_lite.distribute.cluster import is_chief_process
from t2t_lite.errors import UserError
from t2t_lite.files import writer_lock
from t2t_lite.files.atomic_files import write_bytes_atomic
from t2t_lite.models.building import built_model
from t2t_lite.registry import MODELS, PROBLEMS
from t2t_lite.run import description as run_files
from t2t_lite.run import digests
from t2t_lite.run.checkpoints import (Checkpoints, UnreadableCheckpoint, checkpoint_exists,
                                      checkpoint_paths, restore_checkpoint, restore_newest,
                                      write_only_checkpoint)
from t2t_lite.run.chosen_decoding import read_chosen_decoding
from t2t_lite.run.run_layout import (CURVES_FILE, HISTORY_FILE, HPARAMS_FILE, RUN_FILE,
                                     best_dir, check_run_directory_name, worker_scratch)
from t2t_lite.run.translating import Translating
from t2t_lite.distribute.strategy import is_chief, make_strategy


class Run(Translating):
  """A run directory and what it holds.

  output_dir: the run directory; hparams: its HParams (hparams.json);
  description: its RunDescription (run.json); strategy: the tf.distribute
  strategy its model lives in; model: None until `build_model` or `restore`.
  `problem` and the vocabularies are made on first use.
  """

  def __init__(self, output_dir, hparams, description, strategy=None, problem=None,
               vocab_paths=None):
    self.output_dir = output_dir
    self.hparams = hparams
    self.description = description
    self.strategy = strategy or tf.distribute.get_strategy()
    self.model = None
    self._problem = problem
    self._vocab_paths = vocab_paths or tuple(
        os.path.join(output_dir, name) for name in description.vocab_files)
    self._vocabularies = None
    self._translators = {}
    self._described = False  # Whether `write_description` ran.

  @classmethod
  def create(cls, output_dir, problem, hparams, data_dir, *, model="transformer", flags=None,
             strategy=None, write=True):
    """A run of `problem` (its data generated in data_dir) with `hparams`, new or resumed.

    The chief of `strategy` checks that a resumed run keeps its architecture, problem and
    vocabulary (`description.check_description`), then writes hparams.json, run.json and
    the vocabulary copies. flags: what run.json records of the command line.
    write: False leaves the writing to `write_description` (training calls it before its
      first save), so that a run refused later changes no file.
    """
    check_run_directory_name(output_dir)
    strategy = strategy or tf.distribute.get_strategy()
    input_vocab_size, target_vocab_size = problem.vocab_sizes(data_dir)
    vocab_paths = problem.vocab_paths(data_dir)
    description = run_files.RunDescription(
        problem=problem.name, model=model, input_vocab_size=input_vocab_size,
        target_vocab_size=target_vocab_size,
        vocab_files=tuple(os.path.basename(path) for path in vocab_paths), flags=flags or {},
        vocab_sha256=digests.vocab_digests(vocab_paths),
        data_sha256=digests.data_digests(data_dir, problem.name))
    if is_chief(strategy):
      run_files.check_description(output_dir, hparams, description, vocab_paths)
    run = cls(output_dir, hparams, description, strategy, problem, vocab_paths)
    if write:
      run.write_description()
    return run

  @classmethod
  @contextlib.contextmanager
  def training(cls, output_dir, problem, hparams, data_dir, **create_args):
    """The run t2t-trainer trains in the block, created or resumed (`create`, writing its
    description at its first save), its directory owned by this process throughout
    (`owning`): made when missing, held by the writer lock, and put back as it was when the
    block fails before a checkpoint is saved."""
    with owning(output_dir):
      yield cls.create(output_dir, problem, hparams, data_dir, write=False, **create_args)

  def write_description(self):
    """The chief writes hparams.json, run.json and the vocabulary copies of a `create`d run
    (those that changed); once only."""
    if is_chief(self.strategy) and not self._described:
      run_files.write_description(self.output_dir, self.hparams, self.description,
                                  self._vocab_paths)
    self._described = True

  def checkpoints(self, keep, every_steps, every_seconds, **trackables):
    """The run's checkpoints of `trackables` (model, optimizer, input position), saved and
    restored under its strategy: `t2t_lite.run.checkpoints.Checkpoints`."""
    return Checkpoints(self.strategy, self.output_dir, keep, every_steps, every_seconds,
                       **trackables)

  @property
  def best_dir(self):
    """RUN/best: the run's best checkpoint so far (`t2t_lite.training.best_checkpoint`)."""
    return best_dir(self.output_dir)

  def worker_scratch(self, what=""):
    """RUN/.worker_<task>[_<what>]: where this worker of several writes a save it must take
    part in (only the chief's is kept)."""
    return worker_scratch(self.output_dir, self.strategy.cluster_resolver.task_id, what)

  def save_copy(self, directory, step):
    """Makes `directory` a run directory of its own holding the model's weights as
    checkpoint `step`, with this run's description (hparams, run.json, vocabularies), as
    t2t-decoder and t2t-exporter read it -> the checkpoint's name."""
    run_files.copy_description(self.output_dir, directory)
    return os.path.basename(write_only_checkpoint(directory, step, model=self.model))

  def summary_dir(self, split):
    """RUN/train or RUN/eval: the run's TensorBoard summaries of `split` (the layout's
    TRAIN_SUMMARIES or EVAL_SUMMARIES)."""
    return os.path.join(self.output_dir, split)

  def summary_writer(self, split):
    """TensorBoard's writer of the run's summaries of `split`."""
    return tf.summary.create_file_writer(self.summary_dir(split))

  @property
  def curves_path(self):
    """RUN/curves.png: the picture of the run's curves (`t2t_lite.training.curves`)."""
    return os.path.join(self.output_dir, CURVES_FILE)

  @property
  def location(self):
    """The run directory's absolute path: where every worker of the run writes."""
    return os.path.abspath(self.output_dir)

  def latest_checkpoint(self):
    """The newest checkpoint the run's state file lists (what a resume starts from), or
    None."""
    paths = checkpoint_paths(self.output_dir)
    return paths[-1] if paths else None

  @classmethod
  def read(cls, output_dir, strategy=None):
    """What a run directory says about itself, without a model; UserError naming the file
    and the field when one is damaged, or when it is not a run directory."""
    hparams, description = run_files.read_run(output_dir)
    return cls(output_dir, hparams, description, strategy)

  @classmethod
  def open(cls, output_dir, checkpoint=None, problem=None, strategy=None):
    """The run with its weights from `checkpoint`, or else from its newest checkpoint that
    reads, on this machine's devices (`make_strategy`'s choice without flags: every local
    GPU, whatever TF_CONFIG says of other workers), or in the given `strategy`.

    problem: the name of the problem the caller expects (UserError when the run is of
      another); None: the run's own.
    """
    run = cls.read(output_dir, strategy or make_strategy(across_workers=False))
    run.load(checkpoint, problem)
    return run

  def load(self, checkpoint=None, problem=None):
    """What `open` does after `read`: checks the problem, then restores `checkpoint`."""
    if problem and PROBLEMS.canonical_name(problem) != self.description.problem:
      raise UserError(f"{self.output_dir} is a run of problem {self.description.problem}, not "
                      f"{problem}; pass that run's problem or another --output_dir")
    self._problem = self._registered(PROBLEMS, self.description.problem)()  # Before the model.
    self.restore(checkpoint)

  @property
  def chosen_decoding(self):
    """The decoding settings chosen on dev for this run's model (RUN/decoding.json, as
    t2t-avg-all writes it), "" when it has none: `t2t_lite.run.chosen_decoding`."""
    return read_chosen_decoding(self.output_dir)

  @property
  def problem(self):
    if self._problem is None:
      self._problem = self._registered(PROBLEMS, self.description.problem)()
    return self._problem

  @property
  def input_vocab(self):
    return self._vocabulary_pair()[0]

  @property
  def target_vocab(self):
    return self._vocabulary_pair()[1]

  def _vocabulary_pair(self):
    """(input, target) `Vocabulary`: one object twice when shared."""
    if self._vocabularies is None:
      input_path, target_path = self._vocab_paths
      inputs = Vocabulary.load(input_path, self.description.problem)
      self._vocabularies = inputs, (inputs if target_path == input_path else
                                    Vocabulary.load(target_path, self.description.problem))
    return self._vocabularies

  def build_model(self):
    """The run's model with freshly initialised weights, in its strategy; also `self.model`."""
    self._translators = {}  # Those of an earlier model.
    self._registered(MODELS, self.description.model)
    with self.strategy.scope():
      self.model = built_model(self.description.model, self.hparams,
                               self.description.input_vocab_size,
                               self.description.target_vocab_size)
    return self.model

  def restore(self, checkpoint=None):
    """Builds the model with the weights of `checkpoint`, or else of the newest listed
    checkpoint that reads (older ones replace unreadable ones); returns its path.

    UserError when there is none, when it belongs to a run with another model,
    or when it does not hold every weight of this one.
    """
    if checkpoint:
      if not checkpoint_exists(checkpoint):
        raise UserError(f"--checkpoint_path={checkpoint}: no such checkpoint (expected "
                        f"{checkpoint}.index)")
      run_files.check_checkpoint_fits(self.output_dir, checkpoint)
    elif not checkpoint_paths(self.output_dir):
      raise UserError(f"no checkpoint in {self.output_dir}; train first (t2t-trainer) or pass "
                      f"--checkpoint_path")
    with self.strategy.scope():
      saved = tf.train.Checkpoint(model=self.build_model())
      path, status = self._restore_into(saved, checkpoint)
    try:
      status.assert_existing_objects_matched()
    except AssertionError:
      raise UserError(f"{path} does not hold every weight of this run's model; was it written "
                      f"by another model or another version of t2t_lite?") from None
    logging.info("restored %s", path)
    return path

  def _restore_into(self, saved, checkpoint):
    if not checkpoint:
      return restore_newest(saved, self.output_dir)
    try:
      return checkpoint, restore_checkpoint(saved, checkpoint)
    except UnreadableCheckpoint as error:
      raise UserError(f"{error}; pass another --checkpoint_path") from None

  def _registered(self, registry, name):
    """registry[name]; a name it does not know is a UserError saying how this run's was
    registered (run.json records the --t2t_usr_dir it was trained with)."""
    if name in registry:
      return registry[name]
    usr_dir = self.description.flags.get("t2t_usr_dir")
    how = (f"it was trained with --t2t_usr_dir={usr_dir}: pass that flag here too" if usr_dir
           else "if it is your own, pass the --t2t_usr_dir that registers it")
    raise UserError(f"{self.output_dir} is a run of {registry.kind} '{name}', which is not "
                    f"registered; {how}")

  def _check_decodable(self):
    if self.model is None:
      raise UserError(f"{self.output_dir}: no model to decode with; use Run.open, or "
                      f"build_model or restore first")


# The run description files a start rewrites (and a failed start puts back).
RESTORED_FILES = (HPARAMS_FILE, RUN_FILE, HISTORY_FILE)


@contextlib.contextmanager
def owning(output_dir):
  """`Run.training`'s hold on `output_dir` inside the block (the module doc)."""
  if not is_chief_process():
    yield
    return
  output_dir = os.path.abspath(output_dir)
  existed = os.path.isdir(output_dir)
  entries = _entries(output_dir) if existed else set()
  saved = {name: _read(os.path.join(output_dir, name)) for name in RESTORED_FILES}
  with writer_lock.holding(output_dir):
    checkpoints = checkpoint_paths(output_dir) if existed else []
    try:
      yield
    except BaseException:
      if checkpoint_paths(output_dir) == checkpoints:
        _undo_start(output_dir, existed, entries, saved)
      raise


def _undo_start(output_dir, existed, entries, saved):
  """Removes what a failed start wrote: the module doc."""
  if not existed:
    shutil.rmtree(output_dir, ignore_errors=True)
    logging.info("removed %s: the run that was to start there failed before its first "
                 "checkpoint", output_dir)
    return
  for name in sorted(_entries(output_dir) - entries - {writer_lock.LOCK_NAME}):
    path = os.path.join(output_dir, name)
    if os.path.isdir(path) and not os.path.islink(path):
      shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):  # Not inside a directory removed before it.
      os.remove(path)
  for name, content in saved.items():
    if content is not None and _read(os.path.join(output_dir, name)) != content:
      write_bytes_atomic(os.path.join(output_dir, name), content)


def _entries(directory):
  """The relative paths of every file and directory under `directory`."""
  entries = set()
  for root, directories, files in os.walk(directory):
    entries.update(os.path.relpath(os.path.join(root, name), directory)
                   for name in directories + files)
  return entries


def _read(path):
  try:
    with open(path, "rb") as f:
      return f.read()
  except OSError:
    return None
