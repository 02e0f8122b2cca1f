"""Trains a small Transformer 3 SGD steps on a fixed global batch and saves the updates.

    python distribution_check.py local OUT_DIR
        writes OUT_DIR/<mode>.npz for each local mode:
          single       one device, the whole batch
          single_xla   the same with the whole step (update included) compiled by XLA
          accumulate   one device, 2 accumulated halves
          mirrored     2 logical CPUs under MirroredStrategy, a half each
          mirrored_xla the same with the per-replica step compiled by XLA
    python distribution_check.py local_gpu OUT_DIR
        the same on a GPU: the first GPU split into 2 logical GPUs, TF32 off
        (bench/gpu/two_replicas.py runs it there)
    python distribution_check.py worker OUT_DIR INDEX PORT0 PORT1
        writes OUT_DIR/worker<INDEX>.npz: 2 processes on 127.0.0.1 under
        MultiWorkerMirroredStrategy, a half each

Every mode sees the same global batch per step, so all must give the same update.
Plain SGD makes the update the normalised gradient itself (times the learning rate):
Adam would divide a near-zero gradient element by its own square root and so blow
float32 round-off up to a whole learning rate, whatever the summation order.
"""

import json
import os
import sys

MODE, OUT = sys.argv[1], sys.argv[2]
if MODE == "worker":
  INDEX, PORTS = int(sys.argv[3]), sys.argv[4:6]
  os.environ["TF_CONFIG"] = json.dumps({
      "cluster": {"worker": [f"127.0.0.1:{port}" for port in PORTS]},
      "task": {"type": "worker", "index": INDEX}})

sys.path.insert(0, os.path.dirname(__file__))
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

DEVICE = "GPU" if MODE == "local_gpu" else "CPU"
if MODE in ("local", "local_gpu"):
  physical = tf.config.list_physical_devices(DEVICE)[0]
  # Logical GPUs need a memory limit each; this model needs a few MB.
  limit = 2048 if DEVICE == "GPU" else None
  tf.config.set_logical_device_configuration(
      physical, [tf.config.LogicalDeviceConfiguration(memory_limit=limit)] * 2)
  # TF32 rounds float32 matmul inputs to 10-bit mantissas: far above the float32 round-off
  # the comparison allows.
  tf.config.experimental.enable_tensor_float_32_execution(False)

from model_fixtures import SMALL, random_batch, small_model  # noqa: E402
from t2t_lite.distribute.strategy import make_strategy  # noqa: E402
from t2t_lite.training.train_step import TrainStep  # noqa: E402

# One layer: the property does not depend on depth, and each layer adds tracing (and XLA
# compile) time to every mode.
HPARAMS = SMALL.override("layer_prepostprocess_dropout=0.0,num_hidden_layers=1")
LEARNING_RATE = 0.5
FIRST = random_batch(batch=4, seed=1)
SECOND = random_batch(batch=4, input_length=9, target_length=5, seed=2)


def as_features(batch):
  return {"inputs": batch[0], "targets": batch[1]}


def padded_to(array, length):
  return np.pad(array, [[0, 0], [0, length - array.shape[1]]])


WHOLE = {"inputs": np.concatenate([padded_to(FIRST[0], 9), SECOND[0]]),
         "targets": np.concatenate([FIRST[1], padded_to(SECOND[1], 6)])}
SPEC = {"inputs": tf.TensorSpec([None, None], tf.int32),
        "targets": tf.TensorSpec([None, None], tf.int32)}


def repeating(batches):
  """A dataset that yields `batches` in turn, forever: a process's input pipeline, whose
  consecutive batches go to its replicas (and their micro-batches) in turn."""
  def generate():
    while True:
      yield from batches
  return tf.data.Dataset.from_generator(generate, output_signature=SPEC)


def train_and_save(name, strategy, batches, accumulation=1, jit_compile=False):
  """Three SGD steps of `strategy` over `batches`; saves OUT/<name>.npz: every weight's
  initial value and update (final - initial), each step's loss sum, tokens per step."""
  with strategy.scope():
    model = small_model(HPARAMS)
    model(as_features(FIRST))
    optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE)
    optimizer.build(model.trainable_variables)
  initial = [np.asarray(v) for v in model.weights]
  step = TrainStep(strategy, model, optimizer, HPARAMS.label_smoothing, accumulation,
                   jit_compile)
  iterator = iter(repeating(batches))
  losses = []
  for _ in range(3):
    stats = step(iterator)
    losses.append(stats["loss_sum"])
  updates = [np.asarray(v) - start for v, start in zip(model.weights, initial)]
  assert max(np.abs(update).max() for update in updates) > 1e-4, "weights unchanged"
  arrays = {**{f"initial_{i}": value for i, value in enumerate(initial)},
            **{f"update_{i}": update for i, update in enumerate(updates)}}
  np.savez(os.path.join(OUT, f"{name}.npz"), **arrays, losses=np.array(losses),
           tokens=stats["tokens"])
  print(f"{name}: done, {stats['tokens']:.0f} tokens per step")


def main():
  halves = [as_features(FIRST), as_features(SECOND)]  # Replica (or worker) i gets half i.
  if MODE == "worker":
    strategy = make_strategy()
    assert isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy)
    train_and_save(f"worker{INDEX}", strategy, halves[INDEX:INDEX + 1])
    return
  default = tf.distribute.get_strategy()
  train_and_save("single", default, [WHOLE])
  train_and_save("single_xla", default, [WHOLE], jit_compile=True)
  train_and_save("accumulate", default, halves, accumulation=2)
  mirrored = tf.distribute.MirroredStrategy([f"/{DEVICE.lower()}:{i}" for i in (0, 1)])
  train_and_save("mirrored", mirrored, halves)
  train_and_save("mirrored_xla", mirrored, halves, jit_compile=True)


main()
