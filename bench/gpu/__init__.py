"""t2t_lite's own Transformer on a GPU under Keras's JAX (and TensorFlow) backend, against PyTorch.

    KERAS_BACKEND=jax python -m bench.gpu            # on a GPU machine: every table
    python -m bench.gpu --smoke --output=/tmp/b.md   # any CPU, a tiny model, in seconds

Needs JAX, Keras, NumPy and (for its peers) PyTorch; TensorFlow only in the
processes of its own rows (an offline bundle's, --tf_target). Run it from the
repository's root: t2t_lite need not be installed.

  __main__.py      the command: plans the rows, runs them, prints and writes the tables
  settings.py      shapes: the paper's base and big sets, token batches, decoding, smoke
  rows.py          one measurement ("row") by name, in this process or a fresh one
  machine.py       the accelerator: its name, spec peak, driver, CUDA, versions
  matmul.py        a bfloat16 matmul's FLOP/s through JAX, the measured peak
  jax_training.py  t2t_lite's training step as one `jax.jit` stateless function
  jax_decoding.py  t2t_lite's `decode_ids` under `jax.jit`, weights as arguments
  model.py         the model, built on any backend; tokens a decoding emitted
  tf_rows.py       the TensorFlow rows: the trainer's TrainStep (XLA), decode_ids (XLA)
  two_replicas.py  MirroredStrategy on 2 logical GPUs gives one device's update?
  logical_gpus.py  t2t-trainer with several replicas on logical GPUs of one GPU
  serving.py       a run's SavedModel and t2t-serve on the GPU beside 2 CPU cores
  tf_gpu_check.py  TensorFlow sees the GPU, XLA compiles for it (run after unpacking)
  run_tf_on_device.sh  a GPU session's stages: the bundle unpacked, checks, benchmark, Multi30k
  timing.py        steps timed between device synchronisations, medians
  tables.py        the tables: ms/step, tokens/s, MFU, memory; decoding speed
  document.py      the GPU section of docs/benchmarks.md, between its markers
"""

import importlib.machinery
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# XLA's GPU compiler: matmuls through cuBLAS, not XLA's own Triton kernels.
CUBLAS_MATMULS_FLAG = "--xla_gpu_enable_triton_gemm=false"


def use_jax_backend():
  """Sets this process's environment for Keras on JAX; call before Keras is imported.

  JAX takes 75% of GPU memory at its first use by default; allocating on demand
  leaves room for PyTorch in the same process (--in_process), and its peak
  in-use bytes then mean what PyTorch's do.

  XLA's GPU compiler writes some matmuls as its own Triton kernels by default;
  cuBLAS's are faster for this model's shapes (H100: the base step 15.8 -> 14.2 ms,
  big 32.7 -> 30.2 ms), so they are used unless XLA_FLAGS already chooses.
  """
  os.environ.setdefault("KERAS_BACKEND", "jax")
  os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  if "xla_gpu_enable_triton_gemm" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " " + CUBLAS_MATMULS_FLAG).strip()


def installed_t2t_lite_first():
  """Where t2t_lite is installed (an offline bundle's site folder, into which unpack
  installs the checkout), later imports take that one: `python -m` from the checkout
  finds its t2t_lite/ folder first, which lacks the bin/, problems/ and hparams/
  folders setup.py maps into the package at install. Call before t2t_lite is imported;
  the TensorFlow side's modules call it (the JAX rows use the checkout's)."""
  others = [path for path in sys.path if os.path.abspath(path or os.curdir) != ROOT]
  if importlib.machinery.PathFinder.find_spec("t2t_lite", others) is not None:
    sys.path[:] = others
