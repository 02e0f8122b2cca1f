"""docs/architecture.md's "Adding a problem" and "Adding an hparams set", followed literally:
a problem is one new file, found where it lies (a --t2t_usr_dir folder, or the built-in
package) and trained, decoded and scored through the commands; a set is one function."""

import json
import os

from commands import call
from t2t_lite.registry import Registry, import_usr_dir
from tiny_runs import TINY_HPARAMS

# The checklist's one file: a problem's text, vocabulary, decoding presets and registration.
PROBLEM_FILE = '''"""Numbers in English -> German: the checklist's example problem."""

from t2t_lite.data.problem import DecodeDefaults, TextPairProblem
from t2t_lite.registry import PROBLEMS

SPLIT_SIZES = {"train": 200, "dev": 20, "test": 20}


@PROBLEMS.register(aliases=("checklist_numbers",))
class TranslateChecklistNumbers(TextPairProblem):
  """English -> German sentences about numbers."""

  vocab_size = 300
  shared_vocab = True
  decode_defaults = DecodeDefaults(beam_size=2, alpha=0.6, extra_length=10)

  def text_pairs(self, split, sources):
    for number in range(SPLIT_SIZES[split]):
      yield f"the number {number} is here", f"die Nummer {number} ist hier"
'''

HPARAMS_FILE = '''from dataclasses import replace

from t2t_lite.hparams_sets.transformer import transformer_test_small
from t2t_lite.registry import HPARAMS


@HPARAMS.register
def checklist_one_layer():
  return replace(transformer_test_small(), num_hidden_layers=1)
'''


BUILT_IN_FILE = PROBLEM_FILE.replace("from t2t_lite.registry import PROBLEMS",
                                     "from t2t_lite.built_in import problem").replace(
                                         "@PROBLEMS.register(", "@problem(")


def test_a_usr_dir_problem_is_one_file_through_every_command(tmp_path):
  folder = tmp_path / "checklist_problems"  # No __init__.py: a folder of modules.
  folder.mkdir()
  (folder / "numbers.py").write_text(PROBLEM_FILE)
  (folder / "built_in_copy.py").write_text(  # A built-in's file, marked, works there as is.
      BUILT_IN_FILE.replace("ChecklistNumbers", "ChecklistCopy").replace(
          '"checklist_numbers"', '"checklist_copy"'))
  (folder / "sets.py").write_text(HPARAMS_FILE)
  usr_dir, problem = f"--t2t_usr_dir={folder}", "--problem=checklist_numbers"
  data, run = tmp_path / "data", tmp_path / "run"
  steps = [
      ("t2t-datagen", usr_dir, problem, f"--data_dir={data}", f"--tmp_dir={tmp_path}"),
      ("t2t-trainer", usr_dir, problem, f"--data_dir={data}", f"--output_dir={run}",
       "--hparams_set=checklist_one_layer", f"--hparams={TINY_HPARAMS}", "--train_steps=3",
       "--eval_decode_sentences=0", "--random_seed=1"),
  ]
  for step in steps:
    result = call(*step)
    assert result.returncode == 0, (step[0], result.stderr)
  listed = call("t2t-trainer", usr_dir, "--registry_help").stdout
  assert "translate_checklist_copy (aliases: checklist_copy)" in listed
  source, reference, output = (tmp_path / name for name in ("test.en", "test.de", "test.out"))
  source.write_text("the number 3 is here\nthe number 14 is here\n")
  reference.write_text("die Nummer 3 ist hier\ndie Nummer 14 ist hier\n")
  decoded = call("t2t-decoder", usr_dir, f"--output_dir={run}", f"--decode_from_file={source}",
                 f"--decode_to_file={output}")
  assert decoded.returncode == 0, decoded.stderr
  assert len(output.read_text().splitlines()) == 2
  scored = call("t2t-bleu", f"--translation={output}", f"--reference={reference}")
  assert scored.returncode == 0 and "BLEU" in scored.stdout, scored.stderr
  with open(os.path.join(run, "run.json"), encoding="utf-8") as f:
    description = json.load(f)
  assert (description["problem"], description["input_vocab_size"]) == (
      "translate_checklist_numbers", 300)
  with open(os.path.join(run, "hparams.json"), encoding="utf-8") as f:
    assert json.load(f)["num_hidden_layers"] == 1


def test_a_new_module_in_the_built_in_package_is_found_without_another_edit(tmp_path,
                                                                            monkeypatch):
  package = tmp_path / "checklist_builtins"  # Stands in for problems/: its map, one module.
  package.mkdir()
  (package / "__init__.py").write_text('"""Built-in problems."""\n')
  (package / "numbers.py").write_text(BUILT_IN_FILE)
  monkeypatch.syspath_prepend(str(tmp_path))
  problems = Registry("problem", package="checklist_builtins")
  assert problems.help_lines() == ["translate_checklist_numbers (aliases: checklist_numbers)"]
  assert problems["checklist_numbers"]().decode_defaults.beam_size == 2


def test_a_usr_dir_folder_of_modules_imports_each(tmp_path):
  folder = tmp_path / "checklist_sets_only"
  folder.mkdir()
  (folder / "sets.py").write_text(HPARAMS_FILE.replace("checklist_one_layer",
                                                       "checklist_sets_only_layer"))
  import_usr_dir(str(folder))
  from t2t_lite.registry import HPARAMS
  assert HPARAMS["checklist_sets_only_layer"]().num_hidden_layers == 1
