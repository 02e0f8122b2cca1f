"""Every flag comes from a dataclass field, through the one module that defines absl flags."""

import ast
import dataclasses
import os

from absl import flags
import pytest

from t2t_lite.cli import command_line
from t2t_lite.cli.command_line import define_flags, flag_values, require, setting
from t2t_lite.errors import UserError
from import_graph import ROOT, module_files

GENERATING_MODULE = os.path.join(ROOT, "t2t_lite", "cli", "command_line.py")


def python_files():
  """The installed packages' files and bench/'s."""
  yield from module_files().values()
  for directory, _, names in os.walk(os.path.join(ROOT, "bench")):
    yield from (os.path.join(directory, name) for name in names if name.endswith(".py"))


def test_no_flag_is_defined_outside_the_generating_module():
  defining = []
  for path in python_files():
    with open(path, encoding="utf-8") as f:
      tree = ast.parse(f.read(), path)
    names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    if path != GENERATING_MODULE and any(name.startswith("DEFINE_") for name in names):
      defining.append(os.path.relpath(path, ROOT))
  assert defining == []


@dataclasses.dataclass(frozen=True)
class _First:
  cl_test_count: int = setting(3, "A count.")
  cl_test_mode: str = setting("fast", "A mode.", choices=("fast", "slow"))


@dataclasses.dataclass(frozen=True)
class _SameAgain:
  cl_test_count: int = setting(3, "A count.")


@dataclasses.dataclass(frozen=True)
class _Differently:
  cl_test_count: int = setting(4, "A count.")


def test_a_flag_two_commands_declare_alike_is_defined_once_and_differently_is_refused():
  define_flags(_First)
  define_flags(_SameAgain)
  assert flags.FLAGS["cl_test_count"].default == 3
  with pytest.raises(ValueError, match="--cl_test_count is declared twice differently"):
    define_flags(_Differently)


def test_flag_values_read_the_parsed_flags_and_require_names_the_missing_one():
  define_flags(_First)
  flags.FLAGS(["prog", "--cl_test_count=7", "--cl_test_mode=slow"])
  try:
    assert flag_values(_First) == _First(cl_test_count=7, cl_test_mode="slow")
  finally:
    flags.FLAGS.unparse_flags()
  with pytest.raises(UserError, match="^--cl_test_count is required: how many$"):
    require(_First(cl_test_count=0), cl_test_count="how many")


@dataclasses.dataclass(frozen=True)
class _WithList:
  cl_test_files: list = setting(None, "Comma-separated files.")


def test_a_list_flag_reads_as_a_list():
  define_flags(_WithList)
  flags.FLAGS(["prog", "--cl_test_files=a.txt,b.txt"])
  try:
    assert flag_values(_WithList).cl_test_files == ["a.txt", "b.txt"]
  finally:
    flags.FLAGS.unparse_flags()


def test_fields_without_help_text_are_no_flags():
  @dataclasses.dataclass(frozen=True)
  class WithPlainField:
    cl_test_plain: int = 1
  define_flags(WithPlainField)
  assert "cl_test_plain" not in flags.FLAGS
  assert command_line.flag_fields(WithPlainField) == []
