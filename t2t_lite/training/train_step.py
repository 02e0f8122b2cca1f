"""The distributed training step: gradients per replica (XLA-compiled), one update.

Loss normalisation: each replica sums its per-token losses; the sum of non-padding
target tokens over every replica and every accumulated micro-batch divides the
gradients. The update therefore equals one step on the whole global batch, whatever
the number of replicas or `gradient_accumulation_steps` (tested against one device).

Input: one plain iterator per process (its own, checkpointable tf.data iterator); each
step takes `accumulation_steps` batches for each of the process's replicas from it, in
turn: replica r of this process gets batches r*A ... r*A + A - 1 of the step's share.

Votes: every call takes this process's (stop, save) votes and returns their sums over
every replica, reduced with the statistics in one all-reduce, so that all workers of a
run agree on when to stop and to save (`t2t_lite.training.trainer`).

XLA: compiling the whole replicated step fails under MirroredStrategy with several
devices ("Trying to access resource ... located in device ... from device ...").
Here only the per-replica forward and backward pass is compiled; the cross-replica
sum and the optimizer update run outside it. With one replica (one GPU, or the CPU) the
update is compiled too: outside XLA it is a few kernels per variable, each launched on
its own (on an H200, TensorFlow's transformer_base step took 52.4 ms against 41.8 ms for
the same model's jitted JAX step, whose update is compiled; docs/benchmarks.md).
"""

from absl import logging
import keras
import tensorflow as tf

from t2t_lite.layers.losses import non_padding, smoothed_cross_entropy
from t2t_lite.distribute.strategy import local_replicas
from t2t_lite.training.r_drop import doubled, halves, r_drop_loss_sum

# What a step reports, summed over replicas and micro-batches.
STAT_NAMES = ("loss_sum", "nll_sum", "correct", "tokens", "input_tokens", "examples")
# What each process votes for before a step, summed over replicas: stop after the step
# (a signal came), save after it (its clock says a save is due).
VOTE_NAMES = ("stop_votes", "save_votes")
NO_VOTES = (0.0, 0.0)


def token_statistics(features, logits, label_smoothing):
  """Sums over a batch: smoothed loss, NLL and correct argmaxes over non-padding
  target tokens; target and input token counts; examples."""
  targets = features["targets"]
  weights = non_padding(targets)
  loss_sum = tf.reduce_sum(smoothed_cross_entropy(targets, logits, label_smoothing))
  nll_sum = tf.reduce_sum(smoothed_cross_entropy(targets, logits, 0.0))
  predictions = tf.argmax(logits, axis=-1, output_type=targets.dtype)
  correct = tf.reduce_sum(tf.cast(tf.equal(predictions, targets), tf.float32) * weights)
  input_tokens = tf.reduce_sum(non_padding(features["inputs"]))
  return {"loss_sum": loss_sum, "nll_sum": nll_sum, "correct": correct,
          "tokens": tf.reduce_sum(weights), "input_tokens": input_tokens,
          "examples": tf.cast(tf.shape(targets)[0], tf.float32)}


