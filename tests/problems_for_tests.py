"""Registered problems, loaded the way the command-line tools load them."""

import t2t_lite.problems  # noqa: F401  (registers the built-in problems)
from t2t_lite.registry import PROBLEMS


def translate_from_files():
  return PROBLEMS["translate_from_files"]()
