"""Registry: decorator registration, aliases, duplicates, one-line unknown-name errors."""

import pytest

from t2t_lite.errors import UserError
from t2t_lite.names import snake_case
from t2t_lite.registry import Registry, import_usr_dir


def test_snake_case_follows_tensor2tensor():
  assert snake_case("TranslateEndeWmt32k") == "translate_ende_wmt32k"
  assert snake_case("ParsingEnglishPtb16k") == "parsing_english_ptb16k"


def test_register_bare_and_with_aliases():
  registry = Registry("problem")

  @registry.register
  def first():
    return 1

  @registry.register(aliases=("short",))
  class SecondProblem:
    pass

  assert registry["first"] is first
  assert registry["second_problem"] is SecondProblem
  assert registry["short"] is SecondProblem
  assert registry.canonical_name("short") == "second_problem"
  assert registry.names() == ["first", "second_problem"]
  assert registry.help_lines() == ["first", "second_problem (aliases: short)"]


def test_duplicate_name_is_an_error():
  registry = Registry("hparams set")
  registry.register(lambda: 1, name="base")
  with pytest.raises(UserError, match="'base' is already registered"):
    registry.register(lambda: 2, name="base")
  with pytest.raises(UserError, match="already registered"):
    registry.register(lambda: 3, name="other", aliases=("base",))


def test_unknown_name_lists_closest_in_one_line():
  registry = Registry("hparams set")
  for name in ("transformer_base", "transformer_big", "lstm_attention"):
    registry.register(lambda: None, name=name)
  with pytest.raises(UserError) as error:
    registry["transformer_bas"]
  message = str(error.value)
  assert "\n" not in message
  assert "unknown hparams set 'transformer_bas'" in message
  assert "transformer_base" in message and "lstm_attention" not in message


def test_unknown_name_with_nothing_close_lists_all():
  registry = Registry("model")
  registry.register(lambda: None, name="transformer")
  with pytest.raises(UserError, match="known: transformer"):
    registry["zzz"]


def test_usr_dir_registers_the_users_sets(tmp_path):
  package = tmp_path / "my_usr_dir"
  package.mkdir()
  (package / "__init__.py").write_text(
      "from dataclasses import replace\n"
      "from t2t_lite.registry import HPARAMS\n"
      "from t2t_lite.models.hyperparameters import HParams\n"
      "@HPARAMS.register\n"
      "def my_usr_dir_small():\n"
      "  return replace(HParams(), hidden_size=64)\n")
  import_usr_dir(str(package))
  from t2t_lite.registry import HPARAMS
  assert HPARAMS["my_usr_dir_small"]().hidden_size == 64


def test_usr_dir_errors_are_one_line(tmp_path):
  with pytest.raises(UserError, match="no such directory"):
    import_usr_dir(str(tmp_path / "missing"))
  (tmp_path / "not-a-module-name").mkdir()
  with pytest.raises(UserError, match="must be a valid Python module name"):
    import_usr_dir(str(tmp_path / "not-a-module-name"))
  broken = tmp_path / "broken_usr_dir"
  broken.mkdir()
  (broken / "__init__.py").write_text("raise RuntimeError('boom')\n")
  with pytest.raises(UserError, match="importing it failed: RuntimeError: boom"):
    import_usr_dir(str(broken))


def test_every_built_in_set_and_every_problem_module_registers():
  import inspect
  from t2t_lite.hparams_sets import transformer as sets
  from t2t_lite.registry import HPARAMS, MODELS, PROBLEMS
  from import_graph import module_files
  # Fresh registries of the built-ins (tests register more in the shared ones).
  built_in_sets, problems, models = (Registry(registry.kind, package=registry.package)
                                     for registry in (HPARAMS, PROBLEMS, MODELS))
  defined = {name for name, value in vars(sets).items() if inspect.isfunction(value)
             and value.__module__ == sets.__name__ and not name.startswith("_")}
  assert set(built_in_sets.names()) == defined
  modules = {module for module in module_files() if module.startswith("t2t_lite.problems.")}
  assert {problems[name].__module__ for name in problems.names()} == modules
  assert models.names() == ["transformer"]
  assert models["transformer"].__module__ == "t2t_lite.models.transformer"
  assert problems.aliases_of("translate_ende_wmt32k") == ["translate_ende"]


def test_a_second_entry_point_of_one_object_is_an_alias(monkeypatch):
  from importlib import metadata
  group = "t2t_lite.tests_installed"
  points = [metadata.EntryPoint(name, f"t2t_lite.hparams_sets.transformer:{target}", group)
            for name, target in (("base_alias", "transformer_base"),
                                 ("transformer_base", "transformer_base"),
                                 ("tiny", "transformer_tiny"))]
  monkeypatch.setattr(metadata, "entry_points",
                      lambda group=None: [p for p in points if p.group == group])
  registry = Registry("hparams set", group=group)
  assert registry.names() == ["tiny", "transformer_base"]
  assert registry.canonical_name("base_alias") == "transformer_base"


def test_an_installed_entry_point_that_fails_to_load_is_one_line(monkeypatch):
  from importlib import metadata
  group = "t2t_lite.tests_broken"
  point = metadata.EntryPoint("gone", "t2t_lite.no_such_module:thing", group)
  monkeypatch.setattr(metadata, "entry_points", lambda group=None: [point])
  with pytest.raises(UserError, match="installed t2t_lite.tests_broken entry point gone = "
                                      "t2t_lite.no_such_module:thing failed to load: "
                                      "ModuleNotFoundError"):
    Registry("hparams set", group=group).names()


def test_an_older_installs_entry_point_for_a_built_in_is_the_built_in(monkeypatch):
  """An install made before the built-ins were marked still lists them as entry points:
  the same objects, not a second registration."""
  from importlib import metadata
  group = "t2t_lite.tests_older_install"
  points = [metadata.EntryPoint(name, f"t2t_lite.hparams_sets.transformer:{target}", group)
            for name, target in (("transformer_base", "transformer_base"),
                                 ("transformer_tiny", "transformer_tiny"))]
  monkeypatch.setattr(metadata, "entry_points",
                      lambda group=None: [p for p in points if p.group == group])
  registry = Registry("hparams set", group=group, package="t2t_lite.hparams_sets")
  assert "transformer_base" in registry.names() and "transformer_tiny" in registry.names()
