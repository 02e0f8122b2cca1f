"""Running the commands as a user does: in this process (`call`, what most tests use), or
as subprocesses (`run_command`, `run_script`, `start`: tests that use them are `slow`)."""

import contextlib
import importlib
import io
import os
import re
import subprocess
import sys

BIN = os.path.dirname(sys.executable)
TESTS = os.path.dirname(__file__)


def command_path(tool):
  """The console script `tool` (e.g. "t2t-trainer") of this installation."""
  return os.path.join(BIN, tool)


def environment(**extra):
  """The test process's environment without TF_CONFIG, plus `extra`."""
  env = dict(os.environ, **extra)
  env.pop("TF_CONFIG", None)
  return env


def start(argv, env=None, merge_stderr=False, **kwargs):
  """Starts `argv` with text pipes for stdout and stderr (or one pipe for both, with
  `merge_stderr`) -> subprocess.Popen."""
  stderr = subprocess.STDOUT if merge_stderr else subprocess.PIPE
  return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, text=True,
                          env=env or environment(), **kwargs)


def run(argv, stdin=None, env=None, timeout=600, **kwargs):
  """Runs `argv` to completion -> subprocess.CompletedProcess with text output."""
  return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout,
                        env=env or environment(), **kwargs)


def run_command(tool, *args, **kwargs):
  """Runs the console script `tool` with `args` (see `run`)."""
  return run([command_path(tool), *map(str, args)], **kwargs)


def run_script(name, *args, **kwargs):
  """Runs the Python script tests/`name` with this interpreter (see `run`)."""
  return run([sys.executable, os.path.join(TESTS, name), *map(str, args)], **kwargs)


def read_until(process, pattern):
  """The first match of `pattern` in the output lines of `process` (started with text
  pipes), failing with its last output if it ends first."""
  lines = []
  for line in process.stdout:
    lines.append(line)
    match = re.search(pattern, line)
    if match:
      return match
  raise AssertionError(f"{process.args[0]} ended: " + "".join(lines)[-3000:])


def newcomer_environment():
  """The environment of a user who set nothing for TensorFlow's logging."""
  env = environment()
  env.pop("TF_CPP_MIN_LOG_LEVEL", None)
  return env


# Lines TensorFlow, tensorflow-text and SentencePiece print unless the commands hide them.
SIGNS_OF_CHATTER = ("absl::InitializeLog", "cudart_stub", "cuInit", "cpu_feature_guard",
                    "normalizer.cc", "Sharding callback duration")


def assert_quiet(stderr):
  for sign in SIGNS_OF_CHATTER:
    assert sign not in stderr, stderr[-2000:]


def one_line_error(call):
  """The message of the UserError `call()` raises, checked to be one line."""
  import pytest
  from t2t_lite.errors import UserError
  with pytest.raises(UserError) as caught:
    call()
  message = str(caught.value)
  assert "\n" not in message
  return message


def error_line(stderr):
  """A command's own error line: the last line of its stderr."""
  return stderr.strip().splitlines()[-1]


def call(tool, *args, stdin=""):
  """Runs the command `tool` (e.g. "t2t-decoder") in this process as `tool ARGS` would
  run -> subprocess.CompletedProcess with its exit status and its Python-level output
  (absl's log lines included). Flags are parsed afresh and reset afterwards."""
  from absl import flags
  from absl import logging as absl_logging
  from t2t_lite.bin import common
  module = importlib.import_module(f"t2t_lite.bin.{tool.replace('-', '_')}")
  argv = [tool, *map(str, args)]
  with _captured_output(stdin) as (out, err):
    try:
      parsed = common.parse_flags(argv, tool)
    except SystemExit as exit_:
      code = exit_.code
    else:
      absl_logging.set_verbosity(absl_logging.INFO)  # What absl's app.run leaves set.
      try:
        code = common.call_main(module.main, parsed, tool, getattr(module.run, "registries", True))
      except SystemExit as exit_:
        code = exit_.code
    finally:
      flags.FLAGS.unparse_flags()
  return subprocess.CompletedProcess(argv, code or 0, out.getvalue(), err.getvalue())


def status_and_output(tool, *args):
  """`call(tool, *args)` -> (exit status, stdout, stderr)."""
  result = call(tool, *args)
  return result.returncode, result.stdout, result.stderr


@contextlib.contextmanager
def _captured_output(stdin):
  """sys.stdin reads `stdin`; sys.stdout, sys.stderr and absl's log lines go to two
  StringIO objects, yielded as (stdout, stderr)."""
  from absl import logging
  logging.use_absl_handler()
  handler = logging.get_absl_handler().python_handler
  out, err = io.StringIO(), io.StringIO()
  saved = sys.stdin, sys.stdout, sys.stderr, handler.stream
  stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
  sys.stdin, sys.stdout, sys.stderr, handler.stream = stdin, out, err, err
  try:
    yield out, err
  finally:
    sys.stdin, sys.stdout, sys.stderr, handler.stream = saved
