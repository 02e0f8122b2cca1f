"""t2t-avg-all chooses the length penalty on dev, and t2t-decoder and t2t-exporter decode the
run it writes with it, under --decode_hparams."""

import json
import re

import pytest

from commands import call
from t2t_lite.data.problem import DecodeDefaults
from t2t_lite.decoding.decode_hparams import DecodeHParams, decode_hparams_for
from t2t_lite.errors import UserError
from t2t_lite.run.chosen_decoding import read_chosen_decoding, write_chosen_decoding
from t2t_lite.run.run_layout import AVERAGE_MARKER, DECODING_FILE
from t2t_lite.training.alpha_choice import MIN_GAIN, AlphaChoice, alphas_to_try, best_alpha


def problem_with(**defaults):
  return type("Problem", (), {"decode_defaults": DecodeDefaults(**defaults)})()


def test_the_problems_alpha_first_then_the_others_it_names():
  assert alphas_to_try(problem_with()) == (0.6, 1.0, 1.4)
  assert alphas_to_try(problem_with(alpha=0.3, dev_alphas=(0.6, 1.0))) == (0.3, 0.6, 1.0)
  assert alphas_to_try(problem_with(alpha=1.0, dev_alphas=(0.6, 1.0))) == (1.0, 0.6)


@pytest.mark.parametrize("defaults", [dict(alpha=0.3, dev_alphas=()),      # parsing's
                                      dict(alpha=0.6, dev_alphas=(0.6,)),  # nothing else
                                      dict(beam_size=1)])                  # greedy: no alpha
def test_nothing_to_choose(defaults):
  assert alphas_to_try(problem_with(**defaults)) == ()


@pytest.mark.parametrize("scores, best", [
    ({0.6: 30.0, 1.0: 31.5, 1.4: 31.0}, 1.0),
    ({0.6: 30.0, 1.0: 30.0, 1.4: 29.0}, 0.6),   # A tie: the problem's own alpha.
    ({0.6: 8.02, 1.0: 8.05, 1.4: 6.82}, 0.6),   # Less than MIN_GAIN more: within the noise.
    ({0.6: 29.0, 1.4: 30.0, 1.0: 30.0}, 1.0),   # A tie of others: the shorter penalty.
    ({0.3: 80.0}, 0.3),
])
def test_another_alpha_wins_by_min_gain_and_the_problems_stays_below_it(scores, best):
  assert MIN_GAIN == 0.3
  assert best_alpha(scores) == best


def test_the_line_and_the_record_name_every_alpha_tried():
  choice = AlphaChoice(200, 4, "bleu", {0.6: 7.91, 1.0: 8.42, 1.4: 8.1}, 1.0)
  assert choice.decode_hparams == "alpha=1"
  assert choice.line("run_avg") == (
      "t2t-avg-all: on 200 dev sentences (beam 4) length penalty alpha 0.6 7.91, 1 8.42, 1.4 "
      "8.10 (bleu): t2t-decoder and t2t-exporter decode run_avg with alpha 1 "
      "(--decode_hparams=alpha=A decodes with another)")
  assert choice.record()["scores"] == {"0.6": 7.91, "1": 8.42, "1.4": 8.1}
  kept = AlphaChoice(200, 4, "bleu", {0.6: 8.02, 1.0: 8.05, 1.4: 6.82}, 0.6).line("run_avg")
  assert ("decode run_avg with alpha 0.6, the problem's: no other scores 0.3 higher "
          "(--decode_hparams") in kept


def test_the_runs_choice_sits_between_the_problems_defaults_and_the_flag():
  problem = problem_with(beam_size=5)
  assert decode_hparams_for(problem, "", "alpha=1.4") == DecodeHParams(beam_size=5, alpha=1.4)
  assert decode_hparams_for(problem, "alpha=0.2", "alpha=1.4").alpha == 0.2
  assert decode_hparams_for(problem, "beam_size=2", "alpha=1.4") == DecodeHParams(
      beam_size=2, alpha=1.4)


