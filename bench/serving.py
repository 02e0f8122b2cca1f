"""t2t-serve under load: concurrent one-sentence clients against t2t-decoder's offline batches.

The model: a run's SavedModel (t2t-exporter, the problem's decoding: beam 4, alpha 0.6),
served by t2t-serve in a process of its own on loopback (batches of up to 32, a 1 ms batch
timeout, two batch threads: a second batch starts beside a first only when full). The
run is --run, or one trained now: Multi30k en-de generated from the files beside the
project, transformer_tiny_multi30k for --train_minutes (small batches and a short warmup:
enough steps in minutes for a model that ends its sentences, so that outputs have
sentences' lengths). The sentences: Multi30k's
test_2016_flickr English, the first --sentences, every row on the same ones.
  offline:      t2t-decoder's Translator at batch 32 (sorted by length); the same with
                the finished sentences kept in the batch to its end (beam_search.py, as
                under XLA, instead of retired: retiring.py); the same in batches of 32 in
                input order, unsorted, as a server's arrive; the SavedModel and a
                CTranslate2 export of the run in batches of 32 sorted by length
                (t2t-serve's ServedCTranslate2, CTranslate2's length penalty 0.4), each in
                this process, timed after a warm-up pass: sentences/s;
  alone:        the SavedModel decoding one sentence at a time in this process: the latency
                of a sentence decoded alone, which one client's is compared with;
  clients:      1, 8 and 64 clients, each sending one sentence and the next once answered,
                for --seconds each (aiohttp's client): sentences/s, latency percentiles,
                errors, the server's peak resident memory (VmHWM) after the row, after a
                warm-up pass as the offline rows have (every sentence once, 64 clients at
                a time); then 64 clients once more against t2t-serve --output_dir=RUN, the
                run served by t2t-decoder's own Translator instead of the SavedModel (one
                batch thread);
  overload:     requests sent at 4x the 64-client rate for --overload_seconds without
                waiting for answers: how many got 200 and 503, every 200 checked against
                t2t-decoder's line, the server's resident memory over time, and a request
                answered once it is over.
"= t2t-decoder's lines": the share of answers byte-identical to t2t-decoder's output line
for the same sentence and settings. The machine's load average is noted before and after:
on a shared machine, other work slows some rows and not others.

    python -m bench.serving [--run=RUN] [--sentences=300] [--seconds=30]
                            [--overload_seconds=60] [--train_minutes=5]
"""

import argparse
import asyncio
import collections
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench import configs, report

MULTI30K_TEST = os.path.join(configs.SHARED_DATA, "multi30k", "test_2016_flickr.en")
BATCH_SIZE = 32
CLIENTS = (1, 8, 64)
OVERLOAD = 4
TRAIN_HPARAMS = "batch_size=1024,learning_rate_warmup_steps=200,learning_rate_constant=1.0"


def read_sentences(count):
  if not os.path.exists(MULTI30K_TEST):
    raise SystemExit(f"{MULTI30K_TEST} is missing: the real data sits in ../shared/data beside "
                     f"the project (see its README)")
  with open(MULTI30K_TEST, encoding="utf-8") as f:
    return f.read().splitlines()[:count]


def train_run(work, minutes):
  """A run trained now on Multi30k (the module doc) -> its directory."""
  from bench.real_batches import PROBLEM, generate
  data_dir, output_dir = os.path.join(work, "data"), os.path.join(work, "run")
  generate(data_dir)
  subprocess.run([sys.executable, "-m", "t2t_lite.bin.t2t_trainer", f"--problem={PROBLEM}",
                  "--hparams_set=transformer_tiny_multi30k", f"--hparams={TRAIN_HPARAMS}",
                  f"--data_dir={data_dir}", f"--output_dir={output_dir}",
                  f"--train_minutes={minutes}", "--schedule=train", "--random_seed=1"],
                 check=True)
  return output_dir


def seconds_of(run, repeats=1):
  """The median seconds of `run()` over `repeats` runs."""
  times = []
  for _ in range(repeats):
    start = time.perf_counter()
    run()
    times.append(time.perf_counter() - start)
  return statistics.median(times)


def in_sorted_batches(decode, lengths, sentences, batch_size=BATCH_SIZE):
  """`decode` over `sentences` in batches of `batch_size` sorted by length -> outputs, in
  order."""
  from t2t_lite.decoding.sentence_batches import batches_by_length
  outputs = [None] * len(sentences)
  for batch in batches_by_length(lengths, batch_size):
    for index, output in zip(batch, decode([sentences[i] for i in batch])):
      outputs[index] = output
  return outputs


