"""Writes what the docs generate: the reference pages from the code (every command's flags
from their dataclasses, every problem and hparams set from the registries), and the
README's results table, the recipes page's copy of it and the lab notebook's head (that table
and a table of contents) from docs/headline_results.json and the notebook's own headings, and
what the README, the getting started page and the Makefile say of `make demo` (its minutes
and BLEU) from its record, docs/figures/demo_ding.json (written by docs/demo_record.py), what
they say of `make test` and `make test-fast` from the tiers' records
(docs/figures/test_tier_*.json, written by tests/tier_record.py), the serving page's
stalled-connections line from docs/figures/serve_stalled_20000.json (written by
bench/stalled_connections.py), and the README's own-data table from
docs/own_data_table.json and the records it names. The reproduce scripts write the figure
their rule chose as a record (OUT/figure.json, by docs/chosen_figure.py); a headline entry
that names one, copied under docs/figures/, shows its figure, val, rule, command, machine
and date.

    python docs/reference_pages.py            # writes docs/reference/*.md and the table
    python docs/reference_pages.py --check    # exit status 1, naming them, when stale

tests/test_docs.py fails when a page or the table differs from what this writes.
"""

import dataclasses
import importlib
import json
from importlib import metadata
import inspect
import os
import re
import sys

from t2t_lite.cli import command_line, tensor2tensor_names
from t2t_lite.cli.flag_bounds import range_text
from t2t_lite.models.hyperparameters import HParams
from t2t_lite.registry import HPARAMS, PROBLEMS

DOCS = os.path.dirname(os.path.abspath(__file__))
REFERENCE_DIR = os.path.join(DOCS, "reference")
README = os.path.join(os.path.dirname(DOCS), "README.md")
RESULTS = os.path.join(DOCS, "headline_results.json")
GENERATED = "<!-- Written by docs/reference_pages.py from the code; do not edit. -->\n"
NOTEBOOK = os.path.join(DOCS, "results.md")
# The README's results table lies between these lines.
TABLE_START = "<!-- results table: docs/reference_pages.py writes it from docs/headline_results.json -->"
TABLE_END = "<!-- end of the results table -->"
# The notebook's head (the same table, then its contents) lies between these lines.
HEAD_START = ("<!-- current figures and contents: docs/reference_pages.py writes them from "
              "docs/headline_results.json and the headings below -->")
HEAD_END = "<!-- end of the current figures and contents -->"
DEMO_RECORD = os.path.join(DOCS, "figures", "demo_ding.json")
# Each test tier's record (tests/tier_record.py), copied from .pytest_cache/tier_records.
TIER_RECORDS = {tier: os.path.join(DOCS, "figures", f"test_tier_{tier}.json")
                for tier in ("full", "unit")}
# The recipes page's copy of the table lies between these lines.
RECIPES = os.path.join(DOCS, "recipes.md")
RECIPES_START = ("<!-- recipes table: docs/reference_pages.py writes it from "
                 "docs/headline_results.json -->")
RECIPES_END = "<!-- end of the recipes table -->"
OWN_DATA_TABLE = os.path.join(DOCS, "own_data_table.json")
OWN_DATA_START = ("<!-- own-data table: docs/reference_pages.py writes it from "
                  "docs/own_data_table.json and the records it names -->")
OWN_DATA_END = "<!-- end of the own-data table -->"
GETTING_STARTED = os.path.join(DOCS, "getting-started.md")
SERVING = os.path.join(DOCS, "serving.md")
STALLED_RECORD = os.path.join(DOCS, "figures", "serve_stalled_20000.json")
MAKEFILE = os.path.join(os.path.dirname(DOCS), "Makefile")


def commands():
  """[(console script, its module)] of t2t_lite's commands, by name."""
  scripts = [point for point in metadata.entry_points(group="console_scripts")
             if point.value.startswith("t2t_lite.bin.")]
  return sorted((point.name, importlib.import_module(point.value.split(":")[0]))
                for point in {point.name: point for point in scripts}.values())


