"""t2t-avg-all's dev check: an average is kept only when it decodes the dev sentences at
least as well as the newest checkpoint it averages.

    check = compare_on_dev(run, newest, sentences=200)  # run.model holds the average
    check.average_kept  # run.model now holds the better one (the average on a tie)

Both decode the first `sentences` sentences of the dev split greedily (beam_size=1, to be
quick) and are scored by the problem's decoding metric (`DevDecoding`: sacreBLEU, or
bracket F1 for parsing). The dev split is read from the data the run trained on, its
--data_dir as run.json records it; without it (or without a dev split there, or with
another vocabulary there) the check is skipped, and `SkippedCheck` says why.
"""

import dataclasses
import os

import tensorflow as tf

from t2t_lite.data import records
from t2t_lite.errors import UserError
from t2t_lite.run import digests
from t2t_lite.run.checkpoints import restore_checkpoint
from t2t_lite.run.run_layout import RUN_FILE, checkpoint_step
from t2t_lite.training.dev_decoding import DevDecoding

GREEDY = "beam_size=1"
# What the lines say turns the check off.
TURN_OFF = "--dev_sentences=0 keeps the average regardless"


@dataclasses.dataclass(frozen=True)
class DevComparison:
  """The average's and the newest checkpoint's scores on the same dev sentences."""
  sentences: int
  metric: str
  average: float
  last: float
  last_step: int

  @property
  def average_kept(self):
    return self.average >= self.last

  def line(self, averaged, output_dir):
    """What t2t-avg-all prints: both scores, and which one `output_dir` holds."""
    scores = (f"t2t-avg-all: on {self.sentences} dev sentences (greedy) the average of "
              f"{averaged} checkpoints scores {self.metric} {self.average:.2f}, the last "
              f"checkpoint (step {self.last_step:,}) {self.last:.2f}")
    if self.average_kept:
      return f"{scores}: {output_dir} keeps the average"
    return f"{scores}: {output_dir} holds the last checkpoint ({TURN_OFF})"

  def record(self):
    """What the output's marker file says of the check."""
    return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class SkippedCheck:
  """Why the dev check could not run (the average is kept)."""
  reason: str
  average_kept = True

  def line(self, averaged, output_dir):
    return (f"t2t-avg-all: no dev check ({self.reason}); {output_dir} holds the average of "
            f"{averaged} checkpoints")

  def record(self):
    return {"skipped": self.reason}


def compare_on_dev(run, newest, sentences):
  """With run.model holding the average: scores it and checkpoint `newest` on the first
  `sentences` dev sentences, and leaves run.model holding the better one (the average on a
  tie). -> DevComparison, or SkippedCheck when the run's dev split cannot be read."""
  dev = dev_decoding(run, sentences, GREEDY)
  if isinstance(dev, SkippedCheck):
    return dev
  average_weights = [weight.numpy() for weight in run.model.weights]
  metric, average = dev.evaluate()
  restored = restore_checkpoint(tf.train.Checkpoint(model=run.model), newest)
  restored.assert_existing_objects_matched()
  _, last = dev.evaluate()
  comparison = DevComparison(len(dev.sources), metric, average, last, checkpoint_step(newest))
  if comparison.average_kept:
    for weight, value in zip(run.model.weights, average_weights):
      weight.assign(value)
  return comparison


def dev_decoding(run, sentences, decode_hparams):
  """The run's `DevDecoding` of its first `sentences` dev sentences, decoded with
  `decode_hparams` (as --decode_hparams takes them), or a SkippedCheck saying why there is
  none."""
  data_dir = run.description.flags.get("data_dir")
  problem = run.problem
  if not data_dir or not isinstance(data_dir, str):
    return SkippedCheck(f"{os.path.join(run.output_dir, RUN_FILE)} records no --data_dir")
  if not os.path.isdir(data_dir):
    relative = "" if os.path.isabs(data_dir) else ", seen from this directory"
    return SkippedCheck(f"the run's --data_dir={data_dir} is not there{relative}")
  recorded = run.description.vocab_sha256
  try:
    if records.read_split_info(data_dir, problem.name, "dev") is None:
      return SkippedCheck(f"{data_dir} holds no dev split of {problem.name}")
    if recorded and digests.vocab_digests(problem.vocab_paths(data_dir)) != recorded:
      return SkippedCheck(f"the vocabulary in {data_dir} is not the one the run trained with "
                          f"(its data was generated anew since?)")
    dev = DevDecoding.from_data(problem, data_dir, run.translator(decode_hparams), sentences)
  except UserError as error:  # A damaged or incomplete dev split.
    return SkippedCheck(str(error))
  return dev if dev.sources else SkippedCheck(f"the dev split in {data_dir} is empty")
