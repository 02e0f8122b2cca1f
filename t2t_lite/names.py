"""The names registered things go by when none is given."""

import re


def snake_case(name):
  """`TranslateEndeWmt32k` -> `translate_ende_wmt32k` (tensor2tensor's rule)."""
  name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
  return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def default_name(target):
  """A function's own name; a class's, snake-cased."""
  return target.__name__ if not isinstance(target, type) else snake_case(target.__name__)
