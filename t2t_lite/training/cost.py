"""Training cost like the paper's Table 2: FLOPs spent, FLOP/s achieved, MFU.

Model FLOPs count the multiply-adds (2 FLOPs each) of the matrix products that
real (non-padding) tokens go through, forward and backward (x3), plus attention's
score and weighted-sum products over the attended span. Padding, layer norms,
softmax and the optimizer are not counted: this is model-FLOPs utilisation.
"""

import json
import os
import re
import time

import numpy as np

from t2t_lite.cores import usable_cores
from t2t_lite.errors import UserError
from t2t_lite.files.atomic_files import write_text_atomic
from t2t_lite.files.file_reading import SMALL_FILE_BYTES, read_text

# Dense peak FLOP/s of common accelerators in bfloat16/float16 (no sparsity), from the
# vendors' data sheets: (substring of the device name, FLOP/s), most specific first.
GPU_PEAK_FLOPS = (
    ("H100 PCIe", 756e12), ("H100 NVL", 835e12), ("H200", 989e12),
    ("H100", 989e12),  # SXM (HBM3), e.g. "NVIDIA H100 80GB HBM3".
    ("A100", 312e12), ("L4", 121e12), ("A10", 125e12), ("V100", 125e12), ("T4", 65e12),
)


def gpu_peak_flops(device_name):
  """Dense bfloat16 FLOP/s of the named GPU, or None when it is not in the table. A key
  matches whole words only: "L4" is not an L40, "A10" not an A10G."""
  for key, peak in GPU_PEAK_FLOPS:
    if re.search(rf"(?<![A-Za-z0-9]){re.escape(key)}(?![A-Za-z0-9])", device_name, re.I):
      return peak
  return None


def training_flops(hparams, target_vocab_size, input_tokens, target_tokens,
                   mean_input_length, mean_target_length):
  """Model FLOPs of one training step (forward + backward) over the given tokens: two
  passes over them under R-Drop (hparams.rdrop_alpha)."""
  d, f, n = hparams.hidden_size, hparams.filter_size, hparams.num_hidden_layers
  keys, values = hparams.key_channels, hparams.value_channels
  projections = d * keys * 2 + d * values * 2      # Q, K, V, O of one attention.
  feed_forward = 2 * d * f
  per_input_token = n * (projections + feed_forward + d * keys + d * values)  # + memory K, V
  per_target_token = n * (projections + d * keys + d * values + feed_forward) + d * target_vocab_size
  attention_per_input = n * (keys + values) * mean_input_length
  attention_per_target = n * (keys + values) * (mean_target_length / 2 + mean_input_length)
  forward = 2 * (input_tokens * (per_input_token + attention_per_input) +
                 target_tokens * (per_target_token + attention_per_target))
  passes = 2 if hparams.rdrop_alpha else 1
  return 3 * forward * passes


def device_peak_flops(strategy_devices, dtype, achieved_flops=None):
  """(peak FLOP/s, where it came from) of the devices a run uses.

  GPUs: the table above (bfloat16/float16 peaks from the vendors' data sheets; float32
  without TF32 is far lower). CPU: the fastest float32 matrix product ever measured on
  this machine (`cpu_peak`); achieved_flops, the run's own FLOP/s, has it measured
  again when the run came implausibly close to it.
  """
  gpu_names = [name for name in strategy_devices if "GPU" in name.upper()]
  if gpu_names:
    import tensorflow as tf
    details = tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[0])
    model = details.get("device_name", "GPU")
    peak = gpu_peak_flops(model)
    if peak:
      return peak * len(gpu_names), f"{len(gpu_names)} x {model}, {dtype} peak of its data sheet"
    return None, f"{len(gpu_names)} x {model} (peak unknown)"
  return cpu_peak(achieved_flops)


# A cached CPU peak is measured again once it is this old (the machine under the same name
# may have changed), or when a run reached more than PLAUSIBLE_CPU_MFU of it: training runs
# more than matrix products, so a measurement that slow was taken on a busy machine.
PEAK_CACHE_DAYS = 30
PLAUSIBLE_CPU_MFU = 0.75
# Until the cache holds this many measurements, each process measures once more: runs at
# different moments see different loads, and the fastest of them is kept.
TRUSTED_MEASUREMENTS = 3
_measured_in_this_process = False


