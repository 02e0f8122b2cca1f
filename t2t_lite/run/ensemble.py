"""Several run directories decoded as an ensemble: what `t2t-decoder --output_dir=A,B` opens.

    runs = RunEnsemble.open(["RUN_A", "RUN_B"])       # each run's newest readable checkpoint
    runs.translate(["A man rides a bike."], decode_hparams="beam_size=4")
    runs.translator("beam_size=4")                    # the `Translator` t2t-decoder uses

    open_runs("RUN_A,RUN_B")   # --output_dir as t2t-decoder takes it: a Run, or a RunEnsemble

The runs must be of one problem, with the same input and target vocabularies
(the SentencePiece files' contents, compared piece by piece): a one-line UserError
names the first that differs. The step's distribution is the mean of the members'
(`t2t_lite.decoding.ensemble_model`); the problem's decoding defaults, its count rule and
every --decode_hparams setting apply as for one run. Runs of both directions
(hparams right_to_left) together: the left-to-right ones search, and all of them
rerank the beam (`t2t_lite.decoding.rerank`).
"""

from t2t_lite.decoding.ensemble_model import EnsembleModel
from t2t_lite.errors import UserError
from t2t_lite.models import size
from t2t_lite.run.run_directory import Run
from t2t_lite.run.translating import Translating
from t2t_lite.distribute.strategy import make_strategy


def open_runs(output_dir, checkpoint_path=None, problem=None, strategy=None):
  """--output_dir=A[,B,...] and --checkpoint_path -> `Run.open` of one run directory, or a
  `RunEnsemble` of several (--checkpoint_path then names one checkpoint per run, comma-
  separated in the same order, an empty entry meaning that run's newest), in `strategy`
  (default: `Run.open`'s)."""
  directories = [d.strip() for d in output_dir.split(",")]
  if len(directories) == 1:
    return Run.open(directories[0], checkpoint_path, problem, strategy)
  if not all(directories):
    raise UserError(f"--output_dir={output_dir} has an empty entry; list run directories "
                    f"separated by commas")
  checkpoints = [None] * len(directories)
  if checkpoint_path:
    checkpoints = [c.strip() or None for c in checkpoint_path.split(",")]
    if len(checkpoints) != len(directories):
      raise UserError(f"--checkpoint_path names {len(checkpoints)} checkpoints for "
                      f"{len(directories)} runs in --output_dir; give one per run, in order, "
                      f"separated by commas (an empty entry: that run's newest)")
  return RunEnsemble.open(directories, checkpoints, problem, strategy)


class RunEnsemble(Translating):
  """Runs of one problem and one vocabulary decoded together.

  runs: the `Run`s, each restored, in one strategy. Decodes as a run does (model: an
  `EnsembleModel` of the runs of one direction, or of the left-to-right ones, with
  `rerank_models` all the runs' models, when both directions are there; hparams: its
  hparams; problem, vocabularies and strategy: the first run's).
  """

  def __init__(self, runs):
    check_compatible(runs)
    self.runs = list(runs)
    first = self.runs[0]
    self.output_dir = ",".join(run.output_dir for run in self.runs)
    models = [run.model for run in self.runs]
    left_to_right = [m for m in models if not m.hparams.right_to_left]
    if left_to_right and len(left_to_right) < len(models):
      self.model = EnsembleModel(left_to_right, bounded_by=models)
      self.rerank_models = models
    else:
      self.model = EnsembleModel(models)
    self.hparams = self.model.hparams
    self.problem, self.strategy = first.problem, first.strategy
    self.input_vocab, self.target_vocab = first.input_vocab, first.target_vocab
    self._translators = {}

  @classmethod
  def open(cls, directories, checkpoints=None, problem=None, strategy=None):
    """The runs of `directories`, each with the weights of its entry in `checkpoints` (None:
    its newest readable checkpoint), in one strategy (default: `Run.open`'s). problem: the
    problem the caller expects (UserError when the runs are of another)."""
    checkpoints = checkpoints or [None] * len(directories)
    strategy = strategy or make_strategy(across_workers=False)
    runs = [Run.read(d, strategy) for d in directories]
    check_compatible(runs)  # Before any weights load.
    check_ensemble_fits(runs)
    for run, checkpoint in zip(runs, checkpoints):
      run.load(checkpoint, problem)
    return cls(runs)


def check_compatible(runs):
  """UserError (one line) unless every run has the first's problem and vocabularies."""
  first = runs[0]
  for run in runs[1:]:
    if run.description.problem != first.description.problem:
      raise UserError(f"cannot ensemble {first.output_dir} and {run.output_dir}: they are runs "
                      f"of problems {first.description.problem} and {run.description.problem}")
    for side in ("input", "target"):
      difference = vocabulary_difference(getattr(first, f"{side}_vocab"),
                                         getattr(run, f"{side}_vocab"))
      if difference:
        raise UserError(f"cannot ensemble {first.output_dir} and {run.output_dir}: their {side} "
                        f"vocabularies differ ({difference}); ensemble runs trained on one "
                        f"vocabulary")


def check_ensemble_fits(runs):
  """UserError, before any weight loads, when the runs' models together need more memory
  to restore than the machine has (`Run.read` checked each alone)."""
  memory = size.physical_memory()
  counts = [size.weight_count(run.hparams, run.description.input_vocab_size,
                                   run.description.target_vocab_size) for run in runs]
  needed = size.bytes_to_restore(counts)
  if memory is None or needed <= memory:
    return
  raise UserError(f"the {len(runs)} runs to ensemble hold {sum(counts):.3g} weights "
                  f"together: loading them as one ensemble needs about "
                  f"{needed / 2 ** 30:,.1f} GiB, more than this machine's "
                  f"{memory / 2 ** 30:,.1f} GiB of memory; ensemble fewer runs, or use a "
                  f"machine with more memory")


def vocabulary_difference(first, second):
  """Where two `Vocabulary`s differ, in words ("" when their files' contents are equal):
  their sizes, their first differing piece, or else their SentencePiece settings."""
  if first.model_proto == second.model_proto:
    return ""
  if first.size != second.size:
    return f"{first.size} and {second.size} pieces"
  for piece_id, (a, b) in enumerate(zip(first.pieces(), second.pieces())):
    if a != b:
      return f"piece {piece_id} is {a!r} in one, {b!r} in the other"
  return "same pieces, other SentencePiece settings"
