"""Sections of docs/benchmarks.md that a plain `python -m bench` keeps as they are.

Some programs need what a plain run has not (a GPU, a trained run directory), so they
write their own section, its measured text between two markers:

    ## GPU
    <!-- gpu:begin -->
    ...written by the program...
    <!-- gpu:end -->

A document without the markers gets them: in place of the section's body when it
has the heading, else as a new section at its end. Each program also writes its tables'
record beside the document (bench/figure_records.py).
"""

import dataclasses
import os

from t2t_lite.files.atomic_files import write_text_atomic


@dataclasses.dataclass(frozen=True)
class KeptSection:
  """heading: its Markdown heading line ("## GPU"); name: its markers' ("gpu");
  placeholder: the body a run without it writes."""
  heading: str
  name: str
  placeholder: str

  @property
  def markers(self):
    return f"<!-- {self.name}:begin -->", f"<!-- {self.name}:end -->"

  def replace(self, document, body):
    """document (Markdown text) with the text between the markers replaced by `body`."""
    begin, end = self.markers
    block = f"{begin}\n{body.strip()}\n{end}"
    if begin in document and end in document.split(begin, 1)[1]:
      before, rest = document.split(begin, 1)
      return before + block + rest.split(end, 1)[1]
    lines = document.rstrip("\n").split("\n")
    if self.heading in lines:
      start = lines.index(self.heading)
      stop = _section_end(lines, start)
      tail = lines[stop:]
      return "\n".join(lines[:start + 1] + ["", block] + ([""] + tail if tail else [])) + "\n"
    before = document.rstrip("\n") + "\n\n" if document.strip() else ""
    return f"{before}{self.heading}\n\n{block}\n"

  def current(self, path):
    """The whole section in the document at `path` (its heading, the measured text between
    the markers and whatever was written after them, up to the next section), or None."""
    if not os.path.exists(path):
      return None
    with open(path, encoding="utf-8") as f:
      lines = f.read().rstrip("\n").split("\n")
    if self.heading not in lines:
      return None
    start = lines.index(self.heading)
    return "\n".join(lines[start:_section_end(lines, start)]).rstrip("\n") + "\n"

  def write(self, path, body):
    """Replaces the section in the document at `path` (created when missing)."""
    document = ""
    if os.path.exists(path):
      with open(path, encoding="utf-8") as f:
        document = f.read()
    write_text_atomic(path, self.replace(document, body))


def _section_end(lines, start):
  """The index of the first "## " heading after line `start` (len(lines) if none)."""
  return next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
              len(lines))
