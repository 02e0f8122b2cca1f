"""Marks on the built-in problems, hparams sets and models. Their registries find them in the
modules of problems/ and hparams/ and in t2t_lite/models/transformer.py on their first lookup
(`t2t_lite.registry` imports every module there), so a new built-in is one new file:

    @problem(aliases=("translate_ende",))
    class TranslateEndeWmt32k(Wmt14Translation): ...

    @hparams_set
    def transformer_base(): ...

A mark, not a registration: the modules a registry imports never import the registry back.
A user's --t2t_usr_dir may mark its own too, or register with `@PROBLEMS.register` (as in
tensor2tensor).
"""

MARK = "_t2t_lite_built_in"  # On the marked object itself: (kind, aliases).


def _marker(kind):
  """A decorator marking an object for the registry of `kind`, usable bare or with aliases."""
  def mark(target=None, *, aliases=()):
    def set_mark(obj):
      setattr(obj, MARK, (kind, tuple(aliases)))
      return obj
    return set_mark(target) if target is not None else set_mark
  return mark


problem = _marker("problem")
hparams_set = _marker("hparams set")
model = _marker("model")


def marked_in(module, kind):
  """[(object, its aliases)] that `module` defines and marks for the registry of `kind`, in
  the module's order (a subclass does not inherit its base's mark)."""
  return [(obj, vars(obj)[MARK][1]) for obj in vars(module).values()
          if getattr(obj, "__module__", None) == module.__name__
          and MARK in getattr(obj, "__dict__", {}) and vars(obj)[MARK][0] == kind]
