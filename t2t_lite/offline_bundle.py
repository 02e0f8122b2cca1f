"""An offline install of t2t_lite with TensorFlow (and CUDA's libraries) as parts of a given size.

    python t2t_lite/offline_bundle.py pack --out=DIR [--python_version=3.12]
        [--platform=manylinux_2_27_x86_64] [--no_cuda | --site [--host_cuda]]
        [--keep=nccl,...] [--max_part_mib=64] [--download_dir=CACHE] [--source=CHECKOUT]
    python t2t_lite/offline_bundle.py unpack --bundle=DIR --target=INSTALL_DIR

pack (on a machine with internet): builds t2t_lite's wheel from the checkout, has
`pip download` gather it with everything it needs (setup.py's install_requires,
resolved for the target's Python and platform) and, unless --no_cuda, the CUDA 12
wheels of TensorFlow's `and-cuda` extra; leaves out what TensorFlow never opens for
this model (DROPPED, unless --keep names it); and writes DIR/bundle.partNNN files of at
most --max_part_mib MiB each, plus DIR/manifest.json (sha256 per part and per file,
and what was left out and why). --site installs the wheels here instead, for the
target, trims and strips TensorFlow and packs the folder with xz; --host_cuda then
carries CUDA 12's runtime alone, for a GPU machine that has CUDA's other libraries
(offline_site.py): for Python 3.12, 412 MiB in 7 parts of 60 MiB instead of 2,525 MiB in 43.

unpack (on the target, no network): checks every part against the manifest, joins
them, checks every file, installs the wheels with `pip install --no-index --target`
into INSTALL_DIR/site (or, from --site, extracts that folder and, from --host_cuda,
links the machine's CUDA libraries), and writes INSTALL_DIR/env.sh: what to export.

Standard library only: it runs on a bare Python with pip, before anything is
installed (run it by its path).
"""

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

try:
  from t2t_lite import offline_site
except ImportError:  # Run by its path on a bare target: its sibling is on sys.path.
  import offline_site

PROGRAM = "t2t-offline-bundle"
MANIFEST = "manifest.json"
PART_NAME = "bundle.part{:03d}"
MIB = 2 ** 20
CHUNK = 4 * MIB

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

PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64", "any")


class BundleError(Exception):
  """A mistake the user can fix: printed as one line, `t2t-offline-bundle: error: ...`."""


# --- parts -----------------------------------------------------------------------------------


def sha256_of(path):
  digest = hashlib.sha256()
  with open(path, "rb") as f:
    for chunk in iter(lambda: f.read(CHUNK), b""):
      digest.update(chunk)
  return digest.hexdigest()


class PartWriter(io.RawIOBase):
  """A write-only stream cut into files `out_dir/bundle.partNNN` of at most `part_bytes`."""

  def __init__(self, out_dir, part_bytes):
    super().__init__()
    self.out_dir, self.part_bytes = out_dir, part_bytes
    self.paths, self._file, self._left = [], None, 0

  def writable(self):
    return True

  def write(self, data):
    view = memoryview(data)
    while view:
      if self._left == 0:
        self._next_part()
      count = min(self._left, len(view))
      self._file.write(view[:count])
      self._left -= count
      view = view[count:]
    return len(data)

  def _next_part(self):
    if self._file:
      self._file.close()
    self.paths.append(os.path.join(self.out_dir, PART_NAME.format(len(self.paths))))
    self._file = open(self.paths[-1], "wb")
    self._left = self.part_bytes

  def close(self):
    if self._file:
      self._file.close()
      self._file = None
    super().close()


class PartReader(io.RawIOBase):
  """The parts `paths`, in order, read as one stream."""

  def __init__(self, paths):
    super().__init__()
    self._paths, self._file = list(paths), None

  def readable(self):
    return True

  def readinto(self, buffer):
    while True:
      if self._file is None:
        if not self._paths:
          return 0
        self._file = open(self._paths.pop(0), "rb")
      count = self._file.readinto(buffer)
      if count:
        return count
      self._file.close()
      self._file = None


