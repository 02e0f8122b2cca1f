"""docs/benchmarks.md as data: docs/benchmarks.json holds every section `python -m bench`
measured, with its own provenance (date, machine, command, how peers ran), and the
Markdown is written from it.

A run of some programs (`python -m bench --only=...`) replaces their sections and keeps
the others as they were measured, each still saying where and when. The sections that
other programs write by hand-annotated text (GPU, serving: bench/kept_sections.py) follow
the generated ones unchanged.
"""

import dataclasses
import datetime
import json
import os

from bench import report

DATA = os.path.join("docs", "benchmarks.json")
# How the peers of a section ran beside t2t_lite: what each section says of it.
SAME_PROCESS = "every implementation in one process, timed in turn"
OWN_PROCESS = "each framework in a process of its own, one after another"
NO_PEERS = "none (t2t_lite's own parts against each other)"
SERVER_PROCESS = ("t2t-serve in a process of its own under a load generator in the "
                  "benchmark's process; the offline decoders in the benchmark's process, "
                  "one after another")
# The training tables' rerun with every framework's kernels held to AVX2, which `python -m
# bench` makes only on an AVX-512 CPU.
AVX2_KEY = "training_throughput, kernels held to AVX2"
XLA_SECTION = ("XLA on vs off", "The same measurements as the tables above, side by side. "
               "t2t-trainer turns XLA on by default on GPUs only.")


@dataclasses.dataclass
class Section:
  """One program's measurements: key names the run (the program, and the kernels it was
  held to, if any); command: how to rerun it; seconds: how long it took; peers: how the
  peers ran (SAME_PROCESS, OWN_PROCESS or NO_PEERS)."""
  key: str
  heading: str
  intro: str
  command: str
  seconds: float
  date: str
  machine: list
  peers: str
  tables: list  # [report.Table]

  def markdown(self):
    lines = [f"## {self.heading}", "", self.intro, "",
             f"Measured on {self.date} with `{self.command}` ({self.seconds:.0f} s); "
             f"peers: {self.peers}.", ""]
    lines += [f"- {line}" for line in self.machine] + [""]
    for table in self.tables:
      if table.section != XLA_SECTION[0]:
        lines += [table.markdown(), ""]
    return "\n".join(lines)


def measured(key, heading, intro, command, seconds, peers, tables):
  """A Section measured now, on this machine."""
  return Section(key, heading, intro, command, round(seconds), datetime.date.today().isoformat(),
                 report.machine_description(), peers, tables)


def load(path=DATA):
  """[Section] in the document's order ([] when there is no data yet)."""
  if not os.path.exists(path):
    return []
  with open(path, encoding="utf-8") as f:
    sections = json.load(f)
  return [Section(**dict(fields, tables=[report.Table(**table) for table in fields["tables"]]))
          for fields in sections]


def dump(sections):
  """The JSON text of `sections`."""
  return json.dumps([dataclasses.asdict(section) for section in sections], indent=1,
                    ensure_ascii=False) + "\n"


def merged(old, new, order):
  """old's sections with those of new's keys replaced (or added), in the order of `order`
  (keys; any other keys after them, as they were)."""
  by_key = {section.key: section for section in old}
  by_key.update({section.key: section for section in new})
  rank = {key: index for index, key in enumerate(order)}
  return sorted(by_key.values(), key=lambda section: rank.get(section.key, len(rank)))


def bench_minutes(sections):
  """(minutes, AVX2 rerun's minutes or None): what `make bench` takes, as the sections'
  own recorded seconds add up (each section measured on its own date and machine); the
  AVX2 rerun apart, as it runs on AVX-512 CPUs only."""
  rerun = [section.seconds for section in sections if section.key == AVX2_KEY]
  others = sum(section.seconds for section in sections if section.key != AVX2_KEY)
  return round(others / 60), round(rerun[0] / 60) if rerun else None


def bench_duration(sections):
  """How long `make bench` takes, in words, from the sections' recorded times."""
  minutes, rerun = bench_minutes(sections)
  text = f"about {minutes} minutes on 2 cores: the times the sections below record, added"
  if rerun is not None:
    text += f"; on an AVX-512 CPU the AVX2 rerun of the training tables adds {rerun}"
  return text


def markdown(sections):
  """docs/benchmarks.md's generated part: how to read it, each section, then the XLA
  tables gathered from all of them."""
  lines = ["# Benchmarks", "",
           "Each section below says when, on which machine and with which command it was",
           "measured, and whether the peers ran in t2t_lite's process or in their own. The",
           "tables give medians over repetitions and ratios of medians, oriented so that",
           "above 1 means t2t_lite is faster (or smaller). docs/benchmarks.json holds the",
           "same tables as data; `python -m bench` writes both. The GPU section's tables and",
           "the CPU serving section's are records of their own, each with its date, machine",
           "and command: docs/figures/bench_*.json (bench/figure_records.py).", "",
           f"Reproduce every section above the GPU one ({bench_duration(sections)}), or "
           "some of them:", "",
           "<!-- illustrative: the benchmarks take tens of minutes and need the bench extra "
           "(PyTorch, keras-hub) -->",
           "```", "make bench    # or: .venv/bin/python -m bench [--only=training_throughput]",
           "```", ""]
  for section in sections:
    lines += [section.markdown()]
  xla_tables = [table for section in sections for table in section.tables
                if table.section == XLA_SECTION[0]]
  if xla_tables:
    lines += [f"## {XLA_SECTION[0]}", "", XLA_SECTION[1], ""]
    lines += [line for table in xla_tables for line in (table.markdown(), "")]
  return "\n".join(lines)
