"""The import drawing of t2t_lite: no circle, between modules or between packages, and no
arrow up the layers (FORBIDDEN: decoding/ to training/ or run/, data/ to metrics/,
decoding/ or training/, run/ to training/; files/ and cli/, which every layer uses, to none
of data/, run/, training/, decoding/ or export/); and no module imports a test module.

Every `import` counts, the ones inside functions too. The top-level problems/,
hparams/ and bin/ folders count under the names they install as.
"""

import ast
import os

import pytest

from import_graph import FOLDERS, ROOT, cycles, module_graph, package_graph, package_of

FORBIDDEN = [("t2t_lite.decoding", "t2t_lite.training"), ("t2t_lite.data", "t2t_lite.metrics"),
             ("t2t_lite.decoding", "t2t_lite.run"), ("t2t_lite.run", "t2t_lite.training"),
             ("t2t_lite.data", "t2t_lite.decoding"), ("t2t_lite.data", "t2t_lite.training")] + [
                 (below, above) for below in ("t2t_lite.files", "t2t_lite.cli")
                 for above in ("t2t_lite.data", "t2t_lite.run", "t2t_lite.training",
                               "t2t_lite.decoding", "t2t_lite.export")]


def test_no_module_imports_itself_through_others():
  assert cycles(module_graph()) == []


def test_no_package_imports_itself_through_others():
  assert cycles(package_graph(module_graph())) == []


def test_no_arrow_up_the_layers():
  arrows = [(module, target) for module, targets in module_graph().items() for target in targets
            for source, forbidden in FORBIDDEN
            if package_of(module) == source and package_of(target) == forbidden]
  assert arrows == []


def imported_test_modules(path):
  """The test_* modules an `import` anywhere in the file names."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level:
      names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    else:
      continue
    yield from (name for name in names if name.split(".")[-1].startswith("test_"))


def test_no_module_imports_a_test_module():
  """What tests share lives in helper modules (helpers.py, commands.py, tiny_runs.py, ...),
  never in a test file: no test, helper, benchmark or docs script imports a test_* module."""
  imports = []
  for folder in ("tests", "bench", "docs", "tools", *FOLDERS):
    for directory, _, names in os.walk(os.path.join(ROOT, folder)):
      for name in sorted(names):
        path = os.path.join(directory, name)
        if name.endswith(".py"):
          imports += [(os.path.relpath(path, ROOT), module)
                      for module in imported_test_modules(path)]
  assert imports == []


def test_the_drawing_sees_the_imports_inside_functions():
  """bin/t2t_trainer.py imports the trainer inside main(): the drawing has that arrow."""
  assert "t2t_lite.training.trainer" in module_graph()["t2t_lite.bin.t2t_trainer"]


@pytest.mark.slow
def test_the_imports_a_run_executes_draw_no_circle_either():
  """The arrows executed imports draw (in functions and through entry points too), while
  every module is imported and the registries load."""
  import json
  from commands import run_script
  result = run_script("import_trace.py", cwd=os.path.dirname(__file__))
  assert result.returncode == 0, result.stderr[-2000:]
  graph = {}
  for importer, imported in json.loads(result.stdout):
    graph.setdefault(importer, set()).add(imported)
  assert "t2t_lite.problems.translate_wmt14" in graph["t2t_lite.registry"]  # It traced.
  assert cycles(graph) == []
