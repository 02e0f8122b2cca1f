"""The small offline bundle: an installed site folder instead of wheels, and TensorFlow on the
target's own CUDA libraries. Used by offline_bundle.py (`pack --site --host_cuda`).

A GPU machine that already has CUDA's libraries (a CUDA toolkit, or the nvidia-* wheels that
PyTorch and JAX install) needs none of the 2.5 GiB of CUDA 12 wheels, only CUDA 12's runtime:
TensorFlow 2.21 opens cuBLAS, cuBLASLt, cuFFT, cuSOLVER, cuSPARSE and cuDNN by their CUDA 12
names (libcublas.so.12, ...) and calls their C interfaces, which CUDA 13's versions keep.
Measured on an H200 with CUDA 13's libraries and cuDNN 9.19 (README.md, "GPUs").

Standard library only, like offline_bundle.py: it runs on a bare Python.
"""

import glob
import json
import os
import shutil
import site as python_site
import subprocess
import sys

# TensorFlow's CUDA 12 name -> the names the target may have it under, best first.
HOST_CUDA_LIBRARIES = {
    "libcublas.so.12": ("libcublas.so.12", "libcublas.so.13"),
    "libcublasLt.so.12": ("libcublasLt.so.12", "libcublasLt.so.13"),
    "libcufft.so.11": ("libcufft.so.11", "libcufft.so.12"),
    "libcusolver.so.11": ("libcusolver.so.11", "libcusolver.so.12"),
    "libcusparse.so.12": ("libcusparse.so.12",),
    "libcudnn.so.9": ("libcudnn.so.9",),
}
# Linked where the target has it, left out where it has not: NCCL, which MirroredStrategy's
# all-reduce opens across several physical GPUs (one GPU, or logical GPUs of one, never do).
# Its name is the same in CUDA 12's and CUDA 13's wheels (nvidia-nccl-cu12, -cu13).
OPTIONAL_HOST_LIBRARIES = {"libnccl.so.2": ("libnccl.so.2",)}
# The one CUDA 12 library the bundle carries (its wheel, and the file in it).
CUDA_RUNTIME_DISTRIBUTION = "nvidia-cuda-runtime-cu12"
CUDA_RUNTIME_REQUIREMENT = CUDA_RUNTIME_DISTRIBUTION + "<13"
CUDA_RUNTIME = os.path.join("nvidia", "cuda_runtime", "lib", "libcudart.so.12")
HOST_CUDA_FILE = "host_cuda.json"

# Left out of the site folder: (path under the site, why).
SITE_DROPPED = (
    ("tensorflow/include", "C++ headers, for building custom ops against TensorFlow"),
)
# Packages whose own shared libraries are stripped of their symbol tables (TensorFlow's are
# shipped unstripped: libtensorflow_cc.so.2 goes from 1,046 to 836 MiB). Never the libraries
# auditwheel grafts into `*.libs` folders: stripping those breaks them (numpy's OpenBLAS
# failed to load: "ELF load command address/offset not page-aligned").
STRIPPED_PACKAGES = ("tensorflow", "tensorflow_text")


class SiteError(Exception):
  """A mistake the user can fix; offline_bundle.py prints it as its own one-line error."""


def trim_site(site):
  """Removes SITE_DROPPED -> [{"what", "unpacked_bytes", "why"}] for the manifest."""
  left_out = []
  for relative, why in SITE_DROPPED:
    path = os.path.join(site, relative)
    if os.path.isdir(path):
      left_out.append({"name": relative, "what": relative, "unpacked_bytes": _tree_bytes(path),
                       "why": why})
      shutil.rmtree(path)
  return left_out


def strippable_libraries(site):
  """The shared libraries of STRIPPED_PACKAGES, none from a `*.libs` folder."""
  found = []
  for package in STRIPPED_PACKAGES:
    for folder, subfolders, files in os.walk(os.path.join(site, package)):
      subfolders[:] = [name for name in subfolders if not name.endswith(".libs")]
      found += [os.path.join(folder, name) for name in files
                if name.endswith(".so") or ".so." in name]
  return sorted(found)


def strip_libraries(site):
  """`strip --strip-unneeded` on strippable_libraries -> bytes saved (0 without `strip`)."""
  tool = shutil.which("strip")
  libraries = strippable_libraries(site)
  if not tool or not libraries:
    return 0
  before = sum(os.path.getsize(path) for path in libraries)
  for start in range(0, len(libraries), 200):
    subprocess.run([tool, "--strip-unneeded", *libraries[start:start + 200]], check=True,
                   capture_output=True)
  return before - sum(os.path.getsize(path) for path in libraries)


def point_scripts_at(site, python):
  """Console scripts that pip wrote with the packing machine's Python in their first line
  get `python` (the target's) instead."""
  folder = os.path.join(site, "bin")
  if not os.path.isdir(folder):
    return
  for name in os.listdir(folder):
    path = os.path.join(folder, name)
    with open(path, "rb") as f:
      text = f.read()
    if text.startswith(b"#!") and b"python" in text.split(b"\n", 1)[0]:
      with open(path, "wb") as f:
        f.write(b"#!" + python.encode() + b"\n" + text.split(b"\n", 1)[1])


# --- the target's CUDA -----------------------------------------------------------------------


