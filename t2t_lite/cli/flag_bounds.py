"""The range a setting declares on its field, and the one check of it.

    keep_checkpoint_max: int = setting(20, "Checkpoints kept.", minimum=1)
    window: float = setting(0.1, "...", above=0, maximum=1, bound_hint="1: the whole run")
    label_smoothing: float = bounded(0.1, minimum=0, below=1)   # an --hparams field

`minimum` and `maximum` are inclusive, `above` and `below` exclusive. `check_bounds(config)`
refuses the first value outside its field's range in one line, "--keep_checkpoint_max=0:
it must be at least 1", with the field's `bound_hint` after it in brackets; a None value (a
setting left unset) is never refused, nan always is, and so is a value that is no number
(a library caller's "4"). A setting given inside another flag's text (--hparams,
--decode_hparams) is named as that flag's lines name it (`name_format`: "hparams {}").
`command_line.flag_values` checks every command's flags; a flags dataclass the library
also builds from Python checks itself in its `__post_init__`, and a library function
taking a setting as an argument checks it with `check_value`
(`command_line.check_declared`). --help and the reference pages state the range
(`range_text`).
"""

import dataclasses
import numbers
import operator

from t2t_lite.errors import UserError

# Metadata key -> (how a value and the bound must compare, how the bound reads).
BOUNDS = {"minimum": (operator.ge, "at least"), "above": (operator.gt, "more than"),
          "maximum": (operator.le, "at most"), "below": (operator.lt, "below")}


def bounded(default, **bounds):
  """A dataclass field with a default and a range (BOUNDS' keys, `bound_hint`), for
  settings that are no flag of their own (--hparams' fields, --decode_hparams')."""
  unknown = set(bounds) - set(BOUNDS) - {"bound_hint"}
  if unknown:
    raise TypeError(f"bounded() takes no {', '.join(sorted(unknown))}")
  return dataclasses.field(default=default, metadata=bounds)


def range_text(field):
  """"at least 1", "more than 0 and at most 1": the range `field` declares; "" for none."""
  return " and ".join(f"{words} {_shown(field.metadata[key])}"
                      for key, (_, words) in BOUNDS.items() if key in field.metadata)


def check_bounds(config, name_format="--{}"):
  """UserError naming the first field of `config` whose value is outside its range;
  `name_format`: how the line names a field ("--{}": as a flag)."""
  for field in dataclasses.fields(config):
    check_value(field.name, getattr(config, field.name), field, name_format)


def check_value(name, value, field, name_format="--{}"):
  """UserError, "--name=value: it must be ...", when `value` given for the setting `name`
  is outside the range `field` (a `setting`, in a dataclass or not) declares."""
  bounds = [key for key in BOUNDS if key in field.metadata]
  setting = name_format.format(name)
  if bounds and value is not None and not isinstance(value, numbers.Real):
    raise UserError(f"{setting}={value!r}: it must be a number, {range_text(field)}")
  if value is None or all(BOUNDS[key][0](value, field.metadata[key]) for key in bounds):
    return
  hint = field.metadata.get("bound_hint")
  raise UserError(f"{setting}={_shown(value)}: it must be {range_text(field)}"
                  + (f" ({hint})" if hint else ""))


def _shown(number):
  """A number as the user would type it: 0.5, 60, 1e-05."""
  return f"{number:g}" if isinstance(number, float) else str(number)
