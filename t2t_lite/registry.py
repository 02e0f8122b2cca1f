"""Named problems, hparams sets and models, registered by decorator.

    @HPARAMS.register
    def transformer_base(): ...

    @PROBLEMS.register(aliases=("translate_ende",))
    class TranslateEndeWmt32k(Problem): ...   # registered as translate_ende_wmt32k

Each registry imports its built-in entries (the `problems/` and `hparams/`
folders, installed as `t2t_lite.problems` and `t2t_lite.hparams_sets`, and
`t2t_lite.models`) on first use, so a lookup works from plain Python with no
setup; a user's own directory is added with `import_usr_dir` (--t2t_usr_dir).
"""

import difflib
import importlib
import os
import re
import sys

from t2t_lite.errors import UserError


def snake_case(name):
  """`TranslateEndeWmt32k` -> `translate_ende_wmt32k` (tensor2tensor's rule)."""
  name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
  return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


class Registry:
  """A mapping from names (and aliases) to registered objects of one kind."""

  def __init__(self, kind, builtins=None):
    self.kind = kind  # "problem", "hparams set", "model": used in messages.
    self.builtins = builtins  # The module whose import registers the built-in entries.
    self._entries = {}
    self._aliases = {}
    self._loaded = builtins is None

  def load_builtins(self):
    """Imports the built-in entries once (a registration or lookup does it first)."""
    if self._loaded:
      return
    self._loaded = True  # Their own registrations come back here while they import.
    try:
      importlib.import_module(self.builtins)
    except BaseException:
      self._loaded = False
      raise

  def register(self, obj=None, *, name=None, aliases=()):
    """Decorator; usable bare (`@R.register`) or with arguments (`@R.register(name=...)`)."""
    def add(target):
      self.load_builtins()  # A name of the user's that collides is then the one refused.
      key = name or _default_name(target)
      for label in (key,) + tuple(aliases):
        if label in self._entries or label in self._aliases:
          raise UserError(f"{self.kind} '{label}' is already registered; "
                          f"choose another name for {target.__qualname__}")
      self._entries[key] = target
      for alias in aliases:
        self._aliases[alias] = key
      return target
    return add(obj) if obj is not None else add

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


def _default_name(target):
  return target.__name__ if not isinstance(target, type) else snake_case(target.__name__)


PROBLEMS = Registry("problem", builtins="t2t_lite.problems")
HPARAMS = Registry("hparams set", builtins="t2t_lite.hparams_sets")
MODELS = Registry("model", builtins="t2t_lite.models")
REGISTRIES = (PROBLEMS, HPARAMS, MODELS)


def load_registries(usr_dir=None):
  """Registers the built-in problems, hparams sets and models, then those of `usr_dir`."""
  for registry in REGISTRIES:
    registry.load_builtins()
  if usr_dir:
    import_usr_dir(usr_dir)


def hparams_for(hparams_set, overrides=""):
  """The HParams of a registered set with `overrides` ("name=value,...") applied."""
  if not hparams_set:
    raise UserError("--hparams_set is required, e.g. --hparams_set=transformer_base "
                    "(--registry_help lists all)")
  return HPARAMS[hparams_set]().override(overrides)


def registry_help():
  """Everything registered, as printed by `t2t-trainer --registry_help`."""
  lines = []
  for title, registry in (("Problems", PROBLEMS), ("HParams sets", HPARAMS), ("Models", MODELS)):
    lines.append(f"{title}:")
    lines.extend("  " + line for line in registry.help_lines())
  return "\n".join(lines)


def import_usr_dir(usr_dir):
  """Imports a user's directory (a Python package) so its registrations take effect.

  Like tensor2tensor's `--t2t_usr_dir`: the directory's `__init__.py` imports
  the modules that register problems, hparams sets or models.
  """
  path = os.path.abspath(os.path.expanduser(usr_dir)).rstrip(os.sep)
  if not os.path.isdir(path):
    raise UserError(f"--t2t_usr_dir {usr_dir}: no such directory")
  if not os.path.isfile(os.path.join(path, "__init__.py")):
    raise UserError(f"--t2t_usr_dir {usr_dir}: not a Python package; add an __init__.py "
                    f"that imports the modules registering your problems and hparams sets")
  parent, module_name = os.path.split(path)
  if not module_name.isidentifier():
    raise UserError(f"--t2t_usr_dir {usr_dir}: the directory name '{module_name}' "
                    f"must be a valid Python module name")
  if module_name in sys.modules:
    return
  sys.path.insert(0, parent)
  try:
    importlib.import_module(module_name)
  except UserError:
    raise
  except Exception as e:  # The user's code: name the failure in one line.
    raise UserError(f"--t2t_usr_dir {usr_dir}: importing it failed: "
                    f"{type(e).__name__}: {e}") from e
  finally:
    sys.path.remove(parent)