def offline_rows(run_dir, export_dir, ct2_dir, sentences):
  """The offline decoders -> (rows {name: (sentences/s, outputs)}, alone latencies, t2t-decoder's lines)."""
  from t2t_lite.run import Run
  from t2t_lite.serving.ctranslate2_served import ServedCTranslate2
  from t2t_lite.serving.saved_model_served import ServedSavedModel
  translator = Run.open(run_dir).translator(f"batch_size={BATCH_SIZE}")
  keeping = Run.open(run_dir).translator(f"batch_size={BATCH_SIZE}")
  keeping.retire_finished = False  # Before its first search is traced.
  saved = ServedSavedModel(export_dir, 1)
  ct2 = ServedCTranslate2(ct2_dir, batch_size=BATCH_SIZE)
  decoders = {
      "t2t-decoder, batch 32 (offline)": lambda: translator.translate(sentences, progress=False),
      "t2t-decoder, batch 32, finished sentences kept in the batch (offline)": lambda: (
          keeping.translate(sentences, progress=False)),
      "t2t-decoder, batches of 32 in input order, unsorted (offline)": lambda: [
          line for start in range(0, len(sentences), BATCH_SIZE)
          for line in translator.translate(sentences[start:start + BATCH_SIZE],
                                           progress=False)],
      "SavedModel, batches of 32 sorted by length (offline)": lambda: [
          o["translations"] for o in in_sorted_batches(saved.decode, saved.input_lengths(
              sentences), sentences)],
      "CTranslate2 float32, batches of 32 sorted by length (offline)": lambda: [
          o["translations"] for o in in_sorted_batches(ct2.decode, ct2.input_lengths(
              sentences), sentences)],
  }
  rows = {}
  for name, decode in decoders.items():
    outputs = decode()  # Warm-up: traces, caches.
    rows[name] = (len(sentences) / seconds_of(decode), outputs)
  alone = []
  for sentence in sentences[:100]:
    start = time.perf_counter()
    saved.decode([sentence])
    alone.append(time.perf_counter() - start)
  return rows, alone, rows["t2t-decoder, batch 32 (offline)"][1]


SERVER_FLAGS = (f"--max_batch_size={BATCH_SIZE}", "--batch_timeout_micros=1000",
                "--max_enqueued_batches=8")
# Batch threads: the SavedModel's server decodes two batches at once (one per core; a second
# batch starts only when full: t2t_lite/serving/request_batching.py); the run directory's, one.
SAVED_MODEL_THREADS, RUN_THREADS = 2, 1


def pinned(cpus):
  """A subprocess's preexec_fn that keeps it on the cores `cpus` (None: any)."""
  return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


class Server:
  """t2t-serve serving `what` (--model_base_path=... or --output_dir=...) in a process of
  its own, on a free loopback port; `env`: its environment (default this one's), `cpus`:
  the cores it may run on (default any); `program`: the command (default this Python's
  t2t_lite; ["t2t-serve"]: the one on PATH)."""

  def __init__(self, what, threads, flags=SERVER_FLAGS, env=None, cpus=None, program=None):
    program = program or [sys.executable, "-m", "t2t_lite.bin.t2t_serve"]
    self.process = subprocess.Popen(
        [*program, what, "--port=0", *flags, f"--num_batch_threads={threads}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        preexec_fn=pinned(cpus))
    port = None
    for line in self.process.stdout:
      print(line, end="", flush=True)
      found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", line)
      port = int(found.group(1)) if found else port
      if "AVAILABLE" in line:
        break
    else:
      raise SystemExit("t2t-serve ended before it was available")
    self.url = f"http://127.0.0.1:{port}/v1/models/default:predict"

  def memory(self):
    """(resident, peak resident) bytes of the server process."""
    values = {}
    with open(f"/proc/{self.process.pid}/status", encoding="utf-8") as f:
      for line in f:
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
          values[name] = int(rest.split()[0]) * 1024
    return values["VmRSS"], values["VmHWM"]

  def stop(self):
    self.process.terminate()
    self.process.communicate(timeout=120)
    return self.process.returncode


async def post(session, url, sentence):
  """-> (status, translation or None, seconds)."""
  start = time.perf_counter()
  async with session.post(url, json={"instances": [sentence]}) as response:
    answer = await response.json()
  seconds = time.perf_counter() - start
  return response.status, (answer["predictions"][0]["translations"]
                           if response.status == 200 else None), seconds


async def clients_row(url, sentences, clients, seconds):
  """`clients` closed-loop clients for `seconds` -> (sentences/s, latencies, errors
  Counter, [(sentence index, translation)] of the answers)."""
  import aiohttp
  latencies, errors, answers = [], collections.Counter(), []
  order = itertools.cycle(range(len(sentences)))
  async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
    deadline = time.perf_counter() + seconds

    async def client():
      while time.perf_counter() < deadline:
        index = next(order)
        try:
          status, translation, took = await post(session, url, sentences[index])
        except aiohttp.ClientError as error:
          errors[type(error).__name__] += 1
          continue
        if status == 200:
          latencies.append(took)
          answers.append((index, translation))
        else:
          errors[status] += 1
    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    elapsed = time.perf_counter() - start
  return len(latencies) / elapsed, latencies, errors, answers


async def warm_up(url, sentences):
  """Every sentence once, CLIENTS[-1] requests at a time: the offline rows' warm-up pass."""
  import aiohttp
  async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CLIENTS[-1])) as session:
    await asyncio.gather(*(post(session, url, sentence) for sentence in sentences))


