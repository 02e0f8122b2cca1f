"""bench.training_throughput --mixed_precision: our step built, traced and run in mixed
bfloat16, as t2t-trainer --mixed_precision runs it; --models=multi30k's shapes."""

import math

import keras

from bench import configs
from t2t_lite.models import building
from t2t_lite.registry import HPARAMS
from t2t_lite.training.step_pace import fixed_batch_step

VOCAB_SIZE = 50


def test_the_mixed_step_computes_in_bfloat16_and_leaves_the_policy_as_it_was(monkeypatch):
  built = []

  def build_model(*args, **kwargs):
    built.append(build(*args, **kwargs))
    return built[-1]

  build = building.built_model
  monkeypatch.setattr(building, "built_model", build_model)
  inputs, targets = configs.random_batch(VOCAB_SIZE, sentences=2, length=4)
  hparams = HPARAMS["transformer_test_small"]()
  steps = {precision: fixed_batch_step(hparams, VOCAB_SIZE, inputs, targets, jit_compile=False,
                                       mixed_precision=precision)
           for precision in (None, "bfloat16")}
  assert keras.mixed_precision.dtype_policy().name == "float32"
  for precision, model in zip(steps, built):
    statistics = steps[precision]()
    assert math.isfinite(statistics["loss_sum"])
    assert model.dtype_policy.name == (f"mixed_{precision}" if precision else "float32")
    assert {weight.dtype for weight in model.trainable_weights} == {"float32"}
  assert keras.mixed_precision.dtype_policy().name == "float32"


def test_the_multi30k_shapes_are_the_registered_sets():
  registered = HPARAMS["transformer_small_multi30k"]()
  for name in ("num_hidden_layers", "hidden_size", "filter_size", "num_heads"):
    assert getattr(configs.SMALL_MULTI30K, name) == getattr(registered, name)
  assert configs.SMALL_MULTI30K.relu_dropout == configs.BASE.relu_dropout  # As the others.
