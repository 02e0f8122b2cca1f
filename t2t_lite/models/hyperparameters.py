"""Typed, frozen hyperparameters with tensor2tensor's field names.

A set is a function returning `HParams`, each a `dataclasses.replace()` of
another (see the top-level `hparams/` folder). Users adjust a set with
tensor2tensor's override string: `--hparams="hidden_size=256,pre_norm=True"`.
"""

import dataclasses
import json

from t2t_lite.cli.flag_bounds import bounded, check_bounds
from t2t_lite.cli.overrides import field_types, parse_overrides
from t2t_lite.errors import UserError
from t2t_lite.files.json_files import DamagedFile, check_field, parse_object

# Allowed values of the string fields.
CHOICES = {
    "pos": ("timing", "emb"),
}

# The factors a `learning_rate_schedule` multiplies (tensor2tensor's names; see
# t2t_lite.training.optimization).
SCHEDULE_FACTORS = ("constant", "linear_warmup", "rsqrt_decay", "rsqrt_hidden_size",
                    "linear_decay")


@dataclasses.dataclass(frozen=True)
class HParams:
  """The Transformer's hyperparameters. Defaults are the paper's base model."""

  # Model shape (paper Table 3 columns N, d_model, d_ff, h, d_k, d_v). Ranges: `bounded`.
  num_hidden_layers: int = bounded(6, minimum=1)     # N, in the encoder and in the decoder.
  hidden_size: int = bounded(512, minimum=1)         # d_model.
  filter_size: int = bounded(2048, minimum=1)        # d_ff.
  num_heads: int = bounded(8, minimum=1)             # h.
  attention_key_channels: int = 0       # h * d_k, summed over heads; 0 = hidden_size.
  attention_value_channels: int = 0     # h * d_v, summed over heads; 0 = hidden_size.
  pos: str = "timing"                   # "timing": sinusoids (paper); "emb": learned (Table 3 E).
  pre_norm: bool = False                # False: post-norm (paper); True: pre-norm + final norm.
  norm_epsilon: float = 1e-6
  shared_embedding: bool = True         # One embedding for source and target tokens.
  shared_embedding_and_softmax_weights: bool = True  # Pre-softmax = embedding^T.

  # Regularisation (paper section 5.4): probabilities, each in [0, 1).
  layer_prepostprocess_dropout: float = bounded(0.1, minimum=0, below=1)  # P_drop on sublayer
                                        # outputs and embeddings.
  attention_dropout: float = bounded(0.0, minimum=0, below=1)  # On attention weights.
  relu_dropout: float = bounded(0.0, minimum=0, below=1)       # Inside the feed-forward network.
  # Input and decoder-input token ids replaced by padding, whole (word dropout).
  symbol_dropout: float = bounded(0.0, minimum=0, below=1)
  label_smoothing: float = bounded(0.1, minimum=0, below=1)    # epsilon_ls.
  # R-Drop (Liang et al. 2021): above 0, each batch is trained twice, with dropout masks
  # of their own, and this weight pulls the two predictions together (5 theirs; 0 off).
  rdrop_alpha: float = bounded(0.0, minimum=0)

  # Optimisation (paper section 5.3).
  # The learning rate: a product of factors (SCHEDULE_FACTORS), tensor2tensor's
  # notation; this one is the paper's formula.
  learning_rate_schedule: str = "constant*linear_warmup*rsqrt_decay*rsqrt_hidden_size"
  learning_rate_constant: float = 1.0   # Paper 1.0; tensor2tensor v3 uses 2.0.
  learning_rate_warmup_steps: int = 4000
  learning_rate_decay_steps: int = 5000  # linear_decay: the run's last N steps (at most half).
  optimizer_adam_beta1: float = 0.9
  optimizer_adam_beta2: float = 0.98    # tensor2tensor v3 uses 0.997.
  optimizer_adam_epsilon: float = 1e-9

  # Data.
  batch_size: int = bounded(4096, minimum=1)         # Tokens per replica per step (source or
                                                     # target).
  max_length: int = bounded(256, minimum=1)          # Longest example in tokens; also the
                                                     # learned positions' count.
  min_length_bucket: int = bounded(8, minimum=1)     # The shortest length bucket's boundary.
  # Each bucket boundary over the one before (at least +1).
  length_bucket_step: float = bounded(1.1, above=1, bound_hint="tensor2tensor's default is 1.1")
  # Training text resegmented, each merge skipped with this probability (Provilkov et al.
  # 2020; 0.1 theirs).
  bpe_dropout: float = bounded(0.0, minimum=0, below=1)
  right_to_left: bool = False           # Targets trained and decoded last token first, for
                                        # reranking (t2t_lite.decoding.right_to_left).
  # Training without a GPU: MirroredStrategy replicas on logical devices the CPU is split
  # into, each computing on its share of the cores (transformer_auto: one a core).
  # batch_size is each replica's. 1: one device. A GPU or a cluster trains as it would.
  cpu_replicas: int = bounded(1, minimum=1)

  def __post_init__(self):
    check_bounds(self, name_format="hparams {}")  # Before the divisions below.
    for name, allowed in CHOICES.items():
      if getattr(self, name) not in allowed:
        raise UserError(f"hparams {name}={getattr(self, name)!r} is not one of {', '.join(allowed)}")
    unknown = [f for f in self.schedule_factors if f not in SCHEDULE_FACTORS]
    if unknown or not self.schedule_factors:
      raise UserError(f"hparams learning_rate_schedule={self.learning_rate_schedule!r} must "
                      f"be factors joined by '*', each one of {', '.join(SCHEDULE_FACTORS)}")
    if self.rdrop_alpha and not (self.layer_prepostprocess_dropout or self.attention_dropout
                                 or self.relu_dropout or self.symbol_dropout):
      raise UserError(f"hparams rdrop_alpha={self.rdrop_alpha:g} compares two passes with "
                      f"dropout, but every dropout is 0 (both passes would be the same); set "
                      f"layer_prepostprocess_dropout above 0, or rdrop_alpha=0")
    if "linear_decay" in self.schedule_factors and self.learning_rate_decay_steps <= 0:
      raise UserError(f"hparams learning_rate_schedule has linear_decay, but "
                      f"learning_rate_decay_steps={self.learning_rate_decay_steps}; set it to "
                      f"the number of final steps over which the rate falls to 0")
    # A channel count left at 0 is hidden_size's: the error names the field that was set.
    for name in ("attention_key_channels", "attention_value_channels"):
      named = name if getattr(self, name) else "hidden_size"
      channels = getattr(self, named)
      if channels % self.num_heads:
        raise UserError(f"hparams {named}={channels} must be divisible by "
                        f"num_heads={self.num_heads}")

  @property
  def schedule_factors(self):
    """The names in `learning_rate_schedule`: "constant*linear_warmup" -> ["constant", ...]."""
    return [name.strip() for name in self.learning_rate_schedule.split("*") if name.strip()]

  @property
  def key_channels(self):
    return self.attention_key_channels or self.hidden_size

  @property
  def value_channels(self):
    return self.attention_value_channels or self.hidden_size

  def override(self, overrides):
    """Returns a copy with `"a=1,b=0.2,c=True"` applied, each value parsed with its field's type."""
    return dataclasses.replace(self, **parse_overrides(overrides, HParams))

  def to_json(self):
    return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

  @classmethod
  def from_json(cls, text, path="hparams.json", remedy=None):
    """The HParams a JSON file holds; a `DamagedFile` naming `path` and the field when the
    text is not an object of HParams fields, each of its type and in its range.

    remedy: what the error tells the user to do (default: restore the file).
    """
    remedy = remedy or ("restore it from a copy of the run, or train anew in another "
                        "--output_dir")
    values = parse_object(text, path, remedy)
    types = field_types(HParams)
    unknown = sorted(set(values) - set(types))
    if unknown:
      raise UserError(f"{path} has unknown fields {', '.join(unknown)}; "
                      f"it was written by another version of t2t_lite")
    for name, kind in types.items():
      check_field(values, name, kind, path, remedy, required=False)
    try:
      return cls(**values)
    except UserError as error:
      raise DamagedFile(path, str(error), remedy) from None
