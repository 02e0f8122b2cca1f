"""Hparams sets of the Transformer, each a `replace()` of another.

Two families, every name meaning one thing:
  - the paper's: `transformer_base` and `transformer_big` (HParams' defaults
    are the paper's base model), `transformer_big_enfr_paper` and
    `transformer_parsing` (section 6.3);
  - tensor2tensor's, under its names and with its values: `transformer_base_v1`
    (the paper's base), `transformer_base_v2`, `transformer_base_v3`,
    `transformer_big_enfr`, `transformer_base_single_gpu`,
    `transformer_big_single_gpu`, `transformer_parsing_base`,
    `transformer_parsing_big`, `transformer_small`, `transformer_tiny`,
    `transformer_test`. tensor2tensor's own `transformer_base` and
    `transformer_big` are `transformer_base_v3` and `transformer_big_v3` here.
`transformer_test_small`, the paper's base shrunk to d_model=32, serves tests;
`transformer_small_multi30k`, `transformer_tiny_multi30k` and `transformer_parsing_small` are
t2t_lite's own, tuned for corpora of tens of thousands of pairs or a few thousand trees on a CPU.

Embedding matrices: tensor2tensor's `shared_embedding_and_softmax_weights=True`
makes the input embedding, the target embedding and the softmax one matrix
(here: `shared_embedding` and `shared_embedding_and_softmax_weights` both True);
False makes them three (here: both False, `UNTIED`).
"""

from dataclasses import replace

from t2t_lite.built_in import hparams_set
from t2t_lite.models.hyperparameters import HParams

# tensor2tensor's shared_embedding_and_softmax_weights=False: three separate matrices.
UNTIED = {"shared_embedding": False, "shared_embedding_and_softmax_weights": False}


@hparams_set
def transformer_base():
  """The paper's base model: N=6, d_model=512, d_ff=2048, h=8, P_drop=0.1, 65M parameters."""
  return HParams()


@hparams_set
def transformer_big():
  """The paper's big model (EN-DE): d_model=1024, d_ff=4096, h=16, P_drop=0.3, 213M parameters."""
  return replace(transformer_base(), hidden_size=1024, filter_size=4096, num_heads=16,
                 layer_prepostprocess_dropout=0.3)


@hparams_set
def transformer_big_enfr_paper():
  """The paper's big model for EN-FR, which used P_drop=0.1 instead of 0.3."""
  return replace(transformer_big(), layer_prepostprocess_dropout=0.1)


@hparams_set
def transformer_parsing():
  """The paper's WSJ-only parser (section 6.3): its base model with 4 layers and d_model=1024.

  The paper tuned dropout and the learning rate on section 22 without giving
  values. These take the values tensor2tensor's transformer_parsing_base chose
  for them (dropout 0.2 on residuals and attention, warmup 16000, a softmax
  matrix of its own, max_length 512 for long linearised trees) and keep the
  paper's base for everything else: post-norm, relu dropout 0, learning-rate
  constant 1, words and tree tokens sharing one embedding. tensor2tensor's set
  is `transformer_parsing_base`.
  """
  return replace(transformer_base(), num_hidden_layers=4, hidden_size=1024,
                 layer_prepostprocess_dropout=0.2, attention_dropout=0.2,
                 learning_rate_warmup_steps=16000, max_length=512,
                 shared_embedding_and_softmax_weights=False)


@hparams_set
def transformer_base_v1():
  """tensor2tensor's transformer_base_v1: the paper's base model.

  Its legacy "noam" schedule with learning_rate 0.1 is the paper's formula
  (constant 1).
  """
  return transformer_base()


@hparams_set
def transformer_base_v2():
  """tensor2tensor's transformer_base_v2: v1 with pre-norm (and a final norm),
  attention and relu dropout 0.1, warmup 8000 and learning_rate 0.2 (constant 2)."""
  return replace(transformer_base_v1(), pre_norm=True, attention_dropout=0.1,
                 relu_dropout=0.1, learning_rate_warmup_steps=8000,
                 learning_rate_constant=2.0)


