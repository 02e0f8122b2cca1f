"""The training loop: build, resume, step, evaluate, checkpoint, stop cleanly.

    config = TrainConfig(output_dir=..., train_steps=...)   # t2t_lite.training.config
    train(problem, hparams, config, data_dir)

`batch_size` is tokens per replica per micro-batch. One step is one optimizer
update over replicas x gradient_accumulation_steps micro-batches, so the global
batch grows with the number of replicas while the learning-rate schedule stays a
function of the step (as in tensor2tensor and the paper: 8 GPUs x ~3,125 target
tokens ~ 25,000 tokens per step).
"""

import functools
import time

from absl import logging
import keras
import tensorflow as tf

from t2t_lite.data.batching import xla_bucket_note
from t2t_lite.errors import UserError
from t2t_lite.run import Run
from t2t_lite.run.checkpoints import checkpoint_paths
from t2t_lite.run.description import has_run, read_hparams
from t2t_lite.run.output_paths import check_output_directory
from t2t_lite.run.run_layout import EVAL_SUMMARIES, TRAIN_SUMMARIES, check_run_directory_name
from t2t_lite.distribute.strategy import (CPU_REPLICAS_UNDER_XLA, device_names, is_chief,
                                          is_multi_worker, local_replicas, make_strategy,
                                          uses_gpu)
from t2t_lite.training import cost
from t2t_lite.training.curves import Curves
from t2t_lite.training.dev_decoding import DevDecoding
from t2t_lite.training.divergence import LossWatch, check_loss
from t2t_lite.training.early_stopping import MetricWatch
from t2t_lite.training.eval_timer import EvalTimer
from t2t_lite.training.evaluation import Evaluator, eval_line, perplexity
from t2t_lite.training.lost_worker import PEER_ERRORS, lost_worker_error
from t2t_lite.training.optimization import build_optimizer, learning_rate_schedule
from t2t_lite.training.precision import dtype_policy, skipped_updates_line
from t2t_lite.training.progress import StepProgress
from t2t_lite.training.stop_requests import (EvaluationInterrupted, StopRequested, TimeLimit,
                                             stopped_before_the_loop)
from t2t_lite.training.train_input import TrainInput
from t2t_lite.training.train_step import TrainStep
from t2t_lite.training.trained_time import TrainedTime
from t2t_lite.training.warm_start import warm_start
from t2t_lite.training.worker_handshake import check_workers_agree


def train(problem, hparams, config, data_dir):
  """Trains (and/or evaluates) `problem` with `hparams`; resumes from config.output_dir.

  With config.mixed_precision set, Keras's global dtype policy is "mixed_<that>" while it
  runs; afterwards it is what it was before (models built later are unaffected).
  The run directory has one writer, and a start that fails leaves it as it was
  (`Run.training`). A run stopped by SIGTERM/SIGINT saves, then raises
  `stop_requests.StoppedBySignal`.
  """
  _check_output_dir(config)
  if config.random_seed is not None:
    keras.utils.set_random_seed(config.random_seed)
  with stopped_before_the_loop(), dtype_policy(config.mixed_precision):
    strategy = make_strategy(config.worker_gpu, config.locally_shard_to_cpu,
                             cluster_timeout_seconds=config.cluster_timeout_seconds,
                             cpu_replicas=hparams.cpu_replicas)
    with Run.training(config.output_dir, problem, hparams, data_dir, model=config.model,
                      flags=config.flags, strategy=strategy) as run:
      return _train_run(run, config, data_dir)


