"""The run directory's path stays with the run: of the modules a t2t-trainer run imports,
only the flag's, the trainer's and run/'s own name it. Every other module asks the Run
(`run.best_dir`, `run.summary_dir`, `run.curves_path`, `run.latest_checkpoint`, ...)."""

import ast

from import_graph import module_files, module_graph

# The names the run directory goes by in code: t2t-trainer's --output_dir, t2t-avg-all's
# --model_dir.
DIRECTORY_NAMES = {"output_dir", "model_dir"}
# Those that may hold it: the flag, the trainer that hands it to Run.training, the Run, the
# layout of the directory, the files that describe the run (its decoding chosen on dev
# among them) and its checkpoints.
OWNERS = {"t2t_lite.training.config", "t2t_lite.training.trainer",
          "t2t_lite.run.run_directory", "t2t_lite.run.run_layout",
          "t2t_lite.run.description", "t2t_lite.run.chosen_decoding",
          "t2t_lite.run.checkpoints"}


def imported_from(module, graph):
  """`module` and every module of ours it imports, directly or through others."""
  seen, todo = set(), [module]
  while todo:
    name = todo.pop()
    if name not in seen:
      seen.add(name)
      todo += graph.get(name, ())
  return seen


def names_the_directory(path):
  """Whether the code of `path` names the run directory: a variable, argument, keyword or
  attribute called one of DIRECTORY_NAMES (text in strings and comments aside)."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  return any(
      (isinstance(node, ast.Name) and node.id in DIRECTORY_NAMES)
      or (isinstance(node, (ast.arg, ast.keyword)) and node.arg in DIRECTORY_NAMES)
      or (isinstance(node, ast.Attribute) and node.attr in DIRECTORY_NAMES)
      for node in ast.walk(tree))


def test_only_the_runs_own_modules_name_its_directory_in_a_trainer_run():
  files = module_files()
  trainer_run = imported_from("t2t_lite.bin.t2t_trainer", module_graph())
  naming = {module for module in trainer_run if names_the_directory(files[module])}
  assert naming == OWNERS


def test_a_module_that_names_it_is_seen(tmp_path):
  path = tmp_path / "module.py"
  for code, names in (("def f(output_dir): pass", True), ("f(model_dir=1)", True),
                      ("run.output_dir", True), ("x = 'output_dir'  # output_dir", False)):
    path.write_text(code)
    assert names_the_directory(str(path)) == names, code