async def overload(server, sentences, expected, rate, seconds):
  """Requests at `rate` per second for `seconds`, not waiting for answers -> a dict of
  what happened (module doc)."""
  import aiohttp
  statuses, wrong, memory = collections.Counter(), 0, []
  async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                   timeout=aiohttp.ClientTimeout(total=300)) as session:
    async def one(index):
      nonlocal wrong
      try:
        status, translation, _ = await post(session, server.url, sentences[index])
      except aiohttp.ClientError as error:
        statuses[type(error).__name__] += 1
        return
      statuses[status] += 1
      wrong += status == 200 and translation != expected[index]

    tasks, start = [], time.perf_counter()
    for count in itertools.count():
      due = start + count / rate
      now = time.perf_counter()
      if due - start >= seconds:
        break
      if due > now:
        await asyncio.sleep(due - now)
      if len(memory) <= (now - start):
        memory.append(server.memory()[0])
      tasks.append(asyncio.ensure_future(one(count % len(sentences))))
    await asyncio.gather(*tasks)
    memory.append(server.memory()[0])
    after = await post(session, server.url, sentences[0])
  return {"sent": len(tasks), "statuses": statuses, "wrong": wrong, "memory": memory,
          "after": after[0] == 200 and after[1] == expected[0]}


def percentile(values, fraction):
  ordered = sorted(values)
  return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def run(args):
  from t2t_lite.export.ctranslate2 import export_ctranslate2
  from t2t_lite.export.saved_model import export_run
  from t2t_lite.quiet import import_tensorflow
  import_tensorflow()
  load_before = os.getloadavg()
  sentences = read_sentences(args.sentences)
  with tempfile.TemporaryDirectory(prefix="t2t_serving_") as work:
    run_dir = args.run or train_run(work, args.train_minutes)
    export_dir = export_run(run_dir, os.path.join(work, "serving"))
    ct2_dir = export_ctranslate2(run_dir, os.path.join(work, "ctranslate2"))
    offline, alone, expected = offline_rows(run_dir, export_dir, ct2_dir, sentences)
    server = Server(f"--model_base_path={export_dir}", SAVED_MODEL_THREADS)
    try:
      asyncio.run(warm_up(server.url, sentences))
      served = {}
      for clients in CLIENTS:
        served[clients] = asyncio.run(clients_row(server.url, sentences, clients, args.seconds))
        served[clients] += (server.memory()[1],)
        print(f"{clients} clients: {served[clients][0]:.1f} sentences/s", flush=True)
      rate = OVERLOAD * served[CLIENTS[-1]][0]
      overloaded = asyncio.run(overload(server, sentences, expected, rate,
                                        args.overload_seconds))
    finally:
      exit_status = server.stop()
    server = Server(f"--output_dir={run_dir}", RUN_THREADS)  # t2t-decoder's Translator.
    try:
      asyncio.run(warm_up(server.url, sentences))
      many = CLIENTS[-1]
      served[f"{many}, run directory"] = asyncio.run(clients_row(server.url, sentences, many,
                                                                 args.seconds))
      served[f"{many}, run directory"] += (server.memory()[1],)
    finally:
      server.stop()
  load_after = os.getloadavg()
  return tables(args, run_dir, sentences, offline, alone, expected, served, overloaded, rate,
                exit_status, (load_before, load_after))


