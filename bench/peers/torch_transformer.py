"""The same Transformer in PyTorch: `nn.Transformer` with shared embeddings and softmax.

Training: label-smoothed cross-entropy over non-padding tokens and Adam with the
paper's betas, epsilon and learning-rate schedule, like t2t_lite's TrainStep;
Adam is PyTorch's fused CPU kernel (`fused=True`): its default, a loop of
elementwise operations per parameter, is several times slower on a CPU.
Decoding: greedy and beam search as plain Python loops, over a step function
with a fixed-size key/value cache (`CachedSteps`) or one that re-runs the
decoder over the whole prefix (`UncachedSteps`, the usual way nn.Transformer is
decoded).

The function is t2t_lite's: post-norm layers, sinusoids laid out in halves,
embeddings scaled by sqrt(d_model) (id 0, padding, embedding as zeros), and
nn.Transformer's extra final layer norm of each stack removed. `copy_weights_from`
loads a t2t_lite model, so that a benchmark can check both emit the same ids.
nn.Transformer has one dropout rate for attention weights, ReLU activations and
residuals: hparams' `layer_prepostprocess_dropout`.
"""

import math
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

PAD_ID, EOS_ID = 0, 1

# nn.TransformerEncoder's inference fast path announces its prototype nested tensors.
warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")


def sinusoids(length, depth):
  """[length, depth]: t2t_lite's encodings (sin in the first half of channels, cos after)."""
  half = depth // 2
  inverse_timescales = torch.exp(torch.arange(half) * (-2.0 * math.log(1e4) / depth))
  angles = torch.arange(length)[:, None] * inverse_timescales[None, :]  # [length, half]
  return torch.cat([angles.sin(), angles.cos()], dim=-1)


class TorchTransformer(nn.Module):
  """Encoder-decoder Transformer of `hparams` shapes over one shared vocabulary."""

  def __init__(self, hparams, vocab_size):
    super().__init__()
    d = hparams.hidden_size
    self.hidden_size, self.num_heads = d, hparams.num_heads
    self.embedding = nn.Embedding(vocab_size, d)
    nn.init.normal_(self.embedding.weight, std=d ** -0.5)
    self.transformer = nn.Transformer(
        d, hparams.num_heads, hparams.num_hidden_layers, hparams.num_hidden_layers,
        hparams.filter_size, hparams.layer_prepostprocess_dropout, batch_first=True,
        layer_norm_eps=hparams.norm_epsilon)
    self.transformer.encoder.norm = None  # Post-norm layers end normalised already.
    self.transformer.decoder.norm = None
    self.dropout = nn.Dropout(hparams.layer_prepostprocess_dropout)
    self.register_buffer("positions", sinusoids(hparams.max_length + 64, d), persistent=False)

  def forward(self, inputs, targets):
    """inputs [batch, s], targets [batch, t] int64 -> logits [batch, t, vocab]."""
    memory, padding = self.encode(inputs)
    decoder_inputs = F.pad(targets, (1, 0))[:, :-1]  # [batch, t]: 0 first, shifted right.
    return self.decode(decoder_inputs, memory, padding)

  def embed(self, ids, start=0):
    """[batch, length] ids at positions start.. -> [batch, length, d_model].

    Id 0 (padding, and the decoder's first input) embeds as zeros, as in t2t_lite.
    """
    not_padding = (ids != PAD_ID)[..., None]
    x = self.embedding(ids) * math.sqrt(self.hidden_size) * not_padding
    return self.dropout(x + self.positions[start:start + ids.shape[1]])

  def encode(self, inputs):
    """-> (memory [batch, s, d_model], padding [batch, s] bool)."""
    padding = inputs == PAD_ID
    return self.transformer.encoder(self.embed(inputs), src_key_padding_mask=padding), padding

  def decode(self, decoder_inputs, memory, padding):
    """Teacher-forced: decoder_inputs [batch, t] -> logits [batch, t, vocab]."""
    causal = nn.Transformer.generate_square_subsequent_mask(decoder_inputs.shape[1])
    x = self.transformer.decoder(self.embed(decoder_inputs), memory, tgt_mask=causal,
                                 tgt_is_causal=True, memory_key_padding_mask=padding)
    return F.linear(x, self.embedding.weight)

  @torch.no_grad()
  def copy_weights_from(self, model):
    """Loads a t2t_lite `Transformer`'s weights (shared embedding, post-norm, d_k = d_model/h)."""
    self.embedding.weight.copy_(_tensor(model.target_embedding.embeddings))
    for ours, theirs in zip(model.encoder.blocks, self.transformer.encoder.layers):
      _copy_attention(ours.self_attention, theirs.self_attn)
      _copy_norm(ours.self_attention_residual.norm, theirs.norm1)
      _copy_feed_forward(ours.feed_forward, theirs)
      _copy_norm(ours.feed_forward_residual.norm, theirs.norm2)
    for ours, theirs in zip(model.decoder.blocks, self.transformer.decoder.layers):
      _copy_attention(ours.self_attention, theirs.self_attn)
      _copy_norm(ours.self_attention_residual.norm, theirs.norm1)
      _copy_attention(ours.memory_attention, theirs.multihead_attn)
      _copy_norm(ours.memory_attention_residual.norm, theirs.norm2)
      _copy_feed_forward(ours.feed_forward, theirs)
      _copy_norm(ours.feed_forward_residual.norm, theirs.norm3)