def _train_run(run, config, data_dir):
  """`train` in its run, under its dtype policy."""
  strategy, problem, hparams = run.strategy, run.problem, run.hparams
  # Each worker's clock would stop it alone. Before the handshake, which would name instead
  # the warmups that transformer_auto chose for each machine's speed under them.
  if is_multi_worker(strategy) and config.train_minutes:
    raise UserError("--train_minutes is not supported across several workers; stop the run "
                    "with --train_steps")
  replicas = strategy.num_replicas_in_sync
  jit_compile = uses_gpu(strategy) if config.xla is None else config.xla
  logging.info("%d replica(s), XLA %s, batch_size=%d tokens per replica, global batch %d "
               "tokens per step%s", replicas, "on" if jit_compile else "off", hparams.batch_size,
               hparams.batch_size * replicas * config.gradient_accumulation_steps,
               f", R-Drop alpha {hparams.rdrop_alpha:g} (each batch trained twice)"
               if hparams.rdrop_alpha else "")

  check_workers_agree(run, config, data_dir)  # Several workers: the same run, or one line.
  model = run.build_model()
  with strategy.scope():
    schedule = learning_rate_schedule(hparams, end_step=config.train_steps)
    optimizer = build_optimizer(hparams, schedule)
    if config.mixed_precision == "float16":
      optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    optimizer.build(model.trainable_variables)

  if jit_compile:
    logging.info(xla_bucket_note(hparams))
    on_this_cpu = 0 if uses_gpu(strategy) else local_replicas(strategy)  # Not other workers'.
    if on_this_cpu > 1:
      logging.warning(CPU_REPLICAS_UNDER_XLA.format(on_this_cpu))
  # Several workers read in a seeded order, so that each can skip what it read (train_input).
  deterministic = config.random_seed is not None or is_multi_worker(strategy)
  train_input = TrainInput(strategy, lambda num_shards, shard_index: problem.dataset(
      "train", data_dir, hparams, training=True, deterministic=deterministic,
      seed=config.random_seed, num_shards=num_shards, shard_index=shard_index,
      pad_to_bucket_boundary=jit_compile))
  trained_time = TrainedTime()  # --train_minutes count the run's time across restarts.
  checkpoints = run.checkpoints(
      config.keep_checkpoint_max, config.save_checkpoints_steps, config.seconds_between_saves(),
      model=model, optimizer=optimizer, **train_input.trackables(), **trained_time.trackables())
  resumed = checkpoints.restore_latest()
  if resumed:
    train_input.resume(resumed, current_step(optimizer))
  if resumed is None and config.warm_start_from:
    warm_start(run, config.warm_start_from)
  evaluator = Evaluator(strategy, model, hparams.label_smoothing, lambda context: problem.dataset(
      "dev", data_dir, hparams, training=False, deterministic=True,
      num_shards=context.num_input_pipelines, shard_index=context.input_pipeline_id),
      config.eval_steps)

  if config.eval_decode_sentences and config.schedule != "train":
    evaluator.dev_decoding = _dev_decoding(run, data_dir, config)
  watch = MetricWatch.for_run(config, run, evaluator.dev_decoding,
                              current_step(optimizer))  # best/ and early stopping.
  if watch and watch.stop_reason:
    print(f"{watch.stop_reason}; nothing to do (a larger --eval_early_stopping_steps trains "
          f"on)", flush=True)
    return None

  if config.schedule == "evaluate":
    results = evaluator.evaluate()
    print(eval_line(current_step(optimizer), results), flush=True)
    return results
  train_step = TrainStep(strategy, model, optimizer, hparams.label_smoothing,
                         config.gradient_accumulation_steps, jit_compile,
                         rdrop_alpha=hparams.rdrop_alpha)
  loop = _Loop(config, run, optimizer, schedule, train_step, checkpoints, trained_time,
               evaluator if config.schedule == "train_and_evaluate" else None, watch)
  return loop.run_to_the_end(train_input, resumed)


def current_step(optimizer):
  """The optimizer's update count: the step (a MirroredVariable's read under several
  replicas)."""
  return int(optimizer.iterations.numpy())


def _dev_decoding(run, data_dir, config):
  """The evaluation's decoding metric, or None where it cannot run (several workers)."""
  if is_multi_worker(run.strategy):
    logging.warning("decoding dev sentences is not supported across several workers; "
                    "evaluations report teacher-forced metrics only")
    return None
  return DevDecoding.from_data(run.problem, data_dir, run.translator(config.decode_hparams),
                               config.eval_decode_sentences)


