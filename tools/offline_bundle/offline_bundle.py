"""An offline install of t2t_lite with TensorFlow (and CUDA's libraries) as parts of a given size.

    python tools/offline_bundle/offline_bundle.py pack --out=DIR [--python_version=3.12]
        [--platform=manylinux_2_27_x86_64] [--no_cuda | --site [--host_cuda]]
        [--keep=nccl,...] [--max_part_mib=64] [--download_dir=CACHE] [--source=CHECKOUT]
    python tools/offline_bundle/offline_bundle.py unpack --bundle=DIR --target=INSTALL_DIR

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
installed (run it by its path; its sibling files are then on sys.path). Its files:

  offline_bundle.py      the command: pack and unpack.
  bundle_error.py        BundleError, a mistake the user can fix.
  bundle_parts.py        the parts and the manifest: written, checked, joined, extracted.
  wheel_trimming.py      what TensorFlow never opens, left out of CUDA's wheels (DROPPED).
  pip_wheels.py          pip for the target: t2t_lite's wheel, downloads, an install check.
  offline_site.py        --site and --host_cuda: a site folder, on the target's own CUDA.
  bundle_environment.py  what to export to use an unpacked bundle (env.sh).
"""

import argparse
import os
import shutil
import sys
import tempfile
import zipfile

import offline_site
from bundle_environment import environment_lines
from bundle_error import BundleError
from bundle_parts import MIB, extract_bundle, read_manifest, write_bundle
from pip_wheels import (PLATFORMS, build_own_wheel, check_installable, download, last_error,
                        run_pip, target_options)
from wheel_trimming import DROPPED, apply_drops, distribution_of

PROGRAM = "t2t-offline-bundle"

# The CUDA 12 wheels of `tensorflow[and-cuda]`; pip picks the versions TensorFlow's
# metadata allows.
CUDA_EXTRA = "and-cuda"


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
    requirements = [own + (f"[{args.extras}]" if args.extras else "")] + (
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
  status, output = run_pip("install", "--no-index", "--no-deps", "--no-compile", "--quiet",
                        "--disable-pip-version-check", "--target", site,
                        *target_options(args.python_version, platforms), *wheels)
  if status != 0:
    raise BundleError(f"installing the wheels into {site} failed: {last_error(output)}")
  left_out += offline_site.trim_site(site)
  stripped = offline_site.strip_libraries(site)
  files = {"site": site}
  if runtime:  # --host_cuda: CUDA 12's runtime alone, beside the site folder.
    with zipfile.ZipFile(runtime[0]) as wheel:
      path = wheel.extract(offline_site.CUDA_RUNTIME, os.path.join(work, "runtime"))
    files[os.path.basename(path)] = path
  return files, "xz", stripped


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
      installed += f" ({offline_site.host_cuda_summary(info)})"
  else:
    extracted = os.path.join(target, "wheels")
    wheels = sorted(os.path.join(extracted, name) for name in os.listdir(extracted))
    status, output = run_pip("install", "--no-index", "--find-links", extracted, "--target",
                          site, "--no-compile", "--disable-pip-version-check", "--quiet",
                          *wheels)
    if status != 0:
      raise BundleError(f"pip install from the bundle failed: {last_error(output)}")
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
  packing.add_argument("--extras", help="t2t_lite's extras to bundle, with what they need, "
                       "e.g. serve,ctranslate2 (t2t-serve's server and CTranslate2 exports).")
  packing.add_argument("--max_part_mib", type=int, default=64)
  packing.add_argument("--download_dir", help="pip's download folder, kept between runs "
                       "(default: beside --out, downloads-cpXY).")
  packing.add_argument("--source", default=os.path.join(os.path.dirname(
      os.path.abspath(__file__)), "..", ".."), help="t2t_lite's checkout (default: this one).")
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