def _tensor(variable):
  return torch.from_numpy(np.asarray(variable, dtype=np.float32))


def _copy_attention(ours, theirs):
  d = theirs.embed_dim
  kernels = [_tensor(dense.kernel).reshape(d, d).T  # [d, heads, d_k] -> [heads * d_k, d]
             for dense in (ours.query_dense, ours.key_dense, ours.value_dense)]
  theirs.in_proj_weight.copy_(torch.cat(kernels))
  theirs.in_proj_bias.zero_()
  theirs.out_proj.weight.copy_(_tensor(ours.output_dense.kernel).reshape(d, d).T)
  theirs.out_proj.bias.zero_()


def _copy_norm(ours, theirs):
  theirs.weight.copy_(_tensor(ours.gamma))
  theirs.bias.copy_(_tensor(ours.beta))


def _copy_feed_forward(ours, theirs):
  for dense, linear in ((ours.filter_dense, theirs.linear1), (ours.output_dense, theirs.linear2)):
    linear.weight.copy_(_tensor(dense.kernel).T)
    linear.bias.copy_(_tensor(dense.bias))


def paper_adam(model, hparams):
  """(fused Adam, its schedule) as t2t_lite's: the paper's betas and epsilon, and the rate
  constant * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)."""
  optimizer = torch.optim.Adam(
      model.parameters(), lr=1.0, eps=hparams.optimizer_adam_epsilon, fused=True,
      betas=(hparams.optimizer_adam_beta1, hparams.optimizer_adam_beta2))
  scale, warmup = hparams.hidden_size ** -0.5, hparams.learning_rate_warmup_steps
  schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: (
      hparams.learning_rate_constant * scale * min((step + 1) ** -0.5,
                                                   (step + 1) * warmup ** -1.5)))
  return optimizer, schedule


