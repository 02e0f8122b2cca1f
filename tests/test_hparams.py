"""Typed hparams: sets, overrides parsed by field type, one-line errors, JSON."""

import dataclasses

import pytest

import t2t_lite.hparams_sets  # noqa: F401  (registers the sets)
from t2t_lite.errors import UserError
from t2t_lite.hparams import HParams
from t2t_lite.overrides import parse_overrides
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


def test_v3_choices_are_overrides_of_base():
  v3 = HPARAMS["transformer_base_v3"]()
  overridden = HPARAMS["transformer_base"]().override(
      "pre_norm=True,optimizer_adam_beta2=0.997,learning_rate_warmup_steps=8000,"
      "learning_rate_constant=2.0,attention_dropout=0.1,relu_dropout=0.1")
  assert v3 == overridden


def test_every_set_is_valid_and_round_trips_through_json():
  assert {"transformer_base", "transformer_big", "transformer_base_single_gpu",
          "transformer_big_single_gpu", "transformer_parsing", "transformer_base_v3",
          "transformer_tiny"} <= set(HPARAMS.names())
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
    ("num_heads=3", "attention_key_channels=512 must be divisible by num_heads=3"),
    ("layer_prepostprocess_dropout=1.5", "must be in [0, 1)"),
    ("hidden_size=0", "hidden_size=0 must be positive"),
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
