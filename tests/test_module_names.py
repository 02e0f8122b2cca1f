"""Every module of t2t_lite has a name of its own: no two modules (`__init__.py` aside)
share a file name, and none is named as a subpackage is, so that a name in a traceback, an
import or a map says which file it is."""

import collections
import os

from import_graph import ROOT

PACKAGE = os.path.join(ROOT, "t2t_lite")


def names_and_paths():
  """(name, path) of every module of t2t_lite (its file name less .py) and every subpackage
  (its folder's name)."""
  for directory, folders, files in os.walk(PACKAGE):
    folders[:] = [name for name in folders if name != "__pycache__"]
    for name in files:
      if name.endswith(".py") and name != "__init__.py":
        yield name[:-3], os.path.relpath(os.path.join(directory, name), ROOT)
    if directory != PACKAGE:
      yield os.path.basename(directory), os.path.relpath(directory, ROOT) + "/"


def test_no_two_modules_or_subpackages_share_a_name():
  paths = collections.defaultdict(list)
  for name, path in names_and_paths():
    paths[name].append(path)
  assert {name: found for name, found in paths.items() if len(found) > 1} == {}