def write_bundle(files, out_dir, part_bytes, info, compression=""):
  """Writes `files` ({name in the bundle: local file or folder}) as a tar stream (compressed
  with `compression`: "" or "xz") cut into parts, and out_dir/manifest.json: `info` plus
  "compression", "files" (each file's name, bytes, sha256; a folder's files are checked
  through its parts') and "parts" (names, bytes, sha256) -> manifest."""
  os.makedirs(out_dir, exist_ok=True)
  for name in os.listdir(out_dir):
    if name.startswith("bundle.part") or name == MANIFEST:
      os.remove(os.path.join(out_dir, name))
  listed = [{"name": name, "bytes": os.path.getsize(path), "sha256": sha256_of(path)}
            for name, path in sorted(files.items()) if os.path.isfile(path)]
  writer = PartWriter(out_dir, part_bytes)
  with io.BufferedWriter(writer, CHUNK) as stream:
    with tarfile.open(fileobj=stream, mode="w|" + compression) as tar:
      for name, path in sorted(files.items()):
        tar.add(path, arcname=name)
  parts = [{"name": os.path.basename(path), "bytes": os.path.getsize(path),
            "sha256": sha256_of(path)} for path in writer.paths]
  manifest = dict(info, compression=compression, files=listed, parts=parts,
                  total_bytes=sum(part["bytes"] for part in parts))
  with open(os.path.join(out_dir, MANIFEST), "w", encoding="utf-8") as f:
    json.dump(manifest, f, indent=1)
  return manifest


def read_manifest(bundle_dir):
  path = os.path.join(bundle_dir, MANIFEST)
  try:
    with open(path, encoding="utf-8") as f:
      return json.load(f)
  except FileNotFoundError:
    raise BundleError(f"{path} is missing: copy the bundle's manifest.json beside its parts")
  except ValueError as error:
    raise BundleError(f"{path} is not a bundle manifest ({error}): copy it again")


def check_parts(bundle_dir, manifest):
  """-> the parts' paths in order; a missing, cut or changed part is a BundleError."""
  paths = []
  for part in manifest["parts"]:
    path = os.path.join(bundle_dir, part["name"])
    if not os.path.exists(path):
      raise BundleError(f"part {part['name']} of {len(manifest['parts'])} is missing in "
                        f"{bundle_dir}: copy it there")
    size = os.path.getsize(path)
    if size != part["bytes"] or sha256_of(path) != part["sha256"]:
      raise BundleError(f"part {part['name']} in {bundle_dir} is corrupt ({size:,} bytes, "
                        f"sha256 differs from the manifest's): copy it again")
    paths.append(path)
  return paths


def extract_bundle(bundle_dir, dest):
  """Checks the parts, joins them and extracts the files into `dest`, checking each file
  against the manifest -> manifest."""
  manifest = read_manifest(bundle_dir)
  paths = check_parts(bundle_dir, manifest)
  os.makedirs(dest, exist_ok=True)
  with io.BufferedReader(PartReader(paths), CHUNK) as stream:
    with tarfile.open(fileobj=stream, mode="r|" + manifest.get("compression", "")) as tar:
      for member in tar:
        if not (member.isfile() or member.isdir()) or os.path.isabs(member.name) or \
            ".." in member.name.split("/"):
          raise BundleError(f"the bundle holds an unexpected entry {member.name!r}")
        tar.extract(member, dest, filter="data")
  for listed in manifest["files"]:
    path = os.path.join(dest, listed["name"])
    if not os.path.exists(path) or sha256_of(path) != listed["sha256"]:
      raise BundleError(f"{listed['name']} does not match the manifest after joining the "
                        f"parts: pack the bundle again")
  return manifest


# --- trimming wheels -------------------------------------------------------------------------


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


# --- pack ------------------------------------------------------------------------------------


def _pip(*args, python=None):
  """Runs `python -m pip args` -> (exit status, its output)."""
  done = subprocess.run([python or sys.executable, "-m", "pip", *args],
                        capture_output=True, text=True)
  return done.returncode, done.stdout + done.stderr


def build_own_wheel(source, dest):
  """t2t_lite's wheel from the checkout `source` -> its path."""
  status, output = _pip("wheel", "--no-deps", "--quiet", "-w", dest, source)
  built = [name for name in os.listdir(dest) if name.startswith("t2t_lite-")]
  if status != 0 or not built:
    raise BundleError(f"could not build t2t_lite's wheel from {source}: "
                      f"{output.strip().splitlines()[-1] if output.strip() else status}")
  return os.path.join(dest, built[0])


SOURCE_ONLY = re.compile(r"no matching distributions? available for your environment:\s*\n"
                         r"((?:[ \t]+\S+[ \t]*(?:\n|$))+)")
NO_VERSION = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+)")


