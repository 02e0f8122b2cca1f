"""A metric of real decoding during training: the first N dev sentences, decoded.

tensor2tensor's training-time BLEU scored teacher-forced argmaxes, which reads
about 1.5x too high; this decodes (beam search or greedy, the problem's
`--decode_hparams`) and scores with the problem's `decoding_metric` where it
has one (parsing: bracket F1), else with sacreBLEU, cased: its `decoding_metric_name`.
"""

import tensorflow as tf

from t2t_lite.data import records
from t2t_lite.data.damaged_records import naming_damaged_records
from t2t_lite.metrics.bleu import sacre_bleu


class DevDecoding:
  """Decodes fixed dev sentences with a `Translator` and scores them."""

  def __init__(self, problem, translator, sources, references):
    translator.check_settings()  # Settings it cannot decode with fail at the trainer's start.
    self.problem = problem
    self.translator = translator
    self.sources = sources          # Source texts.
    self.references = references    # Target texts.
    self.repaired = 0               # Outputs the last evaluation had to repair.

  @classmethod
  def from_data(cls, problem, data_dir, translator, sentences):
    """The first `sentences` examples of the dev split, turned back into text."""
    files = problem.split_info("dev", data_dir).files
    examples = records.parse_dataset(tf.data.TFRecordDataset(list(files)),
                                     deterministic=True).take(sentences)
    sources, references = [], []
    with naming_damaged_records(problem.name, data_dir, ["dev"]):
      for example in examples:
        sources.append(_text(translator.input_vocab, example["inputs"]))
        references.append(_text(translator.target_vocab, example["targets"]))
    return cls(problem, translator, sources, references)

  def evaluate(self):
    """-> (metric name, value), e.g. ("bleu", 23.4)."""
    translation = self.translator.translation(self.sources, progress=False)
    outputs, self.repaired = translation.lines, translation.repaired
    name, own_metric = self.problem.decoding_metric_name, self.problem.decoding_metric
    if own_metric is not None:
      return name, own_metric(self.sources, outputs, self.references)
    return name, sacre_bleu(outputs, [self.references]).score

  def describe(self):
    settings = self.translator.settings
    search = "greedy" if settings.beam_size == 1 else f"beam {settings.beam_size}"
    repaired = f", {self.repaired} repaired" if self.problem.target_form.repairs else ""
    return f"{len(self.sources)} dev sentences, {search}{repaired}"


def _text(vocabulary, ids):
  return vocabulary.decode(ids).numpy().decode("utf-8")
