"""One sentence's attention weights with its tokens: what t2t-visualize draws.

    maps = sentence_attention(translator, "Resumption of the session")          # greedy
    maps = sentence_attention(translator, "Resumption of the session", target)  # forced

The target is the greedy translation of the sentence, or the given target text
(teacher forcing). Both sides end with EOS, and the target's tokens come in the
model's order, as the model sees them: last first for a right-to-left run.
"""

import dataclasses

import numpy as np
import tensorflow as tf

from t2t_lite.constants import EOS_ID
from t2t_lite.data.target_order import target_order
from t2t_lite.decoding.model_decoding import decode_ids, trim_after_eos
from t2t_lite.errors import UserError

START_LABEL = "<start>"  # The decoder's first input (id 0), before any target token.


@dataclasses.dataclass(frozen=True)
class Kind:
  """One kind of attention: its key in `Transformer.attention_weights` and its axes."""
  name: str
  title: str
  rows: str     # Which tokens label the queries: "source" or "target".
  columns: str  # Which tokens label the keys: "source" or "decoder_inputs".


KINDS = (
    Kind("encoder", "Encoder self-attention", "source", "source"),
    Kind("decoder", "Decoder self-attention", "target", "decoder_inputs"),
    Kind("memory", "Encoder-decoder attention", "target", "source"),
)


@dataclasses.dataclass(frozen=True)
class AttentionMaps:
  """A sentence pair, its tokens and every attention weight of the model on it."""
  source_text: str
  target_text: str
  teacher_forced: bool          # True: the target was given; False: decoded greedily.
  source: tuple                 # [s] source pieces, EOS included.
  target: tuple                 # [t] target pieces, EOS included: what row i predicts.
  decoder_inputs: tuple         # [t] START_LABEL, then target[:-1]: decoder key j's token.
  weights: dict                 # kind name -> [layers, heads, queries, keys] float32 array.

  def labels(self, kind):
    """(row labels, column labels) of a `Kind`'s maps."""
    return getattr(self, kind.rows), getattr(self, kind.columns)

  @property
  def num_layers(self):
    return self.weights["encoder"].shape[0]

  @property
  def num_heads(self):
    return self.weights["encoder"].shape[1]


def sentence_attention(translator, sentence, target=None):
  """A `Translator`'s model on one sentence -> `AttentionMaps`.

  target: the target text to force, or None to decode `sentence` greedily.
  Raises UserError for blank text or more tokens than the model takes.
  """
  model, hparams = translator.model, translator.hparams
  source_ids = _ids(translator.input_vocab, sentence, "--sentence", hparams.max_length)
  in_order = target_order(hparams)  # The model's order <-> reading order.
  if target is None:
    extra_length = translator.settings.extra_length
    decoded, _ = decode_ids(model, source_ids[None], beam_size=1, alpha=0.0,
                            extra_length=extra_length)              # [1, 1, length]
    # Greedy hypotheses end with EOS (lengths.py); the model attends over it too.
    target_ids = np.array(trim_after_eos(decoded[0, 0]) + [EOS_ID], np.int32)
    target_text = translator.target_vocab.decode(
        np.array(in_order(target_ids), np.int32)).numpy().decode("utf-8")
  else:
    target_ids = np.array(in_order(_ids(translator.target_vocab, target, "--target",
                                        hparams.max_length)), np.int32)
    target_text = target
  weights = model.attention_weights(source_ids[None], target_ids[None])
  target_pieces = _pieces(translator.target_vocab, target_ids)
  return AttentionMaps(
      source_text=sentence, target_text=target_text, teacher_forced=target is not None,
      source=_pieces(translator.input_vocab, source_ids), target=target_pieces,
      decoder_inputs=(START_LABEL,) + target_pieces[:-1],
      weights={name: np.stack([np.asarray(w)[0] for w in layers])  # [layers, h, q, k]
               for name, layers in weights.items()})


def _ids(vocab, text, flag, max_length):
  """Text -> [length] int32 ids ending with EOS; UserError when blank or too long."""
  if not text.strip():
    raise UserError(f"{flag} is empty; pass a sentence, e.g. {flag}=\"Resumption of the session\"")
  ids = vocab.encode(tf.constant(text)).numpy().astype(np.int32)  # [length]
  if len(ids) > max_length:
    raise UserError(f"{flag} has {len(ids)} tokens (EOS included) but the model takes at "
                    f"most max_length={max_length}; pass a shorter text")
  return ids


def _pieces(vocab, ids):
  """[length] ids -> tuple of their SentencePiece pieces (str)."""
  return tuple(piece.decode("utf-8", "replace") for piece in vocab.id_to_piece(ids).numpy())
