"""What every entry point shares: quiet TensorFlow, registries (with --t2t_usr_dir) and
one-line errors."""

import dataclasses
import os
import signal
import sys

from absl import app
from absl import flags

from t2t_lite import quiet
from t2t_lite.cli.command_line import declared_flag_names, define_flags, flag_values
from t2t_lite.cli.shared_settings import shared
from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import reporting_file_errors
from t2t_lite.registry import check_usr_dir, load_registries
from t2t_lite.training.stop_requests import StoppedBySignal


@dataclasses.dataclass(frozen=True)
class CommonFlags:
  """The flags every command takes."""
  t2t_usr_dir: str = shared("t2t_usr_dir")


define_flags(CommonFlags)


def entry_point(main, registries=True):
  """The function a console script calls: runs `main(argv)` under absl and exits with what
  `call_main` returns.

  registries: load TensorFlow quietly, then the problems, hparams sets and models (and
    --t2t_usr_dir); False: only check that --t2t_usr_dir, when given, is a folder Python can import.
    The function keeps it as its attribute `registries`.
  """
  def run():
    program = os.path.basename(sys.argv[0])
    for name in declared_flag_names():  # absl's help lists the main module's flags alone.
      flags.FLAGS.register_key_flag_for_module(sys.argv[0], flags.FLAGS[name])
    if HELP_ARGUMENTS & set(sys.argv[1:]):
      print_help(main)
      sys.exit(0)
    app.run(lambda argv: call_main(main, argv, program, registries),
            flags_parser=lambda argv: parse_flags(argv, program))
  run.registries = registries
  return run


# What asks for help; absl's own answer names no flag of the command and exits with 1.
HELP_ARGUMENTS = {"--help", "-help", "-h", "--helpshort", "-helpshort", "-?"}


def print_help(main):
  """The command's docstring and its flags, on stdout."""
  print(sys.modules[main.__module__].__doc__.strip(), end="\n\n")
  print(flags.FLAGS.main_module_help())
  print("\n--helpfull lists every flag, absl's and TensorFlow's too.")


def parse_flags(argv, program):
  """absl's flag parsing -> the arguments left. A flag it refuses (unknown, or a value of
  the wrong kind) prints one line `program: error: ...` and exits with 2, as a UserError
  does (absl's own way: two lines and 1)."""
  try:
    return flags.FLAGS(argv)
  except flags.Error as error:
    print(f"{program}: error: {error} (see {program} --helpshort)", file=sys.stderr)
    sys.exit(2)


def call_main(main, argv, program, registries=True):
  """`main(argv)` once absl has parsed the flags -> the exit status: a `UserError` (or a
  file-system failure) prints one line `program: error: ...` and gives 2; a run stopped
  by a signal (after saving) prints its one line and gives 128 + the signal's number; a
  closed standard output (`| head`) ends it quietly with 128 + SIGPIPE."""
  try:
    usr_dir = flag_values(CommonFlags).t2t_usr_dir
    if registries:
      quiet.import_tensorflow()
      load_registries(usr_dir)
    elif usr_dir:  # A command that looks nothing up still refuses a wrong path.
      check_usr_dir(usr_dir)
    return reporting_file_errors(main)(argv)
  except UserError as error:
    print(f"{program}: error: {error}", file=sys.stderr)
    return 2
  except StoppedBySignal as stopped:  # Saved first: 128 + the signal, not 0 (finished).
    print(f"{program}: {stopped}", file=sys.stderr)
    return stopped.exit_status
  except KeyboardInterrupt:
    print(f"{program}: interrupted", file=sys.stderr)
    return 130
  except BrokenPipeError:  # Whatever read stdout stopped (`| head`): stop as Unix tools do.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's last flush.
    return 128 + signal.SIGPIPE
