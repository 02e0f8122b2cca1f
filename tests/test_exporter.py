"""t2t-exporter: the SavedModel loads with only TF and tensorflow-text and matches t2t-decoder."""

import os
import subprocess
import sys

BIN = os.path.dirname(sys.executable)
SETTINGS = "--decode_hparams=beam_size=2,extra_length=5,max_input_length=40"


def run(command, **kwargs):
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
  return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, **kwargs)


def test_exported_model_gives_the_decoders_output(trained_run, shared_data, tmp_path):
  _, output_dir, _ = trained_run
  with open(os.path.join(shared_data, "wmt14", "newstest2014-full.en-de.en"),
            encoding="utf-8") as f:
    lines = f.read().splitlines()
  lines = lines[:6] + ["", "  "] + sorted(lines, key=len)[-2:]  # Blank and truncated lines too.
  source = tmp_path / "source.en"
  source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
  export_dir = tmp_path / "export"
  exported = run([os.path.join(BIN, "t2t-exporter"), f"--output_dir={output_dir}",
                  f"--export_dir={export_dir}", SETTINGS])
  assert exported.returncode == 0, exported.stderr[-3000:]
  decoded = run([os.path.join(BIN, "t2t-decoder"), f"--output_dir={output_dir}",
                 f"--decode_from_file={source}", SETTINGS])
  assert decoded.returncode == 0, decoded.stderr[-3000:]
  served = run([sys.executable, os.path.join(os.path.dirname(__file__), "export_check.py"),
                str(export_dir), str(source)])
  assert served.returncode == 0, served.stderr[-3000:]
  assert served.stdout.split("\n") == decoded.stdout.split("\n")
  assert len(served.stdout.split("\n")) == len(lines) + 1

  again = run([os.path.join(BIN, "t2t-exporter"), f"--output_dir={output_dir}",
               f"--export_dir={export_dir}"])
  assert again.returncode == 2
  assert "already holds a SavedModel" in again.stderr.strip().splitlines()[-1]
