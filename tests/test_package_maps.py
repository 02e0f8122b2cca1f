"""Every subpackage of t2t_lite (problems/, hparams/ and bin/ too) opens with a map: its
`__init__` docstring gives each of its modules a line saying what the file is for, and
names no module it lacks."""

import ast
import os
import re

import pytest

from import_graph import module_files

# A line of a map: indented, a file name, two spaces or more, what the file is for.
MAP_LINE = re.compile(r"^ +(\w+\.py) {2,}\S", re.MULTILINE)


def subpackages():
  """{package: the path of its __init__.py} of every package of t2t_lite but itself."""
  return {module: path for module, path in module_files().items()
          if os.path.basename(path) == "__init__.py" and module != "t2t_lite"}


@pytest.mark.parametrize("package", sorted(subpackages()))
def test_the_init_docstring_maps_every_module(package):
  path = subpackages()[package]
  with open(path, encoding="utf-8") as f:
    docstring = ast.get_docstring(ast.parse(f.read(), path), clean=False) or ""
  folder = os.path.dirname(path)
  modules = {name for name in os.listdir(folder)
             if name.endswith(".py") and name != "__init__.py"}
  assert sorted(MAP_LINE.findall(docstring)) == sorted(modules)
