"""The README and the guide: the site builds in strict mode, the reference pages are what the
code says, every command block is run by a test or marked illustrative (with why), and the
own-data walkthrough and the Python blocks run as written."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from commands import BIN, call, environment
from t2t_lite.cores import usable_cores
from t2t_lite.run.run_layout import AVERAGE_MARKER, DECODING_FILE, EXPORT_MARKER
from t2t_lite.training.auto_hparams import cpu_replicas_for
from tiny_runs import copy_run, tiny_export, tiny_run

pytestmark = pytest.mark.slow  # Builds the site and runs the commands as processes.

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The line before every command block of the README and the guide says whether a test runs it.
MARKER = re.compile(r"<!-- (tested|illustrative): (.+) -->")
WALKTHROUGH = "<!-- tested: tests/test_docs.py runs this walkthrough"
# The guide's own pages (not the lab notebook, the benchmark tables or generated references).
GUIDE_PAGES = ["README.md"] + [os.path.join("docs", name) for name in (
    "index.md", "getting-started.md", "own-data.md", "training.md", "recipes.md",
    "decoding.md", "export.md", "serving.md", "gpus.md", "replicas.md", "clusters.md",
    "python.md", "tensor2tensor.md", "performance.md", "architecture.md")]
# What the walkthrough's real settings become in the test: a tiny model, a few steps.
TINY = {
    "--vocab_size=8192": "--vocab_size=1000",
    # transformer_auto's choice, shrunk; a minute and a half of training (the baseline
    # evaluation and the first step, traced for two replicas, took most of a minute on 2
    # cores loaded 2.5x over), evaluated by time only; a checkpoint every 2 steps: the last
    # tenth of even 20 steps holds two to average.
    "--hparams_set=transformer_auto --train_minutes=60":
        "--hparams_set=transformer_auto --hparams=hidden_size=32,filter_size=64,"
        "num_hidden_layers=2,batch_size=1024,max_length=64 --train_minutes=1.5 "
        "--eval_every_minutes=0.1 --local_eval_frequency=1000000 --eval_steps=2 "
        "--eval_decode_sentences=4 --save_checkpoints_steps=2 --save_checkpoints_secs=0",
    "--n=20": "--n=20 --dev_sentences=20",
    # Two input widths (8 and 16) instead of the run's max_length's six: each width is one
    # more traced search to export; the walkthrough exports without decoding from it.
    "--export_dir=serving/1": "--export_dir=serving/1 --decode_hparams=max_input_length=16",
}
SPLITS = {"train": ("train", 600), "val": ("val", 100), "test": ("test_2016_flickr", 8)}


def read(path):
  with open(os.path.join(ROOT, path), encoding="utf-8") as f:
    return f.read()


def command_blocks(path):
  """[(the line before it, its language, its text)] of each fenced block of a page."""
  lines = read(path).split("\n")
  blocks, index = [], 0
  while index < len(lines):
    if lines[index].startswith("```"):
      end = lines.index("```", index + 1)
      blocks.append((lines[index - 1] if index else "", lines[index][3:],
                     "\n".join(lines[index + 1:end]) + "\n"))
      index = end
    index += 1
  return blocks


def walkthrough(path):
  """The walkthrough's commands, one a line."""
  [text] = [text for before, _, text in command_blocks(path) if before.startswith(WALKTHROUGH)]
  return text.replace("\\\n", " ")


def test_every_command_block_is_tested_or_marked_illustrative():
  for path in GUIDE_PAGES:
    for before, _, text in command_blocks(path):
      marker = MARKER.fullmatch(before)
      assert marker, f"{path}: no tested/illustrative line before the block {text[:60]!r}"
      if marker.group(1) == "tested":
        named = re.search(r"tests/\S+\.py", marker.group(2)).group(0)
        assert os.path.isfile(os.path.join(ROOT, named)), f"{path}: {named} does not exist"


def test_the_python_blocks_run_on_a_trained_run_and_its_exports(tmp_path_factory, tmp_path):
  """The guide's Python, as written, with RUN and SERVING named by their paths here (SERVING:
  the tiny run's SavedModel, shared with the serving tests; RUN/ctranslate2 exported here)."""
  _, trained = tiny_run(tmp_path_factory)
  run = copy_run(trained, tmp_path / "run")
  _, serving = tiny_export(tmp_path_factory)
  result = call("t2t-exporter", f"--output_dir={run}", "--export_format=ctranslate2")
  assert result.returncode == 0, result.stderr[-3000:]
  snippets = [text for path in ("docs/python.md", "docs/export.md")
              for before, language, text in command_blocks(path)
              if language == "python" and before.startswith("<!-- tested:")]
  assert len(snippets) == 3
  for snippet in snippets:
    exec(snippet.replace('"RUN', f'"{run}').replace('"SERVING"', f'"{serving}"'), {})


def test_the_generated_pages_and_the_results_table_are_fresh():
  result = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "reference_pages.py"),
                           "--check"], capture_output=True, text=True, env=environment())
  assert result.returncode == 0, result.stderr[-2000:]


def test_the_guide_builds_in_strict_mode(tmp_path):
  result = subprocess.run(
      [os.path.join(BIN, "mkdocs"), "build", "--strict", f"--site-dir={tmp_path / 'site'}"],
      cwd=ROOT, capture_output=True, text=True, env=environment(NO_MKDOCS_2_WARNING="1"))
  assert result.returncode == 0, result.stderr[-3000:]
  assert "WARNING" not in result.stderr, result.stderr[-3000:]
  assert os.path.isfile(tmp_path / "site" / "own-data" / "index.html")


