"""No library code lives for the tests alone: every public top-level function and class of
t2t_lite (problems/, hparams/ and bin/ too) is named somewhere outside the tests, in the
library, the commands, docs/, bench/, tools/ or setup.py. The built-ins a registry finds by
their mark (`t2t_lite.built_in`) are used through it."""

import ast
import collections
import os

from import_graph import ROOT, module_files

ELSEWHERE = ("docs", "bench", "tools")
MARKS = {"problem", "hparams_set", "model"}


def _python_files(folder):
  for directory, _, names in os.walk(os.path.join(ROOT, folder)):
    yield from (os.path.join(directory, name) for name in names if name.endswith(".py"))


def _parsed(path):
  with open(path, encoding="utf-8") as f:
    return ast.parse(f.read(), path)


def _names_used(tree):
  """How often each name is used in `tree`: as a name, an attribute, an imported name, or
  a word of a string (`module:function` entry points, `getattr` by name)."""
  used = collections.Counter()
  for node in ast.walk(tree):
    if isinstance(node, ast.Name):
      used[node.id] += 1
    elif isinstance(node, ast.Attribute):
      used[node.attr] += 1
    elif isinstance(node, ast.alias):
      used[node.name.rpartition(".")[2]] += 1
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
      used.update(node.value.replace(":", " ").replace(".", " ").split())
  return used


def _marked(node):
  return any(isinstance(decorator, ast.Name) and decorator.id in MARKS
             or isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") in MARKS
             for decorator in node.decorator_list)


def test_no_library_function_or_class_is_used_by_the_tests_alone():
  library = list(module_files().values())
  trees = {path: _parsed(path) for path in library}
  others = [path for folder in ELSEWHERE for path in _python_files(folder)]
  others.append(os.path.join(ROOT, "setup.py"))
  used = {path: _names_used(tree) for path, tree in trees.items()}
  used.update({path: _names_used(_parsed(path)) for path in others})
  unused = []
  for path, tree in trees.items():
    for node in tree.body:
      if (isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
          and not _marked(node) and not any(counts[node.name] for counts in used.values())):
        unused.append(f"{os.path.relpath(path, ROOT)}: {node.name}")
  assert unused == []