@hparams_set
def transformer_base_v3():
  """tensor2tensor's transformer_base_v3, which is its transformer_base: v2 with beta2 0.997."""
  return replace(transformer_base_v2(), optimizer_adam_beta2=0.997)


@hparams_set
def transformer_big_v3():
  """tensor2tensor's transformer_big: v3 with d_model=1024, d_ff=4096, h=16, P_drop=0.3
  and batch_size 2048."""
  return replace(transformer_base_v3(), hidden_size=1024, filter_size=4096, num_heads=16,
                 layer_prepostprocess_dropout=0.3, batch_size=2048)


@hparams_set
def transformer_big_enfr():
  """tensor2tensor's transformer_big_enfr: v3 with d_model=1024, d_ff=8192, h=16,
  P_drop=0.1 and three embedding matrices (the paper's: transformer_big_enfr_paper)."""
  return replace(transformer_base_v3(), hidden_size=1024, filter_size=8192, num_heads=16,
                 layer_prepostprocess_dropout=0.1, **UNTIED)


@hparams_set
def transformer_base_single_gpu():
  """tensor2tensor's transformer_base_single_gpu: v3 with batch_size 1024 and the schedule
  0.1 * min(1, step / 16000) * max(step, 16000)^-0.5 (no d_model factor; peak 7.9e-4)."""
  return replace(transformer_base_v3(), batch_size=1024,
                 learning_rate_schedule="constant*linear_warmup*rsqrt_decay",
                 learning_rate_constant=0.1, learning_rate_warmup_steps=16000)


@hparams_set
def transformer_big_single_gpu():
  """tensor2tensor's transformer_big_single_gpu: its big (transformer_big_v3) with
  P_drop=0.1 and warmup 16000."""
  return replace(transformer_big_v3(), layer_prepostprocess_dropout=0.1,
                 learning_rate_warmup_steps=16000)


@hparams_set
def transformer_parsing_base():
  """tensor2tensor's WSJ-only parser: v3 with d_model=1024 (6 layers, d_ff 2048, h=8),
  dropout 0.2 on residuals and attention, warmup 16000, max_length 512 and three
  embedding matrices. Its learning_rate=0.05 is read by no schedule of v3's
  kind: the rate is v3's (constant 2)."""
  return replace(transformer_base_v3(), hidden_size=1024, layer_prepostprocess_dropout=0.2,
                 attention_dropout=0.2, learning_rate_warmup_steps=16000, max_length=512,
                 **UNTIED)


@hparams_set
def transformer_parsing_big():
  """tensor2tensor's semi-supervised WSJ parser: its big with P_drop=0.1, warmup 4000,
  max_length 512, batch_size 2048.

  tensor2tensor also sets `shared_source_target_embedding=False`, a name none
  of its code reads: input embedding, target embedding and softmax stay one
  matrix there, and here.
  """
  return replace(transformer_big_v3(), max_length=512, learning_rate_warmup_steps=4000,
                 layer_prepostprocess_dropout=0.1, batch_size=2048)


@hparams_set
def transformer_small():
  """tensor2tensor's transformer_small: v3 with 2 layers, d_model=256, d_ff=1024, h=4."""
  return replace(transformer_base_v3(), num_hidden_layers=2, hidden_size=256,
                 filter_size=1024, num_heads=4)


@hparams_set
def transformer_tiny():
  """tensor2tensor's transformer_tiny: v3 with 2 layers, d_model=128, d_ff=512, h=4."""
  return replace(transformer_base_v3(), num_hidden_layers=2, hidden_size=128,
                 filter_size=512, num_heads=4)


@hparams_set
def transformer_test():
  """tensor2tensor's transformer_test: v3 with 2 layers, d_model=16, d_ff=8, h=2."""
  return replace(transformer_base_v3(), num_hidden_layers=2, hidden_size=16, filter_size=8,
                 num_heads=2)


@hparams_set
def transformer_test_small():
  """The smallest useful model, for tests: the paper's base with 2 layers, d_model=32,
  d_ff=64, h=4, batch_size 256 and max_length 64."""
  return replace(transformer_base(), num_hidden_layers=2, hidden_size=32, filter_size=64,
                 num_heads=4, batch_size=256, max_length=64)


