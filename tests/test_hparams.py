"""Typed hparams: sets, overrides parsed by field type, one-line errors, JSON."""

import dataclasses

import pytest

from t2t_lite.cli.overrides import parse_overrides
from t2t_lite.errors import UserError
from t2t_lite.models.hyperparameters import HParams
from t2t_lite.registry import HPARAMS


def test_base_is_the_papers_base_model():
  hparams = HPARAMS["transformer_base"]()
  assert (hparams.num_hidden_layers, hparams.hidden_size, hparams.filter_size,
          hparams.num_heads) == (6, 512, 2048, 8)
  assert hparams.key_channels == hparams.value_channels == 512
  assert hparams.layer_prepostprocess_dropout == 0.1 and hparams.label_smoothing == 0.1
  assert (hparams.optimizer_adam_beta1, hparams.optimizer_adam_beta2,
          hparams.optimizer_adam_epsilon) == (0.9, 0.98, 1e-9)
  assert hparams.learning_rate_warmup_steps == 4000 and hparams.learning_rate_constant == 1.0
  assert not hparams.pre_norm and hparams.pos == "timing"
  assert hparams.shared_embedding and hparams.shared_embedding_and_softmax_weights


def test_big_and_parsing_sets():
  big = HPARAMS["transformer_big"]()
  assert (big.hidden_size, big.filter_size, big.num_heads,
          big.layer_prepostprocess_dropout) == (1024, 4096, 16, 0.3)
  parsing = HPARAMS["transformer_parsing"]()
  assert (parsing.num_hidden_layers, parsing.hidden_size) == (4, 1024)


PAPER_SCHEDULE = "constant*linear_warmup*rsqrt_decay*rsqrt_hidden_size"

# tensor2tensor's sets (models/transformer.py), every field, as t2t_lite spells them.
# tensor2tensor's shared_embedding_and_softmax_weights=False is three matrices: UNTIED.
UNTIED = {"shared_embedding": False, "shared_embedding_and_softmax_weights": False}
V1 = {"num_hidden_layers": 6, "hidden_size": 512, "filter_size": 2048, "num_heads": 8,
      "attention_key_channels": 0, "attention_value_channels": 0, "pos": "timing",
      "pre_norm": False, "norm_epsilon": 1e-6, "shared_embedding": True,
      "shared_embedding_and_softmax_weights": True, "layer_prepostprocess_dropout": 0.1,
      "attention_dropout": 0.0, "relu_dropout": 0.0, "symbol_dropout": 0.0,
      "label_smoothing": 0.1,
      # Its legacy "noam" schedule with learning_rate 0.1: 0.1 * 0.002 * 5000 = constant 1.
      "learning_rate_schedule": PAPER_SCHEDULE, "learning_rate_constant": 1.0,
      "learning_rate_warmup_steps": 4000, "learning_rate_decay_steps": 5000,
      "optimizer_adam_beta1": 0.9,
      "optimizer_adam_beta2": 0.98, "optimizer_adam_epsilon": 1e-9, "batch_size": 4096,
      "max_length": 256, "min_length_bucket": 8, "length_bucket_step": 1.1,
      "bpe_dropout": 0.0, "right_to_left": False, "cpu_replicas": 1,
      "rdrop_alpha": 0.0}
V2 = {**V1, "pre_norm": True, "attention_dropout": 0.1, "relu_dropout": 0.1,
      "learning_rate_warmup_steps": 8000, "learning_rate_constant": 2.0}  # learning_rate 0.2.
V3 = {**V2, "optimizer_adam_beta2": 0.997}
BIG = {**V3, "hidden_size": 1024, "filter_size": 4096, "num_heads": 16,
       "layer_prepostprocess_dropout": 0.3, "batch_size": 2048}
