"""t2t_lite on Keras's TensorFlow backend: the trainer's `TrainStep` and `decode_ids`, timed.

Runs only in a process of its own with KERAS_BACKEND=tensorflow (rows.py starts
one per row; Keras picks its backend once per process). What is timed is what
t2t-trainer and t2t-decoder run on a GPU:

  training: `t2t_lite.training.train_step.TrainStep` under the default strategy (one
    device), its per-replica forward and backward pass compiled with XLA
    (`jit_compile=True`, the trainer's `--xla`), the whole update one call of the
    step as the trainer makes it: each call returns the step's statistics as
    Python floats, so every step ends with the device synchronised;
  decoding: `decode_ids` inside `tf.function(jit_compile=True)`, as
    `t2t_lite.decoding.translate.Translator` compiles it on a GPU.

Precision: mixed_bfloat16 on a GPU (the trainer's --mixed_precision=bfloat16),
float32 elsewhere, as the JAX rows. Peak memory: TensorFlow's allocator
statistics (`tf.config.experimental.get_memory_info`) with memory growth on, so
that the peak is what the row used, not what TensorFlow reserved.
"""

import tensorflow as tf


def set_up_device():
  """Memory growth on every GPU; the dtype policy -> (policy name, device name)."""
  import keras
  gpus = tf.config.list_physical_devices("GPU")
  for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
  policy = "mixed_bfloat16" if gpus else "float32"
  keras.mixed_precision.set_dtype_policy(policy)
  return policy, "gpu" if gpus else "cpu"


def reset_peak():
  if tf.config.list_physical_devices("GPU"):
    tf.config.experimental.reset_memory_stats("GPU:0")


def peak_bytes():
  """Peak bytes TensorFlow's allocator held on the first GPU since `reset_peak`, or None."""
  if not tf.config.list_physical_devices("GPU"):
    return None
  return tf.config.experimental.get_memory_info("GPU:0")["peak"]


class TfTrainStep:
  """`__call__()`: one t2t_lite `TrainStep` update on a fixed batch -> the mean token loss.

  inputs, targets: [batch, length] int32 numpy ids; the batch comes from a repeating
  tf.data pipeline, distributed as the trainer distributes its own.
  """

  def __init__(self, hparams, vocab_size, inputs, targets, jit_compile=True):
    from bench.gpu.model import build_model
    from t2t_lite.training.optimization import build_optimizer
    from t2t_lite.training.train_step import TrainStep
    strategy = tf.distribute.get_strategy()
    self.model = build_model(hparams, vocab_size)
    optimizer = build_optimizer(hparams)
    optimizer.build(self.model.trainable_variables)
    features = {"inputs": tf.constant(inputs, tf.int32), "targets": tf.constant(targets,
                                                                                 tf.int32)}
    dataset = strategy.distribute_datasets_from_function(
        lambda context: tf.data.Dataset.from_tensors(features).repeat().prefetch(2))
    self.iterator = iter(dataset)
    self.step = TrainStep(strategy, self.model, optimizer, hparams.label_smoothing,
                          jit_compile=jit_compile, rdrop_alpha=hparams.rdrop_alpha)

  def __call__(self):
    stats = self.step(self.iterator)
    return stats["loss_sum"] / max(stats["tokens"], 1.0)


def no_wait(unused_output):
  """TrainStep's call already waits: it returns Python floats."""


def decoder(model, beam_size, alpha, extra_length):
  """-> fn(inputs [batch, width] int32 numpy) -> best ids [batch, width + extra_length] numpy.

  One XLA-compiled function per (beam_size, input shape): the first call compiles.
  """
  from bench.forced_length import ForcedLength
  from t2t_lite.decoding.model_decoding import decode_ids
  forced = ForcedLength(model)

  @tf.function(jit_compile=True, autograph=False)
  def run(inputs):
    ids, _ = decode_ids(forced, inputs, beam_size=beam_size, alpha=alpha,
                        extra_length=extra_length)
    return ids[:, 0]                                                   # [batch, length]

  def decode(inputs):
    return run(tf.constant(inputs, tf.int32)).numpy()                  # Blocks.
  return decode