def test_a_run_without_the_file_has_no_choice_and_one_with_it_reads_back(tmp_path):
  assert read_chosen_decoding(str(tmp_path)) == ""
  write_chosen_decoding(str(tmp_path), "alpha=1.4", {"by": "t2t-avg-all"})
  assert read_chosen_decoding(str(tmp_path)) == "alpha=1.4"


@pytest.mark.parametrize("text, problem", [
    ("", "is empty"),
    ("[]", "holds a JSON list, not an object of fields"),
    ('{"why": {}}', "decode_hparams"),
    ('{"decode_hparams": "beam=4"}', "holds decode_hparams that do not read (--decode_hparams: "
                                     "unknown name 'beam'"),
    ('{"decode_hparams": "alpha=-1"}', "alpha=-1: it must be at least 0"),
])
def test_a_damaged_file_is_one_line_naming_it(tmp_path, text, problem):
  path = tmp_path / DECODING_FILE
  path.write_text(text, encoding="utf-8")
  with pytest.raises(UserError) as raised:
    read_chosen_decoding(str(tmp_path))
  message = str(raised.value)
  assert message.startswith(f"{path}: ") and problem in message and "\n" not in message
  assert message.endswith("delete the file to decode with the problem's defaults")


@pytest.mark.slow  # A tiny run trains 40 steps, then t2t-avg-all and t2t-decoder run.
def test_the_average_decodes_with_the_alpha_chosen_on_dev(tmp_path_factory, tmp_path):
  from tiny_runs import copy_run, learned_tiny_run
  data_dir, output_dir = learned_tiny_run(tmp_path_factory)
  run_dir = copy_run(output_dir, tmp_path / "run")
  averaged = tmp_path / "averaged"
  result = call("t2t-avg-all", f"--model_dir={run_dir}", f"--output_dir={averaged}", "--n=2",
                "--window=1")
  assert result.returncode == 0, result.stderr[-2000:]
  [line] = [line for line in result.stdout.splitlines() if "length penalty" in line]
  found = re.fullmatch(r"t2t-avg-all: on 20 dev sentences \(beam 4\) length penalty alpha "
                       r"0\.6 ([\d.]+), 1 ([\d.]+), 1\.4 ([\d.]+) \(bleu\): t2t-decoder and "
                       rf"t2t-exporter decode {averaged} with alpha ([\d.]+)[ ,].*", line)
  assert found, line
  record = json.loads((averaged / DECODING_FILE).read_text())
  scores = {float(alpha): score for alpha, score in record["why"]["scores"].items()}
  chosen = best_alpha(scores)
  assert record["decode_hparams"] == f"alpha={chosen:g}" and found.group(4) == f"{chosen:g}"
  assert json.loads((averaged / AVERAGE_MARKER).read_text())["alpha_choice"] == record["why"]

  source = tmp_path / "source.en"
  source.write_text("a dog runs .\ntwo men sit on a bench .\n", encoding="utf-8")
  outputs = {}
  for name, extra in (("chosen", []), ("flag", [f"--decode_hparams=alpha={chosen:g}"])):
    result = call("t2t-decoder", f"--output_dir={averaged}", f"--decode_from_file={source}",
                  *extra)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (f"t2t-decoder: decoding with alpha={chosen:g}, chosen on dev for this model "
            f"({averaged}/{DECODING_FILE}), under --decode_hparams") in result.stderr
    outputs[name] = result.stdout
  assert outputs["chosen"] == outputs["flag"]
  (averaged / DECODING_FILE).write_text("{}", encoding="utf-8")
  result = call("t2t-decoder", f"--output_dir={averaged}", f"--decode_from_file={source}")
  assert result.returncode == 2 and "Traceback" not in result.stderr
  assert f"{averaged}/{DECODING_FILE}:" in result.stderr