def library_folders(env=None):
  """Where a machine keeps CUDA's libraries, most specific first: LD_LIBRARY_PATH, Python's
  nvidia/*/lib folders (pip's nvidia-* wheels), CUDA toolkits, the system's."""
  env = os.environ if env is None else env
  folders = [path for path in env.get("LD_LIBRARY_PATH", "").split(":") if path]
  for packages in python_site.getsitepackages() + [python_site.getusersitepackages()]:
    folders += sorted(glob.glob(os.path.join(packages, "nvidia", "*", "lib")))
  for toolkit in [env.get("CUDA_HOME", ""), "/usr/local/cuda"] + sorted(
      glob.glob("/usr/local/cuda-*")):
    if toolkit:
      folders += [os.path.join(toolkit, "lib64"),
                  os.path.join(toolkit, "targets", "x86_64-linux", "lib")]
  folders += ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"]
  return list(dict.fromkeys(path for path in folders if os.path.isdir(path)))


def cuda_toolkit(env=None):
  """A folder with bin/ptxas and nvvm/libdevice/libdevice.10.bc (what XLA needs), or None."""
  env = os.environ if env is None else env
  ptxas = shutil.which("ptxas", path=env.get("PATH"))
  candidates = [env.get("CUDA_HOME", ""), "/usr/local/cuda",
                os.path.dirname(os.path.dirname(ptxas)) if ptxas else ""]
  for toolkit in candidates:
    if toolkit and os.access(os.path.join(toolkit, "bin", "ptxas"), os.X_OK) and \
        os.path.exists(os.path.join(toolkit, "nvvm", "libdevice", "libdevice.10.bc")):
      return toolkit
  return None


def link_host_cuda(target, runtime, folders, toolkit):
  """TARGET/cuda_links: CUDA 12's runtime (copied from `runtime`) and, under TensorFlow's
  names, links to the first of `folders` holding each library; writes TARGET/host_cuda.json
  -> its contents ("missing": the optional libraries found nowhere). A required library found
  nowhere, or no toolkit, is a SiteError naming it."""
  links = os.path.join(target, "cuda_links")
  os.makedirs(links, exist_ok=True)
  shutil.copy(runtime, os.path.join(links, os.path.basename(runtime)))
  found = {wanted: _first_of(names, folders) for wanted, names in
           {**HOST_CUDA_LIBRARIES, **OPTIONAL_HOST_LIBRARIES}.items()}
  for wanted, names in HOST_CUDA_LIBRARIES.items():
    if found[wanted] is None:
      raise SiteError(f"no {' or '.join(names)} on this machine (TensorFlow opens {wanted}): "
                      f"put CUDA's library folder on LD_LIBRARY_PATH, or pack without "
                      f"--host_cuda")
  if toolkit is None:
    raise SiteError("no CUDA toolkit with bin/ptxas and nvvm/libdevice (XLA compiles with "
                    "them): set CUDA_HOME to one, or pack without --host_cuda")
  linked = {wanted: path for wanted, path in found.items() if path is not None}
  for wanted, path in linked.items():
    link = os.path.join(links, wanted)
    if os.path.lexists(link):
      os.remove(link)
    os.symlink(path, link)
  # Each library's own dependencies (cuBLASLt, cuDNN's sub-libraries, NVRTC) sit beside it.
  used = [os.path.dirname(path) for path in linked.values()]
  info = {"library_path": [links] + list(dict.fromkeys(used)), "toolkit": toolkit,
          "links": linked, "missing": sorted(set(found) - set(linked))}
  with open(os.path.join(target, HOST_CUDA_FILE), "w", encoding="utf-8") as f:
    json.dump(info, f, indent=1)
  return info


def host_cuda_summary(info):
  """What unpack says of link_host_cuda's `info`: each link, and what a missing optional
  library means."""
  text = "the machine's CUDA: " + ", ".join(f"{name} -> {path}"
                                             for name, path in info["links"].items())
  if "libnccl.so.2" in info["missing"]:
    text += ("; no libnccl.so.2 on this machine: one GPU trains, several physical GPUs cannot "
             "all-reduce (pip install nvidia-nccl-cu12, or put NCCL's folder on "
             "LD_LIBRARY_PATH, and unpack again)")
  return text


def _first_of(names, folders):
  """The path of the first of `names` in the first of `folders` holding it, or None."""
  return next((os.path.join(folder, name) for name in names for folder in folders
               if os.path.exists(os.path.join(folder, name))), None)


def host_cuda_exports(target):
  """[(variable, what goes first in it, separator)] for TARGET/host_cuda.json; [] without."""
  try:
    with open(os.path.join(target, HOST_CUDA_FILE), encoding="utf-8") as f:
      info = json.load(f)
  except FileNotFoundError:
    return []
  return [("LD_LIBRARY_PATH", ":".join(info["library_path"]), ":"),
          ("PATH", os.path.join(info["toolkit"], "bin"), ":"),
          ("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={info['toolkit']}", " ")]


def _tree_bytes(folder):
  return sum(os.path.getsize(os.path.join(root, name))
             for root, _, names in os.walk(folder) for name in names)


if __name__ == "__main__":
  sys.exit("offline_site.py is a part of offline_bundle.py: run that instead")
