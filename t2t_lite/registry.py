"""Named problems, hparams sets and models: the built-in ones, those of installed packages,
and a --t2t_usr_dir's.

A registry finds the built-ins on its first lookup: it imports every module of its built-in
package (`t2t_lite.problems` is the top-level problems/ folder, `t2t_lite.hparams_sets`
hparams/; the models' is one module, `t2t_lite.models.transformer`) and registers what each
marks (`t2t_lite.built_in`), so that a new built-in is one new file. Then it loads the
entry points of its group, by which another installed package adds its own:

    entry_points={"t2t_lite.hparams_sets": ["my_set = my_package.sets:my_set"]}

An entry point naming an object that another entry point of the group names by the
object's own name is an alias. A --t2t_usr_dir (`import_usr_dir`: a package whose `__init__`
imports its modules, or a folder of modules, each imported) registers by decorator, as in
tensor2tensor:

    @HPARAMS.register
    def my_set(): ...

    @PROBLEMS.register(aliases=("mine",))
    class MyTranslation(TextPairProblem): ...   # registered as my_translation
"""

import difflib
import importlib
from importlib import metadata
import os
import pkgutil
import sys

from t2t_lite.built_in import marked_in
from t2t_lite.errors import MissingFlag, UserError
from t2t_lite.names import default_name


class Registry:
  """A mapping from names (and aliases) to registered objects of one kind."""

  def __init__(self, kind, group=None, package=None):
    self.kind = kind  # "problem", "hparams set", "model": used in messages.
    self.group = group  # The entry-point group of the installed entries.
    self.package = package  # The built-ins: what the modules of this package (or it) mark.
    self._entries = {}
    self._aliases = {}
    self._loaded = group is None and package is None

  def load_builtins(self):
    """Registers the built-ins and the installed entries, once (a lookup or a registration
    does it first)."""
    if self._loaded:
      return
    self._loaded = True  # An installed module may register more by decorator as it loads.
    try:
      for name in _modules_of(self.package):
        for target, aliases in marked_in(importlib.import_module(name), self.kind):
          self._add(target, default_name(target), aliases)
      for key, (target, aliases) in _installed(self.group).items():
        if self._entries.get(key) is not target:  # Else a built-in's (an older install's).
          self._add(target, key, aliases)
    except BaseException:
      self._loaded = False
      raise

  def register(self, obj=None, *, name=None, aliases=()):
    """Decorator; usable bare (`@R.register`) or with arguments (`@R.register(name=...)`)."""
    def add(target):
      self.load_builtins()  # A name of the user's that collides is then the one refused.
      self._add(target, name or default_name(target), aliases)
      return target
    return add(obj) if obj is not None else add

  def _add(self, target, key, aliases):
    for label in (key, *aliases):
      if label in self._entries or label in self._aliases:
        raise UserError(f"{self.kind} '{label}' is already registered; "
                        f"choose another name for {target.__qualname__}")
    self._entries[key] = target
    self._aliases.update(dict.fromkeys(aliases, key))

  def canonical_name(self, name):
    """The registered name that `name` (a name or an alias) refers to."""
    self.load_builtins()
    if name in self._entries:
      return name
    if name in self._aliases:
      return self._aliases[name]
    known = sorted(self._entries) + sorted(self._aliases)
    if not known:
      raise UserError(f"unknown {self.kind} '{name}': none is registered")
    close = difflib.get_close_matches(name, known, n=5, cutoff=0.4)
    hint = ("closest: " + ", ".join(close)) if close else ("known: " + ", ".join(known))
    raise UserError(f"unknown {self.kind} '{name}'; {hint} "
                    f"(t2t-trainer --registry_help lists all)")

  def __getitem__(self, name):
    return self._entries[self.canonical_name(name)]

  def __contains__(self, name):
    self.load_builtins()
    return name in self._entries or name in self._aliases

  def names(self):
    self.load_builtins()
    return sorted(self._entries)

  def aliases_of(self, name):
    self.load_builtins()
    return sorted(a for a, target in self._aliases.items() if target == name)

  def help_lines(self):
    """One line per entry: `name (aliases: ...)`."""
    lines = []
    for name in self.names():
      aliases = self.aliases_of(name)
      lines.append(name + (f" (aliases: {', '.join(aliases)})" if aliases else ""))
    return lines


def _modules_of(package):
  """The names of the modules of `package` (none for None, itself for a module), sorted;
  `_private` ones left out."""
  if package is None:
    return []
  folders = getattr(importlib.import_module(package), "__path__", None)
  if folders is None:
    return [package]
  return sorted(f"{package}.{info.name}" for info in pkgutil.iter_modules(folders)
                if not info.name.startswith("_"))


