"""Hparams sets of the Transformer, each a `replace()` of another.

The paper's settings are the defaults (`transformer_base`); tensor2tensor's
later choices are one named set (`transformer_base_v3`) and each of them is an
override away from the paper's: `pre_norm=True`, `optimizer_adam_beta2=0.997`,
`learning_rate_warmup_steps=8000`, `learning_rate_constant=2.0`.
"""

from dataclasses import replace

from t2t_lite.hparams import HParams
from t2t_lite.registry import HPARAMS


@HPARAMS.register
def transformer_base():
  """The paper's base model: N=6, d_model=512, d_ff=2048, h=8, P_drop=0.1, 65M parameters."""
  return HParams()


@HPARAMS.register
def transformer_big():
  """The paper's big model (EN-DE): d_model=1024, d_ff=4096, h=16, P_drop=0.3, 213M parameters."""
  return replace(transformer_base(), hidden_size=1024, filter_size=4096, num_heads=16,
                 layer_prepostprocess_dropout=0.3)


@HPARAMS.register
def transformer_big_enfr():
  """The paper's big model for EN-FR, which used P_drop=0.1 instead of 0.3."""
  return replace(transformer_big(), layer_prepostprocess_dropout=0.1)


@HPARAMS.register
def transformer_base_single_gpu():
  """Base on one GPU: a smaller token batch and tensor2tensor's longer warmup for it."""
  return replace(transformer_base(), batch_size=2048, learning_rate_warmup_steps=16000)


@HPARAMS.register
def transformer_big_single_gpu():
  """Big on one GPU: P_drop=0.1 and tensor2tensor's longer warmup, as in its set of this name."""
  return replace(transformer_big(), batch_size=2048, layer_prepostprocess_dropout=0.1,
                 learning_rate_warmup_steps=16000)


@HPARAMS.register
def transformer_base_v3():
  """tensor2tensor's transformer_base (v3): pre-norm with a final norm, beta2 0.997,
  warmup 8000, learning-rate constant 2.0, attention and relu dropout 0.1."""
  return replace(transformer_base(), pre_norm=True, optimizer_adam_beta2=0.997,
                 learning_rate_warmup_steps=8000, learning_rate_constant=2.0,
                 attention_dropout=0.1, relu_dropout=0.1)


@HPARAMS.register
def transformer_parsing():
  """The paper's WSJ-only parser (section 6.3): 4 layers, d_model=1024.

  The paper tuned dropout and the learning rate on section 22 without giving
  values; these are tensor2tensor's WSJ settings: dropout 0.2 on residuals and
  attention, warmup 16000, separate softmax weights, long linearised trees.
  """
  return replace(transformer_base(), num_hidden_layers=4, hidden_size=1024,
                 layer_prepostprocess_dropout=0.2, attention_dropout=0.2,
                 learning_rate_warmup_steps=16000, max_length=512,
                 shared_embedding_and_softmax_weights=False)


@HPARAMS.register
def transformer_tiny():
  """tensor2tensor's tiny set: for demos and quick experiments on a CPU."""
  return replace(transformer_base(), num_hidden_layers=2, hidden_size=128, filter_size=512,
                 num_heads=4, batch_size=2048)


@HPARAMS.register
def transformer_test():
  """The smallest useful model, for tests: 2 layers, d_model=32."""
  return replace(transformer_tiny(), hidden_size=32, filter_size=64, num_heads=4,
                 batch_size=256, max_length=64)
