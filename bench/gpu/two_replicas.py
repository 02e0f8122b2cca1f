"""Does MirroredStrategy over two replicas give one device's update here? (TensorFlow)

    python -m bench.gpu.two_replicas [--tf_target=DIR]   # a GPU split into 2 logical GPUs
    python -m bench.gpu.two_replicas --cpu               # 2 logical CPUs (the test's case)
    python -m bench.gpu.two_replicas --cpu --results_dir=DIR   # keeps each mode's updates

Runs tests/distribution_check.py (mode local_gpu, or local with --cpu) in a fresh
process with KERAS_BACKEND=tensorflow, taking TensorFlow from --tf_target (an
offline bundle's install folder, tools/offline_bundle/) if given; then
compares each mode's 3 SGD updates with one device's, within
tests/same_update.py's bounds (float32 round-off of reordered sums).
Prints one line per mode; exit status 1 if any differs or the check fails.
Needs the checkout's tests/ folder.
"""

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTS = os.path.join(ROOT, "tests")
MODES = ("single_xla", "mirrored", "mirrored_xla", "accumulate")


def check_environment(tf_target):
  env = dict(os.environ, KERAS_BACKEND="tensorflow")
  env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  env["PYTHONPATH"] = ROOT + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
  if tf_target:
    sys.path.insert(0, os.path.join(ROOT, "tools", "offline_bundle"))
    from bundle_environment import installed_environment
    env = installed_environment(tf_target, env)
  return env


def compare(out_dir):
  """-> {mode: None (same update) or the first line of how it differs}."""
  sys.path.insert(0, TESTS)
  import same_update as checks
  single = checks.run_result(os.path.join(out_dir, "single.npz"))
  outcome = {}
  for mode in MODES:
    try:
      checks.assert_same_update(single, checks.run_result(os.path.join(out_dir, f"{mode}.npz")))
      outcome[mode] = None
    except AssertionError as error:
      outcome[mode] = " ".join(str(error).split())[:300]
  return outcome


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--cpu", action="store_true", help="Two logical CPUs instead of GPUs.")
  parser.add_argument("--tf_target", help="Where an offline bundle was unpacked.")
  parser.add_argument("--results_dir", help="Keeps each mode's saved updates (<mode>.npz) "
                      "in this folder (made if missing) instead of a temporary one.")
  args = parser.parse_args(argv)
  mode = "local" if args.cpu else "local_gpu"
  if args.results_dir:
    os.makedirs(args.results_dir, exist_ok=True)
  with (contextlib.nullcontext(args.results_dir) if args.results_dir else
        tempfile.TemporaryDirectory(prefix="t2t_two_replicas_")) as out_dir:
    done = subprocess.run([sys.executable, os.path.join(TESTS, "distribution_check.py"), mode,
                           out_dir], env=check_environment(args.tf_target),
                          capture_output=True, text=True)
    if done.returncode != 0:
      print(f"two_replicas: the {mode} check failed (exit status {done.returncode}):\n"
            f"{done.stderr.strip()[-3000:]}", file=sys.stderr)
      return 1
    print(done.stdout.strip())
    outcome = compare(out_dir)
  device = "2 logical CPUs" if args.cpu else "2 logical GPUs on GPU 0"
  for mode, difference in outcome.items():
    print(f"{mode} ({device if mode.startswith('mirrored') else 'one device'}): " +
          ("same update as one device" if difference is None else f"DIFFERS: {difference}"))
  return 0 if all(difference is None for difference in outcome.values()) else 1


if __name__ == "__main__":
  sys.exit(main())
