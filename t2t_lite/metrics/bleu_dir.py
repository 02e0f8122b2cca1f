"""t2t-bleu --translations_dir: BLEU of each translation of a directory, step by step.

    for step, path, report in score_translations_dir("translations", ["newstest2014.de"]):
      ...
    events = BleuEvents(event_dir)               # TensorBoard: events.write(step, report)

A translation's file name ends in `-STEP`, the training step of the checkpoint
that translated it (as tensor2tensor's t2t-translate-all names them); files are
scored oldest step first, each as `score_files` scores one.
"""

import os

from t2t_lite import quiet
from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import require_file
from t2t_lite.files.step_files import _STEP_SUFFIX, numbered_files
from t2t_lite.metrics.bleu import DEFAULT_LANGUAGE, score_files


def score_translations_dir(translations_dir, reference_paths, language=DEFAULT_LANGUAGE):
  """Yields (step, path, BleuReport) for each translation file, oldest step first.

  UserError when the directory is missing or its files are not fit (`translation_files`).
  """
  found = translation_files(translations_dir)
  for step, path in found:
    yield step, path, score_files(path, reference_paths, language)


# The largest step a TensorBoard event records (an int64).
MAX_STEP = 2 ** 63 - 1


def translation_files(translations_dir):
  """[(step, path)] of the translation files of translations_dir, oldest step first; a
  UserError, before any is scored, when there is none, when an entry named `*-STEP` is not
  a readable file (a dangling link, a directory), or when a step is beyond MAX_STEP."""
  try:
    found = sorted(numbered_files(translations_dir))
    names = sorted(os.listdir(translations_dir))
  except OSError as error:
    raise UserError(f"--translations_dir={translations_dir}: {error.strerror}") from None
  for name in names:  # Entries numbered_files leaves out for not being files.
    if _STEP_SUFFIX.search(name):
      require_file(os.path.join(translations_dir, name), "translation file")
  if not found:
    raise UserError(f"--translations_dir={translations_dir} holds no translation file named "
                    f"*-STEP")
  for step, path in found:
    if step > MAX_STEP:
      raise UserError(f"translation file {path}: its step {step} is beyond the largest step "
                      f"TensorBoard records ({MAX_STEP}); name it after the training step "
                      f"that translated it")
  return found


class BleuEvents:
  """TensorBoard scalars in `event_dir`: a report's scores (`BleuReport.scores(variant)`,
  tagged BLEU_cased, ...) at the step of its translation."""

  def __init__(self, event_dir, variant="both"):
    tf = quiet.import_tensorflow()  # Without its start-up chatter.
    self._summary = tf.summary
    self._writer = tf.summary.create_file_writer(event_dir)
    self.variant = variant

  def write(self, step, report):
    with self._writer.as_default(step=step):
      for tag, bleu in report.scores(self.variant).items():
        self._summary.scalar(tag, bleu.score)
    self._writer.flush()
