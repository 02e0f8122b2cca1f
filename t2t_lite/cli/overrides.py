"""tensor2tensor's override strings, `"a=1,b=0.2,c=True"`, typed by a dataclass's fields.

Used for `--hparams` (HParams) and `--decode_hparams` (DecodeHParams).
"""

import dataclasses
import math
import typing

from t2t_lite.errors import UserError


def field_types(config_class):
  """{field name: its Python type} of a dataclass."""
  hints = typing.get_type_hints(config_class)
  return {f.name: hints[f.name] for f in dataclasses.fields(config_class)}


def parse_overrides(overrides, config_class, flag="--hparams"):
  """`"a=1,b=0.2,c=True"` -> {"a": 1, "b": 0.2, "c": True}, each parsed with its field's type.

  An unknown name or a bad value is a one-line UserError naming `flag`, the
  name, and the valid names.
  """
  types = field_types(config_class)
  parsed = {}
  for item in filter(None, (part.strip() for part in (overrides or "").split(","))):
    key, sep, text = item.partition("=")
    key, text = key.strip(), text.strip()
    if not sep or not key:
      raise UserError(f"{flag}: '{item}' is not of the form name=value")
    if key not in types:
      raise UserError(f"{flag}: unknown name '{key}'; valid names: {', '.join(sorted(types))}")
    parsed[key] = _parse_value(flag, key, text, types[key])
  return parsed


def _parse_value(flag, key, text, kind):
  if kind is bool:
    lowered = text.lower()
    if lowered in ("true", "1", "yes"):
      return True
    if lowered in ("false", "0", "no"):
      return False
    raise UserError(f"{flag}: {key}={text} is not a bool; use True or False")
  if kind is str:
    return text
  try:
    value = kind(text)
  except ValueError:
    raise UserError(f"{flag}: {key}={text} is not a valid {kind.__name__}") from None
  if kind is float and not math.isfinite(value):
    raise UserError(f"{flag}: {key}={text} is not a finite number")
  return value
