"""t2t-serve as a user types it: one-line errors for flags and paths it cannot serve, and a
process serving a base path of numbered versions at its newest, then draining on SIGTERM:
every accepted request answered, exit status 0."""

import concurrent.futures
import os
import signal
import sys
import time

import pytest

from commands import call, error_line, read_until, start
from serving_servers import call as http_call
from t2t_lite.serving.server_metrics import parse
from tiny_runs import tiny_export, tiny_text

SENTENCES = [line.split("\t")[0] for line in tiny_text(3, offset=5000).splitlines()]


@pytest.mark.parametrize("flags, reason", [
    ([], "pass exactly one of --model_base_path=EXPORT"),
    (["--model_base_path=/nonexistent/serving"], "is not a directory"),
    (["--model_base_path={empty}"], "holds no export (saved_model.pb, or CTranslate2's "
                                    "model.bin) and no numbered versions"),
    (["--model_base_path={export}", "--decode_hparams=beam_size=3"],
     "a SavedModel decodes with the settings it was exported with"),
    (["--model_base_path={export}", "--max_sentences_per_request=1000"],
     "--max_sentences_per_request=1000 exceeds what the queue holds"),
    (["--model_base_path={export}", "--max_batch_size=0"], "--max_batch_size=0: it must be at least 1"),
    (["--model_base_path={export}", "--num_batch_threads=-1"],
     "--num_batch_threads=-1: it must be at least 0 (0: one per CPU core)"),
    (["--output_dir={run}", "--decode_hparams=batch_size=8"],
     "drop batch_size from --decode_hparams"),
])
def test_what_cannot_be_served_is_one_line(tmp_path_factory, tmp_path, flags, reason):
  output_dir, export_dir = tiny_export(tmp_path_factory)
  paths = {"empty": tmp_path, "export": export_dir, "run": output_dir}
  result = call("t2t-serve", "--port=0", *[flag.format(**paths) for flag in flags])
  assert result.returncode == 2
  assert reason in error_line(result.stderr)


@pytest.mark.slow
def test_the_newest_version_is_served_and_sigterm_answers_every_accepted_request(
    tmp_path_factory, tmp_path):
  _, export_dir = tiny_export(tmp_path_factory)
  base = tmp_path / "serving"
  (base / "1").mkdir(parents=True)  # Older and empty: not the one served.
  os.symlink(export_dir, base / "2")
  process = start([sys.executable, "-m", "t2t_lite.bin.t2t_serve", f"--model_base_path={base}",
                   "--port=0", "--model_name=tiny", "--max_batch_size=8",
                   "--batch_timeout_micros=600000000"], merge_stderr=True)
  try:
    port = int(read_until(process, r"listening on http://127\.0\.0\.1:(\d+)/").group(1))
    read_until(process, r'model "tiny" version 2 is AVAILABLE')
    status, _, answer = http_call(port, "GET", "/v1/models/tiny")
    assert answer["model_version_status"][0] == {"version": "2", "state": "AVAILABLE",
                                                 "status": {"error_code": "OK",
                                                            "error_message": ""}}
    predict = [lambda s=s: http_call(port, "POST", "/v1/models/tiny:predict",
                                     {"instances": [s]}) for s in SENTENCES]
    with concurrent.futures.ThreadPoolExecutor(len(predict)) as pool:
      answers = [pool.submit(request) for request in predict]
      deadline = time.monotonic() + 60
      while parse(http_call(port, "GET", "/monitoring/prometheus/metrics")[2])[
          "t2t_serve_queue_sentences"] < len(SENTENCES):  # Accepted, waiting to fill a batch.
        assert time.monotonic() < deadline
        time.sleep(0.02)
      process.send_signal(signal.SIGTERM)
      read_until(process, r"stopping: no longer listening")
      with pytest.raises(ConnectionRefusedError):  # No longer listening ...
        http_call(port, "GET", "/v1/models/tiny")
      answered = [future.result() for future in answers]  # ... but every request is answered.
    assert [status for status, _, _ in answered] == [200] * len(SENTENCES)
    assert all(len(answer["predictions"]) == 1 for _, _, answer in answered)
    read_until(process, r"stopped; every accepted request was answered")
    assert process.wait(timeout=60) == 0
  finally:
    if process.poll() is None:
      process.kill()
      process.wait()
