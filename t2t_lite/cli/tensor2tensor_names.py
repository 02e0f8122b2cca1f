"""tensor2tensor's names that t2t_lite takes beside its own: every translation in this table.

FLAGS           tensor2tensor's flag -> the flag of ours it sets (`t2t_lite.cli.command_line`
                defines both; given with differing values they are a one-line error).
FLAG_VALUES     our flag -> {tensor2tensor's value: the value of ours it means}.
DECODE_HPARAMS  tensor2tensor's `--decode_hparams` name -> (its type, the DecodeHParams
                field it sets, its value and the settings given -> {our field: value}).
METRICS         tensor2tensor's evaluation metric (--eval_early_stopping_metric; its tags
                are "metrics-PROBLEM/targets/NAME") -> ours.
"""

FLAGS = {"xla_compile": "xla"}

FLAG_VALUES = {"schedule": {"continuous_train_and_eval": "train_and_evaluate"}}

DECODE_HPARAMS = {
    # Every hypothesis of the beam.
    "return_beams": (bool, "n_best",
                     lambda on, given: {"n_best": given["beam_size"]} if on else {}),
    # Each hypothesis followed by its score.
    "write_beam_scores": (bool, "write_scores",
                          lambda on, given: {"write_scores": True} if on else {}),
    # N > 0: inputs cut at N tokens; N <= 0 (its default, -1): never cut.
    "max_input_size": (int, "max_input_length",
                       lambda size, given: ({"max_input_length": size} if size > 0
                                            else {"truncate_inputs": False})),
}

METRICS = {"approx_bleu_score": "bleu"}


def flag_aliases(name):
  """tensor2tensor's flags that set our flag `name`."""
  return [alias for alias, ours in FLAGS.items() if ours == name]