TENSOR2TENSOR = {
    "transformer_base_v1": V1,
    "transformer_base_v2": V2,
    "transformer_base_v3": V3,
    "transformer_big_v3": BIG,  # tensor2tensor's transformer_big.
    "transformer_big_enfr": {**V3, "hidden_size": 1024, "filter_size": 8192, "num_heads": 16,
                             "layer_prepostprocess_dropout": 0.1, **UNTIED},
    "transformer_base_single_gpu": {
        **V3, "batch_size": 1024, "learning_rate_schedule": "constant*linear_warmup*rsqrt_decay",
        "learning_rate_constant": 0.1, "learning_rate_warmup_steps": 16000},
    "transformer_big_single_gpu": {**BIG, "layer_prepostprocess_dropout": 0.1,
                                   "learning_rate_warmup_steps": 16000},
    # Its learning_rate=0.05 is read by no schedule of v3's kind.
    "transformer_parsing_base": {**V3, "hidden_size": 1024, "layer_prepostprocess_dropout": 0.2,
                                 "attention_dropout": 0.2, "learning_rate_warmup_steps": 16000,
                                 "max_length": 512, **UNTIED},
    # Its shared_source_target_embedding=False is read by nothing: one matrix stays.
    "transformer_parsing_big": {**BIG, "max_length": 512, "learning_rate_warmup_steps": 4000,
                                "layer_prepostprocess_dropout": 0.1, "batch_size": 2048},
    "transformer_small": {**V3, "num_hidden_layers": 2, "hidden_size": 256, "filter_size": 1024,
                          "num_heads": 4},
    "transformer_tiny": {**V3, "num_hidden_layers": 2, "hidden_size": 128, "filter_size": 512,
                         "num_heads": 4},
    "transformer_test": {**V3, "num_hidden_layers": 2, "hidden_size": 16, "filter_size": 8,
                         "num_heads": 2},
}


@pytest.mark.parametrize("name", sorted(TENSOR2TENSOR))
def test_tensor2tensors_names_have_its_values(name):
  assert dataclasses.asdict(HPARAMS[name]()) == TENSOR2TENSOR[name]


def test_tensor2tensor_v1_is_the_papers_base_and_the_paper_keeps_its_names():
  assert HPARAMS["transformer_base_v1"]() == HPARAMS["transformer_base"]() == HParams()
  big = HPARAMS["transformer_big"]()
  assert HPARAMS["transformer_big_enfr_paper"]() == dataclasses.replace(
      big, layer_prepostprocess_dropout=0.1)
  assert not big.pre_norm and big.learning_rate_constant == 1.0 and big.batch_size == 4096


def test_single_gpu_peak_learning_rate_is_tensor2tensors():
  from t2t_lite.training.optimization import learning_rate_schedule
  schedule = learning_rate_schedule(HPARAMS["transformer_base_single_gpu"]())
  peak = float(schedule(16000 - 1))  # Step 16000, the end of warmup.
  assert peak == pytest.approx(0.1 * 16000 ** -0.5, rel=1e-5) and round(peak, 5) == 0.00079
  assert float(schedule(15000 - 1)) < peak and float(schedule(17000 - 1)) < peak


def test_the_multi30k_set_is_a_pre_norm_model_with_its_own_name():
  from t2t_lite.training.optimization import learning_rate_schedule
  hparams = HPARAMS["transformer_small_multi30k"]()
  # Not tensor2tensor's transformer_small (2 layers, v3): a name of its own.
  assert hparams != HPARAMS["transformer_small"]()
  assert (hparams.num_hidden_layers, hparams.hidden_size, hparams.filter_size,
          hparams.num_heads) == (4, 256, 1024, 4)
  # Pre-norm: the post-norm layout's encoder collapsed at this learning rate (docs/results.md).
  assert hparams.pre_norm and hparams.optimizer_adam_beta2 == 0.98
  peak = float(learning_rate_schedule(hparams)(400 - 1))  # Step 400, the end of warmup.
  assert peak == pytest.approx(2.5e-3, rel=1e-5)


def test_the_tiny_multi30k_set_is_wu_et_als_recipe():
  from t2t_lite.training.optimization import learning_rate_schedule
  hparams = HPARAMS["transformer_tiny_multi30k"]()
  assert (hparams.num_hidden_layers, hparams.hidden_size, hparams.filter_size,
          hparams.num_heads, hparams.batch_size) == (4, 128, 256, 4, 4096)
  assert hparams.pre_norm and hparams.shared_embedding_and_softmax_weights
  assert (hparams.layer_prepostprocess_dropout, hparams.attention_dropout,
          hparams.relu_dropout) == (0.2, 0.0, 0.0)  # Theirs is 0.3: 0.2 won on val.
  schedule = learning_rate_schedule(hparams, end_step=20000)
  peak = float(schedule(2000 - 1))  # Step 2,000, the end of warmup: their 5e-3.
  assert peak == pytest.approx(5e-3, rel=2e-3)
  assert float(schedule(8000 - 1)) == pytest.approx(peak / 2, rel=1e-5)  # rsqrt decay.
  # Then down to 0 over the last 3,000 steps: halfway down at step 18,501.
  rsqrt = peak * (2000 / 18501) ** 0.5
  assert float(schedule(18501 - 1)) == pytest.approx(rsqrt / 2, rel=1e-5)
  assert float(schedule(20000)) == 0.0


