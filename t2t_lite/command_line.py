"""What every command checks of its command line after absl has parsed the flags."""

from t2t_lite.errors import UserError


def reject_positional(argv):
  """UserError when `argv` (absl's: the program, then what no flag took) holds more.

  A stray word would otherwise be ignored, e.g. a flag missing its `--`.
  """
  if len(argv) > 1:
    raise UserError(f"unexpected arguments {' '.join(argv[1:])}; every option is a --flag")
