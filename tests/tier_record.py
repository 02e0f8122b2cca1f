"""A test tier's record, written by the run itself: with T2T_TEST_RECORD=PATH (make test
and make test-fast set it), the session's end writes PATH as JSON and says so in a line:
{"tier": "full" or "unit", "seconds", "outcomes": {passed, failed, skipped, ...},
 "slowest_files": {the ten test files of most seconds (set-up, call and tear-down summed,
 over all workers): their seconds}, "workers", "load" (the load averages at the end),
 "date", "machine", "command", "commit"}.
docs/figures/test_tier_full.json is such a record; the README's `make test` minutes are
generated from it (docs/reference_pages.py).
"""

import json
import os
import sys
import time

import pytest

STARTED = pytest.StashKey[float]()
RECORD_VARIABLE = "T2T_TEST_RECORD"
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
SLOWEST_FILES = 10


def tier_of(config):
  return "unit" if config.getoption("markexpr") == "not slow" else "full"


def slowest_files(reporter):
  """{test file: its seconds}, the SLOWEST_FILES slowest, from every report the run made."""
  seconds = {}
  for reports in reporter.stats.values():
    for report in reports:
      if hasattr(report, "duration") and hasattr(report, "nodeid"):
        path = report.nodeid.split("::")[0]
        seconds[path] = seconds.get(path, 0.0) + report.duration
  slowest = sorted(seconds.items(), key=lambda item: -item[1])[:SLOWEST_FILES]
  return {path: round(total) for path, total in slowest}


def record(config, seconds):
  """The record of this session, from the terminal reporter's counts."""
  sys.path.insert(0, DOCS)
  from record_context import commit, load_averages, machine, today
  reporter = config.pluginmanager.get_plugin("terminalreporter")
  outcomes = {outcome: len(reporter.stats.get(outcome, ())) for outcome in OUTCOMES}
  return {"tier": tier_of(config), "seconds": round(seconds),
          "outcomes": {name: count for name, count in outcomes.items() if count},
          "slowest_files": slowest_files(reporter),
          "workers": config.getoption("numprocesses", None) or 1, "load": load_averages(),
          "date": today(), "machine": machine(),
          "command": "make test" if tier_of(config) == "full" else "make test-fast",
          "commit": commit()}


def start(session):
  session.config.stash[STARTED] = time.monotonic()


def finish(session):
  """Writes the record where T2T_TEST_RECORD says, on pytest-xdist's controller (or the
  only process), once the counts are final."""
  path = os.environ.get(RECORD_VARIABLE)
  config = session.config
  if not path or hasattr(config, "workerinput"):
    return
  data = record(config, time.monotonic() - config.stash[STARTED])
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    json.dump(data, f, indent=1)
  minutes, seconds = divmod(data["seconds"], 60)
  counts = ", ".join(f"{count:,} {name}" for name, count in data["outcomes"].items())
  config.pluginmanager.get_plugin("terminalreporter").write_line(
      f"{data['command']}: {minutes}:{seconds:02d}, {counts}; the record: {path}")
