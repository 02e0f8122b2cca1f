"""The import drawing of t2t_lite read from its source: every module of the installed
packages (the top-level problems/, hparams/ and bin/ folders under the names they install
as), the modules of ours each one imports anywhere (inside functions too), the packages,
and the circles."""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Folder -> the package it installs as (setup.py).
FOLDERS = {"t2t_lite": "t2t_lite", "problems": "t2t_lite.problems",
           "hparams": "t2t_lite.hparams_sets", "bin": "t2t_lite.bin"}


def module_files():
  """{module name: path} of every Python file of the installed packages."""
  modules = {}
  for folder, package in FOLDERS.items():
    for directory, _, names in os.walk(os.path.join(ROOT, folder)):
      for name in names:
        if not name.endswith(".py"):
          continue
        relative = os.path.relpath(os.path.join(directory, name), os.path.join(ROOT, folder))
        parts = relative[:-3].split(os.sep)
        if parts[-1] == "__init__":
          parts = parts[:-1]
        modules[".".join([package, *parts])] = os.path.join(directory, name)
  return modules


def imported_modules(path, module, modules):
  """The modules of ours an `import` anywhere in the file names: for `from a import b`,
  the module a.b where there is one, else a (relative imports resolved)."""
  package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      yield from (alias.name for alias in node.names if alias.name in modules)
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ""
      if node.level:
        parts = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
      for alias in node.names:
        name = f"{base}.{alias.name}"
        if name in modules or base in modules:
          yield name if name in modules else base


def module_graph():
  """{module: set of the modules of ours it imports}."""
  modules = module_files()
  return {module: set(imported_modules(path, module, modules)) - {module}
          for module, path in modules.items()}


def package_of(module):
  """The part of t2t_lite a module belongs to: t2t_lite.<first name> (a package or a
  module of its own)."""
  return ".".join(module.split(".")[:2])


def cycles(graph):
  """The strongly connected components with more than one node (Tarjan)."""
  index, low, stack, on_stack, found = {}, {}, [], set(), []

  def visit(node):
    index[node] = low[node] = len(index)
    stack.append(node)
    on_stack.add(node)
    for target in sorted(graph.get(node, ())):
      if target not in index:
        visit(target)
        low[node] = min(low[node], low[target])
      elif target in on_stack:
        low[node] = min(low[node], index[target])
    if low[node] == index[node]:
      component = []
      while True:
        member = stack.pop()
        on_stack.discard(member)
        component.append(member)
        if member == node:
          break
      if len(component) > 1:
        found.append(sorted(component))

  for node in sorted(graph):
    if node not in index:
      visit(node)
  return found


def package_graph(graph):
  packages = {}
  for module, targets in graph.items():
    source = package_of(module)
    packages.setdefault(source, set()).update(
        package_of(target) for target in targets if package_of(target) != source)
  return packages