class TorchTrainer:
  """`__call__()`: one full step (forward, backward, Adam update) on one fixed batch.

  compiled: the model under `torch.compile` (Inductor's generated C++ kernels on a CPU;
  the first step compiles). autocast: a dtype's name, e.g. "bfloat16": the forward pass
  under `torch.autocast` (matmuls in that dtype, weights and the loss in float32).
  """

  def __init__(self, hparams, vocab_size, inputs, targets, compiled=False, autocast=None):
    self.model = TorchTransformer(hparams, vocab_size).train()
    self.forward = torch.compile(self.model) if compiled else self.model
    self.autocast = None if autocast is None else getattr(torch, autocast)
    self.inputs = torch.from_numpy(np.asarray(inputs, np.int64))    # [batch, s]
    self.targets = torch.from_numpy(np.asarray(targets, np.int64))  # [batch, t]
    self.vocab_size, self.label_smoothing = vocab_size, hparams.label_smoothing
    self.optimizer, self.schedule = paper_adam(self.model, hparams)

  def __call__(self):
    """-> the step's mean loss over non-padding target tokens."""
    with torch.autocast("cpu", dtype=self.autocast, enabled=self.autocast is not None):
      logits = self.forward(self.inputs, self.targets)  # [batch, t, vocab]
    tokens = (self.targets != PAD_ID).sum().clamp(min=1)
    loss = F.cross_entropy(logits.float().reshape(-1, self.vocab_size),
                           self.targets.reshape(-1), ignore_index=PAD_ID,
                           label_smoothing=self.label_smoothing, reduction="sum") / tokens
    self.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    self.optimizer.step()
    self.schedule.step()
    return float(loss.detach())


