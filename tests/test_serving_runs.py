"""t2t-serve serving a run directory (t2t-decoder's Translator, loaded once) and a CTranslate2
export: t2t-decoder's lines with their n-best, attention maps for the page (none for the
export, and why), and the page itself in a real headless browser."""

import base64
import html
import os
import shutil
import subprocess
import tempfile

import pytest

from serving_servers import SENTENCES, ServerThread, predict_decoders_lines
from t2t_lite.serving.request_batching import BatchingSettings
from t2t_lite.serving.run_served import ServedRuns
from tiny_runs import TINY_SERVING, tiny_run

PNG = b"\x89PNG\r\n\x1a\n"
# One request's 6 sentences cut into full batches of 2, two of them decoded at once (as
# t2t-serve's default, a batch thread per core, decodes them on 2 cores).
SIDE_BY_SIDE = BatchingSettings(max_batch_size=2, num_batch_threads=2)


@pytest.fixture(scope="module")
def served_run(tmp_path_factory):
  """(the tiny run, served with TINY_SERVING's decoding)."""
  _, output_dir = tiny_run(tmp_path_factory)
  return output_dir, ServedRuns(output_dir, None, TINY_SERVING, max_batch_size=8)


def test_a_run_directory_answers_t2t_decoders_lines_and_draws_attention(served_run,
                                                                       tmp_path_factory):
  _, served = served_run
  with ServerThread(served, SIDE_BY_SIDE) as server:
    answer = predict_decoders_lines(server, tmp_path_factory)
    status, _, drawn = server.call("POST", "/page/attention", {
        "sentence": SENTENCES[0], "target": answer["predictions"][0]["translations"]})
  assert status == 200
  layers = served.translator.hparams.num_hidden_layers
  assert [(m["kind"], m["layer"]) for m in drawn["maps"]] == [
      (kind, layer) for kind in ("Encoder self-attention", "Decoder self-attention",
                                 "Encoder-decoder attention") for layer in range(layers)]
  assert all(base64.b64decode(m["png"]).startswith(PNG) for m in drawn["maps"])


def test_a_ctranslate2_export_is_served_with_its_n_best(tmp_path_factory, tmp_path):
  """(That CTranslate2 decodes greedily as t2t-decoder does, through the same
  ServedCTranslate2: test_export_ctranslate2.py.)"""
  pytest.importorskip("ctranslate2", reason="the ctranslate2 package is not installed "
                      "(pip install -e \".[ctranslate2]\")")
  from t2t_lite.export.ctranslate2 import export_ctranslate2
  from t2t_lite.serving.ctranslate2_served import ServedCTranslate2
  _, output_dir = tiny_run(tmp_path_factory)
  export_dir = export_ctranslate2(output_dir, str(tmp_path / "ct2"))
  served = ServedCTranslate2.from_flags(export_dir, 1, "beam_size=3,n_best=2", 0.4,
                                       SIDE_BY_SIDE.max_batch_size,
                                       SIDE_BY_SIDE.num_batch_threads)
  with ServerThread(served, SIDE_BY_SIDE) as server:
    status, answer = server.predict(SENTENCES + [""])
    _, _, drawn = server.call("POST", "/page/attention",
                              {"sentence": SENTENCES[0], "target": "die"})
  assert status == 200
  assert [p["translations"] for p in answer["predictions"]] == [
      output["translations"] for output in served.decode(SENTENCES + [""])]
  assert all(len(p["n_best"]) == 2 for p in answer["predictions"])
  assert answer["predictions"][-1]["translations"] == ""
  assert "a CTranslate2 export holds its own copy of the weights" in drawn["unavailable"]


def chromium():
  """The path of a Chromium (Debian's `chromium`), or skips saying what is missing."""
  for name in ("chromium", "chromium-browser", "google-chrome"):
    path = shutil.which(name)
    if path:
      return path
  pytest.skip("no Chromium to check the page in (Debian: apt-get install chromium; .ci/run "
              "installs it)")


def browse(browser, url, *flags):
  """Chromium headless on `url` after its scripts ran (their fetches answered)."""
  with tempfile.TemporaryDirectory() as profile:
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={profile}", "--virtual-time-budget=30000",
         "--window-size=1200,1400", *flags, url],
        capture_output=True, text=True, timeout=180)


@pytest.mark.slow
def test_the_page_translates_and_draws_in_a_headless_browser(served_run, tmp_path):
  browser = chromium()
  _, served = served_run
  with ServerThread(served) as server:
    url = f"http://127.0.0.1:{server.port}/?sentence={SENTENCES[0].replace(' ', '%20')}"
    dom = browse(browser, url, "--dump-dom")
    if dom.returncode != 0 or "<html" not in dom.stdout:
      pytest.skip(f"Chromium did not start: {(dom.stderr.strip().splitlines() or ['?'])[-1]}")
    shot = tmp_path / "page.png"
    browse(browser, url, f"--screenshot={shot}")
    expected = served.decode([SENTENCES[0]])[0]
  assert 'data-state="done"' in dom.stdout, dom.stdout[-3000:]
  assert f'<p id="translation">{html.escape(expected["translations"], quote=False)}</p>' in \
      dom.stdout
  assert dom.stdout.count('src="data:image/png;base64,') == (
      3 * served.translator.hparams.num_hidden_layers)
  import matplotlib.image
  pixels = matplotlib.image.imread(str(shot))  # [height, width, channels] in [0, 1]
  assert pixels.shape[:2] == (1400, 1200)
  assert (pixels[..., :3].mean(axis=-1) < 0.5).mean() > 0.001  # Text and maps were drawn.
  assert os.path.getsize(shot) > 20_000