def tables(args, run_dir, sentences, offline, alone, expected, served, overloaded, rate,
           exit_status, loads):
  reference = offline["t2t-decoder, batch 32 (offline)"][0]
  alone_p50 = statistics.median(alone)

  def same(answers):
    """The share of (sentence index, translation) pairs that are t2t-decoder's line."""
    return f"{sum(text == expected[i] for i, text in answers) / max(1, len(answers)):.1%}"

  ms = lambda seconds: f"{seconds * 1000:,.0f}"  # noqa: E731
  rows = [[name, f"{speed:,.1f}", report.ratio(1 / speed, 1 / reference), "", "", "", "", "",
           same(list(enumerate(outputs)))] for name, (speed, outputs) in offline.items()]
  rows.append(["SavedModel, one sentence alone", f"{1 / statistics.mean(alone):,.1f}",
               report.ratio(statistics.mean(alone), 1 / reference), ms(alone_p50),
               ms(percentile(alone, 0.95)), ms(percentile(alone, 0.99)), "", "", ""])
  for clients, (speed, latencies, errors, answers, peak) in served.items():
    name = (f"t2t-serve, {clients} client{'s' if clients != 1 else ''}" if clients in CLIENTS
            else f"t2t-serve --output_dir (the run itself), {CLIENTS[-1]} clients")
    rows.append([name, f"{speed:,.1f}",
                 report.ratio(1 / speed, 1 / reference), ms(percentile(latencies, 0.5)),
                 ms(percentile(latencies, 0.95)), ms(percentile(latencies, 0.99)),
                 str(sum(errors.values())), report.gib(peak), same(answers)])
  one_client = percentile(served[1][1], 0.5)
  many = served[CLIENTS[-1]][0]
  (before, _, _), (after, _, _) = loads
  notes = [f"Run: {run_dir if args.run else 'transformer_tiny_multi30k trained now for '}"
           f"{'' if args.run else f'{args.train_minutes} minutes ({TRAIN_HPARAMS})'}; "
           f"{len(sentences)} sentences of Multi30k's test_2016_flickr (English); the "
           f"problem's decoding (beam 4, alpha 0.6, input + 50); t2t-serve --max_batch_size=32 "
           f"--batch_timeout_micros=1000 --max_enqueued_batches=8 --num_batch_threads="
           f"{SAVED_MODEL_THREADS} ({RUN_THREADS} for the run directory), "
           f"clients for {args.seconds} s each (aiohttp), after a warm-up.",
           f"Goals: 64 clients at {many / reference:.2f}x t2t-decoder's offline sentences/s "
           f"(goal >= 0.9x); one client's p50 latency {one_client / alone_p50:.2f}x a sentence "
           f"decoded alone (goal <= 1.2x).",
           "vs t2t-decoder offline: the row's sentences/s over t2t-decoder's; the server rows' "
           "peak RSS is the server process's VmHWM after the row.",
           f"Load average (1 min) {before:.2f} before and {after:.2f} after, on "
           f"{os.cpu_count()} cores: other work on the machine slows the rows it overlaps."]
  notes += report.machine_description()
  memory = overloaded["memory"]
  statuses = overloaded["statuses"]
  overload_rows = [[f"{rate:,.1f}", str(overloaded["sent"]), str(statuses.get(200, 0)),
                    str(statuses.get(503, 0)),
                    str(sum(v for k, v in statuses.items() if k not in (200, 503))),
                    str(overloaded["wrong"]), report.gib(memory[0]), report.gib(memory[-1]),
                    report.gib(max(memory)), "yes" if overloaded["after"] else "no",
                    str(exit_status)]]
  overload_notes = [
      f"{OVERLOAD}x the 64-client rate for {args.overload_seconds} s, each request sent on "
      f"time whether or not the earlier ones were answered; 503: refused by the full queue "
      f"(Retry-After); RSS: the server's resident memory at the start, the end and its most, "
      f"sampled every second; afterwards: one more request, answered 200 with t2t-decoder's "
      f"line; exit status: the server's after SIGTERM."]
  return [report.Table("t2t-serve under load vs offline decoding (CPU)",
                       ["decoding", "sentences/s", "vs t2t-decoder offline", "p50 ms",
                        "p95 ms", "p99 ms", "errors", "server peak RSS (GiB)",
                        "= t2t-decoder's lines"], rows, notes),
          report.Table(f"t2t-serve at {OVERLOAD}x overload",
                       ["offered sentences/s", "sent", "200", "503", "other", "200 wrong",
                        "RSS start (GiB)", "RSS end (GiB)", "RSS max (GiB)",
                        "answers afterwards", "exit status"], overload_rows, overload_notes)]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--run", help="A trained run directory (default: train one now).")
  parser.add_argument("--sentences", type=int, default=300)
  parser.add_argument("--seconds", type=float, default=30, help="Per client count.")
  parser.add_argument("--overload_seconds", type=float, default=60)
  parser.add_argument("--train_minutes", type=float, default=5)
  parser.add_argument("--json", help="Also save the tables here.")
  args = parser.parse_args()
  report.emit(run(args), args.json)


if __name__ == "__main__":
  main()