def cpu_peak(achieved_flops=None):
  """(This machine's float32 matmul peak, where it came from).

  Other work on the machine only ever slows a measurement down, so the cache (per user,
  keyed by CPU model, core count, CPU flags, TensorFlow version and how it is measured)
  keeps the fastest ever measured: each new measurement can only raise it. It is measured
  when there is none, when it is older than PEAK_CACHE_DAYS, once per process until it
  holds TRUSTED_MEASUREMENTS, and when `achieved_flops` (a run's own) exceeds
  PLAUSIBLE_CPU_MFU of it. The description says how many measurements it is the best of.
  """
  global _measured_in_this_process
  key = _machine_key()
  path = peak_cache_path()
  cached = _read_cache(path, key)
  now = time.time()
  if cached is not None and now - cached["first"] > PEAK_CACHE_DAYS * 86400:
    cached = None  # Stale: start over.
  suspicious = (cached is not None and achieved_flops is not None
                and achieved_flops > PLAUSIBLE_CPU_MFU * cached["flops"])
  untrusted = (cached is not None and cached["measurements"] < TRUSTED_MEASUREMENTS
               and not _measured_in_this_process)
  if cached is not None and not suspicious and not untrusted:
    return cached["flops"], _describe(cached)
  measured = measured_cpu_peak()
  _measured_in_this_process = True
  entry = {"machine": key, "flops": measured, "measurements": 1, "first": now, "last": now}
  if cached is not None:
    entry.update(flops=max(measured, cached["flops"]), first=cached["first"],
                 measurements=cached["measurements"] + 1)
  try:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_text_atomic(path, json.dumps(entry) + "\n")
  except OSError:
    pass  # The cache is a convenience: an unwritable home measures again next time.
  return entry["flops"], _describe(entry)


def peak_cache_path(cache_home=None):
  """Where `cpu_peak` keeps its measurements, in `cache_home` (default: the user's cache
  folder, XDG_CACHE_HOME or ~/.cache)."""
  cache_home = cache_home or os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
  return os.path.join(cache_home, "t2t_lite", "cpu_matmul_peak.json")


def _machine_key():
  import tensorflow as tf
  # The cores this process may use (taskset, a container's cpuset), not the machine's all.
  return (f"{cpu_model()} | {usable_cores()} cores | flags {cpu_flags_digest()} | "
          f"tensorflow {tf.__version__} | {PEAK_MEASUREMENT}")


def _read_cache(path, key):
  """The cache's entry for `key` with every field, or None."""
  try:
    cached = json.loads(read_text(path, limit=SMALL_FILE_BYTES))  # Not a FIFO, not huge.
    if cached.get("machine") != key:
      return None
    return {"machine": key, "flops": float(cached["flops"]),
            "measurements": int(cached.get("measurements", 1)),
            "first": float(cached.get("first", 0.0)), "last": float(cached.get("last", 0.0))}
  except (OSError, UserError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
    return None


def _describe(entry):
  day = time.strftime("%Y-%m-%d", time.localtime(entry["last"]))
  count = entry["measurements"]
  return (f"CPU float32 matmul peak: the fastest of {count} measurement"
          f"{'s' if count > 1 else ''} on this machine, the last on {day}")


def cpu_flags_digest():
  """A short digest of the CPU's feature flags (AVX-512, AMX...): part of the cache key."""
  import hashlib
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      for line in f:
        if line.startswith(("flags", "Features")):
          flags = " ".join(sorted(line.split(":", 1)[1].split()))
          return hashlib.sha256(flags.encode("utf-8")).hexdigest()[:12]
  except OSError:
    pass
  return "unknown"


def cpu_model():
  """The CPU's model name from /proc/cpuinfo (Linux), else the platform's processor."""
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      for line in f:
        if line.startswith("model name"):
          return line.split(":", 1)[1].strip()
  except OSError:
    pass
  import platform
  return platform.processor() or "unknown CPU"


# How `measured_cpu_peak` measures, part of the cache's key: a cached peak measured
# another way is measured again.
PEAK_MEASUREMENT = "fastest of 20 timings, fastest kept"


def measured_cpu_peak(size=1024, trials=20, products_per_trial=4):
  """FLOP/s of float32 [size, size] matrix products on this CPU: the best of `trials`
  timings of a few products each. Other work on the machine only ever slows a trial
  down, so the fastest is the closest to what the CPU can do alone."""
  import tensorflow as tf
  a = tf.constant(np.random.default_rng(0).standard_normal((size, size)), tf.float32)
  tf.linalg.matmul(a, a).numpy()
  fastest = float("inf")
  for _ in range(trials):
    start = time.perf_counter()
    for _ in range(products_per_trial):
      tf.linalg.matmul(a, a).numpy()
    fastest = min(fastest, time.perf_counter() - start)
  return 2 * size ** 3 * products_per_trial / fastest


def cost_line(total_flops, seconds, peak_flops, peak_description):
  """`training cost: 1.2e+15 FLOPs in 0:10:00, 2.0e+12 FLOP/s, MFU 41% of ...`."""
  from t2t_lite.training.progress import format_duration
  achieved = total_flops / max(seconds, 1e-9)
  line = (f"training cost: {total_flops:.3g} FLOPs in {format_duration(seconds)}, "
          f"{achieved:.3g} FLOP/s")
  if peak_flops:
    line += f", MFU {100 * achieved / peak_flops:.1f}% of {peak_flops:.3g} FLOP/s ({peak_description})"
  else:
    line += f" ({peak_description})"
  return line
