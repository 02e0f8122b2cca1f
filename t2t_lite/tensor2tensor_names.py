"""tensor2tensor's names that t2t_lite takes beside its own: every translation in this table.

FLAGS           tensor2tensor's flag -> the flag of ours it sets (`t2t_lite.command_line`
                defines both; given with differing values they are a one-line error).
FLAG_VALUES     our flag -> {tensor2tensor's value: the value of ours it means}.
DECODE_HPARAMS  tensor2tensor's `--decode_hparams` name -> the DecodeHParams field it sets
                (`t2t_lite.decoding.decode_hparams` says how each value translates).
"""

FLAGS = {"xla_compile": "xla"}

FLAG_VALUES = {"schedule": {"continuous_train_and_eval": "train_and_evaluate"}}

DECODE_HPARAMS = {"return_beams": "n_best", "write_beam_scores": "write_scores",
                  "max_input_size": "max_input_length"}


def flag_aliases(name):
  """tensor2tensor's flags that set our flag `name`."""
  return [alias for alias, ours in FLAGS.items() if ours == name]