def flag_classes(module):
  """The flag dataclasses a command module uses, its own first, then the common ones."""
  from t2t_lite.bin.common import CommonFlags
  found = [value for value in vars(module).values()
           if inspect.isclass(value) and dataclasses.is_dataclass(value)
           and command_line.flag_fields(value)]
  found.sort(key=lambda cls: cls.__module__ != module.__name__)
  return found + [CommonFlags]


def _cell(text):
  return " ".join(str(text).split()).replace("|", "\\|")


def _default(field):
  if field.default is None or field.default == "":
    return ""
  return f"`{field.default}`"


def commands_page():
  lines = [GENERATED, "# Commands and their flags", "",
           "Every command also takes `--helpfull`. Where tensor2tensor named a flag "
           "otherwise, its name works too (listed beside ours).", ""]
  for name, module in commands():
    lines += [f"## {name}", "", _cell((module.__doc__ or "").split("\n\n")[0]), "",
              "| flag | default | what it does |", "|---|---|---|"]
    seen = set()
    for cls in flag_classes(module):
      for field in command_line.flag_fields(cls):
        if field.name in seen:
          continue
        seen.add(field.name)
        aliases = tensor2tensor_names.flag_aliases(field.name)
        flag = f"`--{field.name}`" + "".join(f" (`--{alias}`)" for alias in aliases)
        choices = field.metadata.get("choices")
        help_text = command_line.flag_help(field) + (
            f" One of: {', '.join(choices)}." if choices else "")
        lines.append(f"| {flag} | {_default(field)} | {_cell(help_text)} |")
    lines.append("")
  return "\n".join(lines)


def problems_page():
  lines = [GENERATED, "# Problems", "",
           "`t2t-trainer --registry_help` lists them, with a `--t2t_usr_dir`'s own.", ""]
  for name in PROBLEMS.names():
    aliases = PROBLEMS.aliases_of(name)
    doc = inspect.getdoc(PROBLEMS[name]) or ""
    lines += [f"## {name}", ""]
    if aliases:
      lines += [f"Aliases: {', '.join(f'`{alias}`' for alias in aliases)}.", ""]
    lines += [_cell(doc.split("\n\n")[0]), ""]
  return "\n".join(lines)


KEY_FIELDS = ("num_hidden_layers", "hidden_size", "filter_size", "num_heads",
              "layer_prepostprocess_dropout", "pre_norm", "learning_rate_warmup_steps",
              "batch_size")


def hparams_page():
  base = HPARAMS["transformer_base"]()
  lines = [GENERATED, "# Hparams sets", "",
           "Any field can be overridden: `--hparams='name=value,name=value'`. The main fields "
           "of each set:", "",
           "| set | " + " | ".join(KEY_FIELDS) + " |", "|---" * (len(KEY_FIELDS) + 1) + "|"]
  sets = {name: HPARAMS[name]() for name in HPARAMS.names()}
  for name, hparams in sets.items():
    lines.append(f"| `{name}` | " + " | ".join(
        str(getattr(hparams, field)) for field in KEY_FIELDS) + " |")
  lines += ["", "## Every field of `transformer_base`", "",
            "A value outside a field's range is refused in one line.", "",
            "| field | value | range |", "|---|---|---|"]
  lines += [f"| `{field.name}` | `{getattr(base, field.name)}` | {range_text(field)} |"
            for field in dataclasses.fields(HParams)]
  lines += ["", "## Each set", ""]
  for name, hparams in sets.items():
    doc = inspect.getdoc(HPARAMS[name]) or ""
    changed = [f"`{field.name}={getattr(hparams, field.name)}`"
               for field in dataclasses.fields(HParams)
               if getattr(hparams, field.name) != getattr(base, field.name)]
    lines += [f"### {name}", "", _cell(doc.split("\n\n")[0]), "",
              "Differs from `transformer_base` in: " + (", ".join(changed) or "nothing") + ".",
              ""]
  return "\n".join(lines)


