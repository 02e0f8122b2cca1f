"""A run's SavedModel and t2t-serve on the GPU, beside the same model on 2 cores of the same machine.

    python -m bench.gpu.serving --export_dir=DIR --sentences=FILE [--ct2_dir=DIR]
        [--count=300] [--alone=32] [--seconds=20] [--cpu_cores=2] [--json=PATH]

Each device (the GPU, then --cpu_cores cores of this machine with the GPU hidden:
CUDA_VISIBLE_DEVICES=-1 and the processes' CPU affinity) gets, on the first --count
lines of --sentences, after a warm-up pass each:
  offline (a process of its own): the SavedModel decoding the first --alone sentences
      one at a time (sentences/s, median latency), then all of them in batches of 64
      sorted by length (sentences/s); on the GPU also the CTranslate2 export (--ct2_dir)
      in the same batches on CTranslate2's CUDA device, where its wheel finds one;
  t2t-serve: the SavedModel served (batches of up to 64, 2 batch threads) to 64
      one-sentence clients for --seconds (bench.serving's closed loop): sentences/s,
      median latency, errors.
The GPU's gain is each GPU row's sentences/s over the same row on the cores. "= batch 64":
the share of a row's outputs equal to the GPU's batch-64 output for the same sentence
(a batch pads its sentences to one width, so a few may differ in the last digits and then
in a word).
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench.gpu import installed_t2t_lite_first

installed_t2t_lite_first()  # Before bench.serving's imports reach t2t_lite's registries.
from bench import report  # noqa: E402
from bench import serving as cpu_serving  # noqa: E402
from t2t_lite.files.atomic_files import write_text_atomic  # noqa: E402

BATCH, CLIENTS = 64, 64
SERVER_FLAGS = (f"--max_batch_size={BATCH}", "--batch_timeout_micros=1000",
                "--max_enqueued_batches=8")
SERVER_THREADS = 2


def read_lines(path, count):
  with open(path, encoding="utf-8") as f:
    return f.read().splitlines()[:count]


def offline(args):
  """This process's offline rows on its device -> {row: {"sentences_per_s", ...}}."""
  from t2t_lite.quiet import import_tensorflow
  from t2t_lite.serving.saved_model_served import ServedSavedModel
  tf = import_tensorflow()
  sentences = read_lines(args.sentences, args.count)
  saved = ServedSavedModel(args.export_dir, 1)
  rows = {}
  alone = sentences[:args.alone]
  for sentence in alone[:2]:
    saved.decode([sentence])  # Warm-up.
  latencies = []
  for sentence in alone:
    start = time.perf_counter()
    saved.decode([sentence])
    latencies.append(time.perf_counter() - start)
  rows["SavedModel, one sentence at a time"] = {
      "sentences_per_s": len(alone) / sum(latencies),
      "p50_ms": 1000 * statistics.median(latencies)}
  batched = {"SavedModel, batches of 64 sorted by length": (saved.decode, saved.input_lengths)}
  if args.ct2_dir and tf.config.list_physical_devices("GPU"):
    try:
      from t2t_lite.serving.ctranslate2_served import ServedCTranslate2
      ct2 = ServedCTranslate2(args.ct2_dir, batch_size=BATCH, device="cuda")
      batched["CTranslate2 float32 on CUDA, batches of 64 sorted by length"] = (
          ct2.decode, ct2.input_lengths)
    except Exception as error:  # Its wheel's CUDA may not load here: say why, go on.
      rows["CTranslate2 float32 on CUDA"] = {"error": " ".join(str(error).split())[:200]}
  for name, (decode, input_lengths) in batched.items():
    lengths = input_lengths(sentences)
    run = lambda: [o["translations"] for o in cpu_serving.in_sorted_batches(  # noqa: E731
        decode, lengths, sentences, BATCH)]
    outputs = run()  # Warm-up: traces, autotuning.
    rows[name] = {"sentences_per_s": len(sentences) / cpu_serving.seconds_of(run),
                  "outputs": outputs}
  return rows


def device_environment(on_gpu):
  env = dict(os.environ, TF_FORCE_GPU_ALLOW_GROWTH="true")
  if not on_gpu:
    env["CUDA_VISIBLE_DEVICES"] = "-1"
  return env


