"""What every figure record says about where and when it was made: the machine, the
commit, the date and the machine's load.

    from record_context import machine, commit, today, load_averages

Used by the record writers beside it (own_data_record.py, demo_record.py), run from the
checkout's root with the project's .venv. `python docs/record_context.py commit` prints
the commit, for a script to keep the one it trains before the checkout moves on.
"""

import datetime
import os
import platform
import subprocess


def machine():
  """{"cpu", "cores", "cpu_flags" (its AVX and AMX flags), "python"}."""
  from t2t_lite.training.cost import cpu_model  # The name the CPU peak's cache uses.
  flags = []
  with open("/proc/cpuinfo", encoding="utf-8") as f:
    for line in f:
      if line.startswith("flags"):
        flags = [flag for flag in line.split(":", 1)[1].split()
                 if flag.startswith(("avx", "amx"))]
        break
  return {"cpu": cpu_model(), "cores": os.cpu_count(), "cpu_flags": sorted(set(flags)),
          "python": platform.python_version()}


def commit():
  """The checkout's short commit, saying so when tracked files differ from it; "" outside
  a git checkout or without git (as on a GPU machine that was sent the files alone)."""
  try:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=False).stdout.strip()
  except OSError:
    return ""
  if result.returncode:
    return ""
  return result.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def today():
  return datetime.date.today().isoformat()


def load_averages():
  """The load averages over the last 1, 5 and 15 minutes, now."""
  with open("/proc/loadavg", encoding="utf-8") as f:
    return [float(value) for value in f.read().split()[:3]]


if __name__ == "__main__":
  import sys
  if sys.argv[1:] != ["commit"]:
    sys.exit("usage: python docs/record_context.py commit")
  print(commit())
