"""t2t-avg-all's settings, each declared once with its default and range, in a module light
enough for its flags (no TensorFlow): which checkpoints it averages (`checkpoint_choice`),
how many dev sentences check the average (`average_dev_check`) and how long it waits for
a new checkpoint (`rolling_average`). The flags and the library take them from here:

    n: int = declared(AVERAGING, "n")                         # a dataclass's field
    check_declared(AVERAGING, "dev_sentences", dev_sentences)  # a function's argument
"""

# The fraction of the run's steps, counted back from its newest checkpoint, whose
# checkpoints are averaged (1: the whole run). On Europarl's first 18,000 pairs (val
# sacreBLEU, beam 4, 20 checkpoints 140 steps apart) the last 10% scored 6.66, 5% 6.64,
# 20% 6.55, 30% 6.30, 50% 5.91, the whole run 3.79, the last checkpoint 6.57
# (docs/own-data.md).
DEFAULT_WINDOW = 0.1
# How many dev sentences the average and the last checkpoint decode, and each length
# penalty tried (0: no check, no choice).
DEFAULT_DEV_SENTENCES = 200

# name -> (default, help text, its range): `command_line.declared`.
AVERAGING = {
    "n": (5, "How many of the latest checkpoints to average (paper: 5 for base, 20 for "
          "big).", dict(minimum=1)),
    "window": (DEFAULT_WINDOW, "Average only checkpoints in this last fraction of the run's "
               "steps: from step (1 - window) x the newest checkpoint's on (1: anywhere in "
               "the run).", dict(above=0, maximum=1, bound_hint="1: the whole run")),
    "min_steps": (0, "Ignore checkpoints with fewer steps.", dict(minimum=0)),
    "dev_sentences": (DEFAULT_DEV_SENTENCES, "Decode this many dev sentences (greedy) with "
                      "the average and with the last checkpoint, and write the last "
                      "checkpoint alone if it scores higher; then choose the length penalty "
                      "(alpha) the written model decodes them best with, beam search (0: "
                      "neither; needs the run's --data_dir with a dev split).",
                      dict(minimum=0, bound_hint="0: no dev check")),
    "wait_minutes": (0, "Wait up to N minutes for a new checkpoint, averaging again at each "
                     "one (cf. --save_checkpoints_secs).", dict(minimum=0)),
}
