"""t2t-datagen on 1,000,000 Europarl-length pairs: pairs/s and peak memory, one core vs all.

The pairs are made from the 20,000 Europarl en-de pairs beside the project: pair k is
pair k mod 20,000 with the words of each side in a new order (a seeded shuffle), so the
corpus has Europarl's lengths and words but a million different sentences, as a real one
has (SentencePiece keeps each distinct sentence of its sample). Each row runs the whole
command, `t2t-datagen --problem=translate_from_files` with its 32,768-piece vocabulary, in
a process of its own:
  one core: the command and everything it starts held to one core (its affinity), so it
    encodes in its own process;
  all cores: every core, one encoding process per core (the default);
  all cores on a quarter of the pairs: what grows with the corpus.
Records pairs/s: the train split's pairs over the time the command took to encode and
write them (its summary's); vocabulary: the time until the first record file. RSS: the
command's processes together (sampled every 0.1 s): the peak while the vocabulary trains;
at the first record file and the peak while the records are written. CPU: the command's processes' CPU time, and the cores
that makes over its wall time. Other load: the cores' busy time outside the command
during the run (the machine is shared), in cores.

    python -m bench.datagen [--pairs=1000000]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

from bench import configs, report
from t2t_lite.files.atomic_files import TEMP_SUFFIX

PROBLEM = "translate_from_files"
SAMPLE_S = 0.1


def make_corpus(directory, pairs, seed=0):
  """Writes train.en and train.de of `pairs` pairs (module doc) -> their paths."""
  originals = []
  for language in ("en", "de"):
    path = f"{configs.EUROPARL}.{language}"
    if not os.path.exists(path):
      raise SystemExit(f"{path} is missing: the real data sits in ../shared/data beside the "
                       f"project (see its README)")
    with open(path, encoding="utf-8") as f:
      originals.append([line.split() for line in f.read().split("\n")[:-1]])
  rng = random.Random(seed)
  paths = [os.path.join(directory, f"train.{language}") for language in ("en", "de")]
  with open(paths[0], "w", encoding="utf-8") as en, open(paths[1], "w", encoding="utf-8") as de:
    for k in range(pairs):
      for side, out in zip(originals, (en, de)):
        words = list(side[k % len(side)])
        rng.shuffle(words)
        out.write(" ".join(words) + "\n")
  return paths


class TreeSampler:
  """Samples a process and its descendants every SAMPLE_S until `stop()`: their resident
  memory, split at the moment the command starts writing records (a record file appears in
  its staging directory), and each one's CPU time, to tell the command's own process's
  share of the records' CPU from its encoding processes'."""

  def __init__(self, process, staging):
    self.process, self.staging = process, staging
    self.peaks = {"vocabulary": 0, "records": 0}
    self.records_started = self.records_first = None
    self.cpu = {}  # pid -> its CPU seconds when last seen.
    self.main_cpu_at_records = 0.0
    self._done = threading.Event()
    self._thread = threading.Thread(target=self._run, daemon=True)
    self._thread.start()

  def _run(self):
    while not self._done.is_set():
      phase = "records" if self._writing() else "vocabulary"
      processes = tree(self.process.pid)
      rss = sum(resident for resident, _ in processes.values())
      self.cpu.update({pid: cpu for pid, (_, cpu) in processes.items()})
      if phase == "records" and self.records_first is None:
        self.records_first = rss
        self.main_cpu_at_records = self.cpu.get(self.process.pid, 0.0)
      self.peaks[phase] = max(self.peaks[phase], rss)
      time.sleep(SAMPLE_S)

  def _writing(self):
    if self.records_started is None:
      try:
        if any(name.endswith(".tfrecord" + TEMP_SUFFIX) for name in os.listdir(self.staging)):
          self.records_started = time.perf_counter()
      except OSError:
        pass
    return self.records_started is not None

  def main_share_of_records_cpu(self):
    """The command's own process's share of the CPU its records took (the rest: the
    encoding processes'), as last sampled."""
    main = self.cpu.get(self.process.pid, 0.0) - self.main_cpu_at_records
    others = sum(cpu for pid, cpu in self.cpu.items() if pid != self.process.pid)
    return main / (main + others) if main + others else 0.0

  def stop(self):
    self._done.set()
    self._thread.join()


def tree(root):
  """{pid: (resident bytes, CPU seconds)} of process `root` and all its descendants now."""
  children, seen = {}, {}
  for name in os.listdir("/proc"):
    if not name.isdigit():
      continue
    try:
      with open(f"/proc/{name}/stat", encoding="utf-8") as f:
        fields = f.read().rsplit(")", 1)[1].split()  # From the state on: field 3 of stat.
    except OSError:
      continue
    children.setdefault(int(fields[1]), []).append(int(name))  # The parent.
    seen[int(name)] = (int(fields[21]) * os.sysconf("SC_PAGE_SIZE"),  # rss pages.
                       (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
  found, stack = {}, [root]
  while stack:
    pid = stack.pop()
    if pid in seen:
      found[pid] = seen[pid]
    stack += children.get(pid, [])
  return found


def busy_cpu_seconds():
  """The machine's busy CPU time so far (all cores, /proc/stat), in seconds."""
  with open("/proc/stat", encoding="utf-8") as f:
    user, nice, system, _, _, irq, softirq, steal = map(int, f.readline().split()[1:9])
  return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def run_datagen(source, target, work, cores):
  """t2t-datagen on the corpus, held to `cores` (None: all) -> the row's measurements."""
  data_dir = os.path.join(work, f"data_{cores or 'all'}_{os.path.getsize(source)}")
  command = [sys.executable, "-m", "t2t_lite.bin.t2t_datagen", f"--problem={PROBLEM}",
             f"--data_dir={data_dir}", f"--tmp_dir={work}", f"--train_source={source}",
             f"--train_target={target}", "--noprogress"]
  pin = (lambda: os.sched_setaffinity(0, cores)) if cores else None
  before_cpu, before_children = busy_cpu_seconds(), os.times()
  start = time.perf_counter()
  process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=pin)
  sampler = TreeSampler(process, os.path.join(data_dir, PROBLEM + TEMP_SUFFIX))
  out, err = process.communicate()
  wall = time.perf_counter() - start
  sampler.stop()
  if process.returncode:
    raise SystemExit(f"t2t-datagen failed ({process.returncode}): {err[-2000:]}")
  after_children = os.times()
  own_cpu = ((after_children.children_user - before_children.children_user)
             + (after_children.children_system - before_children.children_system))
  with open(os.path.join(data_dir, f"{PROBLEM}-train.json"), encoding="utf-8") as f:
    marker = json.load(f)
  summary = marker["summary"]
  return {"pairs": summary["examples"], "records_s": summary["seconds"],
          "vocabulary_s": (sampler.records_started or time.perf_counter()) - start,
          "wall_s": wall, "files": len(marker["files"]), "peaks": sampler.peaks,
          "records_first": sampler.records_first or 0,
          "main_share": sampler.main_share_of_records_cpu(),
          "own_cpu_s": own_cpu,
          "other_cores": max(0.0, (busy_cpu_seconds() - before_cpu - own_cpu) / wall)}


def table(rows, cores):
  one = rows[0][1]
  lines = []
  for label, row in rows:
    rate = row["pairs"] / row["records_s"]
    lines.append([label, f"{row['pairs']:,}", f"{row['vocabulary_s']:.0f}",
                  f"{row['records_s']:.0f}", f"{rate:,.0f}",
                  f"{rate / (one['pairs'] / one['records_s']):.2f}x",
                  report.gib(row["peaks"]["vocabulary"]),
                  f"{report.gib(row['records_first'])} -> {report.gib(row['peaks']['records'])}",
                  f"{row['wall_s']:.0f}", f"{row['own_cpu_s']:.0f}",
                  f"{row['own_cpu_s'] / row['wall_s']:.2f}",
                  f"{100 * row['main_share']:.0f}%", str(row["files"]),
                  f"{row['other_cores']:.2f}"])
  notes = [f"{cores} cores. Vocabulary: 32,768 BPE pieces trained on both sides of the "
           f"train text. Ratio: records pairs/s over the one-core row's.",
           "Records RSS: at the first record file, and the most while writing (the encoding "
           "processes start after the first 16 batches): what writing adds.",
           "CPU s: the command's processes' CPU time; cores used: that over the wall time; "
           "records CPU, main process: the command's own process's share of the CPU the "
           "records took (reading, writing; the encoding processes have the rest), which "
           "bounds the gain of more cores. "
           "Other load: the machine's busy cores outside the command, averaged over its run "
           "(other processes share this machine): all cores minus it is what the command "
           "could have."]
  return report.Table("t2t-datagen: records pairs/s and peak memory, one core vs all",
                      ["run", "pairs", "vocabulary s", "records s", "records pairs/s",
                       "vs one core", "peak RSS GiB, vocabulary",
                       "RSS GiB, records: first -> peak",
                       "wall s", "CPU s", "cores used", "records CPU: main process",
                       "files", "other load (cores)"],
                      lines, notes)


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--pairs", type=int, default=1_000_000)
  parser.add_argument("--json", help="Where to save the tables.")
  args = parser.parse_args()
  cores = sorted(os.sched_getaffinity(0))
  with tempfile.TemporaryDirectory(prefix="t2t_bench_datagen_") as work:
    quarter = os.path.join(work, "quarter")
    os.makedirs(quarter)
    corpus = make_corpus(work, args.pairs)
    small = make_corpus(quarter, args.pairs // 4)
    rows = [("one core", run_datagen(*corpus, work, {cores[0]})),
            (f"all {len(cores)} cores", run_datagen(*corpus, work, None)),
            (f"all {len(cores)} cores, a quarter of the pairs",
             run_datagen(*small, quarter, None))]
  report.emit([table(rows, len(cores))], args.json)


if __name__ == "__main__":
  main()
