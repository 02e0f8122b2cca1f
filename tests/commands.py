"""Running the installed commands and test scripts as a user does: the one subprocess
helper of the suite (tests that use it are marked `slow`)."""

import os
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


def start(argv, env=None, **kwargs):
  """Starts `argv` with text pipes for stdout and stderr -> subprocess.Popen."""
  return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
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


def error_line(stderr):
  """A command's own error line: the last line of its stderr."""
  return stderr.strip().splitlines()[-1]
