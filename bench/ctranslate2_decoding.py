"""t2t-decoder, the SavedModel and CTranslate2 (float32, int8) decoding a trained run on a CPU.

Four ways side by side: t2t-decoder's translator, the SavedModel (t2t-exporter's default
export), and CTranslate2 exports in float32 and int8. The same model (the run's newest
checkpoint, or --checkpoint), the same sentences, text in and text out (tokenizing and
detokenizing included), beam search of the same width in batches of the same size, each
with its own length penalty: t2t_lite's ((5 + len) / 6) **
alpha (the problem's alpha, len counting EOS) and CTranslate2's len ** length_penalty (len
without EOS). They cannot be equal; they grow alike around outputs of L tokens (the same
derivative of their logarithms) when length_penalty = alpha * L / (L + 6): `--length_penalty`,
default 0.4, alpha 0.6 at Multi30k's L of about 12. Greedy decoding (`--beam_size=1`) has no
penalty: there CTranslate2 gives t2t-decoder's lines. Timings are interleaved medians in
this process (bench/timing.py); peak memory is measured with each implementation alone in a
fresh process that imports only what it needs (CTranslate2 rows: no TensorFlow).

    python -m bench.ctranslate2_decoding --run=RUN [--checkpoint=RUN/ckpt-N] [--source=FILE] \\
        [--sentences=200] [--beam_size=4] [--threads=2] [--repeats=3] [--translations_dir=DIR] \\
        [--document=docs/benchmarks.md]

With --document, the tables go into a section of docs/benchmarks.md of their own, which
a plain `python -m bench` (no trained run at hand) keeps as it is.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from bench import figure_records, report, timing
from bench.kept_sections import KeptSection

T2T_DECODER, SAVED_MODEL = "t2t-decoder (Run.translate)", "SavedModel (t2t-exporter)"
CT2_FLOAT32, CT2_INT8 = "CTranslate2 float32", "CTranslate2 int8"
IMPLEMENTATIONS = (T2T_DECODER, SAVED_MODEL, CT2_FLOAT32, CT2_INT8)
FILE_NAMES = {T2T_DECODER: "t2t_decoder", SAVED_MODEL: "saved_model",
              CT2_FLOAT32: "ctranslate2_float32", CT2_INT8: "ctranslate2_int8"}
SECTION = KeptSection(
    "## Serving a trained model on the CPU", "serving",
    "Still to be measured: `python -m bench.ctranslate2_decoding --run=RUN "
    "--document=docs/benchmarks.md` times t2t-decoder, the SavedModel and CTranslate2 "
    "exports of a trained run (docs/reproduce_multi30k.sh makes one) and writes this section.")
RECORD_NAME = "serving_cpu_ctranslate2"  # docs/figures/bench_serving_cpu_ctranslate2.json
BATCH_SIZE = 32  # t2t-decoder's default batch; the others get batches of the same size.
DEFAULT_SOURCE = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data",
                              "multi30k", "test_2016_flickr.en")


def read_lines(path, count):
  with open(path, encoding="utf-8") as f:
    lines = f.read().splitlines()
  return lines[:count] if count else lines


def use_threads(threads):
  """TensorFlow computes on `threads` threads (before any TensorFlow op runs)."""
  import tensorflow as tf
  tf.config.threading.set_intra_op_parallelism_threads(threads)
  tf.config.threading.set_inter_op_parallelism_threads(threads)


def export_all(run_dir, checkpoint, directory, beam_size):
  """Writes the SavedModel and the two CTranslate2 exports of the run under `directory`."""
  from t2t_lite.export.ctranslate2 import export_ctranslate2
  from t2t_lite.export.saved_model import export_run
  export_run(run_dir, os.path.join(directory, FILE_NAMES[SAVED_MODEL]), checkpoint,
             decode_hparams=f"beam_size={beam_size},batch_size={BATCH_SIZE}")
  export_ctranslate2(run_dir, os.path.join(directory, FILE_NAMES[CT2_FLOAT32]), checkpoint)
  export_ctranslate2(run_dir, os.path.join(directory, FILE_NAMES[CT2_INT8]), checkpoint,
                     quantization="int8")


def translator(name, run_dir, checkpoint, directory, beam_size, length_penalty, threads):
  """fn(lines) -> output lines, for implementation `name` (its exports under `directory`)."""
  if name == T2T_DECODER:
    from t2t_lite.run import Run
    run = Run.open(run_dir, checkpoint)
    return lambda lines: run.translate(lines, decode_hparams=f"beam_size={beam_size},"
                                                             f"batch_size={BATCH_SIZE}")
  if name == SAVED_MODEL:
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (the SavedModel's SentencePiece ops)
    serve = tf.saved_model.load(os.path.join(directory, FILE_NAMES[name])).signatures[
        "serving_default"]
    return lambda lines: [text.decode("utf-8") for start in range(0, len(lines), BATCH_SIZE)
                          for text in serve(sentences=tf.constant(
                              lines[start:start + BATCH_SIZE]))["translations"].numpy()]
  return ctranslate2_translator(os.path.join(directory, FILE_NAMES[name]),
                                "int8" if name == CT2_INT8 else "float32", beam_size,
                                length_penalty, threads)


def ctranslate2_translator(export_dir, compute_type, beam_size, length_penalty, threads,
                           extra_length=50):
  """The README's use of an export: SentencePiece pieces in, CTranslate2's beam search, text
  out, in batches of up to BATCH_SIZE, with t2t-decoder's limit on each sentence's length
  (t2t-serve's way: t2t_lite.serving.ctranslate2_served)."""
  from t2t_lite.decoding.decode_hparams import DecodeHParams
  from t2t_lite.serving.ctranslate2_served import ServedCTranslate2
  served = ServedCTranslate2(export_dir, settings=DecodeHParams(beam_size=beam_size,
                                                                extra_length=extra_length),
                             length_penalty=length_penalty, compute_type=compute_type,
                             batch_size=BATCH_SIZE, threads=threads)
  return lambda lines: [output["translations"] for output in served.decode(lines)]


def memory_case(name, args):
  """Decodes the sentences once with `name` alone in this process: {"baseline", "peak"}."""
  if name in (T2T_DECODER, SAVED_MODEL):
    from t2t_lite.quiet import import_tensorflow
    import_tensorflow()
    use_threads(args.threads)
  else:
    import ctranslate2  # noqa: F401
    import sentencepiece  # noqa: F401
  baseline = timing.current_rss_bytes()
  translate = translator(name, args.run, args.checkpoint, args.export_dir, args.beam_size,
                         args.length_penalty, args.threads)
  translate(read_lines(args.source, args.sentences))
  return {"baseline": baseline, "peak": peak_rss_since_exec()}


def peak_rss_since_exec():
  """This process's peak resident memory (VmHWM): unlike ru_maxrss, which a child started
  by fork and exec inherits from its parent, it counts this program's own memory only."""
  with open("/proc/self/status", encoding="utf-8") as f:
    for line in f:
      if line.startswith("VmHWM:"):
        return int(line.split()[1]) * 1024  # Kibibytes.
  return timing.peak_rss_bytes()


def peak_memory(name, args, directory):
  """`memory_case` in a fresh process."""
  with tempfile.NamedTemporaryFile(suffix=".json") as output:
    subprocess.run([sys.executable, "-m", "bench.ctranslate2_decoding", f"--run={args.run}",
                    f"--checkpoint={args.checkpoint or ''}",
                    f"--source={args.source}", f"--sentences={args.sentences}",
                    f"--beam_size={args.beam_size}", f"--length_penalty={args.length_penalty}",
                    f"--threads={args.threads}", f"--memory_case={name}",
                    f"--export_dir={directory}", f"--json={output.name}"], check=True)
    with open(output.name, encoding="utf-8") as f:
      return json.load(f)


def run(args):
  import sentencepiece
  from t2t_lite.quiet import import_tensorflow
  import_tensorflow()
  use_threads(args.threads)
  lines = read_lines(args.source, args.sentences)
  with tempfile.TemporaryDirectory() as directory:
    export_all(args.run, args.checkpoint, directory, args.beam_size)
    translators = {name: translator(name, args.run, args.checkpoint, directory, args.beam_size,
                                    args.length_penalty, args.threads)
                   for name in IMPLEMENTATIONS}
    outputs = {name: translate(lines) for name, translate in translators.items()}  # Warm-up.
    seconds = timing.interleaved_medians(
        {name: (lambda translate=translate: translate(lines))
         for name, translate in translators.items()}, args.repeats, warmup=0)
    memory = {name: peak_memory(name, args, directory) for name in IMPLEMENTATIONS}
    pieces = sentencepiece.SentencePieceProcessor(
        model_file=os.path.join(directory, FILE_NAMES[CT2_FLOAT32], "sentencepiece.model"))
  if args.translations_dir:
    os.makedirs(args.translations_dir, exist_ok=True)
    for name, output in outputs.items():
      with open(os.path.join(args.translations_dir, FILE_NAMES[name] + ".txt"), "w",
                encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in output))
  reference = outputs[T2T_DECODER]
  rows = []
  for name in IMPLEMENTATIONS:
    tokens = sum(len(pieces.encode(line)) + 1 for line in outputs[name])  # EOS counted.
    same = sum(a == b for a, b in zip(outputs[name], reference)) / len(lines)
    rows.append([name, f"{len(lines) / seconds[name]:,.1f}", f"{tokens / seconds[name]:,.0f}",
                 report.ratio(seconds[name], seconds[T2T_DECODER]),
                 report.gib(memory[name]["peak"]),
                 f"{memory[name]['peak'] / memory[T2T_DECODER]['peak']:.2f}x", f"{same:.1%}"])
  notes = [f"Run: {args.run} ({args.checkpoint or 'newest checkpoint'}); "
           f"{len(lines)} sentences of {os.path.relpath(args.source)}; beam "
           f"{args.beam_size}, batches of {BATCH_SIZE}; t2t_lite's alpha: the problem's; "
           f"CTranslate2's length_penalty {args.length_penalty}; {args.threads} threads "
           f"(TensorFlow intra- and inter-op, CTranslate2 intra_threads); medians of "
           f"{args.repeats} interleaved runs after a warm-up.",
           "tokens/s: the output's SentencePiece tokens (EOS counted) over the time from text "
           "in to text out; speed-up: t2t-decoder's time over the row's.",
           "Peak RSS: each implementation alone in a fresh process (its imports, model and "
           "decoding of the same sentences); the CTranslate2 rows import no TensorFlow."]
  notes += report.machine_description()
  return [report.Table("Decoding on the CPU: t2t-decoder, the SavedModel, CTranslate2",
                       ["implementation", "sentences/s", "tokens/s", "speed-up",
                        "peak RSS (GiB)", "memory / t2t-decoder's", "lines = t2t-decoder's"],
                       rows, notes)]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--run", required=True, help="A run directory t2t-trainer wrote.")
  parser.add_argument("--checkpoint", help="A checkpoint of the run (default: its newest).")
  parser.add_argument("--source", default=DEFAULT_SOURCE, help="Sentences, one per line.")
  parser.add_argument("--sentences", type=int, default=200, help="How many (0: all).")
  parser.add_argument("--beam_size", type=int, default=4)
  parser.add_argument("--length_penalty", type=float, default=0.4,
                      help="CTranslate2's length penalty (t2t_lite's alpha is the problem's): "
                           "alpha * L / (L + 6) for outputs of about L tokens (module doc).")
  parser.add_argument("--threads", type=int, default=2)
  parser.add_argument("--repeats", type=int, default=3)
  parser.add_argument("--translations_dir", help="Also write each implementation's output.")
  parser.add_argument("--memory_case", choices=IMPLEMENTATIONS, help=argparse.SUPPRESS)
  parser.add_argument("--export_dir", help=argparse.SUPPRESS)
  parser.add_argument("--json", help="Also save the tables (or one memory case) here.")
  parser.add_argument("--document", help="Also write the tables as this Markdown document's "
                                         "section (docs/benchmarks.md).")
  args = parser.parse_args()
  if args.memory_case:
    with open(args.json, "w", encoding="utf-8") as f:
      json.dump(memory_case(args.memory_case, args), f)
    return
  start = time.perf_counter()
  tables = run(args)
  report.emit(tables, args.json)
  if args.document:
    SECTION.write(args.document, section_body(tables, sys.argv[1:]))
    record = figure_records.write_record(
        figure_records.figures_folder(args.document), RECORD_NAME, tables,
        report.machine_description(), command_line(sys.argv[1:]),
        (time.perf_counter() - start) / 60)
    print(f"\nwrote the serving section of {args.document} and its record, {record}")


def command_line(arguments):
  return " ".join(["python -m bench.ctranslate2_decoding"] + arguments)


def section_body(tables, arguments):
  """The Markdown between the section's markers: the command, then the tables."""
  lines = [report.description("ctranslate2_decoding"), "", "```", command_line(arguments),
           "```", ""]
  return "\n".join(lines + [table.markdown() + "\n" for table in tables])


if __name__ == "__main__":
  main()
