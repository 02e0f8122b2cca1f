"""`python -m bench` rewrites docs/benchmarks.md but keeps the sections other programs wrote."""

import json
import os
import subprocess
import sys

import pytest

from bench import ctranslate2_decoding
from bench.__main__ import with_kept_sections
from bench.gpu import document as gpu_document
from commands import environment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEW = "# Benchmarks\n\n## Decoding\n\nnew CPU tables\n"


def test_the_gpu_and_serving_sections_survive_a_new_cpu_run(tmp_path):
  path = tmp_path / "benchmarks.md"
  gpu = "## GPU\n\n<!-- gpu:begin -->\nH100 numbers\n<!-- gpu:end -->\n\nnotes by hand\n"
  serving = ("## Serving a trained model on the CPU\n\n<!-- serving:begin -->\nCTranslate2 "
             "numbers\n<!-- serving:end -->\n")
  path.write_text("# Benchmarks\n\n## Decoding\n\nold CPU tables\n\n" + gpu + "\n" + serving)
  text = with_kept_sections(NEW, str(path))
  assert text == NEW + "\n" + gpu + "\n" + serving
  assert "old CPU tables" not in text


def test_sections_never_written_get_their_placeholders(tmp_path):
  text = with_kept_sections(NEW, str(tmp_path / "absent.md"))
  assert text.startswith(NEW)
  for section in (gpu_document.SECTION, ctranslate2_decoding.SECTION):
    begin, end = section.markers
    assert f"{section.heading}\n\n{begin}\n{section.placeholder}\n{end}" in text


def test_the_serving_program_writes_only_its_own_section(tmp_path):
  path = tmp_path / "benchmarks.md"
  path.write_text(NEW + "\n## GPU\n\nkept\n")
  ctranslate2_decoding.SECTION.write(str(path), "measured")
  text = path.read_text()
  assert text.startswith(NEW + "\n## GPU\n\nkept\n")
  assert text.endswith("<!-- serving:begin -->\nmeasured\n<!-- serving:end -->\n")


def test_program_descriptions_leave_out_their_usage_lines_continued_ones_too():
  from bench import report
  for program, usage in (("training_throughput", "[--mixed_precision=bfloat16]"),
                         ("ctranslate2_decoding", "[--sentences=200]"),
                         ("real_batches", "[--hparams=length_bucket_step=1.65]"),
                         ("serving", "[--overload_seconds=60]"),
                         ("memory", "--case=NAME"), ("datagen", "[--pairs=1000000]")):
    text = report.description(program)
    assert text and usage not in text, (program, text[:300])


def test_the_document_is_what_its_data_gives():
  """docs/benchmarks.md's tables are written from docs/benchmarks.json: a table edited in
  one and not the other fails here."""
  from bench import document
  from bench.__main__ import with_kept_sections
  path = os.path.join(ROOT, "docs", "benchmarks.md")
  with open(path, encoding="utf-8") as f:
    text = f.read()
  sections = document.load(os.path.join(ROOT, document.DATA))
  assert sections and text == with_kept_sections(document.markdown(sections), path)


def test_a_run_of_some_programs_keeps_the_other_sections_with_their_provenance():
  from bench import document, report
  table = report.Table("t", ["a", "b"], [["x", "1"]])
  old = [document.Section(key, key, "", f"python -m bench.{key}", 1, "2026-01-01", ["old CPU"],
                          document.SAME_PROCESS, [table]) for key in ("a", "b", "c")]
  new = document.measured("b", "B", "", "python -m bench.b", 2.4, document.OWN_PROCESS, [table])
  sections = document.merged(old, [new], ["a", "b", "c"])
  assert [section.key for section in sections] == ["a", "b", "c"]
  assert sections[0] == old[0] and sections[2] == old[2]
  assert sections[1].machine == report.machine_description() and sections[1].seconds == 2
  assert f"Measured on {new.date}" in document.markdown(sections)


