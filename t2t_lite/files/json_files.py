"""Reading the project's own JSON files (a run's hparams.json and run.json, a data
directory's split markers): a damaged one is a one-line error naming the file, the field,
what is wrong with it and what to do, never a JSONDecodeError or a TypeError later on.

    values = read_object(path, remedy="run t2t-datagen again")
    check_field(values, "examples", int, path, remedy)
"""

import json
import math

from t2t_lite.files import file_reading
from t2t_lite.files.file_reading import SMALL_FILE_BYTES, DamagedFile  # noqa: F401 (theirs too)


def read_text(path, remedy, limit=SMALL_FILE_BYTES):
  """The UTF-8 text of `path` (`t2t_lite.files.file_reading`); DamagedFile when it is not a
  regular file, larger than `limit` bytes or not UTF-8."""
  return file_reading.read_text(path, remedy=remedy, limit=limit)


def parse_object(text, path, remedy):
  """JSON text of `path` -> its dict; DamagedFile when the text is empty, not JSON, or
  JSON of something other than an object of fields."""
  if not text.strip():
    raise DamagedFile(path, "is empty", remedy)
  return parse_json(text, path, remedy, dict, "an object of fields")


def parse_json(text, path, remedy, kind, kind_text):
  """JSON text of `path` -> its value, a `kind` (dict, list); DamagedFile when the text is
  not JSON or holds something else ("holds a JSON ..., not `kind_text`")."""
  try:
    values = json.loads(text)
  except ValueError as error:
    raise DamagedFile(path, f"is not valid JSON ({error})", remedy) from None
  except RecursionError:
    raise DamagedFile(path, "is not valid JSON (nested too deeply)", remedy) from None
  if not isinstance(values, kind):
    raise DamagedFile(path, f"holds a JSON {json_type_name(values)}, not {kind_text}", remedy)
  return values


def read_object(path, remedy):
  """`parse_object` of the file at `path`."""
  return parse_object(read_text(path, remedy), path, remedy)


def json_type_name(value):
  """The JSON name of a parsed value's type: "list", "string", "number"..."""
  if value is None:
    return "null"
  if isinstance(value, bool):
    return "boolean"
  if isinstance(value, (int, float)):
    return "number"
  return {str: "string", list: "list", dict: "object"}.get(type(value), type(value).__name__)


def has_type(value, kind):
  """Whether a parsed JSON value is of the Python type `kind` (int excludes booleans; a
  float is any finite number; tuple means a list)."""
  if kind is bool:
    return isinstance(value, bool)
  if kind is int:
    return isinstance(value, int) and not isinstance(value, bool)
  if kind is float:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))
  if kind is tuple:
    return isinstance(value, list)
  return isinstance(value, kind)


TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a finite number",
              str: "a string", tuple: "a list", list: "a list", dict: "an object"}


def check_field(values, name, kind, path, remedy, required=True):
  """The field `name` of `values` (parsed from `path`), of type `kind`; DamagedFile when it
  is missing (and `required`) or of another type. Returns None when absent and optional."""
  if name not in values:
    if required:
      raise DamagedFile(path, f"field '{name}' is missing", remedy)
    return None
  value = values[name]
  if not has_type(value, kind):
    raise DamagedFile(path, f"field '{name}' is {json.dumps(value)[:60]}, not "
                      f"{TYPE_WORDS.get(kind, kind.__name__)}", remedy)
  return value