@hparams_set
def transformer_small_multi30k():
  """For corpora of Multi30k's size (29k pairs) on a CPU budget of hours: tensor2tensor's
  pre-norm layout (post-norm collapsed every source position into one vector within 100
  steps at this learning rate: docs/results.md) with 4 layers, d_model=256, d_ff=1024, h=4;
  P_drop 0.2 with 0.1 on attention weights and inside the feed-forward network; batches of
  4,096 tokens (about 130 steps an epoch); warmup 400 steps to a peak learning rate of
  2.5e-3 (constant 0.8), so that a CPU budget of two hours (about 8 epochs on 2 cores) is
  mostly spent past the warmup; max_length 128 (the longest Multi30k pair has 53 tokens)."""
  return replace(transformer_base(), pre_norm=True, num_hidden_layers=4, hidden_size=256,
                 filter_size=1024, num_heads=4, layer_prepostprocess_dropout=0.2,
                 attention_dropout=0.1, relu_dropout=0.1, learning_rate_warmup_steps=400,
                 learning_rate_constant=0.8, max_length=128)


@hparams_set
def transformer_tiny_multi30k():
  """Wu et al. 2021's text-only Multi30k Transformer ("Good for Misconceived Reasons"),
  t2t_lite's best per CPU hour on corpora of Multi30k's size: pre-norm, 4 layers,
  d_model=128, d_ff=256, h=4, shared embeddings; P_drop 0.2 on residuals and embeddings
  (their 0.3 lost 0.9 BLEU on val in two hours of one core, docs/results.md), none on
  attention weights or inside the feed-forward network; batches of 4,096 tokens; a
  warmup of 2,000 steps to a peak learning rate of 5e-3 (constant 2.53), then rsqrt decay;
  beyond their recipe, the rate falls linearly to 0 over the run's last 3,000 steps, or its
  second half if shorter (linear_decay: under --train_minutes, the steps before the time
  limit; 1,500 such steps after their schedule's 14,201 gave +0.6 BLEU on val,
  docs/results.md).
  About 1.9 steps a second on 2 cores of a Zen 4 EPYC (8,000 updates in 70 minutes), 1.2-1.3
  on 2 cores of an AVX2-only EPYC."""
  return replace(transformer_small_multi30k(), hidden_size=128, filter_size=256,
                 layer_prepostprocess_dropout=0.2, attention_dropout=0.0, relu_dropout=0.0,
                 learning_rate_warmup_steps=2000, learning_rate_constant=2.53,
                 learning_rate_schedule="constant*linear_warmup*rsqrt_decay*rsqrt_hidden_size"
                                        "*linear_decay",
                 learning_rate_decay_steps=3000)


@hparams_set
def transformer_parsing_small():
  """For parsing a treebank of a few thousand trees (the WSJ sample) on a CPU budget of an
  hour: `transformer_parsing`'s 4 layers, pre-norm, at d_model=128, d_ff=512, h=4, P_drop
  0.1 everywhere; batches of 2,048 tokens (about 190 steps an epoch of the sample, so that
  an hour sees about 3,000 updates), a warmup of 500 steps to a peak learning rate of
  2.8e-3 (constant 0.7), and max_length 256 (linearised trees run under three tokens a word;
  the few longer ones are left out of training, never out of decoding)."""
  return replace(transformer_small_multi30k(), hidden_size=128, filter_size=512,
                 layer_prepostprocess_dropout=0.1, batch_size=2048,
                 learning_rate_warmup_steps=500, learning_rate_constant=0.7, max_length=256)


@hparams_set
def transformer_auto():
  """Chosen for the corpus and the budget when t2t-trainer starts a run
  (t2t_lite.training.auto_hparams): from transformer_tiny_multi30k, the warmup (a quarter
  of the steps --train_minutes give on this machine, at most 2,000) and the learning-rate
  constant keeping its 5e-3 peak, dropout and batch by the corpus's size, max_length by
  its lengths; the choice is printed and kept in the run's hparams.json. Without a
  corpus (--summary, --registry_help) it is transformer_tiny_multi30k."""
  return transformer_tiny_multi30k()
