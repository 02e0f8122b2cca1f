"""Runs the benchmarks, each in its own process, and writes docs/benchmarks.json and, from
it, docs/benchmarks.md.

    python -m bench [--output=docs/benchmarks.md] [--only=decoding_speed,memory] [--repeats=3]

Each program prints its tables as it finishes. Its section replaces the one it measured
before (sections of programs not run are kept as they were, each with its own date,
machine and command), with the program's own description of what it compares.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

from bench import ctranslate2_decoding, document, report
from bench.gpu import document as gpu_document
from t2t_lite.files.atomic_files import write_text_atomic

# (program, heading), in the document's order; each takes --json (and --repeats when it
# times repetitions).
PROGRAMS = [
    ("training_throughput", "Training throughput and model-FLOPs utilisation"),
    ("cpu_replicas", "Replicas on the CPU against one device"),
    ("decoding_speed", "Decoding"),
    ("scaling", "How cost grows"),
    ("memory", "Memory"),
    ("input_vs_training", "Input pipeline vs training"),
    ("real_batches", "Real batches vs a fixed batch"),
    ("serving", "t2t-serve under load"),
    ("datagen", "Data generation on every core"),
]
REPEATED = {"training_throughput", "cpu_replicas", "decoding_speed", "scaling"}
# How each program runs its peers (the others time them in turn in t2t_lite's process).
PEERS = {"training_throughput": document.OWN_PROCESS, "memory": document.OWN_PROCESS,
         "cpu_replicas": document.NO_PEERS, "input_vs_training": document.NO_PEERS, "real_batches": document.NO_PEERS,
         "serving": document.SERVER_PROCESS,
         "datagen": document.NO_PEERS}
# On an AVX-512 CPU the training throughput runs once more with every framework's kernels
# held to AVX2 (oneDNN, XLA, MKL and ATen read these at start): the other CPU kind users
# have, as near as this machine can show it.
AVX2_KERNELS = {"ONEDNN_MAX_CPU_ISA": "AVX2", "XLA_FLAGS": "--xla_cpu_max_isa=AVX2",
                "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"}
AVX2_RUN = ("training_throughput", "Training throughput on AVX2 kernels", AVX2_KERNELS)
AVX2_KEY = document.AVX2_KEY
AVX2_INTRO = ("The training tables again, every framework's kernels held to AVX2 (oneDNN's "
              "matmuls, XLA's code, PyTorch's MKL and ATen): the instructions of an AVX2 "
              "machine, on this machine's cores, caches and memory.")
PROGRAM_TIMEOUT_S = 600
# real_batches runs t2t-trainer twice (XLA off, then on: a compilation per length bucket);
# training_throughput starts a process per framework, each importing and compiling anew
# (10 minutes were too few on a 2-core AVX2 EPYC); serving trains a run for minutes, then
# loads a server for four minutes and more (21 minutes on a loaded 2-core machine);
# datagen runs t2t-datagen three times on up to a million pairs.
LONGER_TIMEOUT_S = {"real_batches": 1500, "training_throughput": 1500, "serving": 1800,
                    "datagen": 1500}


def run_program(program, repeats, json_path, environment=None):
  """Runs `python -m bench.<program>` (with `environment` added to the process's);
  its tables, or one table saying why there are none."""
  command = [sys.executable, "-m", f"bench.{program}", f"--json={json_path}"]
  if repeats and program in REPEATED:
    command.append(f"--repeats={repeats}")
  print(f"\n== {environment_text(environment)}{' '.join(command[1:-1])}", flush=True)
  try:
    subprocess.run(command, check=True, env={**os.environ, **(environment or {})},
                   timeout=LONGER_TIMEOUT_S.get(program, PROGRAM_TIMEOUT_S))
    return report.load_tables(json_path)
  except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
    return [report.Table(f"{program}: no result", ["why"], [[str(error)]])]


def environment_text(environment):
  """`NAME=value NAME=value ` as a shell would take them before a command ("" for None)."""
  return "".join(f"{name}={value} " for name, value in (environment or {}).items())


def runs(chosen):
  """[(program, heading, environment)] to run, in order."""
  chosen_runs = [(program, heading, None) for program, heading in PROGRAMS if program in chosen]
  if AVX2_RUN[0] in chosen and report.vector_extension() == "AVX-512":
    chosen_runs.insert(1, AVX2_RUN)
  return chosen_runs


# Written by programs that need a trained run or a GPU (and annotated by hand): a plain
# run keeps them as they are, or writes their placeholders.
KEPT_SECTIONS = (gpu_document.SECTION, ctranslate2_decoding.SECTION)


def with_kept_sections(text, path):
  """The new document's text followed by each kept section of the document at `path`."""
  for section in KEPT_SECTIONS:
    current = section.current(path)
    text = (text.rstrip("\n") + "\n\n" + current if current
            else section.replace(text, section.placeholder))
  return text


def section_key(program, environment):
  return AVX2_KEY if environment else program


def document_order():
  """The keys of the document's sections, in order."""
  keys = [program for program, _ in PROGRAMS]
  return keys[:1] + [AVX2_KEY] + keys[1:]


def write_document(sections, data_path, output):
  """Writes the sections as data, then the Markdown from it with the kept sections."""
  write_text_atomic(data_path, document.dump(sections))
  write_text_atomic(output, with_kept_sections(document.markdown(sections), output))


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--output", default=os.path.join("docs", "benchmarks.md"))
  parser.add_argument("--only", help="Comma-separated programs to run (default: all).")
  parser.add_argument("--repeats", type=int, help="Repetitions per timing (programs' default).")
  args = parser.parse_args()
  chosen = args.only.split(",") if args.only else [name for name, _ in PROGRAMS]
  data_path = os.path.splitext(args.output)[0] + ".json"
  start = time.perf_counter()
  sections = []
  with tempfile.TemporaryDirectory(prefix="t2t_bench_") as scratch:
    for index, (program, heading, environment) in enumerate(runs(chosen)):
      program_start = time.perf_counter()
      tables = run_program(program, args.repeats,
                           os.path.join(scratch, f"{index}_{program}.json"), environment)
      repeats = f" --repeats={args.repeats}" if args.repeats and program in REPEATED else ""
      sections.append(document.measured(
          section_key(program, environment), heading,
          report.description(program) if environment is None else AVX2_INTRO,
          f"{environment_text(environment)}python -m bench.{program}{repeats}",
          time.perf_counter() - program_start,
          PEERS.get(program, document.SAME_PROCESS), tables))
  write_document(document.merged(document.load(data_path), sections, document_order()),
                 data_path, args.output)
  print(f"\nwrote {data_path} and {args.output} "
        f"({(time.perf_counter() - start) / 60:.1f} minutes)")


if __name__ == "__main__":
  main()
