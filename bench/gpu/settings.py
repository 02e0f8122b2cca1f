"""What `python -m bench.gpu` measures: models, token batches, decoding shapes, repetitions.

`full()` is the GPU run; `smoke()` the same program on a tiny model, small
enough for a CPU in seconds (its numbers check the program, not a machine).
"""

import dataclasses
import importlib.util
import os
import sys

from t2t_lite.models.hyperparameters import HParams

MODEL_SETS = {"base": "transformer_base", "big": "transformer_big"}
# A smoke run's XLA: little optimisation, so that its many small compilations are quick.
SMOKE_XLA_FLAGS = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"


@dataclasses.dataclass
class Plan:
  """Every shape and count of one run; JSON-friendly (rows carry it to fresh processes).

  models: {short name: HParams fields}; token_batches: target tokens per training
  step (sentences of `sentence_length` tokens on each side, no padding).
  """
  models: dict
  vocab_size: int = 32768
  sentence_length: int = 64
  token_batches: tuple = (8192, 32768)
  train_models: tuple = ("base", "big")
  steps: int = 10             # Training steps timed between two synchronisations.
  repeats: int = 5            # Timed blocks (training) or calls (decoding); medians.
  warmup: int = 3             # Untimed steps first: compiling, autotuning.
  decode_models: tuple = ("base", "big")
  decode_batches: tuple = (1, 64)
  beam_sizes: tuple = (1, 4)
  input_length: int = 32      # Input tokens per sentence to decode (random ids).
  extra_length: int = 50      # tensor2tensor's decode length: input length + 50.
  alpha: float = 0.6
  matmul_size: int = 8192
  torch_compile_backend: str = "inductor"
  smoke: bool = False

  def hparams(self, name):
    return HParams(**self.models[name])

  def to_dict(self):
    return dataclasses.asdict(self)

  @classmethod
  def from_dict(cls, fields):
    fields = dict(fields)
    for name in ("token_batches", "train_models", "decode_models", "decode_batches",
                 "beam_sizes"):
      fields[name] = tuple(fields[name])
    return cls(**fields)


def paper_set(name):
  """The hparams set `name` of hparams/transformer.py (what the registry's entry point of
  that name loads), installed or not."""
  _map_source_folders()
  return getattr(importlib.import_module("t2t_lite.hparams_sets.transformer"), name)()


def _map_source_folders():
  """In a checkout that was never installed (a GPU machine without TensorFlow), makes the
  `hparams/` folder importable as `t2t_lite.hparams_sets`, as setup.py's package_dir does;
  such a checkout has no entry points either, so the sets are not looked up by registry."""
  if importlib.util.find_spec("t2t_lite.hparams_sets") is not None:
    return
  folder = os.path.join(os.path.dirname(__file__), "..", "..", "hparams")
  spec = importlib.util.spec_from_file_location(
      "t2t_lite.hparams_sets", os.path.join(folder, "__init__.py"),
      submodule_search_locations=[folder])
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module
  spec.loader.exec_module(module)


def full():
  """The paper's base and big sets as registered (their dropout included), vocabulary 32,768."""
  return Plan(models={short: dataclasses.asdict(paper_set(name))
                      for short, name in MODEL_SETS.items()})


def smoke():
  """One tiny model, one small batch, two steps: the whole program in seconds on a CPU."""
  tiny = dataclasses.replace(HParams(), num_hidden_layers=2, hidden_size=64, filter_size=128,
                             num_heads=4)
  return Plan(models={"tiny": dataclasses.asdict(tiny)}, vocab_size=512, sentence_length=8,
              token_batches=(64,), train_models=("tiny",), steps=2, repeats=2, warmup=2,
              decode_models=("tiny",), decode_batches=(2,), input_length=6, extra_length=4,
              matmul_size=256, torch_compile_backend="eager", smoke=True)
