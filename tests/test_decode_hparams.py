"""--decode_hparams: the problem's defaults, overrides, and tensor2tensor's names."""

import dataclasses

import pytest

from t2t_lite.data.problem import DecodeDefaults
from t2t_lite.decoding.decode_hparams import DecodeHParams, decode_hparams_for
from t2t_lite.errors import UserError
from t2t_lite.models.hyperparameters import HParams


class Parsing:
  decode_defaults = DecodeDefaults(beam_size=21, alpha=0.3, extra_length=300)


def test_the_problems_defaults_then_the_overrides():
  assert decode_hparams_for(Parsing()) == DecodeHParams(beam_size=21, alpha=0.3,
                                                        extra_length=300)
  assert decode_hparams_for(Parsing(), "beam_size=4,alpha=0.6,n_best=2") == DecodeHParams(
      beam_size=4, alpha=0.6, extra_length=300, n_best=2)


def test_tensor2tensors_return_beams_and_write_beam_scores():
  settings = decode_hparams_for(Parsing(), "beam_size=4,alpha=0.6,return_beams=True,"
                                           "write_beam_scores=True")
  assert (settings.beam_size, settings.n_best, settings.write_scores) == (4, 4, True)
  assert decode_hparams_for(Parsing(), "return_beams=True").n_best == 21  # The problem's beam.
  assert decode_hparams_for(Parsing(), "return_beams=False,write_beam_scores=False") == \
      decode_hparams_for(Parsing())


def test_tensor2tensors_max_input_size():
  hparams = HParams(max_length=256)
  limited = decode_hparams_for(Parsing(), "max_input_size=40")
  assert limited.max_input_length == 40 and limited.input_limit(hparams) == 40
  assert decode_hparams_for(Parsing()).input_limit(hparams) == 256  # The model's max_length.
  for size in (-1, 0):  # tensor2tensor's default, -1: no truncation.
    unlimited = decode_hparams_for(Parsing(), f"max_input_size={size}")
    assert not unlimited.truncate_inputs and unlimited.input_limit(hparams) is None
    # Learned positions end at max_length whatever the setting.
    assert unlimited.input_limit(dataclasses.replace(hparams, pos="emb")) == 256
  longer = decode_hparams_for(Parsing(), "max_input_length=300")
  assert longer.input_limit(hparams) == 300
  assert longer.input_limit(dataclasses.replace(hparams, pos="emb")) == 256


@pytest.mark.parametrize("overrides, message", [
    ("return_beams=True,n_best=2", "return_beams is tensor2tensor's name for n_best; give one"),
    ("write_beam_scores=True,write_scores=True", "write_beam_scores is tensor2tensor's name"),
    ("max_input_size=10,max_input_length=20", "max_input_size is tensor2tensor's name for "
                                              "max_input_length"),
    ("return_beams=yes please", "return_beams=yes please is not a bool"),
    ("beam=4", "unknown name 'beam'; valid names: alpha, batch_size, beam_size"),
    ("n_best=5,beam_size=4", "n_best=5 exceeds beam_size=4"),
    ("mbr=True,beam_size=1", "mbr=True chooses among a beam's hypotheses; raise beam_size"),
    ("beam_size=0", "beam_size=0: it must be at least 1"),
    ("batch_size=-2", "batch_size=-2: it must be at least 1"),
    ("alpha=-0.5", "alpha=-0.5: it must be at least 0"),
    ("extra_length=-1", "extra_length=-1: it must be at least 0"),
])
def test_bad_settings_are_one_line_errors(overrides, message):
  with pytest.raises(UserError) as error:
    decode_hparams_for(Parsing(), overrides)
  assert str(error.value).startswith("--decode_hparams: ") and message in str(error.value)
  assert "\n" not in str(error.value)
