"""Cached incremental decoding of the PyTorch peer on any device, bfloat16 autocast optional.

The step function is peers/torch_transformer.py's `CachedSteps` (per decoder
layer, a fixed-size key/value cache written at each step; encoder-decoder keys
and values projected once); this module runs its greedy or beam loop with every
tensor on the model's device. The length rule is t2t_lite's `decode_ids`': sentence b
emits exactly len_b + extra_length tokens, the last one EOS, EOS not allowed
before (the lengths an untrained model is benchmarked at), so all hypotheses have
one length and the beam keeps the best log-probs.
"""

import contextlib

import numpy as np
import torch
import torch.nn.functional as F

from bench.peers.torch_transformer import EOS_ID, PAD_ID, CachedSteps, beam_advance


@torch.no_grad()
def decode(model, inputs, beam_size, extra_length, bfloat16=False):
  """inputs [batch, s] ids (0 = padding) -> ids [batch, s + extra_length] of the best hypotheses.

  Runs on the device of `model` (a `TorchTransformer`); with bfloat16, under autocast
  with the caches in bfloat16. Returns a NumPy array (the call waits for the device).
  """
  model.eval()
  device = next(model.parameters()).device
  autocast = (torch.autocast(device.type, dtype=torch.bfloat16) if bfloat16
              else contextlib.nullcontext())
  # nn.TransformerEncoder's inference fast path takes no autocast on a CPU (on CUDA it
  # steps aside by itself under autocast): the encoder then runs its ordinary layers.
  fast_path = torch.backends.mha.get_fastpath_enabled()
  torch.backends.mha.set_fastpath_enabled(fast_path and not bfloat16)
  try:
    with autocast:
      return _search(model, torch.as_tensor(np.asarray(inputs, np.int64), device=device),
                     beam_size, extra_length, torch.bfloat16 if bfloat16 else torch.float32)
  finally:
    torch.backends.mha.set_fastpath_enabled(fast_path)


def _search(model, inputs, beam_size, extra_length, cache_dtype):
  batch, device = inputs.shape[0], inputs.device
  steps = CachedSteps(model)
  limits = (inputs != PAD_ID).sum(1) + extra_length                # [batch]
  length = inputs.shape[1] + extra_length
  memory, padding = model.encode(inputs)                           # [batch, s, d], [batch, s]
  rows = torch.arange(batch, device=device).repeat_interleave(beam_size)  # [batch * beam]
  state = _reorder(steps.init(memory.to(cache_dtype), padding, length), rows)
  limits = limits[rows]                                            # [batch * beam]
  is_eos = torch.arange(model.embedding.num_embeddings, device=device) == EOS_ID  # [vocab]
  scores = torch.full((batch, beam_size), float("-inf"), device=device)
  scores[:, 0] = 0.0                                               # One live hypothesis.
  ids = torch.zeros(batch * beam_size, dtype=torch.int64, device=device)
  sequences = torch.zeros(batch, beam_size, 0, dtype=torch.int64, device=device)
  offsets = torch.arange(batch, device=device)[:, None] * beam_size  # [batch, 1]
  for step in range(length):
    logits, state = steps(ids, step, state)                        # [batch * beam, vocab]
    log_probs = F.log_softmax(logits.float(), dim=-1)
    at_limit = (step + 1 >= limits)[:, None]                       # [batch * beam, 1]
    log_probs = log_probs.masked_fill(at_limit != is_eos[None], float("-inf"))
    scores, origins, ids, sequences = beam_advance(
        scores, log_probs.view(batch, beam_size, -1), sequences)
    if beam_size > 1:
      state = _reorder(state, (origins + offsets).view(-1))
    ids = ids.view(-1)
  best = sequences[:, 0]                                           # [batch, length]
  # After its EOS a sentence's steps chose EOS again (-inf elsewhere): zeros, as decode_ids.
  after_eos = torch.cumsum((best == EOS_ID).int(), dim=1) - (best == EOS_ID).int() > 0
  return best.masked_fill(after_eos, PAD_ID).cpu().numpy()


def _reorder(state, rows):
  """Every cached tensor's batch rows taken in the order `rows` [n]."""
  return {name: [t.index_select(0, rows) for t in value] if isinstance(value, list)
          else value.index_select(0, rows) for name, value in state.items()}
