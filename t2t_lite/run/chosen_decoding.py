"""A run directory's decoding chosen on dev: RUN/decoding.json (`run_layout.DECODING_FILE`).

    write_chosen_decoding(output_dir, "alpha=1.4", {"by": "t2t-avg-all", ...})
    chosen = read_chosen_decoding(output_dir)  # "alpha=1.4", or "" without the file

t2t-avg-all writes it beside the average (`t2t_lite.training.alpha_choice`); t2t-decoder
and t2t-exporter decode the run with it over the problem's defaults, and --decode_hparams
over both (`t2t_lite.decoding.decode_hparams.decode_hparams_for`).
"""

import json
import os

from t2t_lite.decoding.decode_hparams import DecodeHParams, overridden
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import write_text_atomic
from t2t_lite.files.json_files import DamagedFile, check_field, read_object
from t2t_lite.run.run_layout import DECODING_FILE

REMEDY = "run t2t-avg-all again, or delete the file to decode with the problem's defaults"


def write_chosen_decoding(output_dir, decode_hparams, why):
  """Writes RUN/decoding.json: `decode_hparams` (as --decode_hparams takes them) and `why`
  (a dict: how they were chosen)."""
  text = json.dumps({"decode_hparams": decode_hparams, "why": why}, indent=2)
  write_text_atomic(os.path.join(output_dir, DECODING_FILE), text)


def read_chosen_decoding(output_dir):
  """RUN/decoding.json's decode_hparams ("" when the run has none); DamagedFile, naming the
  file, when it does not read or names a setting decoding does not take."""
  path = os.path.join(output_dir, DECODING_FILE)
  if not os.path.lexists(path):
    return ""
  values = read_object(path, REMEDY)
  check_field(values, "decode_hparams", str, path, REMEDY)
  try:
    overridden(DecodeHParams(), values["decode_hparams"])
  except UserError as error:  # An unknown setting, a malformed one, or one out of range.
    raise DamagedFile(path, f"holds decode_hparams that do not read ({error})", REMEDY) from None
  return values["decode_hparams"]
