"""A flag's range is declared on its field (`setting(..., minimum=1)`): every command
refuses a value outside it in one line of one format, its help states it, and no range
check of a flag is written by hand."""

import ast
import dataclasses
import importlib.util
import os
import re

import pytest

from commands import call, error_line, one_line_error
from import_graph import ROOT, module_files
from t2t_lite.cli.command_line import flag_fields, flag_help, setting
from t2t_lite.cli.flag_bounds import bounded, check_bounds, range_text


def _reference_pages():
  """docs/reference_pages.py, which lists the commands and the flag dataclasses each uses."""
  spec = importlib.util.spec_from_file_location(
      "reference_pages_under_test", os.path.join(ROOT, "docs", "reference_pages.py"))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


# What a command needs on its command line before it reads a later flag dataclass's flags
# (t2t-trainer reads TrainConfig's once it knows what to train); nothing is written.
PRELUDE = {"t2t-trainer": ("--hparams_set=transformer_tiny", "--problem=translate_ende_wmt32k",
                           "--data_dir=/nonexistent/data", "--output_dir=/nonexistent/run")}


def outside(field):
  """Values just outside each bound `field` declares."""
  metadata = field.metadata
  return ([metadata["minimum"] - 1] if "minimum" in metadata else []) + (
      [metadata["above"]] if "above" in metadata else []) + (
      [metadata["maximum"] + 1] if "maximum" in metadata else []) + (
      [metadata["below"]] if "below" in metadata else [])


def bounded_flags():
  """[(command, field, a value outside its range)] of every command's bounded flags."""
  pages, cases = _reference_pages(), []
  for tool, module in pages.commands():
    seen = set()
    for config_class in pages.flag_classes(module):
      for field in flag_fields(config_class):
        if field.name not in seen:
          seen.add(field.name)
          cases += [(tool, field, value) for value in outside(field)]
  return cases


BOUNDED = bounded_flags()


def test_the_commands_declare_bounds():
  assert {tool for tool, _, _ in BOUNDED} >= {"t2t-avg-all", "t2t-datagen", "t2t-serve",
                                              "t2t-trainer", "t2t-decoder"}


@pytest.mark.parametrize("tool, field, value", BOUNDED,
                         ids=[f"{tool} --{field.name}={value}" for tool, field, value in BOUNDED])
def test_every_declared_bound_is_enforced_by_its_command_in_one_line(tool, field, value):
  result = call(tool, *PRELUDE.get(tool, ()), f"--{field.name}={value}")
  hint = field.metadata.get("bound_hint")
  assert result.returncode == 2, result.stderr[-2000:]
  assert error_line(result.stderr) == (
      f"{tool}: error: --{field.name}={value}: it must be {range_text(field)}"
      + (f" ({hint})" if hint else ""))


@dataclasses.dataclass(frozen=True)
class _Bounded:
  fb_test_count: int = setting(None, "A count.", minimum=1, bound_hint="0 means nothing")
  fb_test_share: float = setting(0.5, "A share.", above=0, maximum=1)


@pytest.mark.parametrize("values, message", [
    (dict(fb_test_count=0), "--fb_test_count=0: it must be at least 1 (0 means nothing)"),
    (dict(fb_test_share=0.0), "--fb_test_share=0: it must be more than 0 and at most 1"),
    (dict(fb_test_share=1.5), "--fb_test_share=1.5: it must be more than 0 and at most 1"),
    (dict(fb_test_share=float("nan")),
     "--fb_test_share=nan: it must be more than 0 and at most 1"),
])
def test_a_value_outside_its_range_is_one_line_of_one_format(values, message):
  assert one_line_error(lambda: check_bounds(_Bounded(**values))) == message


def test_an_unset_value_and_the_bounds_themselves_pass_and_the_help_states_the_range():
  for values in ({}, dict(fb_test_count=1, fb_test_share=1.0)):
    check_bounds(_Bounded(**values))
  share = dataclasses.fields(_Bounded)[1]
  assert flag_help(share) == "A share. Must be more than 0 and at most 1."


def test_setting_refuses_a_misspelt_bound():
  with pytest.raises(TypeError, match="setting\\(\\) takes no minumum"):
    setting(1, "A count.", minumum=1)
  with pytest.raises(TypeError, match="bounded\\(\\) takes no belw"):
    bounded(0.1, belw=1)


@dataclasses.dataclass(frozen=True)
class _Probabilities:
  """Fields of a setting given inside another flag's text, as --hparams' are."""
  dropout: float = bounded(0.1, minimum=0, below=1)
  steps: int = bounded(8, minimum=1, bound_hint="the shortest")


@pytest.mark.parametrize("values, message", [
    (dict(dropout=1.0), "hparams dropout=1: it must be at least 0 and below 1"),
    (dict(dropout=-0.5), "hparams dropout=-0.5: it must be at least 0 and below 1"),
    (dict(steps=0), "hparams steps=0: it must be at least 1 (the shortest)"),
])
def test_a_bounded_field_is_named_as_its_flags_lines_name_it(values, message):
  assert one_line_error(
      lambda: check_bounds(_Probabilities(**values), name_format="hparams {}")) == message
  check_bounds(_Probabilities(dropout=0.0, steps=1), name_format="hparams {}")


# A range stated in a message: what a flag's declared range says instead.
RANGE_WORDS = re.compile(r"must (not )?be (at least|at most|>=|<=|>|<|positive|negative|more "
                         r"than|less than|above|below|between|in \[)")
# A flag, or a field of --hparams named as its lines name it.
FLAG = re.compile(r"--(\w|\{)|hparams (\w|\{)")


def _texts(tree):
  """Each string literal of `tree` but its docstrings, an f-string's fields written {}."""
  docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                and node.body and isinstance(node.body[0], ast.Expr)}
  for node in ast.walk(tree):
    if id(node) in docstrings:
      continue
    if isinstance(node, ast.JoinedStr):
      yield "".join(part.value if isinstance(part, ast.Constant) else "{}"
                    for part in node.values)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
      yield node.value


def test_no_range_check_of_a_flag_is_written_by_hand():
  found = []
  for path in module_files().values():
    with open(path, encoding="utf-8") as f:
      tree = ast.parse(f.read(), path)
    found += [f"{os.path.relpath(path, ROOT)}: {text}" for text in _texts(tree)
              if FLAG.search(text) and RANGE_WORDS.search(text)]
  assert found == []
