"""The record of one `make demo`, as data: DEMO_DIR/record.json, and its one line.

    python docs/demo_record.py --demo_dir=demo_output

`make demo` notes the time of each phase's end in DEMO_DIR/timeline.tsv ("NAME SECONDS"
lines: start, prepared (install and data), trained, translated, evaluated; "installed" 1
when .venv was already there at the start, 0 when this run installed it) and keeps its
last evaluation's output in DEMO_DIR/evaluate.log. This writes
{"figure": the whole dev split's greedy sacreBLEU, "metric", "steps", "seconds" (in all),
 "phases": {name: seconds}, "installed_before", "load" (the load averages over 1, 5 and 15
 minutes at the end), "date", "machine", "command", "commit"}.
docs/figures/demo_ding.json is such a record; the README's and the Makefile's demo
duration and BLEU are read from it (tests/test_docs.py).
"""

import argparse
import json
import os
import re
import sys

from record_context import commit, load_averages, machine, today

PHASES = ("prepared", "trained", "translated", "evaluated")
EVAL_LINE = re.compile(r"^eval at step (\d+): .*\(\d+ tokens\), (\w+) ([0-9.]+)")


def timeline(path):
  """{name: seconds since the epoch} of the "NAME SECONDS" lines."""
  with open(path, encoding="utf-8") as f:
    return {name: int(value) for name, value in (line.split() for line in f if line.strip())}


def last_evaluation(path):
  """(step, metric name, value) of the last decoded evaluation line in `path`."""
  with open(path, encoding="utf-8") as f:
    matches = [EVAL_LINE.match(line) for line in f]
  found = [match for match in matches if match]
  if not found:
    raise ValueError(f"{path}: no evaluation line with a decoded metric")
  step, name, value = found[-1].groups()
  return int(step), name, float(value)


def record(demo_dir):
  times = timeline(os.path.join(demo_dir, "timeline.tsv"))
  step, name, value = last_evaluation(os.path.join(demo_dir, "evaluate.log"))
  previous, phases = times["start"], {}
  for phase in PHASES:
    phases[phase] = times[phase] - previous
    previous = times[phase]
  return {"figure": value, "metric": f"greedy {name} (sacreBLEU) of the whole dev split",
          "steps": step, "seconds": times["evaluated"] - times["start"], "phases": phases,
          "installed_before": bool(times.get("installed", 0)), "load": load_averages(),
          "date": today(), "machine": machine(), "command": "make demo", "commit": commit()}


def minutes_and_seconds(seconds):
  return f"{seconds // 60}:{seconds % 60:02d}"


def main(argv):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--demo_dir", required=True)
  args = parser.parse_args(argv[1:])
  try:
    data = record(args.demo_dir)
  except (OSError, ValueError, KeyError) as error:
    print(f"demo_record.py: error: no record written: {error}", file=sys.stderr)
    return 1
  path = os.path.join(args.demo_dir, "record.json")
  with open(path, "w", encoding="utf-8") as f:
    json.dump(data, f, indent=1, ensure_ascii=False)
  print(f"make demo: {minutes_and_seconds(data['seconds'])} in all (training "
        f"{minutes_and_seconds(data['phases']['trained'])}), whole-dev greedy BLEU "
        f"{data['figure']:.2f}; the record: {path}")
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
