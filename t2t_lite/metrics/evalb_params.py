"""EVALB's parameter (.prm) files: what to delete, what counts as equal, when to give up.

    params = read_params("COLLINS.prm")   # == COLLINS, the standard WSJ setting
    params.delete_labels                  # ("TOP", "-NONE-", ",", ":", "``", "''", ".")

A .prm file holds one `KEY VALUE` per line; lines starting with "#" and lines
shorter than 3 characters are skipped (as EVALB does). Keys (EVALB README [6]):
  DEBUG n                    kept, but no debug listing is printed
  MAX_ERROR n                give up after this many sentence errors (see evalb.py)
  CUTOFF_LEN n               the second summary block covers sentences of length <= n
  LABELED 0|1                1: a bracket must match label and span; 0: span only
  DELETE_LABEL label         ignore this label: a POS tag deletes its word too,
                             a constituent label deletes only the bracket
  DELETE_LABEL_FOR_LENGTH t  words tagged t do not count in a sentence's length
  QUOTE_LABEL tag            tags a quote word may be confused with (EVALB 2006 fix)
  EQ_LABEL a b               labels a and b are equal (both ways)
  EQ_WORD a b                words a and b are equal (both ways)
"""

import dataclasses

from t2t_lite.data.text_files import read_lines
from t2t_lite.errors import UserError


@dataclasses.dataclass(frozen=True)
class EvalbParams:
  """One .prm file's settings. Defaults are EVALB's own, before any .prm is read."""

  debug: int = 0
  max_error: int = 10
  cutoff_len: int = 40
  labeled: bool = True
  delete_labels: tuple = ()             # (label, ...)
  delete_labels_for_length: tuple = ()  # (tag, ...)
  quote_labels: tuple = ()              # (tag, ...)
  eq_labels: tuple = ()                 # ((label, label), ...)
  eq_words: tuple = ()                  # ((word, word), ...)

  def labels_equal(self, a, b):
    return a == b or (a, b) in self.eq_labels or (b, a) in self.eq_labels

  def words_equal(self, a, b):
    return a == b or (a, b) in self.eq_words or (b, a) in self.eq_words


# EVALB's COLLINS.prm: the setting of Collins (1997) and of every WSJ F1 since.
COLLINS = EvalbParams(
    delete_labels=("TOP", "-NONE-", ",", ":", "``", "''", "."),
    delete_labels_for_length=("-NONE-",),
    eq_labels=(("ADVP", "PRT"),),
)

# KEY -> (field, kind): "int", "bool", "one" (a label, appended), "pair" (appended).
_KEYS = {
    "DEBUG": ("debug", "int"),
    "MAX_ERROR": ("max_error", "int"),
    "CUTOFF_LEN": ("cutoff_len", "int"),
    "LABELED": ("labeled", "bool"),
    "DELETE_LABEL": ("delete_labels", "one"),
    "DELETE_LABEL_FOR_LENGTH": ("delete_labels_for_length", "one"),
    "QUOTE_LABEL": ("quote_labels", "one"),
    "EQ_LABEL": ("eq_labels", "pair"),
    "EQ_WORD": ("eq_words", "pair"),
}


def read_params(path):
  """The `EvalbParams` of the .prm file at `path`; one-line UserError on a bad or unknown line."""
  return parse_params(list(read_lines(path, "EVALB parameter file")), source=path)


def parse_params(lines, source="<params>"):
  """The `EvalbParams` of .prm text given as lines; see `read_params`."""
  values = dataclasses.asdict(EvalbParams())
  for number, line in enumerate(lines, start=1):
    line = line.rstrip()
    if line.startswith("#") or len(line) < 3:
      continue
    key, *args = line.split()
    where = f"{source}: line {number}"
    if key not in _KEYS:
      raise UserError(f"{where}: unknown EVALB parameter '{key}'; known: {', '.join(_KEYS)}")
    field, kind = _KEYS[key]
    wanted = 2 if kind == "pair" else 1
    if len(args) != wanted:
      raise UserError(f"{where}: {key} takes {wanted} value{'s' if wanted > 1 else ''}, "
                      f"got {len(args)}: '{line.strip()}'")
    if kind in ("int", "bool"):
      try:
        number_value = int(args[0])
      except ValueError:
        raise UserError(f"{where}: {key} needs an integer, got '{args[0]}'") from None
      if kind == "bool" and number_value not in (0, 1):
        raise UserError(f"{where}: {key} must be 0 or 1, got {number_value}")
      if kind == "int" and number_value < 0:
        raise UserError(f"{where}: {key} must not be negative, got {number_value}")
      values[field] = bool(number_value) if kind == "bool" else number_value
    else:
      values[field] = values[field] + ((args[0],) if kind == "one" else (tuple(args),))
  return EvalbParams(**values)