def test_the_readme_and_the_guide_show_one_walkthrough():
  assert walkthrough("README.md") == walkthrough(os.path.join("docs", "own-data.md"))


def test_the_own_data_walkthrough_gives_a_bleu_line_and_an_export(shared_data, tmp_path):
  for name, (stem, count) in SPLITS.items():
    for language in ("en", "de"):
      with open(os.path.join(shared_data, "multi30k", f"{stem}.{language}"),
                encoding="utf-8") as f:
        lines = [next(f) for _ in range(count)]
      (tmp_path / f"{name}.{language}").write_text("".join(lines), encoding="utf-8")
  script = walkthrough("README.md")
  for real, tiny in TINY.items():
    assert real in script, f"the walkthrough no longer says {real}"
    script = script.replace(real, tiny)
  env = environment(PATH=BIN + os.pathsep + os.environ["PATH"])
  result = subprocess.run(["bash", "-euc", script], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=1200)
  assert result.returncode == 0, result.stderr[-3000:]
  output = result.stdout + result.stderr
  assert re.search(r"^sacreBLEU \(cased\) +[0-9.]+ ", result.stdout, re.M), result.stdout[-3000:]
  assert os.path.isfile(tmp_path / "serving" / "1" / "saved_model.pb")
  assert len((tmp_path / "test.out.de").read_text(encoding="utf-8").splitlines()) == 8
  assert re.search(r"^transformer_auto: 600 training pairs", result.stdout, re.M), output[-3000:]
  # Replicas on the CPU, one a core, as the rule chooses on this machine (batches of 1,024
  # tokens each, as the test gives them).
  replicas = cpu_replicas_for(2048, usable_cores())
  assert f"{replicas} replica(s), XLA off, batch_size=1024 tokens per replica" in output
  # Evaluations by time: between the baseline and the last one, at steps no step count set.
  steps = [int(step) for step in re.findall(r"eval at step (\d+):", output)]
  assert steps[0] == 0 and len(steps) >= 3 and all(0 < s < steps[-1] for s in steps[1:-1]), (
      output[-3000:])
  # t2t-avg-all averages only the run's last tenth, and keeps nothing worse on dev than the
  # last checkpoint (a busy machine may train so few steps that the last tenth holds the
  # last checkpoint alone: it is then kept as it is).
  with open(tmp_path / "run_avg" / AVERAGE_MARKER, encoding="utf-8") as f:
    marker = json.load(f)
  averaged = [int(name.split("-")[1]) for name in marker["averaged"]]
  assert min(averaged) >= 0.9 * max(averaged), averaged
  if len(averaged) > 1:
    checked = re.search(r"the average of \d+ checkpoints scores bleu ([0-9.]+), the last "
                        r"checkpoint \(step [0-9,]+\) ([0-9.]+): run_avg (keeps|holds)",
                        output)
    assert checked, output[-3000:]
    # The marker's scores, unrounded: the line's two decimals may show a tie that is none.
    scores = marker["dev_check"]
    assert checked.group(1, 2) == (f"{scores['average']:.2f}", f"{scores['last']:.2f}")
    assert (checked.group(3) == "keeps") == (scores["average"] >= scores["last"])
  # ... and chooses the length penalty on dev, which t2t-decoder then decodes with.
  with open(tmp_path / "run_avg" / DECODING_FILE, encoding="utf-8") as f:
    chosen = json.load(f)["decode_hparams"]
  assert re.fullmatch(r"alpha=(0\.6|1|1\.4)", chosen), chosen
  assert f"t2t-decoder: decoding with {chosen}, chosen on dev for this model" in output
  with open(tmp_path / "serving" / "1" / EXPORT_MARKER, encoding="utf-8") as f:
    assert f"alpha={json.load(f)['decoding']['alpha']:g}" == chosen  # The exporter's too.
  # The same trainer command again: its minutes are trained, so nothing changes.
  [trainer] = [line for line in script.splitlines() if line.startswith("t2t-trainer")]
  before = sorted(os.listdir(tmp_path / "run"))
  again = subprocess.run(["bash", "-euc", trainer], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=600)
  assert again.returncode == 0, again.stderr[-3000:]
  assert "nothing to do: pass a larger --train_minutes" in again.stdout, again.stdout[-3000:]
  assert sorted(os.listdir(tmp_path / "run")) == before


def test_the_gpu_extra_asks_for_tensorflow_with_its_cuda_libraries():
  """pip resolves `.[gpu]` (from the package registry) to TensorFlow's CUDA wheels: they
  are in what it would install (resolving every installed package afresh, with
  --ignore-installed, takes twice as long: only where they are installed already)."""
  if shutil.which("pip", path=BIN) is None:
    pytest.skip("no pip in this environment")
  for extra in ([], ["--ignore-installed"]):
    result = subprocess.run(
        [os.path.join(BIN, "pip"), "install", "--dry-run", "--quiet", *extra, "--report", "-",
         f"{ROOT}[gpu]"], capture_output=True, text=True, timeout=600, env=environment())
    assert result.returncode == 0, result.stderr[-3000:]
    if '"name": "nvidia-cublas-cu12"' in result.stdout:
      return
  raise AssertionError("pip's report of .[gpu] names no nvidia-cublas-cu12")