def test_make_bench_minutes_are_the_sections_recorded_times_on_every_page():
  """docs/benchmarks.md says how long `make bench` takes from its sections' own seconds
  (the AVX2 rerun apart); the performance page quotes the same minutes."""
  from bench import document
  table = []
  sections = [document.Section(key, key, "", "", seconds, "2026-01-01", [], document.NO_PEERS,
                               table)
              for key, seconds in (("a", 1500), ("b", 1470), (document.AVX2_KEY, 170))]
  assert document.bench_minutes(sections) == (50, 3)
  assert document.bench_minutes(sections[:2]) == (50, None)
  minutes, _ = document.bench_minutes(document.load(os.path.join(ROOT, document.DATA)))
  with open(os.path.join(ROOT, "docs", "performance.md"), encoding="utf-8") as f:
    performance = " ".join(f.read().split())
  assert f"(about {minutes} minutes on 2 cores:" in performance


def test_every_table_of_the_document_is_a_recorded_one():
  """Each table in docs/benchmarks.md is one of docs/benchmarks.json's or one of a record's
  under docs/figures/ (bench/figure_records.py) with its date, machine and command: a cell
  edited by hand fails here."""
  from bench import document, figure_records
  from bench.report import Table
  recorded = {}
  for section in document.load(os.path.join(ROOT, document.DATA)):
    for table in section.tables:
      recorded[figure_records.table_rows(table.markdown())] = document.DATA
  records = figure_records.read_records(os.path.join(ROOT, "docs", "figures"))
  assert records
  for path, record in records.items():
    assert record["date"] and record["machine"] and record["command"] and record["source"], path
    for fields in record["tables"]:
      recorded[figure_records.table_rows(Table(**fields).markdown())] = path
  with open(os.path.join(ROOT, "docs", "benchmarks.md"), encoding="utf-8") as f:
    tables = figure_records.document_tables(f.read())
  unrecorded = [line for line, table in tables if table not in recorded]
  assert not unrecorded, f"docs/benchmarks.md: tables at lines {unrecorded} have no record"
  shown = {table for _, table in tables}
  unshown = {path for table, path in recorded.items() if table not in shown}
  assert not unshown, f"records whose tables docs/benchmarks.md does not show: {unshown}"


def test_a_written_record_gives_back_its_tables(tmp_path):
  from bench import figure_records
  from bench.report import Table
  table = Table("t", ["case", "ms"], [["a", "1.5"]], notes=["medians"])
  path = figure_records.write_record(str(tmp_path), "gpu_test", [table], ["GPU: one"],
                                     "python -m bench.gpu", 2.04, commit="abc1234")
  assert os.path.basename(path) == "bench_gpu_test.json"
  (record,) = figure_records.read_records(str(tmp_path)).values()
  assert Table(**record["tables"][0]) == table
  assert (record["machine"], record["minutes"], record["commit"], record["source"]) == (
      ["GPU: one"], 2.0, "abc1234", figure_records.WRITTEN)
  assert figure_records.document_tables("x\n\n" + table.markdown() + "\n") == [
      (5, "| case | ms |\n|---|---:|\n| a | 1.5 |")]


@pytest.mark.slow
def test_the_serving_program_writes_its_section_and_its_record(tmp_path_factory, tmp_path):
  """`python -m bench.ctranslate2_decoding --document=...` on a tiny run: the section's
  table is the one its record under figures/ holds, with the command that measured it."""
  from bench.report import Table
  from tiny_runs import tiny_run, tiny_text
  pytest.importorskip("ctranslate2")
  _, output_dir = tiny_run(tmp_path_factory)
  source = tmp_path / "source.txt"
  source.write_text("".join(line.split("\t")[0] + "\n" for line in tiny_text(4).splitlines()))
  document = tmp_path / "benchmarks.md"
  document.write_text(NEW, encoding="utf-8")
  result = subprocess.run(
      [sys.executable, "-m", "bench.ctranslate2_decoding", f"--run={output_dir}",
       f"--source={source}", "--sentences=4", "--repeats=1", f"--document={document}"],
      cwd=ROOT, capture_output=True, text=True, env=environment())
  assert result.returncode == 0, result.stderr[-3000:]
  record = json.loads((tmp_path / "figures" / "bench_serving_cpu_ctranslate2.json").read_text(
      encoding="utf-8"))
  (table,) = [Table(**fields) for fields in record["tables"]]
  assert [row[0] for row in table.rows] == list(ctranslate2_decoding.IMPLEMENTATIONS)
  assert table.markdown() in document.read_text(encoding="utf-8")
  assert record["command"].startswith("python -m bench.ctranslate2_decoding --run=")
