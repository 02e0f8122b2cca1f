"""Every command's flags, generated from dataclass fields: the one module that defines absl
flags, and what every command checks.

    @dataclasses.dataclass(frozen=True)
    class BleuFlags:
      translation: str = setting(None, "Translated text, one sentence a line.")
      variant: str = setting("both", "Which scores.", choices=("cased", "uncased", "both"))
      max_lines: int = setting(None, "Score the first N lines.", minimum=1)   # None: all
      t2t_usr_dir: str = shared("t2t_usr_dir")     # several commands' (cli/shared_settings.py)

    define_flags(BleuFlags)                 # at import: --translation, --variant, ...
    args = flag_values(BleuFlags)           # in main, once absl has parsed the command line
    require(args, translation="the file to score")

A field with help text (`setting`) is a flag of its name, type (int, float: finite, str,
bool, list: comma-separated) and default, listed by --helpfull under the dataclass's module;
`choices` in its metadata makes it an enum flag (`check_choices` checks a built config);
`minimum`, `above` and `maximum` bound a number (`t2t_lite.cli.flag_bounds`: `flag_values`
refuses a value outside them in one line, and the help states them).
Fields without help text are not flags: the caller gives them. A flag several dataclasses
declare is defined once, and must be declared alike (`t2t_lite.cli.shared_settings` declares
the common ones). tensor2tensor's flag names and values are taken too
(`t2t_lite.cli.tensor2tensor_names`).
"""

import dataclasses
import math
import typing

from absl import flags

from t2t_lite.cli import tensor2tensor_names
from t2t_lite.cli.flag_bounds import BOUNDS, check_bounds, check_value, range_text
from t2t_lite.errors import MissingFlag, UserError

_DEFINE = {int: flags.DEFINE_integer, float: flags.DEFINE_float, str: flags.DEFINE_string,
           bool: flags.DEFINE_bool, list: flags.DEFINE_list}
_DECLARED = {}  # flag name -> (type, default, help, choices) it was defined with


_METADATA = {"choices", "bound_hint", *BOUNDS}  # What `setting` takes beside the help.


def setting(default, help_text, **metadata):
  """A dataclass field that is also a flag: its default and help text, and its `choices`
  or its range (`minimum`, `above`, `maximum`, `below`, `bound_hint`:
  `t2t_lite.cli.flag_bounds`)."""
  unknown = set(metadata) - _METADATA
  if unknown:
    raise TypeError(f"setting() takes no {', '.join(sorted(unknown))}")
  return dataclasses.field(default=default, metadata=dict(metadata, help=help_text))


def declared(declarations, name):
  """The `setting` that `declarations[name]` declares: (default, help text[, the rest of
  its `setting` as a dict: its range, its choices]). A table of them declares each setting
  once for every dataclass and library function that takes it (`shared_settings.SHARED`)."""
  default, help_text, *metadata = declarations[name]
  return setting(default, help_text, **(metadata[0] if metadata else {}))


def check_declared(declarations, name, value):
  """UserError, in `check_bounds`'s one line, when `value` is outside the range that
  `declarations[name]` declares: a library function's check of a setting it takes as an
  argument, the same as its command's check of the flag."""
  check_value(name, value, declared(declarations, name))


def flag_help(field):
  """A flag field's help, and the range it declares (`t2t_lite.cli.flag_bounds`)."""
  bounds = range_text(field)
  return field.metadata["help"] + (f" Must be {bounds}." if bounds else "")


def flag_fields(config_class):
  """The fields of `config_class` that are flags."""
  return [field for field in dataclasses.fields(config_class) if "help" in field.metadata]


def declared_flag_names():
  """The flags `define_flags` declared in this process: a command's own and shared ones."""
  return list(_DECLARED)


def define_flags(config_class, module_name=None):
  """Defines an absl flag for each flag field of `config_class` (and tensor2tensor's names
  for it) unless an earlier dataclass declared the same flag alike; a flag declared twice
  differently is a ValueError when the second command is imported. --helpfull lists them
  under `module_name` (default: the dataclass's module)."""
  types = typing.get_type_hints(config_class)
  for field in flag_fields(config_class):
    choices = field.metadata.get("choices")
    declaration = (types[field.name], field.default, flag_help(field), choices)
    aliases = {alias: f"tensor2tensor's name for --{field.name}."
               for alias in tensor2tensor_names.flag_aliases(field.name)}
    for name, text in {field.name: declaration[2], **aliases}.items():
      if _DECLARED.get(name) == declaration:
        continue
      if name in _DECLARED or name in flags.FLAGS:
        raise ValueError(f"--{name} is declared twice differently ({config_class.__name__})")
      _DECLARED[name] = declaration
      _define(name, declaration, text, module_name or config_class.__module__)


def _define(name, declaration, help_text, module):
  kind, default, _, choices = declaration
  if choices:
    values = [*choices, *tensor2tensor_names.FLAG_VALUES.get(name, {})]
    flags.DEFINE_enum(name, default, values, help_text, module_name=module)
  else:
    _DEFINE[kind](name, default, help_text, module_name=module)
  if kind is float:  # absl takes nan and inf; no setting means either.
    flags.register_validator(name, lambda value: value is None or math.isfinite(value),
                             message="not a finite number (nan and inf mean nothing here)")


def flag_values(config_class, **values):
  """A `config_class` of its parsed flags (tensor2tensor's names and values translated) and
  of `values` for the fields that are not flags; UserError for a value outside the range
  its field declares."""
  for field in flag_fields(config_class):
    if field.name not in values:
      values[field.name] = _flag_value(field.name)
  config = config_class(**values)
  check_bounds(config)
  return config


def _flag_value(name):
  """The parsed value of flag `name`, or of the tensor2tensor name given for it."""
  given = {alias: flags.FLAGS[alias].value
           for alias in (name, *tensor2tensor_names.flag_aliases(name))}
  distinct = []  # The values given, once each (a list flag's value is a list).
  for value in given.values():
    if value is not None and value not in distinct:
      distinct.append(value)
  if len(distinct) > 1:
    first, *others = given
    raise UserError(f"--{first} and --{' and --'.join(others)} (tensor2tensor's name for it) "
                    f"disagree; give one")
  value = distinct[0] if distinct else flags.FLAGS[name].value
  values = tensor2tensor_names.FLAG_VALUES.get(name)
  return values.get(value, value) if values else value


def check_choices(config):
  """UserError naming the flag when a field of `config` holds a value outside its choices."""
  for field in dataclasses.fields(config):
    value, choices = getattr(config, field.name), field.metadata.get("choices")
    if choices and value not in choices and not (value is None and field.default is None):
      unset = " (or unset)" if field.default is None else ""
      raise UserError(f"--{field.name}={value} is not one of {', '.join(choices)}{unset}")


def require(config, **why):
  """UserError for the first flag named in `why` that `config` leaves empty:
  `require(args, data_dir="the directory to write into")` -> "--data_dir is required: the
  directory to write into"."""
  for name, reason in why.items():
    if not getattr(config, name):
      raise MissingFlag(name, reason)


def reject_positional(argv):
  """UserError when `argv` (absl's: the program, then what no flag took) holds more.

  A stray word would otherwise be ignored, e.g. a flag missing its `--`.
  """
  if len(argv) > 1:
    raise UserError(f"unexpected arguments {' '.join(argv[1:])}; every option is a --flag")


def flags_used():
  """{name: value} of the flags set on the command line (recorded in the run directory)."""
  return {name: flags.FLAGS[name].value for name in flags.FLAGS if flags.FLAGS[name].present}
