"""Records of the benchmark tables that `python -m bench` does not keep in
docs/benchmarks.json: the GPU section (`python -m bench.gpu` writes it and its record),
TensorFlow's rows on a GPU (bench/gpu/run_tf_on_device.sh's stages print them and save
--json; `python -m bench.gpu --from_json=... --output=- --record=NAME` writes their record)
and CPU serving (`python -m bench.ctranslate2_decoding --document`). Each is
docs/figures/bench_<name>.json:

    {"tables": [Table fields, ...], "date", "machine": [lines], "command", "commit",
     "minutes", "source"}

`source` says how the tables came into the record: written by the program that measured
them, or transcribed from what it printed, for runs made before records were kept.
tests/test_bench_document.py fails when a table of docs/benchmarks.md is neither one of
benchmarks.json's nor one of these records'.
"""

import dataclasses
import glob
import json
import os
import sys

from t2t_lite.files.atomic_files import write_text_atomic

# The records' date and commit come from docs/record_context.py, as every figure record's.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "docs"))
from record_context import commit as checkout_commit, today  # noqa: E402

PREFIX = "bench_"
WRITTEN = "written by the program that measured the tables"


def figures_folder(document):
  """The records' folder beside `document` (docs/benchmarks.md -> docs/figures)."""
  return os.path.join(os.path.dirname(os.path.abspath(document)), "figures")


def write_record(folder, name, tables, machine_lines, command, minutes, date=None,
                 commit=None, source=WRITTEN):
  """Writes folder/bench_<name>.json for `tables` (bench.report.Table) -> its path.
  `date`, `commit`: the measurement's (default: today's and the checkout's now)."""
  record = {"tables": [dataclasses.asdict(table) for table in tables],
            "date": date or today(), "machine": list(machine_lines), "command": command,
            "commit": checkout_commit() if commit is None else commit,
            "minutes": round(minutes, 1), "source": source}
  os.makedirs(folder, exist_ok=True)
  path = os.path.join(folder, f"{PREFIX}{name}.json")
  write_text_atomic(path, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
  return path


def read_records(folder):
  """{path: record} of every folder/bench_*.json."""
  records = {}
  for path in sorted(glob.glob(os.path.join(folder, f"{PREFIX}*.json"))):
    with open(path, encoding="utf-8") as f:
      records[path] = json.load(f)
  return records


def table_rows(markdown):
  """The lines of a Markdown table (header, rule and rows) in `markdown`, as one string."""
  return "\n".join(line for line in markdown.split("\n") if line.startswith("|"))


def document_tables(text):
  """[(line number, the table's lines as one string)] of every Markdown table in `text`."""
  lines = text.split("\n")
  found, index = [], 0
  while index < len(lines):
    if lines[index].startswith("|") and lines[index + 1:index + 2] and \
        lines[index + 1].startswith("|---"):
      end = index
      while end < len(lines) and lines[end].startswith("|"):
        end += 1
      found.append((index + 1, "\n".join(lines[index:end])))
      index = end
    else:
      index += 1
  return found