def headline_row(entry, docs):
  """A docs/headline_results.json entry as the table shows it, on a page from which docs/
  is at `docs`. An entry that names a "record" (a reproduce script's figure.json,
  docs/chosen_figure.py, copied under docs/figures/) takes its test, val, rule, command,
  machine and date from it, the date linking to it; the others say theirs, typed from runs
  made before records were kept."""
  if "record" not in entry:
    return dict(entry, date=f"{entry['date']} (no record: before records were kept)")
  with open(os.path.join(DOCS, entry["record"]), encoding="utf-8") as f:
    record = json.load(f)
  machine = record["machine"]
  return dict(entry, test=record["figure"], val=record["val"], rule=record["rule"],
              command=shown_command(record["command"]),
              machine=f"{machine['cores']}-core {cpu_name(machine)}, {entry['training']}",
              date=f"[{record['date']}]({docs}{entry['record']})")


def shown_command(command):
  """A record's command as a reader types it: "script ARGS (NAME=VALUE ...)", as the reproduce
  scripts write it, becomes "NAME=VALUE ... script ARGS", and an absolute folder argument is
  shown by its last two names (the run's machine chose the rest)."""
  match = re.fullmatch(r"(\S+)((?: \S+)*?)\s*\((.*)\)\s*", command)
  if not match:
    return command.strip()
  script, arguments, settings = match.groups()
  shown = [os.path.join(*a.split("/")[-2:]) if a.startswith("/") else a
           for a in arguments.split()]
  return " ".join([*settings.split(), script, *shown])


def results_table(notebook, docs):
  """The table of headline figures, each with the rule that chose it, on a page from which
  the notebook is at `notebook` ("" on the notebook itself) and docs/ at `docs`."""
  with open(RESULTS, encoding="utf-8") as f:
    rows = [headline_row(entry, docs) for entry in json.load(f)]
  lines = ["| task | test | val | chosen by | published | command | machine | rerun | date |",
           "|---|---:|---:|---|---:|---|---|---|---|"]
  for row in rows:
    val = "" if row["val"] is None else f"{row['val']:.2f}"
    lines.append(
        f"| {row['task']} ([notebook]({notebook}{row['section']})) | {row['test']:.2f} | "
        f"{val} | {row['rule']} | {row['published']} | `{row['command']}` | "
        f"{row['machine']} | {row['rerun']} | {row['date']} |")
  return "\n".join(lines)


def notebook_head(notebook):
  """The notebook's current figures and a contents list of its `##` sections."""
  from markdown.extensions.toc import slugify
  body = notebook[notebook.index(HEAD_END):]
  headings = re.findall(r"^## (.+)$", body, flags=re.MULTILINE)
  # Anchors as MkDocs writes them (strict builds check these links).
  contents = [f"- [{heading}](#{slugify(heading, '-')})" for heading in headings]
  return "\n".join(["## Current figures", "",
                    "Each figure is the cell its rule chose (on val, or fixed before test); "
                    "the sections below are the notebook that records how each came about.", "",
                    results_table(notebook="", docs=""), "", "## Contents", "", *contents])


def cpu_name(machine):
  """A record's CPU in a few words: "AMD EPYC", "Intel Xeon, AMX" (bfloat16 tiles), "AMD
  EPYC, AVX2 only" (no AVX-512: the same name, a slower machine)."""
  name = re.sub(r"\((R|TM)\)| Processor| CPU", "", machine["cpu"]).strip()
  flags = machine.get("cpu_flags", ())
  if "amx_bf16" in flags:
    return f"{name}, AMX"
  return f"{name}, AVX2 only" if flags and "avx512f" not in flags else name


