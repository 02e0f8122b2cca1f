"""The GPU section of docs/benchmarks.md (bench/kept_sections.py: the text between its
two markers, and nothing else), written by `python -m bench.gpu`."""

from bench.kept_sections import KeptSection

COMMAND = "KERAS_BACKEND=jax python -m bench.gpu"
PLACEHOLDER = (
    "GPU numbers are still to be measured: run `python -m bench.gpu` on a GPU machine "
    "(JAX with CUDA, Keras, PyTorch; no TensorFlow needed, nor installing t2t_lite: run "
    "it from the repository's root). It times t2t_lite's Transformer (transformer_base and "
    "transformer_big) on Keras's JAX backend in bfloat16 against PyTorch eager and "
    "`torch.compile`, and greedy and beam decoding against a PyTorch cached decoder, "
    "and writes this section.")
SECTION = KeptSection("## GPU", "gpu", PLACEHOLDER)
RECORD_NAME = "gpu_jax"  # Its tables' record: docs/figures/bench_gpu_jax.json.
replace_section, current_section, write_section = SECTION.replace, SECTION.current, SECTION.write


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

