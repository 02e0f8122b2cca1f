"""The package as someone installs it elsewhere: an sdist and a wheel built with the standard
build tool (`make dist`'s command) from the checkout's files, the wheel installed with pip
into a fresh virtual environment outside the checkout, then every console script and a
datagen -> train -> decode -> export -> serve round trip run from that environment alone.
What only an editable install finds (t2t-serve's page, the problems/, hparams/ and bin/
folders installed under t2t_lite) fails here. Full tier: minutes, and the package registry
(or pip's cache) for the dependencies."""

import importlib.metadata
import os
import signal
import sys

import pytest

from commands import read_until, run, start
from helpers import ROOT, uninstalled_checkout
from serving_servers import call as http_call
from tiny_runs import TINY_HPARAMS, tiny_text

pytestmark = pytest.mark.slow

INSTALL_TIMEOUT = 1800  # Seconds: TensorFlow's wheels from the registry on a slow link.


def clean_environment(venv):
  """The environment of a user of `venv`: its bin/ first, nothing of the checkout."""
  env = {key: value for key, value in os.environ.items()
         if key not in ("PYTHONPATH", "VIRTUAL_ENV", "TF_CONFIG")}
  env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
  return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
  """(the wheel's path, the fresh venv holding it, the environment to run it in)."""
  work = tmp_path_factory.mktemp("wheel")
  source, dist, venv = work / "source", work / "dist", work / "venv"
  uninstalled_checkout(source)
  built = run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)],
              timeout=INSTALL_TIMEOUT)
  assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
  version = importlib.metadata.version("t2t_lite")
  wheel = dist / f"t2t_lite-{version}-py3-none-any.whl"
  assert wheel.exists() and (dist / f"t2t_lite-{version}.tar.gz").exists(), os.listdir(dist)
  made = run([sys.executable, "-m", "venv", str(venv)])  # From the base interpreter.
  assert made.returncode == 0, made.stderr
  env = clean_environment(venv)
  pip = run([str(venv / "bin" / "pip"), "install", "--quiet", f"{wheel}[serve]"], env=env,
            timeout=INSTALL_TIMEOUT, cwd=work)
  assert pip.returncode == 0, pip.stderr[-3000:]
  return wheel, venv, env


def test_the_installed_package_is_the_wheel_alone(installed, tmp_path):
  _, venv, env = installed
  where = run([str(venv / "bin" / "python"), "-c", "import t2t_lite, t2t_lite.problems, "
               "t2t_lite.hparams_sets; print(t2t_lite.__file__)"], env=env, cwd=tmp_path)
  assert where.returncode == 0, where.stderr[-2000:]
  assert where.stdout.startswith(str(venv)), where.stdout
  for top_level in ("problems", "hparams"):  # Installed under t2t_lite, never beside it.
    found = run([str(venv / "bin" / "python"), "-c", f"import {top_level}"], env=env,
                cwd=tmp_path)
    assert found.returncode != 0


def test_the_install_guide_names_this_wheel(installed):
  wheel, _, _ = installed
  with open(os.path.join(ROOT, "docs", "getting-started.md"), encoding="utf-8") as guide:
    assert f"dist/{wheel.name}[serve]" in guide.read()


def test_every_console_script_answers_help(installed, tmp_path):
  _, venv, env = installed
  scripts = [entry.name for entry in importlib.metadata.distribution("t2t_lite").entry_points
             if entry.group == "console_scripts"]
  assert "t2t-serve" in scripts and "t2t-trainer" in scripts
  for script in scripts:
    helped = run([str(venv / "bin" / script), "--help"], env=env, cwd=tmp_path)
    assert helped.returncode == 0, (script, helped.stderr[-2000:])
    assert "--t2t_usr_dir" in helped.stdout, script  # The flags, not absl's "Try --helpfull".
  listed = run([str(venv / "bin" / "t2t-trainer"), "--registry_help"], env=env, cwd=tmp_path)
  assert listed.returncode == 0, listed.stderr[-2000:]
  for name in ("translate_ende_wmt32k", "parsing_english_ptb16k", "transformer_big",
               "transformer_auto"):
    assert name in listed.stdout


def test_datagen_train_decode_export_serve_from_the_wheel(installed, tmp_path):
  _, venv, env = installed

  def command(tool, *flags):
    result = run([str(venv / "bin" / tool), *flags], env=env, cwd=tmp_path)
    assert result.returncode == 0, (tool, result.stderr[-3000:])
    return result

  for split, lines, offset in (("train", 200, 0), ("dev", 20, 1000)):
    pairs = [line.split("\t") for line in tiny_text(lines, offset).splitlines()]
    for index, language in enumerate(("en", "de")):
      (tmp_path / f"{split}.{language}").write_text(
          "".join(pair[index] + "\n" for pair in pairs), encoding="utf-8")
  command("t2t-datagen", "--problem=translate_from_files", "--data_dir=data",
          "--train_source=train.en", "--train_target=train.de", "--dev_source=dev.en",
          "--dev_target=dev.de", "--vocab_size=300")
  command("t2t-trainer", "--problem=translate_from_files", "--data_dir=data",
          "--output_dir=run", "--hparams_set=transformer_test_small",
          f"--hparams={TINY_HPARAMS}", "--train_steps=3", "--eval_decode_sentences=0",
          "--random_seed=1")
  command("t2t-decoder", "--output_dir=run", "--decode_from_file=dev.en",
          "--decode_to_file=dev.decoded.de")
  assert len((tmp_path / "dev.decoded.de").read_text(encoding="utf-8").splitlines()) == 20
  command("t2t-exporter", "--output_dir=run", "--export_dir=serving/1")

  server = start([str(venv / "bin" / "t2t-serve"), "--model_base_path=serving", "--port=0",
                  "--model_name=tiny"], env=env, cwd=tmp_path, merge_stderr=True)
  try:
    port = int(read_until(server, r"listening on http://127\.0\.0\.1:(\d+)/").group(1))
    read_until(server, r'model "tiny" version 1 is AVAILABLE')
    status, _, page = http_call(port, "GET", "/")
    assert status == 200 and "<html" in page.lower()
    status, _, answer = http_call(port, "POST", "/v1/models/tiny:predict",
                                  {"instances": ["the number 7 is here"]})
    assert status == 200 and len(answer["predictions"]) == 1, answer
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=120) == 0
  finally:
    if server.poll() is None:
      server.kill()
      server.wait()
