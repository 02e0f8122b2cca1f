"""t2t_lite: tensor2tensor's Transformer on TensorFlow 2 and Keras 3."""

__version__ = "0.1.0"
