"""Does TensorFlow see the GPU, compile for it with XLA, and agree with itself there?

    python bench/gpu/tf_gpu_check.py    # with an offline bundle's env.sh sourced
"""

import tensorflow as tf

gpus = tf.config.list_physical_devices("GPU")
print("TensorFlow", tf.__version__, "GPUs:", gpus, "built for CUDA",
      tf.sysconfig.get_build_info().get("cuda_version"))
assert gpus, "TensorFlow registers no GPU: see the 'Cannot dlopen' lines above"
a = tf.random.normal([2048, 2048], dtype=tf.float32) / 45.0
blas = a @ a                                              # cuBLAS (no XLA)
xla = tf.function(lambda x: x @ x, jit_compile=True)(a)   # XLA's GEMM (cuBLAS(Lt) or Triton)
print("XLA on", xla.device, "| max |cuBLAS - XLA| in float32:",
      float(tf.reduce_max(tf.abs(blas - xla))))
print("bf16 softmax under XLA:",
      tf.function(lambda x: tf.nn.softmax(x @ x), jit_compile=True)(
          tf.cast(a, tf.bfloat16)).dtype, "ok")