def download(requirements, cache, python_version, platforms, find_links):
  """`pip download`s the requirements and everything they need for the target into `cache`
  -> [the wheels' paths]. A dependency published only as source is built here as a wheel
  (it must be pure Python) and the download tried again."""
  target = _target_options(python_version, platforms)
  for _ in range(5):
    status, output = _pip("download", "-d", cache, "--find-links", cache,
                          *[arg for link in find_links for arg in ("--find-links", link)],
                          *target, *requirements)
    if status == 0:
      return _downloaded(output, cache)
    missing = _source_only(output)
    if not missing:
      raise BundleError(f"pip download failed: {_last_error(output)}")
    for name in missing:
      _build_pure_wheel(name, cache)
  raise BundleError(f"pip download failed: {_last_error(output)}")


def _downloaded(output, cache):
  paths = []
  for line in output.splitlines():
    line = line.strip()
    for prefix in ("Saved ", "File was already downloaded "):
      if line.startswith(prefix):
        path = line[len(prefix):].strip()
        paths.append(os.path.normpath(os.path.join(cache, path)) if not os.path.isabs(path)
                     else path)
  if not paths:
    raise BundleError("pip download named no files: is pip too old (pip install -U pip)?")
  return sorted(set(paths))


def _source_only(output):
  found = SOURCE_ONLY.search(output)
  names = found.group(1).split() if found else NO_VERSION.findall(output)
  return [name for name in names if name.strip()]


def _build_pure_wheel(name, cache):
  with tempfile.TemporaryDirectory() as scratch:
    status, output = _pip("wheel", "--no-deps", "--quiet", "-w", scratch, name)
    built = os.listdir(scratch) if status == 0 else []
    if not built or not built[0].endswith("-none-any.whl"):
      raise BundleError(f"{name} is published only as source and is not pure Python; build "
                        f"its wheel on a machine like the target and put it in {cache}")
    shutil.move(os.path.join(scratch, built[0]), os.path.join(cache, built[0]))


def _target_options(python_version, platforms):
  """pip's options that pick wheels for the target's Python and platforms."""
  return (["--only-binary=:all:", "--python-version", python_version, "--implementation", "cp"]
          + [arg for platform in platforms for arg in ("--platform", platform)])


def _last_error(output):
  lines = [line.strip() for line in output.splitlines() if line.strip()]
  errors = [line for line in lines if line.startswith("ERROR")]
  return (errors or lines or ["no output"])[-1]


def check_installable(wheels, work_dir, python_version, platforms):
  """`pip install --dry-run --no-index` of `wheels` from themselves alone, for the target: a
  dependency that was left out (or never downloaded) is a BundleError here, not there."""
  links = os.path.join(work_dir, "kept")
  os.makedirs(links, exist_ok=True)
  for path in wheels:
    os.symlink(os.path.abspath(path), os.path.join(links, os.path.basename(path)))
  status, output = _pip("install", "--dry-run", "--no-index", "--find-links", links,
                        "--target", os.path.join(work_dir, "dry_run"),
                        *_target_options(python_version, platforms),
                        *[os.path.join(links, os.path.basename(path)) for path in wheels])
  if status != 0:
    raise BundleError(f"the bundle's wheels do not install together: {_last_error(output)} "
                      f"(--keep the piece that provides it)")


