"""The machine of a run: the accelerator JAX computes on, its spec peak, driver, CUDA, versions.

Spec peaks are t2t_lite.training.cost's table (dense bfloat16 FLOP/s from the
vendors' data sheets); an accelerator not in it gets MFU against the matmul
measured in the same run only.
"""

import importlib.metadata
import platform
import shutil
import subprocess

from t2t_lite.training.cost import cpu_model


def describe():
  """{"platform", "device", "count", "driver", "cuda", "versions"} of this process's JAX device."""
  import jax
  device = jax.devices()[0]
  platform_name = device.platform
  name = device.device_kind if platform_name == "gpu" else cpu_model()
  driver, cuda = _nvidia_smi() if platform_name == "gpu" else ("", "")
  versions = {package: _version(package) for package in
              ("jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin", "keras", "torch",
               "numpy")}
  try:
    import torch
    versions["torch CUDA"] = torch.version.cuda or ""
  except ImportError:
    pass
  return {"platform": platform_name, "device": name, "count": jax.device_count(),
          "driver": driver, "cuda": cuda, "python": platform.python_version(),
          "versions": {k: v for k, v in versions.items() if v}}


def description_lines(machine):
  """Markdown list items naming the machine `describe()` returned."""
  what = "GPU" if machine["platform"] == "gpu" else "CPU (no GPU: not GPU numbers)"
  lines = [f"{what}: {machine['device']} ({machine['count']} device(s) visible, one used)"]
  if machine["driver"]:
    lines.append(f"NVIDIA driver {machine['driver']}, CUDA {machine['cuda']} (driver's)")
  lines.append(f"Python {machine['python']}; " + ", ".join(
      f"{name} {version}" for name, version in machine["versions"].items()))
  return lines


def memory_in_use_peak():
  """Peak bytes JAX's allocator held on its first device so far, or None (no statistics)."""
  import jax
  stats = jax.devices()[0].memory_stats() or {}
  return stats.get("peak_bytes_in_use")


def _nvidia_smi():
  """(driver version, the CUDA version the driver supports), "" where unknown."""
  if not shutil.which("nvidia-smi"):
    return "", ""
  try:
    text = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
  except (OSError, subprocess.SubprocessError):
    return "", ""
  driver = _after(text, "Driver Version:")
  cuda = _after(text, "CUDA Version:")
  return driver, cuda


def _after(text, label):
  if label not in text:
    return ""
  return text.split(label, 1)[1].split()[0]


def _version(distribution):
  try:
    return importlib.metadata.version(distribution)
  except importlib.metadata.PackageNotFoundError:
    return ""
