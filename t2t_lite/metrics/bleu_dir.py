"""t2t-bleu --translations_dir: BLEU of each translation of a directory, step by step.

    for step, path, report in score_translations_dir("translations", ["newstest2014.de"]):
      ...
    events = BleuEvents(event_dir)               # TensorBoard: events.write(step, report)

A translation's file name ends in `-STEP`, the training step of the checkpoint
that translated it (as tensor2tensor's t2t-translate-all names them); files are
scored oldest step first, each as `score_files` scores one.
"""

from t2t_lite.errors import UserError
from t2t_lite.metrics.bleu import DEFAULT_LANGUAGE, score_files
from t2t_lite.step_files import numbered_files


def score_translations_dir(translations_dir, reference_paths, language=DEFAULT_LANGUAGE):
  """Yields (step, path, BleuReport) for each translation file, oldest step first.

  UserError when the directory is missing or holds no file named `*-STEP`.
  """
  try:
    found = sorted(numbered_files(translations_dir))
  except OSError as error:
    raise UserError(f"--translations_dir={translations_dir}: {error.strerror}") from None
  if not found:
    raise UserError(f"--translations_dir={translations_dir} holds no translation file named "
                    f"*-STEP")
  for step, path in found:
    yield step, path, score_files(path, reference_paths, language)


class BleuEvents:
  """TensorBoard scalars in `event_dir`: a report's scores (`BleuReport.scores(variant)`,
  tagged BLEU_cased, ...) at the step of its translation."""

  def __init__(self, event_dir, variant="both"):
    import tensorflow as tf
    self._summary = tf.summary
    self._writer = tf.summary.create_file_writer(event_dir)
    self.variant = variant

  def write(self, step, report):
    with self._writer.as_default(step=step):
      for tag, bleu in report.scores(self.variant).items():
        self._summary.scalar(tag, bleu.score)
    self._writer.flush()
