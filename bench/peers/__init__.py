"""The peers: the same Transformer in other implementations, imported only when installed.

  torch_transformer.py      PyTorch's nn.Transformer: training, cached and uncached decoding
  keras_hub_transformer.py  keras-hub's TransformerEncoder/TransformerDecoder layers: training
  torch_cached_decoding.py  the PyTorch peer's cached greedy and beam decoding on any device
  torch_gpu_training.py     the PyTorch peer's training step: bfloat16 autocast, fused Adam, compile
"""

import importlib.util

INSTALL_HINT = "pip install -e '.[bench]'"


def missing(module):
  """None when `module` can be imported, else a note saying which peer is skipped and why."""
  if importlib.util.find_spec(module) is None:
    return f"{module} is not installed: its rows are skipped ({INSTALL_HINT})"
  return None


def use_all_cores():
  """Every framework computes on all cores (TensorFlow does by default; PyTorch is told)."""
  if not missing("torch"):
    import os
    import torch
    torch.set_num_threads(os.cpu_count())
