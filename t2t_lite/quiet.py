"""TensorFlow without its chatter, and without the JAX it does not need.

Loading TensorFlow on a machine without a GPU prints C++ lines before its logging is
set up (CUDA stubs, a failed cuInit, CPU-feature notes) that TF_CPP_MIN_LOG_LEVEL does
not reach; SentencePiece logs a note when a tokenizer loads; each checkpoint save logs a
sharding timing; saving a SavedModel lists each signature's captured inputs; decoding's
one trace per bucket width draws a retracing warning; several replicas' first steps
describe their all-reduces. Those lines are dropped; every other line, warnings and
errors included, still shows.

Where JAX is installed, TensorFlow Lite's Python package imports it while TensorFlow
imports (for its optional JAX converter): 1.7 of the 12 seconds `import tensorflow`
took on 2 CPU cores. No t2t_lite command on TensorFlow uses that converter, so while
TensorFlow imports, `jax` is refused with the ImportError TensorFlow Lite expects
where JAX is missing (`jax_refused`); afterwards JAX imports as before.
"""

import contextlib
import logging
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # Before TensorFlow is imported.

START_UP_CHATTER = re.compile("|".join([
    r"All log messages before absl::InitializeLog\(\) is called",
    r"cudart_stub\.cc.*Could not find cuda drivers",
    r"cuda_platform\.cc.*failed call to cuInit",
    r"cuda_executor\.cc.*could not open file to read NUMA node",
    r"cpu_feature_guard\.cc",
    r"To enable the following instructions: .* rebuild TensorFlow",
    r"oneDNN custom operations are on",
    r"Unable to register cu(DNN|FFT|BLAS) factory",
    r"computation_placer\.cc.*computation placer already registered",
    r"TF-TRT Warning: Could not find TensorRT",
    r"normalizer\.cc.*precompiled_charsmap is empty",
]))

RUNTIME_CHATTER = re.compile("|".join([
    r"^Sharding callback duration",
    # Decoding traces once per bucket width, by design (t2t_lite.decoding.translate).
    r"calls to <bound method Translator\._decode_replicas .* triggered tf\.function retracing",
    # tf.saved_model.save lists every captured input of each signature (t2t-exporter).
    r"^Function `[^`]*` contains input name\(s\)",
    # MirroredStrategy's first steps describe their all-reduces (replicas on the CPU).
    r"^Collective all_reduce tensors: ",
    r"^Reduce to .* then broadcast to ",
]))


@contextlib.contextmanager
def chatter_hidden():
  """Captures file descriptor 2 (C++ and Python alike) for the block, then writes what
  was captured to stderr, less the lines `START_UP_CHATTER` matches."""
  sys.stderr.flush()
  saved_stderr = os.dup(2)
  with tempfile.TemporaryFile() as captured:
    os.dup2(captured.fileno(), 2)
    try:
      yield
    finally:
      sys.stderr.flush()
      os.dup2(saved_stderr, 2)
      os.close(saved_stderr)
      captured.seek(0)
      text = captured.read().decode("utf-8", errors="replace")
      sys.stderr.write("".join(line for line in text.splitlines(keepends=True)
                               if not START_UP_CHATTER.search(line)))
      sys.stderr.flush()


class _JaxRefused:
  """A meta path finder that refuses `jax` and its submodules."""

  def find_spec(self, name, path=None, target=None):
    if name == "jax" or name.startswith("jax."):
      raise ImportError(f"{name} is not imported while TensorFlow imports "
                        f"(t2t_lite.quiet.jax_refused)")
    return None


@contextlib.contextmanager
def jax_refused():
  """Within: `import jax` raises ImportError (unless JAX was imported before)."""
  finder = _JaxRefused()
  sys.meta_path.insert(0, finder)
  try:
    yield
  finally:
    sys.meta_path.remove(finder)


def import_tensorflow():
  """Imports TensorFlow (without JAX: `jax_refused`) and finds its devices with
  `chatter_hidden`, and hides the checkpoint saver's timing lines. Returns the module."""
  if "tensorflow" not in sys.modules:
    with chatter_hidden(), jax_refused():
      import tensorflow as tf
      tf.config.list_physical_devices()
  _hide_runtime_chatter()
  return sys.modules["tensorflow"]


class _RuntimeChatterFilter(logging.Filter):

  def filter(self, record):
    return not RUNTIME_CHATTER.search(record.getMessage())


def _hide_runtime_chatter():
  for name in ("absl", "tensorflow"):
    logger = logging.getLogger(name)
    if not any(isinstance(f, _RuntimeChatterFilter) for f in logger.filters):
      logger.addFilter(_RuntimeChatterFilter())
