"""The Problem contract: real text in, batches of ids out, and ids back to text.

A concrete problem (in the top-level `problems/` folder) says only where its
text pairs come from; this base class does the rest: vocabulary, sharded
TFRecords of ids, the tf.data pipeline, and the way back to text.

    @PROBLEMS.register(aliases=("translate_ende",))
    class TranslateEndeWmt32k(TextPairProblem):
      vocab_size = 32768
      def text_pairs(self, split, sources): ...   # yields (source_text, target_text)
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class DecodeDefaults:
  """Decoding defaults a problem brings (paper: translation beam 4, alpha 0.6, +50)."""
  beam_size: int = 4
  alpha: float = 0.6
  extra_length: int = 50


@dataclasses.dataclass(frozen=True)
class Sources:
  """Where raw text comes from at datagen time.

  tmp_dir: downloads and extracted raw text.
  files: {split: (source_path, target_path)} local text files given by flags;
    a problem that can read local files uses them instead of downloading.
  """
  tmp_dir: str
  files: dict = dataclasses.field(default_factory=dict)


class TextPairProblem:
  """Base of problems made of (source text, target text) pairs.

  Subclasses set `vocab_size` (and optionally the others) and implement
  `text_pairs(split, sources)`.
  """

  vocab_size = 32768                  # SentencePiece vocabulary size, "32k" in the name.
  shared_vocab = True                 # One vocabulary for source and target (paper).
  splits = ("train", "dev", "test")
  decode_defaults = DecodeDefaults()

  @property
  def name(self):
    from t2t_lite.registry import snake_case
    return snake_case(type(self).__name__)

  def text_pairs(self, split, sources):
    """Yields (source_text, target_text) for `split`; raises UserError on bad input."""
    raise NotImplementedError