class CachedSteps:
  """Incremental decoding of a `TorchTransformer` with a fixed-size key/value cache.

  State: per decoder layer, self-attention keys/values [n, heads, length, d_k]
  (filled up to the current step) and encoder-decoder keys/values [n, heads, s, d_k]
  projected once, plus the memory mask [n, 1, 1, s] (True = may attend).
  """

  def __init__(self, model):
    self.model = model

  def init(self, memory, padding, length):
    n, d, heads = memory.shape[0], self.model.hidden_size, self.model.num_heads
    layers = self.model.transformer.decoder.layers
    state = {"mask": ~padding[:, None, None, :], "keys": [], "values": [],
             "memory_keys": [], "memory_values": []}
    for layer in layers:
      weight, bias = layer.multihead_attn.in_proj_weight, layer.multihead_attn.in_proj_bias
      state["memory_keys"].append(_heads(F.linear(memory, weight[d:2 * d], bias[d:2 * d]), heads))
      state["memory_values"].append(_heads(F.linear(memory, weight[2 * d:], bias[2 * d:]), heads))
      state["keys"].append(memory.new_zeros(n, heads, length, d // heads))
      state["values"].append(memory.new_zeros(n, heads, length, d // heads))
    return state

  def __call__(self, ids, step, state):
    """ids [n] at position `step` -> (logits [n, vocab], state)."""
    d, heads = self.model.hidden_size, self.model.num_heads
    x = self.model.embed(ids[:, None], start=step)  # [n, 1, d]
    for i, layer in enumerate(self.model.transformer.decoder.layers):
      attention = layer.self_attn
      weight, bias = attention.in_proj_weight, attention.in_proj_bias
      key = _heads(F.linear(x, weight[d:2 * d], bias[d:2 * d]), heads)    # [n, heads, 1, d_k]
      value = _heads(F.linear(x, weight[2 * d:], bias[2 * d:]), heads)
      state["keys"][i][:, :, step] = key[:, :, 0]
      state["values"][i][:, :, step] = value[:, :, 0]
      y = _attend(attention, x, state["keys"][i][:, :, :step + 1],
                  state["values"][i][:, :, :step + 1], None)
      x = layer.norm1(x + y)
      y = _attend(layer.multihead_attn, x, state["memory_keys"][i], state["memory_values"][i],
                  state["mask"])
      x = layer.norm2(x + y)
      x = layer.norm3(x + layer.linear2(F.relu(layer.linear1(x))))
    return F.linear(x[:, 0], self.model.embedding.weight), state


class UncachedSteps:
  """Decoding by re-running the decoder over the whole prefix at every step."""

  def __init__(self, model):
    self.model = model

  def init(self, memory, padding, length):
    return {"prefix": torch.zeros(memory.shape[0], length, dtype=torch.int64),
            "memory": memory, "padding": padding}

  def __call__(self, ids, step, state):
    state["prefix"][:, step] = ids
    logits = self.model.decode(state["prefix"][:, :step + 1], state["memory"], state["padding"])
    return logits[:, -1], state


def _heads(x, heads):
  """[n, t, heads * depth] -> [n, heads, t, depth]."""
  return x.view(x.shape[0], x.shape[1], heads, -1).transpose(1, 2)


def _attend(attention, x, keys, values, mask):
  """Queries from x [n, t, d] over keys/values [n, heads, s, d_k] -> [n, t, d]."""
  d = x.shape[-1]
  queries = _heads(F.linear(x, attention.in_proj_weight[:d], attention.in_proj_bias[:d]),
                   attention.num_heads)
  context = F.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
  return attention.out_proj(context.transpose(1, 2).reshape(x.shape))


def _reorder(state, rows):
  return {name: [t.index_select(0, rows) for t in value] if isinstance(value, list)
          else value.index_select(0, rows) for name, value in state.items()}


def _allowed(logits, step, limits):
  """log-probs [n, vocab] with EOS only at each row's limit (and never before it)."""
  log_probs = F.log_softmax(logits, dim=-1)
  at_limit = (step + 1 >= limits)[:, None]                       # [n, 1]
  is_eos = torch.arange(log_probs.shape[-1]) == EOS_ID            # [vocab]
  return log_probs.masked_fill(at_limit != is_eos[None], float("-inf"))


def beam_advance(scores, log_probs, sequences):
  """One step of beam search: scores [batch, beam], log_probs [batch, beam, vocab],
  sequences [batch, beam, step] -> the best beam continuations: (scores [batch, beam],
  origins [batch, beam] (the beam each came from), ids [batch, beam], sequences
  [batch, beam, step + 1])."""
  batch, beam_size, vocab = log_probs.shape
  candidates = (scores[:, :, None] + log_probs).view(batch, -1)   # [batch, beam * vocab]
  scores, chosen = candidates.topk(beam_size, dim=-1)             # [batch, beam]
  origins, ids = chosen // vocab, chosen % vocab
  sequences = torch.cat([sequences.gather(1, origins[:, :, None].expand(
      -1, -1, sequences.shape[2])), ids[:, :, None]], dim=2)
  return scores, origins, ids, sequences


@torch.no_grad()
def decode(model, steps, inputs, beam_size, extra_length):
  """Greedy (beam_size 1) or beam search with the length rule of t2t_lite's decode_ids.

  inputs [batch, s] ids (0 = padding). Sentence b emits exactly len_b + extra_length
  tokens, the last one EOS (EOS is not allowed before): the lengths a decoder of an
  untrained model is benchmarked at. All hypotheses then have one length, so the
  beam keeps the best log-probs. Returns ids [batch, length] of the best hypotheses.
  """
  model.eval()
  inputs = torch.from_numpy(np.asarray(inputs, np.int64))
  batch = inputs.shape[0]
  limits = (inputs != PAD_ID).sum(1) + extra_length                # [batch]
  length = inputs.shape[1] + extra_length
  memory, padding = model.encode(inputs)
  rows = torch.arange(batch).repeat_interleave(beam_size)         # [batch * beam]
  state = _reorder(steps.init(memory, padding, length), rows)
  limits = limits[rows]                                           # [batch * beam]
  scores = torch.full((batch, beam_size), float("-inf"))
  scores[:, 0] = 0.0                                              # One live hypothesis.
  ids = torch.zeros(batch * beam_size, dtype=torch.int64)
  sequences = torch.zeros(batch, beam_size, 0, dtype=torch.int64)
  offsets = torch.arange(batch)[:, None] * beam_size              # [batch, 1]
  for step in range(int(limits.max())):
    logits, state = steps(ids, step, state)                       # [batch * beam, vocab]
    log_probs = _allowed(logits, step, limits).view(batch, beam_size, -1)
    scores, origins, ids, sequences = beam_advance(scores, log_probs, sequences)
    if beam_size > 1:
      state = _reorder(state, (origins + offsets).view(-1))
    ids = ids.view(-1)
  return sequences[:, 0].numpy()
