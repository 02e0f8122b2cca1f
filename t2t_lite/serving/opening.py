"""What t2t-serve serves, found from its flags: a SavedModel, a CTranslate2 export, or runs.

    source = model_source(model_base_path, output_dir)   # checked before the server starts
    served = source.open(...)                             # the `ServedModel` (slow: loads it)

--model_base_path is TensorFlow Serving's: a base path holding numbered versions (BASE/1,
BASE/2, ...), the newest of which is served, as TensorFlow Serving does; or one export
directory itself (version 1). A version's folder is named in ASCII digits; others beside
them (`tmp/`, `²/`) are ignored, as TensorFlow Serving ignores them. An export is
t2t-exporter's SavedModel (saved_model.pb) or its CTranslate2 directory (model.bin and
config.json). --output_dir is a run directory or several, comma-separated, as t2t-decoder
takes them.
"""

import dataclasses
import os
import re

from t2t_lite.errors import UserError

SAVED_MODEL, CTRANSLATE2, RUNS = "SavedModel", "CTranslate2", "runs"
VERSION = re.compile(r"[0-9]+")  # Not str.isdigit, which takes "²" (and int() refuses it).


@dataclasses.dataclass(frozen=True)
class ModelSource:
  """kind: SAVED_MODEL, CTRANSLATE2 or RUNS; path: the export directory (or --output_dir);
  version: the version served (1 where there are no numbered versions)."""
  kind: str
  path: str
  version: int = 1

  @property
  def description(self):
    """What is served, in words, e.g. "the SavedModel /srv/serving/2 (version 2)"."""
    if self.kind == RUNS:
      return f"the run{'s' if ',' in self.path else ''} {self.path}"
    return f"the {self.kind} export {self.path} (version {self.version})"

  def open(self, checkpoint_path, decode_hparams, length_penalty, max_batch_size,
           num_batch_threads):
    """The `ServedModel` (loads the weights; UserError for what a user can fix)."""
    if self.kind == RUNS:
      from t2t_lite.serving.run_served import ServedRuns
      return ServedRuns(self.path, checkpoint_path, decode_hparams, max_batch_size)
    if checkpoint_path:
      raise UserError("--checkpoint_path goes with --output_dir; an export holds the weights "
                      "it was exported with")
    if self.kind == CTRANSLATE2:
      from t2t_lite.serving.ctranslate2_served import ServedCTranslate2
      return ServedCTranslate2.from_flags(self.path, self.version, decode_hparams,
                                          length_penalty, max_batch_size, num_batch_threads)
    if decode_hparams:
      raise UserError("a SavedModel decodes with the settings it was exported with; pass "
                      "--decode_hparams to t2t-exporter instead")
    from t2t_lite.serving.saved_model_served import ServedSavedModel
    return ServedSavedModel(self.path, self.version)


def model_source(model_base_path, output_dir):
  """The `ModelSource` of the flags; UserError when there is none, or both, or the path
  holds no model."""
  if bool(model_base_path) == bool(output_dir):
    raise UserError("pass exactly one of --model_base_path=EXPORT (t2t-exporter's SavedModel "
                    "or CTranslate2 directory, or a base path of numbered versions of one) and "
                    "--output_dir=RUN (a run directory, or several for an ensemble)")
  if output_dir:
    return ModelSource(RUNS, output_dir)
  path = os.path.abspath(model_base_path)
  if not os.path.isdir(path):
    raise UserError(f"--model_base_path={model_base_path} is not a directory; pass "
                    f"t2t-exporter's export directory, or a base path of numbered versions")
  kind = _export_kind(path)
  if kind:
    return ModelSource(kind, path)
  versions = sorted((int(name), name) for name in os.listdir(path)
                    if VERSION.fullmatch(name) and os.path.isdir(os.path.join(path, name)))
  if not versions:
    raise UserError(f"--model_base_path={model_base_path} holds no export (saved_model.pb, or "
                    f"CTranslate2's model.bin) and no numbered versions (1/, 2/, ...)")
  version, name = versions[-1]  # The name as it is: "007" is version 7.
  newest = os.path.join(path, name)
  kind = _export_kind(newest)
  if kind is None:
    raise UserError(f"{newest}, the newest version of --model_base_path, holds no export "
                    f"(saved_model.pb, or CTranslate2's model.bin); export into it with "
                    f"t2t-exporter --export_dir={newest}")
  return ModelSource(kind, newest, version)


def _export_kind(path):
  """SAVED_MODEL or CTRANSLATE2 for an export directory, None for any other."""
  if os.path.isfile(os.path.join(path, "saved_model.pb")):
    return SAVED_MODEL
  if all(os.path.isfile(os.path.join(path, name)) for name in ("model.bin", "config.json")):
    return CTRANSLATE2
  return None
