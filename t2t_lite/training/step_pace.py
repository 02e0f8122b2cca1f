"""How fast this machine trains a model: steps a second of real training steps, measured.

    steps_per_second, seconds = measured_pace(hparams, vocab_size, length, settings)
    run_one_step = fixed_batch_step(hparams, vocab_size, inputs, targets, jit_compile)

transformer_auto turns --train_minutes into steps with `measured_pace`: the run's own
model, batch and precision, timed for a few seconds on one fixed batch of
`hparams.batch_size` tokens in rows of `length` tokens (random ids, no padding) for each
replica (`hparams.cpu_replicas` of them on a machine without GPUs), after warm-up steps
(tracing). It runs in a child process, so that nothing of the measurement
(the model, the traced step, Keras's names, TensorFlow's devices) stays in the run's.
The input pipeline, evaluations and saves are not timed: the pace is the training
steps' own.
"""

import dataclasses
import json
import subprocess
import sys
import time

from t2t_lite.constants import EOS_ID
from t2t_lite.errors import UserError

WARMUP_STEPS = 3       # Untimed: the first traces the step.
TIMED_SECONDS = 5.0    # Then steps are timed for this long,
MAX_TIMED_STEPS = 100  # or this many, whichever comes first.


@dataclasses.dataclass(frozen=True)
class PaceSettings:
  """The run's settings that change its pace, besides its hparams."""
  model: str = "transformer"
  xla: bool = None  # None: on for a GPU, off on the CPU (as t2t-trainer).
  mixed_precision: str = None
  accumulation_steps: int = 1

  @classmethod
  def of(cls, config):
    """The pace settings of t2t-trainer's TrainConfig."""
    return cls(model=config.model, xla=config.xla, mixed_precision=config.mixed_precision,
               accumulation_steps=config.gradient_accumulation_steps)


def measured_pace(hparams, vocab_size, length, settings=PaceSettings()):
  """(Steps a second of `hparams` on this machine, seconds the measurement took), in a
  child process that imports the --t2t_usr_dir folders this one did; the registry's
  UserError for an unknown model, and one naming the child's last line when it fails."""
  from t2t_lite.registry import MODELS, imported_usr_dirs
  MODELS.canonical_name(settings.model)  # An unknown model: the run's own line, at once.
  request = json.dumps({"hparams": hparams.to_json(), "vocab_size": vocab_size,
                        "length": length, "settings": dataclasses.asdict(settings),
                        "usr_dirs": imported_usr_dirs()})
  started = time.monotonic()
  child = subprocess.run([sys.executable, "-m", __name__], input=request, text=True,
                         capture_output=True, check=False)
  said = (child.stderr.strip().splitlines() or ["(nothing)"])[-1]
  if child.returncode != 0:
    raise UserError(f"measuring this machine's training pace for --train_minutes failed: "
                    f"{said}; stop the run with --train_steps instead")
  return json.loads(child.stdout.strip().splitlines()[-1]), time.monotonic() - started


def fixed_batch_step(hparams, vocab_size, inputs, targets, jit_compile, model="transformer",
                     mixed_precision=None, accumulation_steps=1):
  """-> a callable running one real `TrainStep` (default strategy) on a fixed batch.

  inputs, targets: [batch, length] int32 ids. The callable returns the step's
  statistics (floats), so it blocks until the update is done. mixed_precision:
  the model computes in that dtype: built, traced and run under Keras's dtype
  policy "mixed_<that>", as t2t-trainer --mixed_precision runs.
  """
  import keras
  import tensorflow as tf
  from t2t_lite.models.building import built_model
  from t2t_lite.training.optimization import build_optimizer
  from t2t_lite.training.precision import dtype_policy
  from t2t_lite.training.train_step import TrainStep
  with dtype_policy(mixed_precision):
    keras.utils.set_random_seed(0)
    built = built_model(model, hparams, vocab_size, vocab_size)
    optimizer = build_optimizer(hparams)
    optimizer.build(built.trainable_variables)
  step = TrainStep(tf.distribute.get_strategy(), built, optimizer, hparams.label_smoothing,
                   accumulation_steps, jit_compile=jit_compile,
                   rdrop_alpha=hparams.rdrop_alpha)
  features = {"inputs": tf.constant(inputs, tf.int32), "targets": tf.constant(targets, tf.int32)}
  iterator = iter(tf.data.Dataset.from_tensors(features).repeat())

  def run():
    with dtype_policy(mixed_precision):
      return step(iterator)
  return run


def timed_pace(run_one_step):
  """Steps a second of `run_one_step` after WARMUP_STEPS untimed ones."""
  for _ in range(WARMUP_STEPS):
    run_one_step()
  steps, started = 0, time.perf_counter()
  while steps < MAX_TIMED_STEPS and (steps == 0 or
                                     time.perf_counter() - started < TIMED_SECONDS):
    run_one_step()
    steps += 1
  return steps / (time.perf_counter() - started)


def _measure(request):
  """The child's work: the request's pace, on this machine's first device (or the CPU's
  replicas the hparams ask for, as t2t-trainer splits it)."""
  import numpy as np
  from t2t_lite.distribute.strategy import make_strategy, uses_gpu
  from t2t_lite.models.hyperparameters import HParams
  from t2t_lite.registry import import_usr_dir
  for usr_dir in request["usr_dirs"]:
    import_usr_dir(usr_dir)
  hparams = HParams.from_json(request["hparams"])
  settings = PaceSettings(**request["settings"])
  length, vocab_size = max(2, request["length"]), request["vocab_size"]
  rows = max(1, hparams.batch_size // length)
  # [rows, length]: ids past PAD and EOS, each row ending in EOS as real examples do.
  ids = np.random.default_rng(0).integers(EOS_ID + 1, vocab_size, size=(rows, length))
  ids[:, -1] = EOS_ID
  strategy = make_strategy(worker_gpu=1, across_workers=False,
                           cpu_replicas=hparams.cpu_replicas)
  jit_compile = uses_gpu(strategy) if settings.xla is None else settings.xla
  with strategy.scope():
    run_one_step = fixed_batch_step(hparams, vocab_size, ids, ids, jit_compile, settings.model,
                                    settings.mixed_precision, settings.accumulation_steps)
  return timed_pace(run_one_step)


if __name__ == "__main__":
  import os
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  try:
    print(json.dumps(_measure(json.loads(sys.stdin.read()))))
  except UserError as error:
    sys.exit(str(error))  # Its one line, last on stderr.
