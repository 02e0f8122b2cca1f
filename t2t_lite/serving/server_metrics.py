"""What t2t-serve counts, in Prometheus's text format (GET /monitoring/prometheus/metrics).

    t2t_serve_requests_total{code="200"}     answered requests, by status code
    t2t_serve_client_disconnects_total       requests whose client hung up before their body
                                             arrived (in no code's count)
    t2t_serve_sentences_total                sentences answered (status 200)
    t2t_serve_batches_total                  batches decoded (failed ones too)
    t2t_serve_batch_failures_total           batches that failed
    t2t_serve_batch_size                     histogram: sentences per batch
    t2t_serve_batch_seconds                  histogram: a batch's decoding time
    t2t_serve_request_seconds                histogram: a :predict request's time, answered 200
    t2t_serve_queue_sentences                gauge: sentences waiting for a batch thread
    t2t_serve_batches_decoding               gauge: batches being decoded
    t2t_serve_model_available                gauge: 1 once the model is loaded and warmed up
    t2t_serve_requests_in_flight             gauge: requests accepted, not yet answered (less
                                             the one asking for the metrics)
    t2t_serve_connections_open               gauge: connections open
    t2t_serve_connections_dropped_total      connections closed to stay within
                                             --max_connections (connections.py)
    process_resident_memory_bytes            gauge: the server's resident memory
    process_resident_memory_peak_bytes       gauge: its peak since it started
"""

import bisect
import collections

BATCH_SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Histogram:
  """Prometheus's cumulative buckets, their sum and count."""

  def __init__(self, bounds):
    self.bounds = bounds
    self.counts = [0] * (len(bounds) + 1)  # The last one: above every bound (+Inf).
    self.sum = 0.0

  def observe(self, value):
    self.counts[bisect.bisect_left(self.bounds, value)] += 1
    self.sum += value

  def lines(self, name):
    lines, total = [], 0
    for bound, count in zip(list(self.bounds) + ["+Inf"], self.counts):
      total += count
      lines.append(f'{name}_bucket{{le="{bound}"}} {total}')
    return lines + [f"{name}_sum {self.sum:.6f}", f"{name}_count {total}"]


class Metrics:
  """The counters and histograms (the module doc); the gauges come from the caller."""

  def __init__(self):
    self.requests = collections.Counter()  # status code -> requests
    self.client_disconnects = 0
    self.sentences = 0
    self.batches = 0
    self.batch_failures = 0
    self.batch_size = Histogram(BATCH_SIZE_BUCKETS)
    self.batch_seconds = Histogram(SECONDS_BUCKETS)
    self.request_seconds = Histogram(SECONDS_BUCKETS)

  def answered(self, status, sentences=0, seconds=None):
    """A request answered with `status`; a :predict answered 200 gives its sentences and
    time."""
    self.requests[status] += 1
    self.sentences += sentences
    if seconds is not None:
      self.request_seconds.observe(seconds)

  def client_disconnected(self):
    """A request's client hung up before its body arrived."""
    self.client_disconnects += 1

  def batch_decoded(self, size, seconds):
    self.batches += 1
    self.batch_size.observe(size)
    self.batch_seconds.observe(seconds)

  def batch_failed(self):
    self.batch_failures += 1

  def text(self, queue_sentences, batches_decoding, available, requests_in_flight=0,
           connections_open=0, connections_dropped=0):
    """The exposition text, with the gauges' current values (and the connections' count
    of those dropped, which connections.py keeps)."""
    lines = ["# TYPE t2t_serve_requests_total counter"]
    lines += [f't2t_serve_requests_total{{code="{code}"}} {count}'
              for code, count in sorted(self.requests.items())]
    for name, value in (("sentences_total", self.sentences), ("batches_total", self.batches),
                        ("batch_failures_total", self.batch_failures),
                        ("client_disconnects_total", self.client_disconnects),
                        ("connections_dropped_total", connections_dropped)):
      lines += [f"# TYPE t2t_serve_{name} counter", f"t2t_serve_{name} {value}"]
    for name, histogram in (("batch_size", self.batch_size),
                            ("batch_seconds", self.batch_seconds),
                            ("request_seconds", self.request_seconds)):
      lines += [f"# TYPE t2t_serve_{name} histogram"] + histogram.lines(f"t2t_serve_{name}")
    resident, peak = resident_memory()
    for name, value in (("t2t_serve_queue_sentences", queue_sentences),
                        ("t2t_serve_batches_decoding", batches_decoding),
                        ("t2t_serve_model_available", int(available)),
                        ("t2t_serve_requests_in_flight", requests_in_flight),
                        ("t2t_serve_connections_open", connections_open),
                        ("process_resident_memory_bytes", resident),
                        ("process_resident_memory_peak_bytes", peak)):
      lines += [f"# TYPE {name} gauge", f"{name} {value}"]
    return "\n".join(lines) + "\n"


def resident_memory():
  """(resident, peak resident) bytes of this process (VmRSS, VmHWM); zeros where /proc is
  missing."""
  values = {}
  try:
    with open("/proc/self/status", encoding="utf-8") as f:
      for line in f:
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
          values[name] = int(rest.split()[0]) * 1024  # Kibibytes.
  except OSError:
    pass
  return values.get("VmRSS", 0), values.get("VmHWM", 0)


def parse(text):
  """Exposition text -> {sample name with its labels: value} (for readers such as the
  benchmark and tests)."""
  samples = {}
  for line in text.splitlines():
    if line and not line.startswith("#"):
      name, _, value = line.rpartition(" ")
      samples[name] = float(value)
  return samples
