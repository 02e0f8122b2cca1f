"""SentencePiece vocabularies: training one, and text <-> ids inside the TensorFlow graph.

Ids agree with the model (`t2t_lite.constants`): 0 = padding (also the
decoder's first input), 1 = EOS, 2 = unknown. Training uses the identity normalisation, keeps
whitespace as it is and falls back to UTF-8 bytes for characters outside the
vocabulary, so decoding restores the encoded text exactly. A lowercasing vocabulary
(`lowercase=True`) normalises with NFKC and case folding instead, and restores the text
lowercased.

One model, two runtimes: `tensorflow_text.SentencepieceTokenizer` (this module's
`Vocabulary`) decodes model outputs and goes into an exported SavedModel; t2t-datagen
encodes the records with SentencePiece's own library, in processes without TensorFlow
(`t2t_lite.data.encoding`). tests/test_vocabulary.py checks that both give the same ids.
"""

import io
import os
import re

import sentencepiece as spm
import tensorflow as tf
import tensorflow_text as tf_text

from t2t_lite import quiet
from t2t_lite.constants import EOS_ID, PAD_ID, UNK_ID
from t2t_lite.errors import UserError
from t2t_lite.files.file_reading import DamagedFile, read_bytes

NUM_BYTE_PIECES = 256  # Byte fallback: one piece per byte value.

# Sentences SentencePiece samples from a large corpus to train on.
MAX_TRAINING_SENTENCES = 10_000_000


def train_sentencepiece(sentences, vocab_size, *, model_type="bpe", user_defined_symbols=(),
                        lowercase=False, max_sentences=MAX_TRAINING_SENTENCES):
  """Trains a SentencePiece model on an iterable of strings; returns the model's bytes.

  lowercase: the model case-folds (and NFKC-normalises) every text it encodes,
  SentencePiece's `nmt_nfkc_cf` rule, so whatever encodes with it (datagen, the
  decoder, an exported SavedModel) sees lowercased text and decodes to it.

  Raises UserError, with the largest size that would work when SentencePiece
  says so, when the text cannot give `vocab_size` pieces.
  """
  if vocab_size <= NUM_BYTE_PIECES + 3 + len(user_defined_symbols):
    raise UserError(f"vocab_size={vocab_size} is too small: it must exceed "
                    f"{NUM_BYTE_PIECES + 3 + len(user_defined_symbols)} (3 special ids, "
                    f"{NUM_BYTE_PIECES} byte pieces and the user-defined symbols); "
                    f"pass a larger --vocab_size")
  model = io.BytesIO()
  reader = _Reader(sentences)
  try:
    spm.SentencePieceTrainer.train(
        sentence_iterator=reader, model_writer=model, vocab_size=vocab_size,
        model_type=model_type, pad_id=PAD_ID, eos_id=EOS_ID, unk_id=UNK_ID, bos_id=-1,
        normalization_rule_name="nmt_nfkc_cf" if lowercase else "identity", remove_extra_whitespaces=False,
        byte_fallback=True, character_coverage=1.0,
        user_defined_symbols=list(user_defined_symbols),
        input_sentence_size=max_sentences, shuffle_input_sentence=True,
        num_threads=os.cpu_count() or 1, minloglevel=2)
  except RuntimeError as error:
    reader.raise_error()
    raise UserError(_training_error_message(str(error), vocab_size)) from error
  reader.raise_error()
  return model.getvalue()


class _Reader:
  """Iterates `sentences` for SentencePiece, keeping an error the iterable raises (such
  as the UserError naming a file's bad line) for `raise_error`: SentencePiece would
  otherwise replace it with a message of its own."""

  def __init__(self, sentences):
    self._sentences = iter(sentences)
    self._error = None

  def __iter__(self):
    return self

  def __next__(self):
    try:
      return next(self._sentences)
    except StopIteration:
      raise
    except Exception as error:  # noqa: BLE001  (re-raised by raise_error)
      self._error = error
      raise StopIteration from None

  def raise_error(self):
    if self._error is not None:
      raise self._error


def _training_error_message(message, vocab_size):
  limit = re.search(r"<= (\d+)", message)
  if "Vocabulary size too high" in message and limit:
    return (f"the training text is too small for vocab_size={vocab_size}: SentencePiece can "
            f"make at most {limit.group(1)} pieces from it; pass --vocab_size={limit.group(1)} "
            f"or smaller, or more text")
  first_line = message.strip().splitlines()[-1] if message.strip() else "unknown error"
  return f"training the SentencePiece vocabulary failed: {first_line}"


