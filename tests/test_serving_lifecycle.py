"""t2t-serve's start and end: a model name no URL can carry refused in one line, version
folders that are not ASCII numbers ignored (as TensorFlow Serving ignores them); and a
process that answers bad HTTP and a client hanging up without a traceback in its log, and
on SIGTERM with an upload stalled gives it --drain_seconds, then closes it and exits 0."""

import re
import signal
import socket
import sys
import time

import pytest

from commands import call, error_line, start
from serving_servers import answer_on
from serving_servers import call as http_call
from t2t_lite.serving.server_metrics import parse
from t2t_lite.serving.opening import model_source
from t2t_lite.serving.rest_api import check_model_name
from tiny_runs import tiny_export

STALLED = (b"POST /v1/models/tiny:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
           b'{"instances": ')  # Half a body, the rest never sent.


@pytest.mark.parametrize("name", ["a:b", "a/b", "", ".", "..", "a b", "a?b", "a%2Fb"])
def test_a_model_name_no_url_can_carry_is_refused_in_one_line(name):
  result = call("t2t-serve", "--port=0", f"--model_name={name}",
                "--model_base_path=/nonexistent")
  assert result.returncode == 2
  assert f"--model_name={name} cannot be served" in error_line(result.stderr)


@pytest.mark.parametrize("name", ["default", "en-de_v1.2", "T2T"])
def test_a_name_of_letters_digits_and_dashes_is_taken(name):
  check_model_name(name)


def test_version_folders_are_named_in_ascii_digits_and_others_ignored(tmp_path):
  for name in ("1", "²", "٣", "tmp", "10x"):  # "²" and "٣" pass str.isdigit.
    (tmp_path / name).mkdir()
  (tmp_path / "1" / "saved_model.pb").write_bytes(b"")
  source = model_source(str(tmp_path), None)
  assert (source.path, source.version) == (str(tmp_path / "1"), 1)
  (tmp_path / "007").mkdir()
  (tmp_path / "007" / "saved_model.pb").write_bytes(b"")
  source = model_source(str(tmp_path), None)
  assert (source.path, source.version) == (str(tmp_path / "007"), 7)


def lines_until(process, lines, pattern):
  """Reads the process's output lines into `lines` up to the first that matches `pattern`
  -> the match (failing if the process ends first)."""
  for line in process.stdout:
    lines.append(line)
    match = re.search(pattern, line)
    if match:
      return match
  raise AssertionError("t2t-serve ended: " + "".join(lines)[-3000:])


def metric(port, name):
  return parse(http_call(port, "GET", "/monitoring/prometheus/metrics")[2])[name]


def wait_for_metric(port, name, value):
  deadline = time.monotonic() + 60
  while metric(port, name) != value:
    assert time.monotonic() < deadline, f"{name} never reached {value}"
    time.sleep(0.02)


@pytest.mark.slow
def test_bad_http_hangups_and_sigterm_with_a_stalled_upload(tmp_path_factory):
  _, export_dir = tiny_export(tmp_path_factory)
  process = start([sys.executable, "-m", "t2t_lite.bin.t2t_serve",
                   f"--model_base_path={export_dir}", "--port=0", "--model_name=tiny",
                   "--drain_seconds=2"], merge_stderr=True)
  lines = []
  try:
    port = int(lines_until(process, lines, r"listening on http://127\.0\.0\.1:(\d+)/")[1])
    lines_until(process, lines, r'model "tiny" version 1 is AVAILABLE')
    with socket.create_connection(("127.0.0.1", port), timeout=60) as bad:
      bad.sendall(STALLED.replace(b"1000", b"-1"))
      status, _, answer = answer_on(bad)
    assert status == 400 and "the request is not valid HTTP" in answer["error"]

    with socket.create_connection(("127.0.0.1", port), timeout=60) as leaving:
      leaving.sendall(STALLED)
      wait_for_metric(port, "t2t_serve_requests_in_flight", 1)
    wait_for_metric(port, "t2t_serve_client_disconnects_total", 1)

    with socket.create_connection(("127.0.0.1", port), timeout=60) as stalled:
      stalled.sendall(STALLED)
      wait_for_metric(port, "t2t_serve_requests_in_flight", 1)
      process.send_signal(signal.SIGTERM)
      signalled = time.monotonic()
      lines_until(process, lines, r"stopped at the --drain_seconds=2 deadline: 1 request")
      assert process.wait(timeout=60) == 0
      assert time.monotonic() - signalled < 2 + 30  # Generous: the deadline, and exiting.
      try:
        assert stalled.recv(1024) == b""  # Closed by the server ...
      except ConnectionResetError:
        pass  # ... or reset.
    lines += process.stdout.read().splitlines(keepends=True)
    assert not [line for line in lines if "Traceback" in line], "".join(lines)[-3000:]
    assert len([line for line in lines if "not valid HTTP" in line]) == 1
  finally:
    if process.poll() is None:
      process.kill()
      process.wait()
