"""The Multi30k scripts' own logic, without their hours of training: bad settings are
refused before anything starts; docs/reproduce_multi30k_ensemble.sh, with a stand-in for
its member script (docs/reproduce_multi30k.sh), stops a round at its first failed member,
and its members when it is stopped."""

import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow  # Every test runs the scripts in bash.

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join("docs", "reproduce_multi30k_ensemble.sh")
MEMBER_SCRIPT = os.path.join("docs", "reproduce_multi30k.sh")

# The member stand-in: writes its pid, then fails at once (seed FAIL_SEED) or sleeps.
MEMBER = """#!/usr/bin/env bash
echo $$ > "$2.pid"
[ "$SEED" = "${FAIL_SEED:-}" ] && exit 3
sleep 300
"""


@pytest.fixture
def project(tmp_path):
  """A folder with the ensemble script, the stand-in member script and the script's
  record_context.py in docs/, and a .venv/bin/python (it keeps the commit trained)."""
  docs = tmp_path / "docs"
  docs.mkdir()
  shutil.copy(os.path.join(PROJECT, SCRIPT), docs)
  shutil.copy(os.path.join(PROJECT, "docs", "record_context.py"), docs)
  (tmp_path / ".venv" / "bin").mkdir(parents=True)
  (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
  member = docs / "reproduce_multi30k.sh"
  member.write_text(MEMBER)
  member.chmod(member.stat().st_mode | stat.S_IXUSR)
  return tmp_path


def start(project, *arguments, script=SCRIPT, **settings):
  env = dict(os.environ, **{name: str(value) for name, value in settings.items()})
  return subprocess.Popen(["bash", script, "ende_lc", "runs", *arguments], cwd=project,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def member_pids(project, seeds, timeout=30):
  """The stand-ins' pids, once every one of `seeds` has written its own."""
  paths = [project / "runs" / f"seed{seed}.pid" for seed in seeds]
  deadline = time.monotonic() + timeout
  while not all(path.exists() and path.read_text().strip() for path in paths):
    assert time.monotonic() < deadline, "the members did not start"
    time.sleep(0.1)
  return [int(path.read_text()) for path in paths]


def gone(pid, timeout=30):
  """Whether the process ends (or is left a zombie, which no one may reap) within timeout."""
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    try:
      with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
        state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
      return True
    if state == "Z":
      return True
    time.sleep(0.1)
  return False


@pytest.mark.parametrize("settings, message", [
    ({"MEMBERS": "0"}, "MEMBERS must be a positive count"),
    ({"FIRST_SEED": "08"}, "FIRST_SEED must be a seed"),
    ({"MEMBERS": "2", "RIGHT_TO_LEFT": "2"}, "RIGHT_TO_LEFT must be a count below MEMBERS=2"),
    ({"MEMBERS": "2", "RIGHT_TO_LEFT": "1", "BEAM": "1"}, "BEAM must be a beam size (2 or more"),
    ({"BEAM": "five"}, "BEAM must be a beam size"),
])
def test_bad_settings_are_refused_before_any_member_starts(project, settings, message):
  finished = start(project, **settings)
  _, stderr = finished.communicate(timeout=60)
  assert finished.returncode == 2 and message in stderr, stderr
  assert not (project / "runs").exists() or not list((project / "runs").glob("seed*"))


@pytest.mark.parametrize("settings, message", [
    ({"BEAM": "five"}, "BEAM must be a beam size, not 'five'"),
    ({"ALPHA": "-1"}, "ALPHA must be a number >= 0"),
    ({"PRECISION": "float16"}, "PRECISION must be float32 or bfloat16"),
])
def test_the_member_script_refuses_bad_settings_before_its_data(tmp_path, settings, message):
  (tmp_path / "docs").mkdir()
  shutil.copy(os.path.join(PROJECT, MEMBER_SCRIPT), tmp_path / "docs")
  finished = start(tmp_path, "tiny", script=MEMBER_SCRIPT, **settings)
  _, stderr = finished.communicate(timeout=60)
  assert finished.returncode == 2 and message in stderr, stderr
  assert not (tmp_path / "runs").exists()


def test_a_failed_member_stops_its_round_at_once(project):
  script = start(project, MEMBERS=2, FAIL_SEED=2)
  survivor, _ = member_pids(project, [1, 2])
  _, stderr = script.communicate(timeout=60)  # The survivor would sleep for 300 s.
  assert script.returncode == 1 and "a seed's run failed" in stderr, stderr
  assert gone(survivor)


def test_stopping_the_script_stops_its_members(project):
  script = start(project, MEMBERS=2)
  members = member_pids(project, [1, 2])
  script.send_signal(signal.SIGTERM)
  script.communicate(timeout=60)
  assert script.returncode == 130
  assert all(gone(pid) for pid in members)