def vocab_size_of(path, problem):
  """The number of pieces of the SentencePiece model at `path`."""
  return spm.SentencePieceProcessor(model_proto=_read_model(path, problem)).get_piece_size()


def _read_model(path, problem):
  if not os.path.exists(path):
    raise UserError(f"no vocabulary at {path}; run t2t-datagen --problem={problem} "
                    f"--data_dir={os.path.dirname(path) or '.'} first")
  return read_model_file(path, f"run t2t-datagen --problem={problem} "
                               f"--data_dir={os.path.dirname(path) or '.'} again")


def read_model_file(path, remedy):
  """The bytes of the SentencePiece model at `path`; DamagedFile naming it (with `remedy`)
  when it is missing, a directory, or not a SentencePiece model."""
  if os.path.isdir(path):
    raise DamagedFile(path, "is a directory, not a vocabulary file", remedy)
  if not os.path.lexists(path):
    raise DamagedFile(path, "the vocabulary file is missing", remedy)
  model_proto = read_bytes(path, remedy=remedy)  # A FIFO, a device, a dangling link: refused.
  try:
    with quiet.chatter_hidden():
      size = spm.SentencePieceProcessor(model_proto=model_proto).get_piece_size()
  except RuntimeError:
    size = 0
  if size < 3:
    raise DamagedFile(path, "is not a SentencePiece vocabulary (damaged or truncated?)", remedy)
  return model_proto


class Vocabulary(tf.Module):
  """A SentencePiece model: strings <-> ids with TensorFlow ops (eager, graph or SavedModel)."""

  def __init__(self, model_proto, name=None):
    super().__init__(name=name)
    self.model_proto = model_proto
    with quiet.chatter_hidden():  # SentencePiece's note on its normalizer.
      self.size = spm.SentencePieceProcessor(model_proto=model_proto).get_piece_size()
      self.tokenizer = tf_text.SentencepieceTokenizer(model=model_proto, out_type=tf.int32,
                                                      add_eos=True)

  @classmethod
  def load(cls, path, problem):
    """Loads `path`; UserError saying to run t2t-datagen for `problem` when it is missing."""
    return cls(_read_model(path, problem))

  def encode(self, strings):
    """Strings -> ids, each sequence ending with EOS_ID.

    strings: [batch] tf.string -> RaggedTensor [batch, (length)] int32;
    a scalar string -> [length] int32.
    """
    return self.tokenizer.tokenize(strings)

  def decode(self, ids):
    """Ids -> strings, stopping at the first EOS_ID and skipping PAD_ID.

    ids: [batch, length] int32 (dense or ragged) -> [batch] tf.string;
    [length] -> a scalar string.
    """
    if isinstance(ids, tf.RaggedTensor):
      ids = ids.to_tensor(default_value=PAD_ID)  # Padding is skipped below.
    ids = tf.cast(ids, tf.int32)  # [batch, length] or [length]
    before_eos = tf.equal(tf.cumsum(tf.cast(tf.equal(ids, EOS_ID), tf.int32), axis=-1), 0)
    keep = tf.logical_and(before_eos, tf.not_equal(ids, PAD_ID))
    if ids.shape.rank == 1:
      kept = tf.boolean_mask(ids, keep)  # [kept]
    else:
      kept = tf.ragged.boolean_mask(ids, keep)  # [batch, (kept)]
    return self.tokenizer.detokenize(kept)

  def resegmenter(self, dropout):
    """A function giving the same text in a sampled segmentation: BPE-dropout (Provilkov
    et al. 2020), each BPE merge skipped with probability `dropout`.

    It maps ids [length] int32 ending with EOS_ID to ids [length'] int32 ending with
    EOS_ID that decode to the same text. The sampling is SentencePiece's own, so
    TensorFlow's seeds do not make it reproducible.
    """
    with quiet.chatter_hidden():
      sampler = tf_text.SentencepieceTokenizer(model=self.model_proto, out_type=tf.int32,
                                               add_eos=True, nbest_size=-1, alpha=dropout)
    return lambda ids: sampler.tokenize(self.decode(ids))

  def pieces(self):
    """Every piece, by id (a list of str)."""
    with quiet.chatter_hidden():
      processor = spm.SentencePieceProcessor(model_proto=self.model_proto)
    return [processor.id_to_piece(i) for i in range(self.size)]

  def id_to_piece(self, ids):
    """Ids -> their pieces (for inspection), same shape as `ids`."""
    return self.tokenizer.id_to_string(ids)
