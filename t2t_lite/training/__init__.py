"""Training: the train step, the loop, evaluation, averaging. A run's checkpoints are
saved by t2t_lite.run.checkpoints.

The loop and its step:
  trainer.py           the training loop: build, resume, step, evaluate, checkpoint, stop.
  config.py            every setting of t2t-trainer, each declared once.
  auto_hparams.py      transformer_auto: hparams chosen for the corpus and the budget.
  step_pace.py         steps a second of a model on this machine, measured (--train_minutes).
  train_step.py        the distributed training step: gradients per replica, one update.
  r_drop.py            R-Drop: each batch through the model twice, the passes pulled together.
  optimization.py      the learning-rate schedule and Adam of paper section 5.3.
  fused_adam.py        Keras's Adam, updated by one fused kernel per variable (TensorFlow).
  train_input.py       one process's training input, its position kept in every checkpoint.
  precision.py         mixed precision: Keras's global dtype policy, float16's loss scaling.
  warm_start.py        --warm_start_from=RUN: a new run starts from another run's weights.
  stop_requests.py     stopping early: a signal (SIGTERM, Ctrl-C) or --train_minutes.
  trained_time.py      the seconds a run has trained (--train_minutes' total), in checkpoints.
  lost_worker.py       the one line that ends a worker when another worker is lost.
  worker_handshake.py  before the first step: every worker of a run checks the others' digests.
  worker_agreement.py  what the workers must share, as digests; the line naming a difference.
  divergence.py        a loss that explodes, or ends far above where it began.
  progress.py          the progress display (StepProgress): step, loss, tokens/s, ETA.

Evaluation:
  evaluation.py        the dev split: loss, per-token accuracy, perplexity (teacher-forced).
  eval_timer.py        when the loop evaluates: every N steps, and every M minutes.
  dev_decoding.py      a metric of real decoding: the first N dev sentences, decoded.
  early_stopping.py    the metric a run watches: best/ by it, and early stopping on it.
  best_checkpoint.py   RUN/best: the best checkpoint by that metric, a run directory of its own.
  curves.py            a run's training curves as one picture, curves.png.
  cost.py              training cost like the paper's Table 2: FLOPs, FLOP/s, MFU.

Averaging (t2t-avg-all):
  averaging.py         checkpoint averaging (paper section 6.1).
  checkpoint_choice.py  which checkpoints: the newest N in the run's last fraction of steps.
  average_dev_check.py  the average against the last checkpoint on dev; the better one kept.
  alpha_choice.py      the length penalty the written model decodes dev best with.
  average_settings.py  t2t-avg-all's settings (defaults, ranges), light enough for its flags.
  rolling_average.py   the newest N checkpoints averaged as they appear, during training.
"""
