"""Tables as the benchmarks print them, the machine they ran on, and docs/benchmarks.md."""

import ast
import dataclasses
import importlib.metadata
import json
import os
import platform

from t2t_lite.training.cost import cpu_model


@dataclasses.dataclass
class Table:
  """One result table: a title, column names, rows of already formatted cells, notes.

  section: the heading of docs/benchmarks.md it goes under, when not its program's.
  """
  title: str
  columns: list
  rows: list
  notes: list = dataclasses.field(default_factory=list)
  section: str = ""

  def text(self):
    """The table as aligned plain text (first column left, the others right)."""
    cells = [self.columns] + self.rows
    widths = [max(len(str(row[i])) for row in cells) for i in range(len(self.columns))]
    lines = [self.title]
    for row in cells:
      lines.append("  ".join(str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
                             for i, (cell, w) in enumerate(zip(row, widths))))
    lines += [f"  {note}" for note in self.notes]
    return "\n".join(lines)

  def markdown(self):
    lines = [f"### {self.title}", "",
             "| " + " | ".join(self.columns) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(self.columns) - 1)) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in self.rows]
    if self.notes:
      lines += [""] + [f"- {note}" for note in self.notes]
    return "\n".join(lines)


def save_tables(tables, path):
  """Writes tables as JSON (how a benchmark subprocess hands them to `python -m bench`)."""
  with open(path, "w", encoding="utf-8") as f:
    json.dump([dataclasses.asdict(table) for table in tables], f)


def load_tables(path):
  with open(path, encoding="utf-8") as f:
    return [Table(**fields) for fields in json.load(f)]


def emit(tables, json_path=None):
  """Prints tables; also saves them to json_path when given."""
  for table in tables:
    print("\n" + table.text(), flush=True)
  if json_path:
    save_tables(tables, json_path)


def ratio(our_cost, peer_cost):
  """`1.23x`: the peer's cost (seconds, bytes) over ours, so above 1 means t2t_lite is
  faster or smaller; `-` when either is missing."""
  return "-" if not our_cost or not peer_cost else f"{peer_cost / our_cost:.2f}x"


def gib(num_bytes):
  return f"{num_bytes / 2 ** 30:.2f}"


# The /proc/cpuinfo flags that decide which kernels oneDNN, XLA, MKL and ATen run.
KERNEL_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
                "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile",
                "amx_bf16", "amx_int8", "amx_fp16")


def machine_description():
  """Lines describing the CPU, memory and library versions of this run."""
  model = cpu_model()
  memory = ""
  if hasattr(os, "sysconf") and "SC_PHYS_PAGES" in os.sysconf_names:
    memory = f", {os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2 ** 30:.0f} GiB RAM"
  vector = vector_extension()
  versions = ", ".join(f"{name} {_version(name)}" for name in
                       ("tensorflow", "keras", "torch", "keras-hub", "numpy"))
  flags = " ".join(flag for flag in KERNEL_FLAGS if flag in _cpu_flags()) or "none of them"
  return [f"CPU: {model}, {os.cpu_count()} logical cores ({vector}){memory}, "
          f"{platform.system()} {platform.release()}",
          f"CPU flags that choose the matmul and vector kernels: {flags}",
          f"Python {platform.python_version()}; {versions}"]


def vector_extension():
  """The CPU's widest vector extension of the kinds that matter here: AVX-512, AVX2 or none."""
  flags = _cpu_flags()
  return "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"


def kernels_held_to():
  """"AVX2" when this process's kernels are held to AVX2 (bench/__main__.py's AVX2_KERNELS),
  else ""."""
  return "AVX2" if os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper() == "AVX2" else ""


def _cpu_flags():
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      for line in f:
        if line.startswith("flags"):
          return set(line.split(":", 1)[1].split())
  except OSError:
    pass
  return set()


def _version(distribution):
  try:
    return importlib.metadata.version(distribution)
  except importlib.metadata.PackageNotFoundError:
    return "not installed"


def description(program):
  """A program's docstring as Markdown, without its title and usage lines: what it measures.

  Usage lines start with "python " (lines indented deeper continue them). Lines indented
  by two spaces start list items; lines indented deeper continue them.
  """
  path = os.path.join(os.path.dirname(__file__), f"{program}.py")
  with open(path, encoding="utf-8") as f:
    text = ast.get_docstring(ast.parse(f.read())) or ""
  lines, usage = [], False
  for line in text.splitlines()[1:]:
    if line.strip().startswith("python "):
      usage = True
      continue
    if usage and line.startswith("   "):  # The usage line goes on.
      continue
    usage = False
    if line.startswith("   ") and lines:
      lines[-1] += " " + line.strip()
    elif line.startswith("  "):
      lines.append("- " + line.strip())
    else:
      lines.append(("\n" if lines and lines[-1].startswith("- ") else "") + line)
  return "\n".join(lines).strip()