def measure_device(args, on_gpu, cpus, work):
  """One device's rows: the offline process, then t2t-serve under 64 clients."""
  env = device_environment(on_gpu)
  result_path = os.path.join(work, f"offline_{'gpu' if on_gpu else 'cpu'}.json")
  subprocess.run([sys.executable, "-m", "bench.gpu.serving", "--offline_to", result_path,
                  *args.argv], env=env, check=True,
                 preexec_fn=cpu_serving.pinned(cpus))
  with open(result_path, encoding="utf-8") as f:
    rows = json.load(f)
  sentences = read_lines(args.sentences, args.count)
  server = cpu_serving.Server(f"--model_base_path={args.export_dir}", SERVER_THREADS,
                              SERVER_FLAGS, env, cpus, program=["t2t-serve"])
  try:
    asyncio.run(cpu_serving.warm_up(server.url, sentences))
    speed, latencies, errors, answers = asyncio.run(cpu_serving.clients_row(
        server.url, sentences, CLIENTS, args.seconds))
  finally:
    server.stop()
  rows[f"t2t-serve, {CLIENTS} clients"] = {
      "sentences_per_s": speed, "p50_ms": 1000 * cpu_serving.percentile(latencies, 0.5),
      "errors": sum(errors.values()), "answers": answers}
  return rows


def table(args, gpu, cpu, cpus):
  reference = gpu["SavedModel, batches of 64 sorted by length"]["outputs"]

  def same(row):
    pairs = (list(enumerate(row["outputs"])) if "outputs" in row else row.get("answers"))
    if not pairs:
      return ""
    return f"{sum(text == reference[i] for i, text in pairs) / len(pairs):.1%}"

  def cells(row):
    if "error" in row:
      return ["failed: " + row["error"], "", "", ""]
    return [f"{row['sentences_per_s']:,.1f}",
            f"{row['p50_ms']:,.0f}" if "p50_ms" in row else "", str(row.get("errors", "")),
            same(row)]
  rows = []
  for name, row in gpu.items():
    on_cores = cpu.get(name)
    gain = (report.ratio(1 / row["sentences_per_s"], 1 / on_cores["sentences_per_s"])
            if on_cores and "sentences_per_s" in row else "")
    rows.append([name] + cells(row) + ([f"{on_cores['sentences_per_s']:,.1f}"]
                                       if on_cores else [""]) + [gain])
  notes = [f"{args.count} sentences of {os.path.basename(args.sentences)} (one at a time: the "
           f"first {args.alone}); the export's decoding; t2t-serve {' '.join(SERVER_FLAGS)} "
           f"--num_batch_threads={SERVER_THREADS}, {CLIENTS} clients for {args.seconds:g} s "
           f"(aiohttp) after a warm-up pass.",
           f"CPU: cores {sorted(cpus)} of this machine, the GPU hidden (CUDA_VISIBLE_DEVICES=-1)."]
  return report.Table("The SavedModel and t2t-serve on the GPU vs 2 CPU cores",
                      ["decoding", "GPU sentences/s", "GPU p50 ms", "errors",
                       "= GPU batch 64", f"{len(cpus)} cores sentences/s", "GPU gain"],
                      rows, notes)


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--export_dir", required=True, help="t2t-exporter's SavedModel.")
  parser.add_argument("--sentences", required=True, help="One sentence a line.")
  parser.add_argument("--ct2_dir", help="A CTranslate2 export of the same run.")
  parser.add_argument("--count", type=int, default=300)
  parser.add_argument("--alone", type=int, default=32)
  parser.add_argument("--seconds", type=float, default=20)
  parser.add_argument("--cpu_cores", type=int, default=2)
  parser.add_argument("--json", help="Also save the table here.")
  parser.add_argument("--offline_to", help=argparse.SUPPRESS)  # The offline process's output.
  argv = sys.argv[1:] if argv is None else argv
  args = parser.parse_args(argv)
  args.argv = argv
  if args.offline_to:
    write_text_atomic(args.offline_to, json.dumps(offline(args)))
    return
  available = sorted(os.sched_getaffinity(0))
  cpus = set(available[:args.cpu_cores])
  with tempfile.TemporaryDirectory(prefix="t2t_gpu_serving_") as work:
    gpu = measure_device(args, True, None, work)
    rest = set(available) - cpus
    if rest:  # The clients keep off the served cores.
      os.sched_setaffinity(0, rest)
    cpu = measure_device(args, False, cpus, work)
  report.emit([table(args, gpu, cpu, cpus)], args.json)


if __name__ == "__main__":
  main()
