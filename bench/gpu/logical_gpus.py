"""t2t-trainer with several replicas on a machine with one GPU: the GPU split into logical GPUs.

    python -m bench.gpu.logical_gpus --replicas=2 [--memory_mib=40960] -- T2T_TRAINER_FLAGS...

Splits the first GPU into --replicas logical GPUs of --memory_mib each, then runs
t2t-trainer's own entry point with --worker_gpu=REPLICAS and the flags given: its
MirroredStrategy over those devices is what several GPUs give (one all-reduce between
them, each replica its share of the batch). On a machine without a GPU (a CPU rehearsal),
the trainer's --locally_shard_to_cpu does the same with logical CPUs.
"""

import argparse
import sys

from bench.gpu import installed_t2t_lite_first


def split_first_gpu(replicas, memory_mib):
  """-> True if the first GPU is now `replicas` logical GPUs; False without a GPU."""
  import tensorflow as tf
  gpus = tf.config.list_physical_devices("GPU")
  if not gpus:
    return False
  tf.config.set_logical_device_configuration(
      gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=memory_mib)] * replicas)
  return True


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--replicas", type=int, default=2)
  parser.add_argument("--memory_mib", type=int, default=40960,
                      help="Each logical GPU's memory (an H100 or H200 holds two of 40 GiB).")
  parser.add_argument("trainer_flags", nargs=argparse.REMAINDER,
                      help="t2t-trainer's flags, after --.")
  args = parser.parse_args(sys.argv[1:] if argv is None else argv)
  flags = [flag for flag in args.trainer_flags if flag != "--"]
  on_gpus = split_first_gpu(args.replicas, args.memory_mib)
  print(f"logical_gpus: {args.replicas} replicas on " +
        ("logical GPUs of GPU 0" if on_gpus else "logical CPUs (no GPU)"), flush=True)
  sys.argv = (["t2t-trainer", f"--worker_gpu={args.replicas}"] + flags +
              ([] if on_gpus else ["--locally_shard_to_cpu"]))
  installed_t2t_lite_first()  # Its t2t_lite.bin.
  from t2t_lite.bin import t2t_trainer
  return t2t_trainer.run()


if __name__ == "__main__":
  sys.exit(main())
