"""The GPU section of docs/benchmarks.md: the text between its two markers, and nothing else.

    ## GPU
    <!-- gpu:begin -->
    ...written by `python -m bench.gpu`...
    <!-- gpu:end -->

A document without the markers gets them: in place of its "## GPU" section's
body when it has that heading, else as a new section at its end.
"""

import os

from t2t_lite.atomic_files import write_text_atomic

BEGIN, END = "<!-- gpu:begin -->", "<!-- gpu:end -->"
HEADING = "## GPU"
COMMAND = "KERAS_BACKEND=jax python -m bench.gpu"
PLACEHOLDER = (
    "GPU numbers are still to be measured: run `python -m bench.gpu` on a GPU machine "
    "(JAX with CUDA, Keras, PyTorch; no TensorFlow needed, nor installing t2t_lite: run "
    "it from the repository's root). It times t2t_lite's Transformer (transformer_base and "
    "transformer_big) on Keras's JAX backend in bfloat16 against PyTorch eager and "
    "`torch.compile`, and greedy and beam decoding against a PyTorch cached decoder, "
    "and writes this section.")


def replace_section(document, body):
  """document (Markdown text) with the text between the markers replaced by `body`."""
  block = f"{BEGIN}\n{body.strip()}\n{END}"
  if BEGIN in document and END in document.split(BEGIN, 1)[1]:
    before, rest = document.split(BEGIN, 1)
    return before + block + rest.split(END, 1)[1]
  lines = document.rstrip("\n").split("\n")
  if HEADING in lines:
    start = lines.index(HEADING)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
               len(lines))
    tail = lines[end:]
    return "\n".join(lines[:start + 1] + ["", block] + ([""] + tail if tail else [])) + "\n"
  before = document.rstrip("\n") + "\n\n" if document.strip() else ""
  return f"{before}{HEADING}\n\n{block}\n"


def current_section(path):
  """The whole GPU section of the document at `path` (its heading, the measured text between
  the markers and whatever was written after them, up to the next section), or None."""
  if not os.path.exists(path):
    return None
  with open(path, encoding="utf-8") as f:
    lines = f.read().rstrip("\n").split("\n")
  if HEADING not in lines:
    return None
  start = lines.index(HEADING)
  end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
  return "\n".join(lines[start:end]).rstrip("\n") + "\n"


def section_body(machine_lines, tables, command, minutes, smoke, isolated):
  """The Markdown between the markers: what ran where, then the tables."""
  lines = []
  if smoke:
    lines += ["**Smoke run** (`--smoke`: a tiny model, a few steps): these numbers check the "
              "program, they measure no GPU.", ""]
  where = "; each row in its own process" if isolated else ""
  lines += [f"t2t_lite's own `Transformer` on Keras's JAX backend, side by side with PyTorch's "
            f"`nn.Transformer` on the same device in the same run{where}. Measured with:",
            "", "```", command, "```", ""]
  lines += [f"- {line}" for line in machine_lines]
  lines += [f"- This run took {minutes:.1f} minutes.", ""]
  for table in tables:
    lines += [table.markdown(), ""]
  return "\n".join(lines)


def write_section(path, body):
  """Replaces the GPU section of the document at `path` (created when missing)."""
  document = ""
  if os.path.exists(path):
    with open(path, encoding="utf-8") as f:
      document = f.read()
  write_text_atomic(path, replace_section(document, body))