def pack(args):
  platforms = args.platform.split(",") if args.platform else PLATFORMS
  keep = [name for name in (args.keep or "").split(",") if name]
  unknown = set(keep) - set(DROPPED)
  if unknown:
    raise BundleError(f"--keep: unknown {', '.join(sorted(unknown))}; known: "
                      f"{', '.join(DROPPED)}")
  if args.host_cuda and (args.no_cuda or not args.site):
    raise BundleError("--host_cuda needs --site and no --no_cuda")
  cache = os.path.abspath(args.download_dir or os.path.join(args.out, "..", "downloads-cp" +
                                                            args.python_version.replace(".", "")))
  os.makedirs(cache, exist_ok=True)
  with tempfile.TemporaryDirectory(prefix="t2t_bundle_") as work:
    own = build_own_wheel(os.path.abspath(args.source), work)
    requirements = [own] + (
        [] if args.no_cuda else
        ["tensorflow", offline_site.CUDA_RUNTIME_REQUIREMENT] if args.host_cuda else
        [f"tensorflow[{CUDA_EXTRA}]"])
    wheels = download(requirements, cache, args.python_version, platforms, [work])
    wheels = [own] + [path for path in wheels if os.path.basename(path) !=
                      os.path.basename(own)]
    everything = sum(os.path.getsize(path) for path in wheels)
    cuda_wheels = not (args.no_cuda or args.host_cuda)
    kept, left_out = apply_drops(wheels, work, keep) if cuda_wheels else (wheels, [])
    check_installable(kept, work, args.python_version, platforms)
    info = {"format": 2 if args.site else 1, "python_version": args.python_version,
            "platforms": list(platforms), "cuda": cuda_wheels, "host_cuda": args.host_cuda,
            "kept_on_request": keep, "wheels_bytes_before_leaving_out": everything}
    if args.site:
      files, compression, stripped = site_files(kept, work, args, platforms, left_out)
      info["stripped_bytes"] = stripped
    else:
      files, compression = {f"wheels/{os.path.basename(path)}": path for path in kept}, ""
    info["left_out"] = left_out
    manifest = write_bundle(files, args.out, args.max_part_mib * MIB, info, compression)
  print(f"{len(kept)} wheels, {manifest['total_bytes'] / MIB:,.0f} MiB in "
        f"{len(manifest['parts'])} parts of at most {args.max_part_mib} MiB in {args.out}"
        + (" (installed, trimmed, xz)" if args.site else ""))
  for item in left_out:
    print(f"  left out {item['what']}: " + (f"{item['wheel_bytes'] / MIB:,.0f} MiB in its "
          f"wheel, " if "wheel_bytes" in item else "") +
          f"{item['unpacked_bytes'] / MIB:,.0f} MiB unpacked")
  if args.site:
    print(f"  symbol tables stripped from TensorFlow's libraries: "
          f"{info['stripped_bytes'] / MIB:,.0f} MiB")
  print(f"  all wheels before leaving out: {everything / MIB:,.0f} MiB")


def site_files(wheels, work, args, platforms, left_out):
  """--site: the wheels installed into a site folder here, trimmed and stripped (adds to
  `left_out`) -> ({name in the bundle: path}, compression, bytes stripped)."""
  site = os.path.join(work, "site")
  runtime = [path for path in wheels
             if distribution_of(path) == offline_site.CUDA_RUNTIME_DISTRIBUTION]
  wheels = [path for path in wheels if path not in runtime]
  status, output = _pip("install", "--no-index", "--no-deps", "--no-compile", "--quiet",
                        "--disable-pip-version-check", "--target", site,
                        *_target_options(args.python_version, platforms), *wheels)
  if status != 0:
    raise BundleError(f"installing the wheels into {site} failed: {_last_error(output)}")
  left_out += offline_site.trim_site(site)
  stripped = offline_site.strip_libraries(site)
  files = {"site": site}
  if runtime:  # --host_cuda: CUDA 12's runtime alone, beside the site folder.
    with zipfile.ZipFile(runtime[0]) as wheel:
      path = wheel.extract(offline_site.CUDA_RUNTIME, os.path.join(work, "runtime"))
    files[os.path.basename(path)] = path
  return files, "xz", stripped


# --- unpack ----------------------------------------------------------------------------------


def exports(site):
  """[(variable, what goes first in it, separator)] that make the installation in `site`
  usable from a fresh process."""
  items = [("PYTHONPATH", site, ":"), ("PATH", os.path.join(site, "bin"), ":")]
  # Unpacked with --host_cuda: the machine's CUDA libraries under TensorFlow's names.
  items += offline_site.host_cuda_exports(os.path.dirname(site))
  nvcc = os.path.join(site, "nvidia", "cuda_nvcc")
  if os.path.isdir(nvcc):
    # TensorFlow finds the CUDA libraries by its RUNPATH ($ORIGIN/../nvidia/*/lib); XLA
    # needs ptxas on PATH (before any other CUDA's) and libdevice under the data dir.
    items += [("PATH", os.path.join(nvcc, "bin"), ":"),
              ("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={nvcc}", " ")]
  return items


def environment_lines(site):
  """`export` lines for a shell (env.sh)."""
  return [f'export {name}="{value}${{{name}:+{separator}${name}}}"'
          for name, value, separator in exports(site)]


def installed_environment(target, env):
  """A copy of the environment `env` that uses the installation unpacked into `target`."""
  env = dict(env)
  for name, value, separator in exports(os.path.join(os.path.abspath(target), "site")):
    env[name] = value + (separator + env[name] if env.get(name) else "")
  return env


