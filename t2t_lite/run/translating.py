"""What a run and an ensemble of runs share: text in, text out, as t2t-decoder decodes."""

from t2t_lite.decoding.decode_hparams import decode_hparams_for
from t2t_lite.decoding.translate import Translator


class Translating:
  """`translator` and `translate` for an object with `model`, `input_vocab`, `target_vocab`,
  `problem`, `strategy` and a `_translators` dict (emptied when the model changes), and
  `rerank_models`: () for one direction, else the models that rerank the beam."""

  rerank_models = ()
  chosen_decoding = ""  # Settings chosen for the model, under decode_hparams' (a Run's file).

  def translator(self, decode_hparams="", any_batch_size=False):
    """A `Translator` of the model: the problem's decoding defaults, then `chosen_decoding`,
    then `decode_hparams`, a string as --decode_hparams takes it, e.g. "beam_size=1";
    any_batch_size: for batches of every size (a server's; `Translator`)."""
    key = (decode_hparams, any_batch_size)
    if key not in self._translators:
      self._check_decodable()
      self._translators[key] = Translator(
          self.model, (self.input_vocab, self.target_vocab), self.problem.target_form,
          decode_hparams_for(self.problem, decode_hparams, self.chosen_decoding),
          self.strategy, self.rerank_models, any_batch_size)
    return self._translators[key]

  def translate(self, lines, decode_hparams="", progress=False):
    """Input lines -> output lines (as many, in order), decoded as t2t-decoder decodes."""
    return self.translator(decode_hparams).translate(lines, progress=progress)

  def _check_decodable(self):
    """Nothing here: a subclass whose model may be missing raises a UserError then."""
