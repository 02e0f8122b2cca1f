"""What TensorFlow never opens for this model, left out of CUDA's wheels: whole wheels
dropped, files taken out of the others (their RECORD rewritten). Standard library only."""

import csv
import io
import os
import re
import zipfile

# The CUDA 12 wheels of `tensorflow[and-cuda]`; pip picks the versions TensorFlow's
# metadata allows.
CUDA_EXTRA = "and-cuda"

# What TensorFlow never opens for this model (checked against TensorFlow 2.21's
# libtensorflow_framework.so.2 and libtensorflow_cc.so.2: it links no CUDA library; its
# stubs (tsl/cuda/*_stub.cc) dlopen cudart, cuBLAS, cuBLASLt, cuFFT, cuSOLVER, cuSPARSE and
# cuDNN at start and register no GPU if one fails, and cupti, NCCL, nvJitLink, nvshmem, NVML
# and the PTX compiler only when used; it has no loader for curand or nvrtc). NVRTC stays:
# cuBLASLt, cuFFT and cuDNN's graph library open libnvrtc.so.12 themselves when they compile
# a kernel at run time, and the cuBLAS wheel requires it. Of what is left out, no kept
# library names any (checked with grep -a on every kept nvidia/*/lib/*.so*), except cuDNN's
# graph library naming its precompiled engines, which it opens only for the engines in it.
# name -> (whole wheel's distribution name, or None; files inside the wheels; why)
DROPPED = {
    "nccl": ("nvidia-nccl-cu12", (),
             "NCCL: all-reduce between physical GPUs; one GPU needs none (MirroredStrategy "
             "over logical GPUs of one device reduces without it). --keep=nccl for several GPUs"),
    "curand": ("nvidia-curand-cu12", (),
               "cuRAND: TensorFlow has no loader for it (its random ops are its own Philox)"),
    "cupti": ("nvidia-cuda-cupti-cu12", (),
              "CUPTI: opened only by TensorFlow's profiler"),
    "cudnn_engines_precompiled": (None, ("nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9",),
                                  "cuDNN's precompiled engines: convolution kernels; this "
                                  "model has no convolution, and cuDNN loads its sub-libraries "
                                  "when first used"),
    "cusolverMg": (None, ("nvidia/cusolver/lib/libcusolverMg.so.11",),
                   "cuSOLVER's multi-GPU library: TensorFlow opens libcusolver only"),
    "nvblas": (None, ("nvidia/cublas/lib/libnvblas.so.12",),
               "NVBLAS: a drop-in for CPU BLAS programs; TensorFlow opens libcublas(Lt)"),
    "cufftw": (None, ("nvidia/cufft/lib/libcufftw.so.11",),
               "cuFFTW: FFTW's interface; TensorFlow opens libcufft"),
    "nvvm": (None, ("nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so",),
             "libNVVM: XLA compiles to PTX with its own LLVM; it needs ptxas and libdevice only"),
}


def distribution_of(wheel_name):
  """'nvidia_nccl_cu12-2.3-py3-none-x.whl' -> 'nvidia-nccl-cu12' (normalised)."""
  return re.sub(r"[-_.]+", "-", os.path.basename(wheel_name).split("-")[0]).lower()


def trimmed_wheel(source, dest_dir, drop_files):
  """Copies wheel `source` into dest_dir without the members `drop_files`, its RECORD
  rewritten -> (path, {dropped member: unpacked bytes}); the source itself when none is in it."""
  with zipfile.ZipFile(source) as wheel:
    names = set(wheel.namelist())
    present = [name for name in drop_files if name in names]
    if not present:
      return source, {}
    dropped = {name: wheel.getinfo(name).file_size for name in present}
    path = os.path.join(dest_dir, os.path.basename(source))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
      for info in wheel.infolist():
        if info.filename in dropped:
          continue
        data = wheel.read(info.filename)
        if info.filename.endswith(".dist-info/RECORD"):
          rows = [row for row in csv.reader(io.StringIO(data.decode("utf-8")))
                  if row and row[0] not in dropped]
          text = io.StringIO()
          csv.writer(text, lineterminator="\n").writerows(rows)
          data = text.getvalue().encode("utf-8")
        out.writestr(info, data, compress_type=info.compress_type)
  return path, dropped


def apply_drops(wheels, work_dir, keep):
  """wheels: [path] -> ([paths to bundle], [what was left out: name, what, bytes, why])."""
  names = set(DROPPED) - set(keep)
  whole = {DROPPED[name][0]: name for name in names if DROPPED[name][0]}
  inside = {member: name for name in names for member in DROPPED[name][1]}
  kept, left_out = [], []
  for wheel in wheels:
    distribution = distribution_of(wheel)
    if distribution in whole:
      name = whole[distribution]
      left_out.append({"name": name, "what": os.path.basename(wheel),
                       "wheel_bytes": os.path.getsize(wheel),
                       "unpacked_bytes": _unpacked_bytes(wheel), "why": DROPPED[name][2]})
      continue
    path, dropped = trimmed_wheel(wheel, work_dir, inside)
    for member, size in dropped.items():
      left_out.append({"name": inside[member], "what": member,
                       "wheel_bytes": _compressed_bytes(wheel, member), "unpacked_bytes": size,
                       "why": DROPPED[inside[member]][2]})
    kept.append(path)
  return kept, sorted(left_out, key=lambda item: -item["wheel_bytes"])


def _unpacked_bytes(wheel):
  with zipfile.ZipFile(wheel) as z:
    return sum(info.file_size for info in z.infolist())


def _compressed_bytes(wheel, member):
  with zipfile.ZipFile(wheel) as z:
    return z.getinfo(member).compress_size