def unpack(args):
  target = os.path.abspath(args.target)
  manifest = read_manifest(args.bundle)
  running = "{}.{}".format(*sys.version_info[:2])
  if manifest["python_version"] != running:
    raise BundleError(f"the bundle is for Python {manifest['python_version']}, this is "
                      f"Python {running}: run unpack with python{manifest['python_version']}")
  site = os.path.join(target, "site")
  extract_bundle(args.bundle, target)
  if manifest.get("format", 1) == 2:
    offline_site.point_scripts_at(site, sys.executable)
    installed = "the site folder"
    if manifest.get("host_cuda"):
      info = offline_site.link_host_cuda(
          target, os.path.join(target, os.path.basename(offline_site.CUDA_RUNTIME)),
          offline_site.library_folders(), offline_site.cuda_toolkit())
      installed += " (the machine's CUDA: " + ", ".join(
          f"{name} -> {path}" for name, path in info["links"].items()) + ")"
  else:
    extracted = os.path.join(target, "wheels")
    wheels = sorted(os.path.join(extracted, name) for name in os.listdir(extracted))
    status, output = _pip("install", "--no-index", "--find-links", extracted, "--target",
                          site, "--no-compile", "--disable-pip-version-check", "--quiet",
                          *wheels)
    if status != 0:
      raise BundleError(f"pip install from the bundle failed: {_last_error(output)}")
    if not args.keep_wheels:
      shutil.rmtree(extracted)
    installed = f"{len(wheels)} wheels"
  lines = environment_lines(site)
  with open(os.path.join(target, "env.sh"), "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
  print(f"installed {installed} into {site}; before use:\n"
        f"  source {os.path.join(target, 'env.sh')}\n  # which holds:\n  " + "\n  ".join(lines))


def parse_args(argv):
  parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.splitlines()[0])
  commands = parser.add_subparsers(dest="command", required=True)
  packing = commands.add_parser("pack", help="Download and write the bundle's parts.")
  packing.add_argument("--out", required=True, help="Folder for the parts and manifest.json.")
  packing.add_argument("--python_version", default="{}.{}".format(*sys.version_info[:2]),
                       help="The target's Python, e.g. 3.12 (default: this one's).")
  packing.add_argument("--platform", help="Comma-separated pip platform tags (default: "
                       "x86-64 manylinux tags from 2_28 down, and 'any').")
  packing.add_argument("--no_cuda", action="store_true",
                       help="TensorFlow without CUDA's wheels (a CPU machine).")
  packing.add_argument("--site", action="store_true", help="Install the wheels here into a "
                       "site folder for the target, leave out TensorFlow's C++ headers, strip "
                       "its libraries' symbol tables and compress with xz; unpack then "
                       "installs nothing.")
  packing.add_argument("--host_cuda", action="store_true", help="With --site: CUDA 12's "
                       "runtime alone; unpack links the machine's own cuBLAS, cuFFT, cuSOLVER, "
                       "cuSPARSE and cuDNN (CUDA 12's or 13's) under TensorFlow's names, and "
                       "XLA uses the machine's ptxas and libdevice.")
  packing.add_argument("--keep", help="Comma-separated pieces to bundle after all: "
                       + ", ".join(DROPPED))
  packing.add_argument("--max_part_mib", type=int, default=64)
  packing.add_argument("--download_dir", help="pip's download folder, kept between runs "
                       "(default: beside --out, downloads-cpXY).")
  packing.add_argument("--source", default=os.path.join(os.path.dirname(
      os.path.abspath(__file__)), ".."), help="t2t_lite's checkout (default: this one).")
  unpacking = commands.add_parser("unpack", help="Check, join and install the parts.")
  unpacking.add_argument("--bundle", required=True, help="Folder of the parts and manifest.")
  unpacking.add_argument("--target", required=True, help="Folder to install into.")
  unpacking.add_argument("--keep_wheels", action="store_true",
                         help="Leave the joined wheels in TARGET/wheels.")
  args = parser.parse_args(argv)
  if args.command == "pack" and args.max_part_mib < 1:
    parser.error("--max_part_mib must be at least 1")
  return args


def run(argv=None):
  args = parse_args(sys.argv[1:] if argv is None else argv)
  try:
    (pack if args.command == "pack" else unpack)(args)
  except (BundleError, offline_site.SiteError, OSError) as error:
    print(f"{PROGRAM}: error: {' '.join(str(error).split())}", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
  run()