def own_data_table():
  """The README's table of what to expect from the own-data walkthrough: each row's test
  figure (the mean of its seeds, docs/own_data_seeds.py) and pairs read from the run's
  record (docs/figures/own_data_*.json)."""
  with open(OWN_DATA_TABLE, encoding="utf-8") as f:
    rows = json.load(f)
  lines = ["| corpus | pairs | minutes | machine | the walkthrough of that date "
           "| before `transformer_auto` | record |", "|---|---:|---:|---|---:|---:|---|"]
  for row in rows:
    with open(os.path.join(DOCS, row["record"]), encoding="utf-8") as f:
      record = json.load(f)
    pairs = re.search(r"([\d,]+) training pairs", record["auto_choice"][0]).group(1)
    seeds = len(record["seeds"])
    figure = f"{record['figure']:.2f}" + (f" (mean of {seeds} seeds)" if seeds > 1 else "")
    lines.append(f"| {row['corpus']} | {pairs} | {row['minutes']} | "
                 f"{cpu_name(record['machine'])} | {figure} | {row['before']} | "
                 f"[{record['date']}](docs/{row['record']}) |")
  return "\n".join(lines)


def read_record(path):
  """(the record at `path`, its whole minutes, its path from the project's root)."""
  with open(path, encoding="utf-8") as f:
    record = json.load(f)
  return record, round(record["seconds"] / 60), os.path.relpath(path, os.path.dirname(DOCS))


def demo_lines():
  """{path: [(the start of a line, the whole line written anew)]}: what the pages and the
  Makefile say of make demo, from its record."""
  record, minutes, path = read_record(DEMO_RECORD)
  machine = record["machine"]
  cores = f"{machine['cores']} CPU cores"
  demo_command = ("make demo     # ",
                  f"make demo     # about {minutes} minutes on {cores}, the install included")
  return {
      README: [demo_command, (
          "Its record, ",
          f"Its record, [{os.path.basename(path)}]({path}): whole-dev greedy BLEU "
          f"{record['figure']:.2f} in {minutes} minutes on {machine['cores']} cores of an "
          f"{machine['cpu']}, {record['date']}.")],
      GETTING_STARTED: [demo_command],
      MAKEFILE: [("\t@echo \"make demo: ",
                  f"\t@echo \"make demo: about {minutes} minutes on {cores} (install, data, "
                  f"{record['steps']:,} training steps; its record: {path}); it needs "
                  f"Debian's trans-de-en; run it again to resume\"")]}


def tier_lines():
  """{path: [(the start of a line, the whole line written anew)]}: what the pages say of
  make test and make test-fast, from the tiers' records."""
  full, full_minutes, full_path = read_record(TIER_RECORDS["full"])
  full_name = os.path.basename(full_path)
  unit, unit_minutes, _ = read_record(TIER_RECORDS["unit"])
  cores = f"{full['machine']['cores']} CPU cores"
  tests = f"about {full_minutes} minutes on {cores}, the install not included"
  return {
      README: [("make test     # ",
                f"make test     # the test suite, what CI runs: {tests}")],
      GETTING_STARTED: [
          ("make test     # ", f"make test     # {tests}"),
          ("the unit tier: no subprocesses",
           f"the unit tier: no subprocesses and no training beyond a few steps (about "
           f"{max(unit_minutes, 1)} minutes on {unit['machine']['cores']} CPU cores); a test"),
          ("The full tier's record",
           f"The full tier's record, [{full_name}](figures/{full_name}): "
           f"{full['outcomes'].get('passed', 0):,} passed, "
           f"{full['outcomes'].get('skipped', 0)} skipped in {full_minutes} minutes on {cores} "
           f"({cpu_name(full['machine'])}; load {full['load'][1]:.1f} over its last five "
           f"minutes), {full['date']}.")]}