class TrainStep:
  """Builds `__call__(iterator, votes) -> stats`: one optimizer update from the next batches.

  model, optimizer: built under `strategy.scope()`; the optimizer may be a
    `keras.optimizers.LossScaleOptimizer` (float16).
  accumulation_steps: micro-batches (per replica) summed into one update.
  jit_compile: compile the per-replica forward/backward pass with XLA.
  rdrop_alpha: above 0, R-Drop's weight (t2t_lite.training.r_drop): each batch goes
    through the model twice; the stats are the first pass's.
  """

  def __init__(self, strategy, model, optimizer, label_smoothing, accumulation_steps=1,
               jit_compile=False, rdrop_alpha=0.0):
    self.strategy = strategy
    self.model = model
    self.optimizer = optimizer
    self.label_smoothing = label_smoothing
    self.rdrop_alpha = rdrop_alpha
    self.accumulation_steps = accumulation_steps
    self.local_replicas = local_replicas(strategy)
    # Batches a call takes from this process's iterator.
    self.batches_per_call = self.local_replicas * accumulation_steps
    self._compile(jit_compile)
    self._has_run = False

  def _compile(self, jit_compile):
    self.jit_compile = jit_compile
    # autograph=False: nothing traced here branches on a tensor in Python, and converting
    # the model's code to graph code cost seconds at every start.
    compile_options = dict(reduce_retracing=True, autograph=False)
    self.update_compiled = jit_compile and self.strategy.num_replicas_in_sync == 1
    if self.update_compiled:
      self._gradients = self._gradients_and_stats
      self._replica = tf.function(self._replica_step, jit_compile=True, **compile_options)
    else:
      self._gradients = tf.function(self._gradients_and_stats, jit_compile=jit_compile,
                                    **compile_options)
      self._replica = self._replica_step
    self._step = tf.function(self._distributed_step, autograph=False)

  def __call__(self, iterator, votes=NO_VOTES):
    """Consumes `batches_per_call` batches of `iterator`; returns summed stats and votes
    (floats), the update's "learning_rate" (read in the step: no eager schedule per step)
    and "batches", the batches taken from `iterator`.

    If XLA cannot compile the first step, says so once and goes on without XLA
    (the batches of that attempt are skipped, and counted in "batches").
    """
    votes = tf.constant(votes, tf.float32)
    batches = self.batches_per_call
    try:
      stats = self._step(iterator, votes)
    except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as error:
      if not self.jit_compile or self._has_run:
        raise
      message = str(error).strip().splitlines()[0]
      logging.warning("XLA cannot compile the training step (%s); going on without XLA",
                      message)
      self._compile(False)
      stats = self._step(iterator, votes)
      batches += self.batches_per_call
    self._has_run = True
    return dict({name: float(value) for name, value in stats.items()}, batches=batches)

  def _gradients_and_stats(self, features):
    """Per replica: gradients of the summed token loss (not yet normalised), and stats."""
    variables = self.model.trainable_variables
    with tf.GradientTape() as tape:
      if self.rdrop_alpha:
        logits, other_logits = halves(self.model(doubled(features), training=True))
      else:
        logits = self.model(features, training=True)
      stats = token_statistics(features, logits, self.label_smoothing)
      loss = stats["loss_sum"]
      if self.rdrop_alpha:
        loss = r_drop_loss_sum(features["targets"], logits, other_logits, loss,
                               self.label_smoothing, self.rdrop_alpha)
      if isinstance(self.optimizer, keras.optimizers.LossScaleOptimizer):
        loss = self.optimizer.scale_loss(loss)
    gradients = tape.gradient(loss, variables)
    return gradients, stats

  def _replica_step(self, batches, votes):
    """batches: `accumulation_steps` feature dicts of this replica; votes: [2] its
    process's. -> [statistics..., votes...] of this replica, float32."""
    variables = self.model.trainable_variables
    gradients, stats = self._gradients(batches[0])
    for features in batches[1:]:
      more_gradients, more_stats = self._gradients(features)
      gradients = [g + h for g, h in zip(gradients, more_gradients)]
      stats = {name: stats[name] + more_stats[name] for name in STAT_NAMES}
    context = tf.distribute.get_replica_context()
    global_tokens = context.all_reduce(tf.distribute.ReduceOp.SUM, stats["tokens"])
    scale = 1.0 / tf.maximum(global_tokens, 1.0)
    # The optimizer sums the gradients over replicas: together, the global mean.
    self.optimizer.apply_gradients([(g * tf.cast(scale, g.dtype), v)
                                    for g, v in zip(gradients, variables)])
    return tf.concat([tf.stack([tf.cast(stats[name], tf.float32) for name in STAT_NAMES]),
                      votes], axis=0)

  def _distributed_step(self, iterator, votes):
    learning_rate = self.optimizer.learning_rate  # The rate this update applies.
    # [local replica][micro-batch] feature dicts, in the iterator's order.
    local = [[next(iterator) for _ in range(self.accumulation_steps)]
             for _ in range(self.local_replicas)]
    batches = self.strategy.experimental_distribute_values_from_function(
        lambda context: local[context.replica_id_in_sync_group % self.local_replicas])
    per_replica = self.strategy.run(self._replica, args=(batches, votes))
    sums = tf.unstack(self.strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None))
    return dict(zip(STAT_NAMES + VOTE_NAMES, sums), learning_rate=learning_rate)
