"""The training input of one process, and its position in the data, kept in every checkpoint.

    train_input = TrainInput(strategy, dataset_fn)        # dataset_fn(num_shards, shard_index)
    checkpoint = tf.train.Checkpoint(model=..., **train_input.trackables())
    ... restore ...; train_input.resume(path, step)      # after a checkpoint was restored
    stats = train_step(train_input.iterator); train_input.advance(stats["batches"])

Each process reads one input pipeline (its own shard of the training split when several
workers read) through a plain tf.data iterator; its replicas take consecutive batches of
it (`t2t_lite.training.train_step`). A checkpoint keeps the position two ways:

- `train_iterator`, the iterator's own state (shuffle buffers included), saved where one
  process trains (one device, or several local devices under MirroredStrategy). Exact,
  and nothing to replay: resuming continues the same stream of batches, also with another
  number of local replicas (the global batch changes, the schedule does not).
- `input_batches`, the batches each pipeline has yielded, with `input_pipelines` and
  `replicas`, saved always. Several workers resume from these alone, since one process
  writes the checkpoint and each worker's iterator state is its own: every worker reads
  its shard anew, in the seeded, deterministic order several workers always use, and
  skips the batches it had read. Exact too; the skip costs one pass of the input pipeline
  over those batches (no model computation).

A resume onto another number of pipelines (workers) cannot continue the same streams:
each pipeline skips the same share of the data, `input_batches` x old / new, and a
warning says the position is approximate.
"""

from absl import logging
import tensorflow as tf

from t2t_lite.distribute.strategy import input_pipeline, is_multi_worker

ITERATOR = "train_iterator"  # The name of the iterator's state in a checkpoint.


class TrainInput:
  """This process's training batches and their position (see the module doc).

  dataset_fn(num_shards, shard_index) -> the tf.data.Dataset of this pipeline's batches.
  """

  def __init__(self, strategy, dataset_fn):
    self.pipelines, self.pipeline_id = input_pipeline(strategy)
    self.replicas = strategy.num_replicas_in_sync
    self.keeps_iterator_state = not is_multi_worker(strategy)
    self.iterator = iter(dataset_fn(self.pipelines, self.pipeline_id))
    self.batches_read = tf.Variable(0, dtype=tf.int64, trainable=False, name="input_batches")
    self.saved_pipelines = tf.Variable(self.pipelines, dtype=tf.int64, trainable=False,
                                       name="input_pipelines")
    self.saved_replicas = tf.Variable(self.replicas, dtype=tf.int64, trainable=False,
                                      name="replicas")

  def trackables(self):
    """What a checkpoint saves of the position: {name: trackable}."""
    kept = {"input_batches": self.batches_read, "input_pipelines": self.saved_pipelines,
            "replicas": self.saved_replicas}
    if self.keeps_iterator_state:
      kept[ITERATOR] = self.iterator
    return kept

  def advance(self, batches):
    """Counts `batches` taken from the iterator."""
    self.batches_read.assign_add(batches)

  def resume(self, path, step):
    """Puts the input where checkpoint `path` (restored, at `step`) left it."""
    pipelines, replicas = int(self.saved_pipelines.numpy()), int(self.saved_replicas.numpy())
    if replicas != self.replicas:
      logging.warning("%s was trained with %d replica(s), this run has %d: from step %d on, "
                      "each step's global batch is %d/%d as large; the learning-rate "
                      "schedule goes on from that step", path, replicas, self.replicas, step,
                      self.replicas, replicas)
    if self.keeps_iterator_state and _holds_iterator_state(path):
      logging.info("input position: the iterator state saved in %s", path)
    else:
      read = int(self.batches_read.numpy())
      skip = read * pipelines // self.pipelines
      if pipelines != self.pipelines:
        logging.warning("%s was trained reading %d input pipeline(s), this run reads %d: "
                        "each skips %d batches, the same share of the data; the input "
                        "position is approximate", path, pipelines, self.pipelines, skip)
      else:
        logging.info("input position: skipping the %d batches pipeline %d had read", skip,
                     self.pipeline_id)
      _skip(self.iterator, skip)
      self.batches_read.assign(skip)
    self.saved_pipelines.assign(self.pipelines)
    self.saved_replicas.assign(self.replicas)


def _holds_iterator_state(path):
  return any(name.startswith(ITERATOR + "/") for name, _ in tf.train.list_variables(path))


@tf.function(autograph=False)
def _skip_in_graph(iterator, count):
  """Takes `count` elements of `iterator` and drops them, in one graph (no Python per
  element)."""
  def take_one(index):
    with tf.control_dependencies(tf.nest.flatten(next(iterator))):
      return index + 1
  return tf.while_loop(lambda index: index < count, take_one, [tf.constant(0, tf.int64)])


def _skip(iterator, count):
  if count:
    _skip_in_graph(iterator, tf.constant(count, tf.int64))
