"""Command-line flags declared once, as dataclass fields, and what every command checks.

    @dataclasses.dataclass(frozen=True)
    class TrainConfig:
      train_steps: int = setting(250000, "Total optimizer updates.")
      schedule: str = setting("train", "What to run.", choices=("train", "evaluate"))

    define_flags(TrainConfig)                   # --train_steps, --schedule (absl flags)
    config = config_from_flags(TrainConfig)     # after absl has parsed the command line

A field becomes a flag of its name, type (int, float, str, bool) and default
when its metadata holds help text (`setting`); fields without it are filled
from flags defined elsewhere (e.g. shared by several commands) or from the
caller. Metadata may also hold:
  choices        the values allowed (an enum flag; `check_choices` checks a config);
  value_aliases  {other name: value}: names the flag also takes (tensor2tensor's);
  flag_aliases   {flag name: help}: flags that set the same field (tensor2tensor's
                 names); given with differing values, they are a one-line error.
"""

import dataclasses
import sys
import typing

from absl import flags

from t2t_lite.errors import UserError

_DEFINE = {int: flags.DEFINE_integer, float: flags.DEFINE_float, str: flags.DEFINE_string,
           bool: flags.DEFINE_bool}


def setting(default, help_text, **metadata):
  """A dataclass field that is also a flag: its default and help text (see the module doc)."""
  return dataclasses.field(default=default, metadata=dict(metadata, help=help_text))


def define_flags(config_class, names=None):
  """Defines an absl flag for each field of `config_class` with help text (or each of
  `names`) that no command imported in this process has defined yet; --helpfull lists
  them under the module that calls this."""
  module = sys._getframe(1).f_globals["__name__"]  # The caller, as absl names it.
  types = typing.get_type_hints(config_class)
  for field in dataclasses.fields(config_class):
    if "help" not in field.metadata or (names is not None and field.name not in names):
      continue
    for name, help_text in {field.name: field.metadata["help"],
                            **field.metadata.get("flag_aliases", {})}.items():
      if name in flags.FLAGS:
        continue
      if "choices" in field.metadata:
        choices = [*field.metadata["choices"], *field.metadata.get("value_aliases", {})]
        flags.DEFINE_enum(name, field.default, choices, help_text, module_name=module)
      else:
        _DEFINE[types[field.name]](name, field.default, help_text, module_name=module)


def config_from_flags(config_class, **values):
  """A `config_class` of the parsed flags named as its fields (tensor2tensor's names
  translated), and of `values` for the fields no flag sets."""
  for field in dataclasses.fields(config_class):
    if field.name in values or field.name not in flags.FLAGS:
      continue
    given = {name: flags.FLAGS[name].value
             for name in (field.name, *field.metadata.get("flag_aliases", {}))}
    distinct = {value for value in given.values() if value is not None}
    if len(distinct) > 1:
      first, *others = given
      raise UserError(f"--{first} and --{' and --'.join(others)} (tensor2tensor's name for it) "
                      f"disagree; give one")
    value = distinct.pop() if distinct else flags.FLAGS[field.name].value
    values[field.name] = field.metadata.get("value_aliases", {}).get(value, value)
  return config_class(**values)


def check_choices(config):
  """UserError naming the flag when a field of `config` holds a value outside its choices."""
  for field in dataclasses.fields(config):
    value, choices = getattr(config, field.name), field.metadata.get("choices")
    if choices and value not in choices and not (value is None and field.default is None):
      unset = " (or unset)" if field.default is None else ""
      raise UserError(f"--{field.name}={value} is not one of {', '.join(choices)}{unset}")


def require(purpose, *names):
  """UserError for the first of the flags `names` that was not given."""
  for name in names:
    if not flags.FLAGS[name].value:
      raise UserError(f"--{name} is required {purpose}")


def reject_positional(argv):
  """UserError when `argv` (absl's: the program, then what no flag took) holds more.

  A stray word would otherwise be ignored, e.g. a flag missing its `--`.
  """
  if len(argv) > 1:
    raise UserError(f"unexpected arguments {' '.join(argv[1:])}; every option is a --flag")
