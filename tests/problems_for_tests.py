"""Registered problems, looked up as the library does (the registry loads the built-ins)."""

from t2t_lite.registry import PROBLEMS


def translate_from_files():
  return PROBLEMS["translate_from_files"]()
