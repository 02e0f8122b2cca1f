"""pip, run for the target: t2t_lite's own wheel built, everything it needs downloaded for
the target's Python and platforms, and the wheels checked to install together. Standard
library only."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from bundle_error import BundleError

PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64", "any")


def run_pip(*args, python=None):
  """Runs `python -m pip args` -> (exit status, its output)."""
  done = subprocess.run([python or sys.executable, "-m", "pip", *args],
                        capture_output=True, text=True)
  return done.returncode, done.stdout + done.stderr


def build_own_wheel(source, dest):
  """t2t_lite's wheel from the checkout `source` -> its path."""
  status, output = run_pip("wheel", "--no-deps", "--quiet", "-w", dest, source)
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
  target = target_options(python_version, platforms)
  for _ in range(5):
    status, output = run_pip("download", "-d", cache, "--find-links", cache,
                          *[arg for link in find_links for arg in ("--find-links", link)],
                          *target, *requirements)
    if status == 0:
      return _downloaded(output, cache)
    missing = _source_only(output)
    if not missing:
      raise BundleError(f"pip download failed: {last_error(output)}")
    for name in missing:
      _build_pure_wheel(name, cache)
  raise BundleError(f"pip download failed: {last_error(output)}")


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
    status, output = run_pip("wheel", "--no-deps", "--quiet", "-w", scratch, name)
    built = os.listdir(scratch) if status == 0 else []
    if not built or not built[0].endswith("-none-any.whl"):
      raise BundleError(f"{name} is published only as source and is not pure Python; build "
                        f"its wheel on a machine like the target and put it in {cache}")
    shutil.move(os.path.join(scratch, built[0]), os.path.join(cache, built[0]))


def target_options(python_version, platforms):
  """pip's options that pick wheels for the target's Python and platforms."""
  return (["--only-binary=:all:", "--python-version", python_version, "--implementation", "cp"]
          + [arg for platform in platforms for arg in ("--platform", platform)])


def last_error(output):
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
  status, output = run_pip("install", "--dry-run", "--no-index", "--find-links", links,
                        "--target", os.path.join(work_dir, "dry_run"),
                        *target_options(python_version, platforms),
                        *[os.path.join(links, os.path.basename(path)) for path in wheels])
  if status != 0:
    raise BundleError(f"the bundle's wheels do not install together: {last_error(output)} "
                      f"(--keep the piece that provides it)")