def serving_lines():
  """{path: [(the start of a line, the whole line written anew)]}: what the serving page
  measured of stalled connections, from bench/stalled_connections.py's record."""
  with open(STALLED_RECORD, encoding="utf-8") as f:
    record = json.load(f)
  metrics = record["server_connection_metrics"]
  during, before = record["request_seconds_during"], record["request_seconds_before"]
  return {SERVING: [(
      "Measured with `python -m bench.stalled_connections",
      f"Measured with `python -m bench.stalled_connections --connections="
      f"{record['connections']}` ([its record](figures/{os.path.basename(STALLED_RECORD)}), "
      f"{record['date']}, {record['cpu']}, load {record['load_average']:.1f}): "
      f"{record['held_by_clients']:,} clients that connect and send nothing, a request line "
      f"or half a body, opened in {record['opening_seconds']:.0f} s; t2t-serve kept "
      f"{metrics['t2t_serve_connections_open']:,.0f} open and closed "
      f"{metrics['t2t_serve_connections_dropped_total']:,.0f}, a normal request took "
      f"{during['median']:.2f} s (median of five; {before['median']:.2f} s before they "
      f"came), the log took {record['server_log_lines_while_stalled']} lines, the server "
      f"{record['server_peak_resident_mib']:,} MiB at most, and SIGTERM ended it in "
      f"{record['sigterm_seconds']:.0f} s (the stalled uploads wait out --drain_seconds), "
      f"exit status {record['sigterm_exit_status']}.")]}


def with_line(text, start, line):
  """`text` with its one line that begins with `start` written anew as `line`."""
  lines = text.split("\n")
  found = [index for index, current in enumerate(lines) if current.startswith(start)]
  if len(found) != 1:
    raise ValueError(f"{len(found)} lines begin with {start!r}, not one")
  lines[found[0]] = line
  return "\n".join(lines)


def with_block(text, start_marker, end_marker, block):
  """`text` with what lies between its two marker lines written anew as `block`."""
  start = text.index(start_marker) + len(start_marker)
  end = text.index(end_marker)
  return text[:start] + "\n" + block + "\n" + text[end:]


def generated_files():
  """{path: the text this writes there}."""
  files = {os.path.join(REFERENCE_DIR, name): page() for name, page in PAGES.items()}
  with open(README, encoding="utf-8") as f:
    files[README] = with_block(f.read(), TABLE_START, TABLE_END,
                               results_table(notebook="docs/results.md", docs="docs/"))
  files[README] = with_block(files[README], OWN_DATA_START, OWN_DATA_END, own_data_table())
  with open(RECIPES, encoding="utf-8") as f:
    files[RECIPES] = with_block(f.read(), RECIPES_START, RECIPES_END,
                                results_table(notebook="results.md", docs=""))
  with open(NOTEBOOK, encoding="utf-8") as f:
    notebook = f.read()
  files[NOTEBOOK] = with_block(notebook, HEAD_START, HEAD_END, notebook_head(notebook))
  for write_lines in LINE_WRITERS:
    for path, lines in write_lines().items():
      if path not in files:
        with open(path, encoding="utf-8") as f:
          files[path] = f.read()
      for start, line in lines:
        files[path] = with_line(files[path], start, line)
  return files


# Each returns {path: [(the start of a line, the whole line written anew)]}.
LINE_WRITERS = (demo_lines, tier_lines, serving_lines)
PAGES = {"commands.md": commands_page, "problems.md": problems_page,
         "hparams.md": hparams_page}


def main(argv):
  check = "--check" in argv[1:]
  stale = []
  for path, text in generated_files().items():
    try:
      with open(path, encoding="utf-8") as f:
        current = f.read()
    except FileNotFoundError:
      current = None
    if current == text:
      continue
    stale.append(path)
    if not check:
      os.makedirs(os.path.dirname(path), exist_ok=True)
      with open(path, "w", encoding="utf-8") as f:
        f.write(text)
  if check and stale:
    print(f"stale generated docs: {', '.join(stale)}; run python docs/reference_pages.py",
          file=sys.stderr)
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