def test_the_papers_parser_keeps_the_papers_base_beyond_its_tuned_values():
  parsing = HPARAMS["transformer_parsing"]()
  assert (parsing.num_hidden_layers, parsing.hidden_size, parsing.filter_size) == (4, 1024, 2048)
  assert (parsing.layer_prepostprocess_dropout, parsing.attention_dropout,
          parsing.learning_rate_warmup_steps, parsing.max_length) == (0.2, 0.2, 16000, 512)
  assert (not parsing.pre_norm and parsing.relu_dropout == 0.0
          and parsing.learning_rate_constant == 1.0)
  assert parsing.shared_embedding and not parsing.shared_embedding_and_softmax_weights


def test_v3_choices_are_overrides_of_base():
  v3 = HPARAMS["transformer_base_v3"]()
  overridden = HPARAMS["transformer_base"]().override(
      "pre_norm=True,optimizer_adam_beta2=0.997,learning_rate_warmup_steps=8000,"
      "learning_rate_constant=2.0,attention_dropout=0.1,relu_dropout=0.1")
  assert v3 == overridden


def test_every_set_is_valid_and_round_trips_through_json():
  assert {"transformer_base", "transformer_big", "transformer_big_enfr_paper",
          "transformer_parsing", "transformer_test_small", *TENSOR2TENSOR} <= set(HPARAMS.names())
  for name in HPARAMS.names():
    hparams = HPARAMS[name]()
    assert HParams.from_json(hparams.to_json()) == hparams


def test_overrides_are_parsed_with_the_fields_type():
  parsed = parse_overrides("hidden_size=256, layer_prepostprocess_dropout=0.2,"
                           "pre_norm=True,pos=emb,shared_embedding=false", HParams)
  assert parsed == {"hidden_size": 256, "layer_prepostprocess_dropout": 0.2,
                    "pre_norm": True, "pos": "emb", "shared_embedding": False}
  assert type(parsed["hidden_size"]) is int
  assert parse_overrides("", HParams) == {}


@pytest.mark.parametrize("overrides, expected", [
    ("hiden_size=3", "unknown name 'hiden_size'; valid names: attention_dropout"),
    ("hidden_size=3.5", "hidden_size=3.5 is not a valid int"),
    ("pre_norm=maybe", "pre_norm=maybe is not a bool"),
    ("label_smoothing=high", "label_smoothing=high is not a valid float"),
    ("hidden_size", "'hidden_size' is not of the form name=value"),
])
def test_bad_overrides_are_one_line_errors(overrides, expected):
  with pytest.raises(UserError) as error:
    HParams().override(overrides)
  assert expected in str(error.value)
  assert "\n" not in str(error.value)


@pytest.mark.parametrize("overrides, expected", [
    ("pos=learned", "pos='learned' is not one of timing, emb"),
    ("num_heads=3", "hparams hidden_size=512 must be divisible by num_heads=3"),
    ("num_heads=3,attention_value_channels=512,attention_key_channels=96",
     "attention_value_channels=512 must be divisible by num_heads=3"),
    ("layer_prepostprocess_dropout=1.5",
     "hparams layer_prepostprocess_dropout=1.5: it must be at least 0 and below 1"),
    ("bpe_dropout=1", "hparams bpe_dropout=1: it must be at least 0 and below 1"),
    ("label_smoothing=-0.1", "hparams label_smoothing=-0.1: it must be at least 0 and below 1"),
    ("hidden_size=0", "hparams hidden_size=0: it must be at least 1"),
    ("num_heads=0", "hparams num_heads=0: it must be at least 1"),
    ("length_bucket_step=1",
     "hparams length_bucket_step=1: it must be more than 1 (tensor2tensor's default is 1.1)"),
])
def test_invalid_values_are_one_line_errors(overrides, expected):
  with pytest.raises(UserError) as error:
    HParams().override(overrides)
  assert expected in str(error.value)


def test_hparams_are_frozen():
  with pytest.raises(dataclasses.FrozenInstanceError):
    HParams().hidden_size = 3


def test_json_with_unknown_field_is_an_error():
  with pytest.raises(UserError, match="unknown fields bogus"):
    HParams.from_json('{"bogus": 1}')
