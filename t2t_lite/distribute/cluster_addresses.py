"""Checking a cluster's addresses before any worker connects, so that what TensorFlow would
hang on or silently change becomes one line: every address a host and a port of 1-65535
(gRPC would wrap 99999 round to 34463), no address named twice (two tasks at one address
never form a cluster), at most one chief. (Whether this task is one of the cluster's:
`t2t_lite.distribute.cluster`, in the words of the cluster's source.)

    check_addresses(jobs, "TF_CONFIG")                   # UserError, or nothing to say
    host, port = split_address("node1:2222")             # "[::1]:2222" -> ("::1", 2222)
"""

from t2t_lite.errors import UserError

TRAINING_JOBS = ("chief", "worker")  # The jobs of MultiWorkerMirroredStrategy.
GUIDE = "see docs/clusters.md"
HIGHEST_PORT = 65535


def split_address(address):
  """"host:port" -> (host, port as written); ValueError when there is no ":"."""
  host, colon, port = str(address).rpartition(":")
  if not colon:
    raise ValueError(address)
  if host.startswith("[") and host.endswith("]"):  # An IPv6 address: [::1]:2222.
    host = host[1:-1]
  return host, port


def task_name(job, index):
  """"worker 1", or "chief" (there is one)."""
  return "chief" if job == "chief" else f"{job} {index}"


def check_addresses(jobs, source, fix=""):
  """UserError unless every address of `jobs` ({job: [host:port, ...]}) is a valid one of its
  own and the cluster has at most one chief; `source` names where the cluster was found
  ("TF_CONFIG", "Slurm"), `fix` is said after a bad port."""
  if len(jobs.get("chief", ())) > 1:
    raise UserError(f"{source} names {len(jobs['chief'])} chief tasks; a cluster has at most "
                    f"one (make the others workers); {GUIDE}")
  seen = {}
  for job in TRAINING_JOBS:
    addresses = jobs.get(job, ())
    for index, address in (addresses.items() if isinstance(addresses, dict)
                           else enumerate(addresses)):
      where = f"{source}'s {task_name(job, index)} address {address!r}"
      key = _checked_address(address, where, fix)
      if key in seen:
        raise UserError(f"{source} names {address} for both {seen[key]} and "
                        f"{task_name(job, index)}: each task needs an address of its own "
                        f"(another port, or another host); {GUIDE}")
      seen[key] = task_name(job, index)


def _checked_address(address, where, fix):
  """(host in lower case, port) of a valid "host:port", else UserError."""
  try:
    host, port = split_address(address)
  except ValueError:
    raise UserError(f"{where} is not a host:port; {GUIDE}") from None
  if not host:
    raise UserError(f"{where} names no host (host:port); {GUIDE}")
  if not port.isascii() or not port.isdigit():
    raise UserError(f"{where}: the port {port!r} is not a number (host:port, the port "
                    f"1-{HIGHEST_PORT}){fix}; {GUIDE}")
  if not 1 <= int(port) <= HIGHEST_PORT:
    raise UserError(f"{where}: the port {int(port)} is not in 1-{HIGHEST_PORT}{fix}; {GUIDE}")
  return host.lower(), int(port)