def _installed(group):
  """{name: (object, [aliases])} of the entry points of `group`: the entry points naming
  one object are one entry, under the object's own name if one of them is it (else the
  first in order), the others its aliases."""
  if group is None:
    return {}
  names_of = {}  # id(object) -> (object, its entry point names)
  for point in sorted(set(metadata.entry_points(group=group)), key=lambda p: p.name):
    try:
      target = point.load()
    except Exception as error:  # An installed package's code: name it in one line.
      raise UserError(f"the installed {group} entry point {point.name} = {point.value} "
                      f"failed to load: {type(error).__name__}: {error}") from error
    names = names_of.setdefault(id(target), (target, []))[1]
    names.extend([point.name] if point.name not in names else [])
  installed = {}
  for target, names in names_of.values():
    key = default_name(target) if default_name(target) in names else names[0]
    installed[key] = (target, [name for name in names if name != key])
  return installed


PROBLEMS = Registry("problem", group="t2t_lite.problems", package="t2t_lite.problems")
HPARAMS = Registry("hparams set", group="t2t_lite.hparams_sets",
                   package="t2t_lite.hparams_sets")
MODELS = Registry("model", group="t2t_lite.models", package="t2t_lite.models.transformer")
REGISTRIES = (PROBLEMS, HPARAMS, MODELS)
_imported_usr_dirs = []  # What import_usr_dir imported, for a child process to import too.


def load_registries(usr_dir=None):
  """Registers the built-in problems, hparams sets and models, then those of `usr_dir`."""
  for registry in REGISTRIES:
    registry.load_builtins()
  if usr_dir:
    import_usr_dir(usr_dir)


def hparams_for(hparams_set, overrides=""):
  """The HParams of a registered set with `overrides` ("name=value,...") applied."""
  if not hparams_set:
    raise MissingFlag("hparams_set", "e.g. --hparams_set=transformer_base (--registry_help "
                      "lists all)")
  return HPARAMS[hparams_set]().override(overrides)


def registry_help():
  """Everything registered, as printed by `t2t-trainer --registry_help`."""
  lines = []
  for title, registry in (("Problems", PROBLEMS), ("HParams sets", HPARAMS), ("Models", MODELS)):
    lines.append(f"{title}:")
    lines.extend("  " + line for line in registry.help_lines())
  return "\n".join(lines)


def check_usr_dir(usr_dir):
  """UserError unless `usr_dir` is a directory whose name imports as a Python module ->
  (its parent directory, its module name)."""
  path = os.path.abspath(os.path.expanduser(usr_dir)).rstrip(os.sep)
  if not os.path.isdir(path):
    raise UserError(f"--t2t_usr_dir {usr_dir}: no such directory")
  parent, module_name = os.path.split(path)
  if not module_name.isidentifier():
    raise UserError(f"--t2t_usr_dir {usr_dir}: the directory name '{module_name}' "
                    f"must be a valid Python module name")
  return parent, module_name


def imported_usr_dirs():
  """The --t2t_usr_dir folders this process imported (absolute paths), in order."""
  return list(_imported_usr_dirs)


def import_usr_dir(usr_dir):
  """Imports a user's directory so its registrations take effect.

  As tensor2tensor's `--t2t_usr_dir`, a package whose `__init__.py` imports the modules
  that register problems, hparams sets or models; or, without an `__init__.py`, a folder
  of such modules, each imported (a new problem is then one file). What its modules mark
  as built-ins do (`t2t_lite.built_in`) registers too: a built-in's file works there as it is.
  """
  parent, module_name = check_usr_dir(usr_dir)
  if module_name in sys.modules:
    return
  sys.path.insert(0, parent)
  try:
    importlib.import_module(module_name)
    if not os.path.isfile(os.path.join(parent, module_name, "__init__.py")):
      for module in _modules_of(module_name):
        importlib.import_module(module)
    _register_marked(module_name)
    _imported_usr_dirs.append(os.path.join(parent, module_name))
  except UserError:
    raise
  except Exception as e:  # The user's code: name the failure in one line.
    raise UserError(f"--t2t_usr_dir {usr_dir}: importing it failed: "
                    f"{type(e).__name__}: {e}") from e
  finally:
    sys.path.remove(parent)


def _register_marked(package):
  """Registers what the imported modules of `package` (it included) mark."""
  modules = [module for name, module in sorted(sys.modules.items())
             if name == package or name.startswith(package + ".")]
  for registry in REGISTRIES:
    for module in modules:
      for target, aliases in marked_in(module, registry.kind):
        registry.register(target, aliases=aliases)
