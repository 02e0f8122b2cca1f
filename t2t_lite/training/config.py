"""How to run training: every setting of t2t-trainer, each declared once.

    config = TrainConfig(output_dir="RUN", train_steps=1000)

t2t-trainer's flags are these fields (`t2t_lite.cli.command_line`); `output_dir`,
`model` and `decode_hparams` are settings several commands share
(`t2t_lite.cli.shared_settings`). What to train is the problem and the hparams, not this.
"""

import dataclasses

from t2t_lite.cli.command_line import check_choices, require, setting
from t2t_lite.cli.flag_bounds import check_bounds
from t2t_lite.cli.shared_settings import shared
from t2t_lite.distribute.cluster_forming import CLUSTER_TIMEOUT_SECONDS


@dataclasses.dataclass(frozen=True)
class TrainConfig:
  """How to run training (what to train is the problem and the hparams)."""
  output_dir: str = shared("output_dir")
  train_steps: int = setting(250000, "Total optimizer updates (paper: 100k base, 300k big); "
                             "a resumed run continues up to this step.", minimum=0)
  train_minutes: float = setting(
      0, "The run's total training time: stop at the first step after the run has trained "
      "this many minutes (wall clock of its training loops, evaluations included, summed over "
      "its restarts: every checkpoint keeps the seconds trained), save, and end as a finished "
      "run (exit 0). A run stopped sooner (a signal, a crash) resumes with the minutes left; "
      "one that has trained them trains nothing when run again, and a larger value trains on "
      "for the difference. 0 = no limit. How the learning-rate schedule sees it: of its "
      "factors only linear_decay reads where the run ends (it decays over the last "
      "learning_rate_decay_steps steps, at most the second half of the run), which is "
      "--train_steps or, sooner, the step the run's pace (steps a second, trusted after a "
      "minute; until then a resumed run's pace before) reaches when the minutes are up, "
      "re-estimated at every step: the rate falls to 0 as the time runs out. A larger value "
      "moves that end to the new projected end, so the rate rises again from where it had "
      "decayed to, to what the schedule gives that end. Without linear_decay the schedule is "
      "a function of the step alone, and the run ends where on it it got to. One worker's "
      "clock cannot stop the others: several workers stop at --train_steps instead.",
      minimum=0)
  model: str = shared("model")
  schedule: str = setting(
      "train_and_evaluate", "What to run; continuous_train_and_eval is tensor2tensor's name "
      "for train_and_evaluate.", choices=("train", "train_and_evaluate", "evaluate"))
  eval_steps: int = setting(100, "Dev batches per replica per evaluation; 0 = all.", minimum=0)
  local_eval_frequency: int = setting(
      1000, "Steps between evaluations (--eval_every_minutes adds evaluations by time).",
      minimum=1, bound_hint="--schedule=train trains without evaluating")
  eval_every_minutes: float = setting(
      None, "Evaluate also once this many minutes have passed since the last evaluation "
      "ended, at most once a step. Default: a tenth of --train_minutes, so that a run under a "
      "time limit shows its progress; off without --train_minutes. 0 = off. Not supported "
      "across several workers (their clocks would disagree).", minimum=0)
  keep_checkpoint_max: int = setting(20, "Checkpoints kept (paper averages the last 5 for "
                                     "base, 20 for big).", minimum=1)
  save_checkpoints_steps: int = setting(1000, "Save every N steps (0: off).", minimum=0)
  save_checkpoints_secs: int = setting(
      None, "Save every M seconds (0: off); the paper saved every 10 minutes. Default: 600, "
      "or under --train_minutes a twentieth of them when that is shorter (at least 60), so "
      "that t2t-avg-all finds several checkpoints in the run's last tenth.", minimum=0)
  worker_gpu: int = shared("worker_gpu")
  locally_shard_to_cpu: bool = shared("locally_shard_to_cpu")
  cluster_timeout_seconds: float = setting(
      CLUSTER_TIMEOUT_SECONDS, "Several workers (TF_CONFIG, srun): how long each waits for "
      "the others to start before it ends with one line naming those that did not answer "
      "(exit status 2); 0 = wait for ever. A signal ends the wait at once.", minimum=0)
  xla: bool = setting(None, "Compile the per-replica step with XLA; default: on for GPUs, off "
                      "on CPU.")
  mixed_precision: str = setting(
      None, "Compute in this dtype (softmax, layer norm and the loss stay float32; float16 "
      "uses dynamic loss scaling). Default float32.", choices=("bfloat16", "float16"))
  gradient_accumulation_steps: int = setting(1, "Micro-batches per replica summed into one "
                                             "update.", minimum=1)
  random_seed: int = setting(None, "Seed for weights, dropout and the input order (which "
                             "becomes deterministic).")
  warm_start_from: str = setting(None, "Checkpoint (or run directory) whose model weights "
                                 "start a new run.")
  eval_decode_sentences: int = setting(
      100, "Dev sentences decoded (beam search per --decode_hparams) and scored at each "
      "evaluation: sacreBLEU, or bracket F1 for parsing. 0 = none.", minimum=0)
  # Early stopping and best/ (t2t_lite.training.early_stopping), tensor2tensor's flags.
  eval_early_stopping_steps: int = setting(
      None, "Stop training (saving a last checkpoint) once --eval_early_stopping_metric has "
      "not improved by more than --eval_early_stopping_metric_delta for this many steps, "
      "checked at each evaluation. Default: never.", minimum=1)
  eval_early_stopping_metric: str = setting(
      None, "The evaluation metric early stopping watches, and by which every "
      "train_and_evaluate run keeps its best checkpoint in RUN/best (a run directory of its "
      "own, never pruned): loss, accuracy, perplexity, or the decoded metric (bleu; "
      "bracket_f1 for parsing; tensor2tensor's approx_bleu_score means bleu). Default: the "
      "decoded metric when --eval_decode_sentences > 0, else loss.")
  eval_early_stopping_metric_delta: float = setting(
      0.1, "How much the metric must improve to count for early stopping (any improvement "
      "replaces best/).", minimum=0)
  eval_early_stopping_metric_minimize: bool = setting(
      None, "Whether lower values of the metric are better. Default: yes for loss and "
      "perplexity, no for accuracy and the decoded metric.")
  decode_hparams: str = shared("decode_hparams")  # For the dev decoding (beam_size=1: greedy).
  flags: dict = dataclasses.field(default_factory=dict)  # The command line, for run.json.

  def seconds_between_saves(self):
    """--save_checkpoints_secs, or its default (the field's help)."""
    if self.save_checkpoints_secs is not None:
      return self.save_checkpoints_secs
    if self.train_minutes:
      return int(min(600, max(60, self.train_minutes * 60 / 20)))
    return 600

  def __post_init__(self):
    require(self, output_dir="the run directory to write checkpoints in")
    check_choices(self)
    check_bounds(self)  # The library builds it from Python too.