def begun_hparams(config):
  """The HParams of the run begun in config.output_dir (its hparams.json), or None when no
  run has begun there."""
  return read_hparams(config.output_dir) if has_run(config.output_dir) else None


def _check_output_dir(config):
  """One-line errors for an --output_dir that cannot serve `config`, before writing to it."""
  check_run_directory_name(config.output_dir)
  check_output_directory(config.output_dir, "--output_dir")  # A file, RUN/best, RUN/train...
  if config.schedule == "evaluate" and not config.warm_start_from and not checkpoint_paths(
      config.output_dir):
    raise UserError(f"--schedule=evaluate needs a trained model, but {config.output_dir} has no "
                    f"checkpoint; train first or pass the --output_dir of a trained run")


class _Loop:
  """The steps of one run: progress, summaries, evaluations, checkpoints, stops."""

  def __init__(self, config, run, optimizer, schedule, train_step, checkpoints, trained_time,
               evaluator, watch):
    self.config, self.run = config, run
    self.schedule = schedule  # The learning rate's; linear_decay ends at its end_step.
    self.watch = watch  # The MetricWatch keeping best/ and deciding early stopping, or None.
    self.hparams, self.strategy = run.hparams, run.strategy
    self.target_vocab_size = run.description.target_vocab_size
    self.optimizer, self.train_step = optimizer, train_step
    self.checkpoints, self.evaluator = checkpoints, evaluator
    self.chief = is_chief(self.strategy)
    self.curves = Curves.for_run(run) if self.chief else None  # curves.png's history.
    self.multi_worker = is_multi_worker(self.strategy)
    self.eval_timer = EvalTimer.for_config(config, self.multi_worker)
    # The run's training time: what its checkpoint kept, and this loop's (saved with each
    # checkpoint); --train_minutes limit it.
    self.trained_time = trained_time
    self.time_limit = TimeLimit(config.train_minutes, trained_time.seconds(), self.step_now())

  def step_now(self):
    """The step the run is at: its optimizer's update count."""
    return current_step(self.optimizer)

  @functools.cached_property
  def train_writer(self):
    """Summaries of training steps (made on first use: a run with nothing to do writes none)."""
    return self._summary_writer(TRAIN_SUMMARIES)

  @functools.cached_property
  def eval_writer(self):
    return self._summary_writer(EVAL_SUMMARIES)

  def _summary_writer(self, split):
    if not self.chief:
      return tf.summary.create_noop_writer()
    return self.run.summary_writer(split)

  def run_to_the_end(self, train_input, resumed):
    """Trains to the end (steps, minutes, a signal or early stopping) -> the last
    evaluation's results, or None."""
    try:
      return self._train_until_stopped(train_input, resumed)
    except PEER_ERRORS as error:  # Collective operations failed.
      if not self.multi_worker:
        raise
      raise lost_worker_error(error, self.checkpoints.latest) from None
    finally:
      self._close_writers()

  def _close_writers(self):
    """Flushes and closes the summary writers made, so that a stopped or failed run's last
    events are on disk (a writer otherwise flushes every 10 events or 2 minutes)."""
    for name in ("train_writer", "eval_writer"):
      if name in self.__dict__:  # Made (functools.cached_property keeps it there).
        self.__dict__.pop(name).close()

  def _train_until_stopped(self, train_input, resumed):
    config = self.config
    step = self.step_now()
    if step >= config.train_steps:
      print(f"{self.run.output_dir} is already at step {step} >= --train_steps="
            f"{config.train_steps}; nothing to do", flush=True)
      return None
    time_limit = self.time_limit
    if time_limit.reached():
      print(f"{self.run.output_dir} " + time_limit.nothing_to_do(
          step, self._learning_rate_at(step), self.schedule.decays_to_the_end), flush=True)
      return None
    if resumed:
      print(f"resuming from {resumed} (step {step})", flush=True)
    progress = StepProgress(config.train_steps, step, minutes=time_limit.seconds_left() / 60)
    flops, start, skipped = 0.0, time.monotonic(), 0
    losses = LossWatch(self.target_vocab_size)
    # Signals stop the loop after its step, cut an evaluation short (not on several workers,
    # whose evaluations are collective) and never a save (`stop_requests`). Each step carries
    # every process's votes to stop and to save (by its clock) after it: the workers of a
    # run stop and save at the same step.
    with StopRequested(interrupt_evaluations=not self.multi_worker) as stop:
      # A fresh run's first evaluation is its baseline: the untrained model. Under
      # --train_minutes it decodes nothing: an untrained model's outputs run to their
      # longest, and their BLEU is 0, for minutes of the budget on long sentences.
      last_eval = (self._evaluate(step, progress, stop, decode=not config.train_minutes)
                   if self.evaluator and step == 0 else None)
      # One process stops at its own signal at once; workers at the step they agree on.
      stopping = bool(stop.signal_name) and not self.multi_worker  # One before the loop.
      # The time limit is read once a step, before that step's save: the save after the
      # loop then records the time that reached it (a restart has nothing to do).
      while step < config.train_steps and not stopping:
        self._move_the_end(time_limit, step)
        stats = self._train_one_step(train_input, votes=(
            float(bool(stop.signal_name)), float(self.checkpoints.due_by_time())))
        learning_rate = stats["learning_rate"]
        previous, step = step, self.step_now()
        loss = stats["loss_sum"] / max(stats["tokens"], 1.0)
        check_loss(step, loss, self.target_vocab_size, self.checkpoints.latest)
        losses.check(step, loss, self.checkpoints.latest)
        flops += cost.training_flops(
            self.hparams, self.target_vocab_size, stats["input_tokens"], stats["tokens"],
            stats["input_tokens"] / max(stats["examples"], 1.0),
            stats["tokens"] / max(stats["examples"], 1.0))
        progress.update(step, loss, stats["tokens"], learning_rate)
        if progress.line.reader_gone:  # Nothing reads its output any more: save and stop.
          stop.output_reader_gone()
        self._write_train_summaries(step, stats, learning_rate, progress.tokens_per_second())
        # float16 loss scaling skips the update (and the step) when gradients overflow.
        advanced = step > previous
        skipped += not advanced
        if time_limit.reached():
          break
        if advanced and self.evaluator and self.eval_timer.due(step):
          last_eval = self._evaluate(step, progress, stop) or last_eval
        if advanced and (self.checkpoints.due_by_steps(step) or stats["save_votes"]):
          self._save(step)
        if stats["stop_votes"]:
          stop.join_another_worker()  # No-op where the signal came to this process.
        stopping = bool(stats["stop_votes"] or (stop.signal_name and not self.multi_worker))
        if self.watch and self.watch.stop_reason:
          progress.message(self.watch.stop_reason)
          break
      progress.finish()
      if skipped:
        progress.message(skipped_updates_line(skipped, self.optimizer))
      path = self._save(step)
      if time_limit.reached() and step < config.train_steps and not stop.signal_name:
        progress.message(time_limit.describe(path, step))
      # Workers evaluate together: only the stop they agreed on skips their last evaluation.
      signalled = stopping if self.multi_worker else stop.signal_name
      if self.evaluator and self.eval_timer.last_step != step and not signalled:
        last_eval = self._evaluate(step, progress, stop) or last_eval
      if stop.signal_name:
        progress.line.close()
        raise stop.stopped(path, step)
      seconds = time.monotonic() - start
      peak, description = cost.device_peak_flops(device_names(self.strategy),
                                                 config.mixed_precision or "float32",
                                                 achieved_flops=flops / max(seconds, 1e-9))
      progress.message(cost.cost_line(flops, seconds, peak, description))
    return last_eval

  def _learning_rate_at(self, step):
    """The learning rate step `step` used, as the run's summaries recorded it; None where
    they do not say (or this process is not the chief)."""
    if not self.curves:
      return None
    return self.curves.series[TRAIN_SUMMARIES].get("learning_rate", {}).get(step)

  def _train_one_step(self, train_input, votes):
    """One training step from `train_input`, whose position it advances -> its stats."""
    stats = self.train_step(train_input.iterator, votes)
    train_input.advance(stats["batches"])
    return stats

  def _move_the_end(self, time_limit, step):
    """Under --train_minutes, linear_decay ends where the run's pace meets the time limit
    (never past --train_steps)."""
    if self.schedule.decays_to_the_end:
      projected = time_limit.projected_step(step)
      if projected is not None:
        self.schedule.set_end_step(min(projected, self.config.train_steps))

  def _save(self, step):
    """Checkpoint ckpt-<step> (its path). The run describes itself (hparams.json, run.json)
    before its first save: a start or resume that stops before saving (refused, or with
    nothing to do) changes no file."""
    self.run.write_description()  # Once only.
    self.trained_time.record(self.time_limit.trained_seconds())
    return self.checkpoints.save(step)

  def _write_train_summaries(self, step, stats, learning_rate, tokens_per_second):
    tokens = max(stats["tokens"], 1.0)
    self._record(TRAIN_SUMMARIES, self.train_writer, step, {
        "loss": stats["loss_sum"] / tokens, "accuracy": stats["correct"] / tokens,
        "perplexity": perplexity(stats["nll_sum"] / tokens), "learning_rate": learning_rate,
        "tokens_per_second": tokens_per_second, "target_tokens": stats["tokens"]})

  def _evaluate(self, step, progress, stop, decode=True):
    """Evaluates, records and shows the results -> them; None when a signal cut the
    evaluation short (one that comes once it has finished leaves its results kept)."""
    try:
      with stop.interrupting():
        results = self.evaluator.evaluate() if decode else self.evaluator.evaluate_loss()
    except EvaluationInterrupted:
      progress.message(f"{stop.signal_name} during the evaluation at step {step}: evaluation "
                       f"abandoned, saving")
      return None
    finally:
      self.eval_timer.evaluated(step)  # The next by time is due that long after this one.
    self._report_evaluation(step, results, progress)
    if self.watch:  # Writing best/ is not cut short by a signal.
      self.watch.observe(step, results, progress.message)
    return results

  def _report_evaluation(self, step, results, progress):
    """Summaries, the eval line and curves.png for `results` of the evaluation at `step`."""
    values = {name: results[name] for name in ("loss", "accuracy", "perplexity")}
    if "decoded" in results:
      values[results["decoded"][0]] = results["decoded"][1]
    self._record(EVAL_SUMMARIES, self.eval_writer, step, values)
    progress.message(eval_line(step, results))
    self._draw_curves()

  def _record(self, split, writer, step, values):
    """Writes {tag: number} as summaries of `split` at `step`, and keeps them for curves.png.
    One event holds every tag: eager tf.summary.scalar calls for the six training tags cost
    10x as much (about 2 ms a step against 0.2, on 2 CPU cores shared with two runs), where a
    small model's whole step on a GPU is about 20 ms."""
    summary = tf.compat.v1.Summary(value=[
        tf.compat.v1.Summary.Value(tag=tag, simple_value=float(value))
        for tag, value in values.items()])
    with writer.as_default(step=step):
      tf.summary.experimental.write_raw_pb(summary.SerializeToString())
    if self.curves:
      self.curves.add(split, step, values)

  def _draw_curves(self):
    """curves.png; a picture that cannot be drawn is a warning, never a stopped run."""
    if not self.curves:
      return
    try:
      self.curves.draw()
    except Exception as error:  # Any drawing or file error: training goes on.
      logging.warning("could not draw %s: %s: %s", self.curves.path, type(error).__name__,
                      error)


