"""t2t-exporter: the SavedModel loads with only TF and tensorflow-text and matches t2t-decoder."""

import os

from commands import call, run_script
from trainer_runs import BEAM_WITH_OUTPUTS

SETTINGS = f"--decode_hparams={BEAM_WITH_OUTPUTS}"


def test_exported_model_gives_the_decoders_output(trained_run, shared_data, tmp_path):
  _, output_dir, _ = trained_run
  with open(os.path.join(shared_data, "wmt14", "newstest2014-full.en-de.en"),
            encoding="utf-8") as f:
    lines = f.read().splitlines()
  lines = lines[:6] + ["", "  "] + sorted(lines, key=len)[-2:]  # Blank and truncated lines too.
  source = tmp_path / "source.en"
  source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
  export_dir = tmp_path / "export"
  exported = call("t2t-exporter", f"--output_dir={output_dir}", f"--export_dir={export_dir}",
                  SETTINGS)
  assert exported.returncode == 0, exported.stderr[-3000:]
  decoded = call("t2t-decoder", f"--output_dir={output_dir}", f"--decode_from_file={source}",
                 SETTINGS)
  assert decoded.returncode == 0, decoded.stderr[-3000:]
  # A process that imports only tensorflow and tensorflow_text serves the SavedModel.
  served = run_script("export_check.py", export_dir, source)
  assert served.returncode == 0, served.stderr[-3000:]
  assert served.stdout.split("\n") == decoded.stdout.split("\n")
  assert len(set(served.stdout.split("\n"))) >= 3  # Outputs that differ between lines.
  assert len(served.stdout.split("\n")) == len(lines) + 1

  # An earlier export is replaced; a SavedModel the exporter did not write is not.
  os.remove(export_dir / "t2t_lite_export.json")
  again = call("t2t-exporter", f"--output_dir={output_dir}", f"--export_dir={export_dir}")
  assert again.returncode == 2
  assert "already holds files this command did not write" in \
      again.stderr.strip().splitlines()[-1]


def test_mbr_is_refused_in_one_line_before_anything_is_written(trained_run, tmp_path):
  _, output_dir, _ = trained_run
  export_dir = tmp_path / "export"
  refused = call("t2t-exporter", f"--output_dir={output_dir}", f"--export_dir={export_dir}",
                 "--decode_hparams=beam_size=4,mbr=True")
  assert refused.returncode == 2
  assert "mbr=True is t2t-decoder's alone" in refused.stderr.strip().splitlines()[-1]
  assert not export_dir.exists()
