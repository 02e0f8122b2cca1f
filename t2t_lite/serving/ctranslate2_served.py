"""A CTranslate2 export of t2t-exporter (--export_format=ctranslate2), served in this process:
SentencePiece pieces in, CTranslate2's beam search, text out.

CTranslate2 takes one max_decoding_length per call, so the sentences of a batch go to it
grouped by length: each may emit its input length (EOS included) + extra_length - 1 tokens
before EOS, t2t-decoder's limit. --decode_hparams gives beam_size, n_best and extra_length
(defaults 4, 1, 50); CTranslate2 ranks its beam by log_prob / len ** length_penalty, not by
t2t_lite's alpha (t2t_lite.export.ctranslate2 says how the two compare). It needs only the
`ctranslate2` and `sentencepiece` packages (no TensorFlow), and holds no layers to draw
attention from.
"""

import os

from t2t_lite.decoding.decode_hparams import DecodeHParams, overridden
from t2t_lite.errors import UserError
from t2t_lite.export.ctranslate2 import INSTALL_HINT, SENTENCEPIECE_FILES
from t2t_lite.serving.served_model import ServedModel, output

DEFAULT_LENGTH_PENALTY = 0.4  # alpha 0.6 for outputs of about 12 tokens (Multi30k's).


class ServedCTranslate2(ServedModel):
  """The CTranslate2 export in `path`.

  settings: `DecodeHParams` (beam_size, n_best, extra_length are used); length_penalty:
  CTranslate2's; compute_type: its weights' type when decoding ("default": as exported);
  batch_size: the most sentences of one CTranslate2 batch; threads: its intra-op threads
  (0: its default); batch_threads: how many batches it decodes at once; device:
  CTranslate2's ("cpu", or "cuda" where its wheel finds CUDA).
  """

  attention_unavailable = ("a CTranslate2 export holds its own copy of the weights, not "
                           "t2t_lite's layers: serve the run directory (t2t-serve "
                           "--output_dir=RUN) to see attention maps")

  def __init__(self, path, version=1, settings=DecodeHParams(), length_penalty=DEFAULT_LENGTH_PENALTY,
               compute_type="default", batch_size=32, threads=0, batch_threads=1,
               device="cpu"):
    try:
      import ctranslate2
      import sentencepiece
    except ImportError:
      raise UserError(f"serving a CTranslate2 export needs the ctranslate2 and sentencepiece "
                      f"packages; run {INSTALL_HINT}") from None
    self.description = f"the CTranslate2 export {path} (version {version})"
    self.settings, self.length_penalty, self.batch_size = settings, length_penalty, batch_size
    self.n_best = settings.n_best
    shared = os.path.join(path, SENTENCEPIECE_FILES["shared"])
    source, target = ((shared, shared) if os.path.exists(shared) else
                      (os.path.join(path, SENTENCEPIECE_FILES[side]) for side in
                       ("source", "target")))
    self.source = sentencepiece.SentencePieceProcessor(model_file=source)
    self.target = sentencepiece.SentencePieceProcessor(model_file=target)
    self.translator = ctranslate2.Translator(path, device=device, compute_type=compute_type,
                                             intra_threads=threads, inter_threads=batch_threads)

  @classmethod
  def from_flags(cls, path, version, decode_hparams, length_penalty, batch_size,
                 batch_threads):
    """As t2t-serve opens it: --decode_hparams over t2t-decoder's translation defaults."""
    return cls(path, version, overridden(DecodeHParams(), decode_hparams), length_penalty,
               batch_size=batch_size, batch_threads=batch_threads)

  def input_lengths(self, sentences):
    return [len(pieces) + 1 for pieces in self.source.encode(list(sentences))]  # EOS too.

  def decode(self, sentences):
    pieces = self.source.encode(list(sentences), out_type=str)
    by_length = {}
    for index, (sentence, source) in enumerate(zip(sentences, pieces)):
      by_length.setdefault(len(source) if sentence.strip() else None, []).append(index)
    outputs = [None] * len(sentences)
    for index in by_length.pop(None, []):  # Blank lines stay blank, as in t2t-decoder.
      outputs[index] = output([""], [0.0], self.n_best)
    for length, indices in by_length.items():
      results = self.translator.translate_batch(
          [pieces[i] for i in indices], max_batch_size=self.batch_size,
          beam_size=self.settings.beam_size, num_hypotheses=self.n_best,
          length_penalty=self.length_penalty, return_scores=True,
          max_decoding_length=length + self.settings.extra_length)
      for index, result in zip(indices, results):
        outputs[index] = output([self.target.decode(tokens) for tokens in result.hypotheses],
                                result.scores, self.n_best)
    return outputs
