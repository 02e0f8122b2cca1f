"""Prints, as JSON, the arrows between t2t_lite's modules that executing imports draws: every
`import` statement run (at module level or in a function) and every importlib.import_module
call (entry points load through it), while this imports every module of t2t_lite, its
commands and its built-ins, and loads the registries.

    python tests/import_trace.py > arrows.json      # [[importer, imported], ...]
"""

import builtins
import importlib
from importlib import metadata
import json
import sys

from import_graph import module_files

OURS = "t2t_lite"
arrows = set()


def _ours(name):
  return name == OURS or name.startswith(OURS + ".")


def _record(importer, name):
  if _ours(importer) and _ours(name) and importer != name:
    arrows.add((importer, name))


def _resolve(name, package, level):
  if not level:
    return name
  base = package.rsplit(".", level - 1)[0]
  return f"{base}.{name}" if name else base


_original_import = builtins.__import__


def _tracing_import(name, globals=None, locals=None, fromlist=(), level=0):
  module = _original_import(name, globals, locals, fromlist, level)
  importer = (globals or {}).get("__name__", "")
  package = (globals or {}).get("__package__") or importer.rpartition(".")[0]
  target = _resolve(name, package, level)
  imported = [f"{target}.{item}" for item in fromlist or () if f"{target}.{item}" in sys.modules]
  for name_ in imported or [target]:
    _record(importer, name_)
  return module


_original_import_module = importlib.import_module


def _tracing_import_module(name, package=None):
  module = _original_import_module(name, package)
  frame = sys._getframe(1)
  while frame and not _ours(frame.f_globals.get("__name__", "")):
    frame = frame.f_back  # Out of importlib.metadata: the code of ours that asked.
  if frame:
    _record(frame.f_globals["__name__"], module.__name__)
  return module


def main():
  builtins.__import__ = _tracing_import
  importlib.import_module = metadata.import_module = _tracing_import_module  # Entry points'.
  for module in sorted(module_files()):
    importlib.import_module(module)
  from t2t_lite.registry import load_registries
  load_registries()
  builtins.__import__ = _original_import
  importlib.import_module = metadata.import_module = _original_import_module
  json.dump(sorted(arrows), sys.stdout)


if __name__ == "__main__":
  main()
