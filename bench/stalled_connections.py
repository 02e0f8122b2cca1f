"""t2t-serve against many stalled connections: clients that connect and send nothing, a
request line, or half a body, and hold on. The real command in a process of its own on
loopback, serving a tiny run trained here (the connections are under test, not the
model). Measured: a normal request's seconds before and while they stall, the connections
the server keeps open and drops, its log lines and peak resident memory, and how long
SIGTERM takes to end it with the stalled connections still held. Prints a JSON record.

    python -m bench.stalled_connections --connections=20000 [--out=record.json]

The clients are processes of their own (each holds at most PER_PROCESS sockets, within an
open-file limit of a few thousand).
"""

import argparse
import collections
import datetime
import json
import multiprocessing
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from bench.serving import Server
from t2t_lite.training.cost import cpu_model

STALLS = (b"",
          b"POST /v1/models/default:predict HTTP/1.1\r\nHost: x\r\n",
          b"POST /v1/models/default:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
          b'{"instan')
PER_PROCESS = 4000
REQUESTS = 5  # Normal requests timed before, and while the connections stall.


def tiny_run(work):
  """A run of transformer_test_small trained 3 steps on synthetic text -> its directory."""
  tsv = os.path.join(work, "train.tsv")
  with open(tsv, "w", encoding="utf-8") as f:
    f.writelines(f"the number {i} is here\tdie Nummer {i} ist hier\n" for i in range(200))
  data, run = os.path.join(work, "data"), os.path.join(work, "run")
  for module, flags in (
      ("t2t_datagen", [f"--train_tsv={tsv}", "--vocab_size=300"]),
      ("t2t_trainer", [f"--output_dir={run}", "--hparams_set=transformer_test_small",
                       "--hparams=batch_size=256,max_length=32", "--train_steps=3",
                       "--schedule=train"])):
    subprocess.run([sys.executable, "-m", f"t2t_lite.bin.{module}",
                    "--problem=translate_from_files", f"--data_dir={data}", *flags],
                   check=True, capture_output=True)
  return run


def hold(port, count, offset, opened, release):
  """A client process: opens `count` connections, each sending its stall, reports (held,
  failed) on `opened`, and holds them until `release` is set."""
  _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
  resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
  sockets, failed = [], 0
  for index in range(count):
    try:
      connection = socket.create_connection(("127.0.0.1", port), timeout=60)
      connection.sendall(STALLS[(offset + index) % len(STALLS)])
      sockets.append(connection)
    except OSError:  # Refused, or closed by the server before the stall was sent.
      failed += 1
  opened.put((len(sockets), failed))
  release.wait()
  for connection in sockets:
    connection.close()


def request_seconds(url):
  """The seconds of one normal predict request (which must be answered 200)."""
  body = json.dumps({"instances": ["the number 7 is here"]}).encode()
  start = time.perf_counter()
  with urllib.request.urlopen(urllib.request.Request(
      url, body, {"Content-Type": "application/json"}), timeout=120) as response:
    response.read()
    assert response.status == 200
  return time.perf_counter() - start


def metrics(url):
  """{name: value} of the server's connection metrics."""
  base = url.split("/v1/")[0]
  with urllib.request.urlopen(base + "/monitoring/prometheus/metrics", timeout=120) as response:
    text = response.read().decode()
  return {name: float(value) for name, value in re.findall(
      r"^(t2t_serve_connections_\w+)(?:\{[^}]*\})? (\S+)$", text, re.M)}


def measure(connections, log=None):
  with tempfile.TemporaryDirectory() as work:
    server = Server(f"--output_dir={tiny_run(work)}", threads=1, flags=("--max_batch_size=8",))
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(server.process.stdout), daemon=True)
    reader.start()
    port = int(server.url.split(":")[2].split("/")[0])
    before = [request_seconds(server.url) for _ in range(REQUESTS)]
    logged_before = len(lines)
    context = multiprocessing.get_context("spawn")
    opened, release = context.Queue(), context.Event()
    counts = [min(PER_PROCESS, connections - start)
              for start in range(0, connections, PER_PROCESS)]
    start = time.monotonic()
    clients = [context.Process(target=hold, args=(port, count, index * PER_PROCESS, opened,
                                                  release)) for index, count in enumerate(counts)]
    for client in clients:
      client.start()
    held = [opened.get(timeout=1800) for _ in clients]
    opening_seconds = time.monotonic() - start
    during = [request_seconds(server.url) for _ in range(REQUESTS)]
    state = metrics(server.url)
    _, peak = server.memory()
    stop_start = time.monotonic()
    server.process.terminate()
    exit_status = server.process.wait(timeout=120)
    stop_seconds = time.monotonic() - stop_start
    release.set()
    for client in clients:
      client.join(120)
    reader.join(10)
  if log:
    with open(log, "w", encoding="utf-8") as f:
      f.writelines(lines)
  return {
      "date": datetime.date.today().isoformat(), "connections": connections,
      "held_by_clients": sum(h for h, _ in held), "failed_at_once": sum(f for _, f in held),
      "opening_seconds": round(opening_seconds, 1),
      "request_seconds_before": {"median": statistics.median(before), "max": max(before)},
      "request_seconds_during": {"median": statistics.median(during), "max": max(during)},
      "server_connection_metrics": state,
      "server_peak_resident_mib": round(peak / 2**20),
      "server_log_lines_while_stalled": len(lines) - logged_before,
      "server_log_lines_most_frequent": _most_frequent(lines[logged_before:]),
      "sigterm_seconds": round(stop_seconds, 1), "sigterm_exit_status": exit_status,
      "load_average": os.getloadavg()[0], "cpu": f"{cpu_model()}, {os.cpu_count()} cores",
  }


def _most_frequent(lines, kept=3):
  """The `kept` most frequent lines, numbers replaced by N, with their counts."""
  counts = collections.Counter(re.sub(r"\d+", "N", line.strip()) for line in lines)
  return dict(counts.most_common(kept))


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--connections", type=int, default=20000)
  parser.add_argument("--out", help="Also write the record to this file.")
  parser.add_argument("--log", help="Write the server's output to this file.")
  args = parser.parse_args()
  record = json.dumps(measure(args.connections, args.log), indent=1)
  print(record)
  if args.out:
    with open(args.out, "w", encoding="utf-8") as f:
      f.write(record + "\n")


if __name__ == "__main__":
  main()
