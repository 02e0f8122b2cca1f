"""What to export to use an unpacked bundle: env.sh's lines, or a copy of an environment for
a subprocess. Standard library only."""

import os

import offline_site


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
