"""t2t_lite: tensor2tensor's Transformer on TensorFlow 2 and Keras 3."""

import os

# TensorFlow turns its oneDNN kernels on by itself only on CPUs with AVX512_VNNI or newer;
# on AVX2-only CPUs it runs Eigen's, whose float32 matmul ran at 0.7x oneDNN's there and
# the training step at 0.5-0.8x (docs/results.md). Set before TensorFlow is imported;
# TF_ENABLE_ONEDNN_OPTS=0 still turns them off.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")

__version__ = "0.1.0"
