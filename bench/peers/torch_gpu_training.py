"""The PyTorch peer's training step on any device: bfloat16 autocast, fused Adam, torch.compile.

The model is peers/torch_transformer.py's `TorchTransformer`, with dropout set
where t2t_lite's hparams put it (`match_dropout`): nn.Transformer has one rate
for attention weights, the feed-forward network's ReLU and the residuals, while
the paper's sets drop residuals and embeddings only. So both sides do the same
work at any hparams set. One step: forward, label-smoothed cross-entropy over
non-padding target tokens, backward, Adam (the fused kernel: `fused=True`).
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from bench.peers.torch_transformer import PAD_ID, TorchTransformer, paper_adam


def match_dropout(model, hparams):
  """Sets attention-weight and ReLU dropout to hparams' rates (residuals keep theirs)."""
  layers = list(model.transformer.encoder.layers) + list(model.transformer.decoder.layers)
  for layer in layers:
    for attention in (getattr(layer, "self_attn", None), getattr(layer, "multihead_attn", None)):
      if attention is not None:
        attention.dropout = hparams.attention_dropout
    layer.dropout = nn.Dropout(hparams.relu_dropout)  # Inside the feed-forward network.
  return model


class TorchStep:
  """`__call__()`: one training step on a fixed batch -> the loss tensor (not synchronised).

  device: "cuda" or "cpu"; bfloat16: autocast the forward pass (weights and Adam stay
  float32, as with Keras's mixed_bfloat16); compile: None, or a torch.compile backend
  ("inductor" is the default one) for the forward pass and loss.
  """

  def __init__(self, hparams, vocab_size, inputs, targets, device, bfloat16, compile=None):
    torch.manual_seed(0)
    self.device = torch.device(device)
    self.model = match_dropout(TorchTransformer(hparams, vocab_size), hparams)
    self.model = self.model.to(self.device).train()
    self.inputs = torch.as_tensor(np.asarray(inputs, np.int64), device=self.device)   # [b, s]
    self.targets = torch.as_tensor(np.asarray(targets, np.int64), device=self.device) # [b, t]
    self.vocab_size, self.label_smoothing = vocab_size, hparams.label_smoothing
    self.bfloat16 = bfloat16
    self.optimizer, self.schedule = paper_adam(self.model, hparams)
    self.loss = torch.compile(self._loss, backend=compile) if compile else self._loss

  def _loss(self, inputs, targets):
    """-> mean label-smoothed cross-entropy over non-padding target tokens (a scalar)."""
    with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bfloat16):
      logits = self.model(inputs, targets)                               # [b, t, vocab]
    tokens = (targets != PAD_ID).sum().clamp(min=1)
    return F.cross_entropy(logits.float().reshape(-1, self.vocab_size), targets.reshape(-1),
                           ignore_index=PAD_ID, label_smoothing=self.label_smoothing,
                           reduction="sum") / tokens

  def __call__(self):
    loss = self.loss(self.inputs, self.targets)
    self.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    self.optimizer.step()
    self.schedule.step()
    return loss.detach()


def synchronize(device):
  """Waits for the device's queued work (a no-op on the CPU)."""
  if torch.device(device).type == "cuda":
    torch.cuda.synchronize()


def peak_memory_bytes(device):
  """The most memory tensors took on the device since the last reset, or None (CPU)."""
  if torch.device(device).type == "cuda":
    return int(torch.cuda.max_memory_allocated())
  return None


def reset_peak_memory(device):
  if torch.device(device).type == "cuda":
    torch.cuda.reset_peak_memory_stats()
