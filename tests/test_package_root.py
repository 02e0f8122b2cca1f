"""The package root keeps only what several layers share, and stays one layer: few modules,
none of them used by a single subpackage alone (that one's home is the subpackage), none
importing a subpackage but files/ and cli/, which every layer may use."""

import functools
import os

from import_graph import ROOT, module_files, module_graph

# Each module of the root is a thing every reader of the package has to know of.
ROOT_MODULES_AT_MOST = 10
BELOW_THE_ROOT = ("t2t_lite.files", "t2t_lite.cli")


@functools.lru_cache(maxsize=None)
def root_modules():
  """The modules of t2t_lite's root folder, `__init__` aside."""
  folder = os.path.join(ROOT, "t2t_lite")
  return tuple(sorted(module for module, path in module_files().items()
                      if os.path.dirname(path) == folder and not path.endswith("__init__.py")))


def layer(module):
  """The subpackage a module of t2t_lite (bin/, problems/ and hparams/ included, a package's
  `__init__` too) belongs to, or "root"."""
  parts = module.split(".")
  return "root" if len(parts) == 1 or module in root_modules() else parts[1]


def test_the_root_holds_few_modules():
  assert len(root_modules()) <= ROOT_MODULES_AT_MOST, root_modules()


def test_no_root_module_serves_one_subpackage_alone():
  graph = module_graph()
  alone = {}
  for module in root_modules():
    layers = {layer(user) for user, imported in graph.items()
              if module in imported and user != module}
    if len(layers) == 1 and layers != {"root"}:
      alone[module] = layers.pop()
  assert alone == {}


def test_the_root_imports_no_subpackage_but_files_and_cli():
  graph = module_graph()
  upward = {module: sorted(target for target in graph[module]
                           if layer(target) != "root" and not target.startswith(BELOW_THE_ROOT))
            for module in root_modules()}
  assert {module: targets for module, targets in upward.items() if targets} == {}
