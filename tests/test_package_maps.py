"""t2t_lite and each of its subpackages (hparams/ and bin/ too), and every package of bench/,
opens with a map: its `__init__` docstring gives each of its modules and subpackages a line
saying what it is for, and names none it lacks. problems/ is the exception: a new problem is
one new file, and the problems reference page (generated from the registry) is its map."""

import ast
import os
import re

import pytest

from import_graph import ROOT, module_files

# A line of a map: indented, a file name (or a folder's, ending in /), two spaces or more,
# what it is for.
MAP_LINE = re.compile(r"^ +(\w+\.py|\w+/) {2,}\S", re.MULTILINE)


def subpackages():
  """{package: the path of its __init__.py} of t2t_lite and every package in it, and of
  bench/ and its packages."""
  packages = {module: path for module, path in module_files().items()
              if os.path.basename(path) == "__init__.py" and module != "t2t_lite.problems"}
  for directory, _, names in os.walk(os.path.join(ROOT, "bench")):
    if "__init__.py" in names:
      module = os.path.relpath(directory, ROOT).replace(os.sep, ".")
      packages[module] = os.path.join(directory, "__init__.py")
  return packages


@pytest.mark.parametrize("package", sorted(subpackages()))
def test_the_init_docstring_maps_every_module(package):
  path = subpackages()[package]
  with open(path, encoding="utf-8") as f:
    docstring = ast.get_docstring(ast.parse(f.read(), path), clean=False) or ""
  folder = os.path.dirname(path)
  entries = {name for name in os.listdir(folder)
             if name.endswith(".py") and name != "__init__.py"}
  entries |= {f"{name}/" for name in os.listdir(folder)
              if os.path.isfile(os.path.join(folder, name, "__init__.py"))}
  assert sorted(MAP_LINE.findall(docstring)) == sorted(entries)
