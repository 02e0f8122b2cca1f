"""Commands show a newcomer no start-up chatter, and every real warning still."""

import logging
import os

import pytest

from commands import assert_quiet, newcomer_environment, run_command
from t2t_lite import quiet

# Lines TensorFlow 2.21, tensorflow-text and SentencePiece print on a machine without GPU.
CHATTER = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "I0000 00:00:1795358705.927127    2595 cudart_stub.cc:31] Could not find cuda drivers on "
    "your machine, GPU will not be used.",
    "E0000 00:00:1795358711.327567    2595 cuda_platform.cc:52] failed call to cuInit: "
    "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)",
    "I0000 00:00:1795358712.845570    2789 cpu_feature_guard.cc:227] This TensorFlow binary "
    "is optimized to use available CPU instructions in performance-critical operations.",
    "To enable the following instructions: AVX2 AVX512F FMA, in other operations, rebuild "
    "TensorFlow with the appropriate compiler flags.",
    "normalizer.cc(51) LOG(INFO) precompiled_charsmap is empty. use identity normalization.",
)


def test_chatter_is_dropped_and_every_other_line_kept(capfd):
  with quiet.chatter_hidden():
    for line in CHATTER:
      os.write(2, (line + "\n").encode())
    os.write(2, b"W1122 12:00:00.000000 1 trainer.py:1] a real warning\n")
  assert capfd.readouterr().err == "W1122 12:00:00.000000 1 trainer.py:1] a real warning\n"


def test_runtime_chatter_is_dropped_and_other_warnings_kept():
  quiet.import_tensorflow()
  from t2t_lite.decoding.translate import Translator
  decode_method = Translator._decode_replicas.__qualname__  # Renaming it must fail here.
  records = []

  class Keep(logging.Handler):
    def emit(self, record):
      records.append(record.getMessage())

  for name in ("tensorflow", "absl"):
    logger = logging.getLogger(name)
    handler = Keep()
    logger.addHandler(handler)
    try:
      logger.warning("Sharding callback duration: 12")
      logger.warning("%d out of the last %d calls to %s triggered tf.function retracing. "
                     "Tracing is expensive", 5, 10, f"<bound method {decode_method} of "
                     "<t2t_lite.decoding.translate.Translator object at 0x7f>>")
      logger.warning("%d out of the last %d calls to %s triggered tf.function retracing.", 5,
                     10, "<function user_function at 0x7f>")
      logger.warning("a real warning")
    finally:
      logger.removeHandler(handler)
  assert records == ["5 out of the last 10 calls to <function user_function at 0x7f> "
                     "triggered tf.function retracing.", "a real warning"] * 2


@pytest.mark.slow
def test_training_and_a_tiny_decode_are_quiet(trained_run):
  _, output_dir, training_output = trained_run
  assert_quiet(training_output)
  result = run_command("t2t-decoder", f"--output_dir={output_dir}", "--decode_interactive",
                       "--decode_hparams=beam_size=1,extra_length=3",
                       stdin="Resumption of the session\n", env=newcomer_environment())
  assert result.returncode == 0, result.stderr[-2000:]
  assert len(result.stdout.splitlines()) == 1
  assert_quiet(result.stderr)
