"""A run directory, or an ensemble of runs (--output_dir=A,B as t2t-decoder takes it), served
with t2t-decoder's own `Translator`: answers are t2t-decoder's, byte for byte.

Each batch of the server is one `Translator.translation` in batches of max_batch_size
(--decode_hparams sets the rest, with the problem's defaults, as for t2t-decoder); the
search is traced once per input width for batches of any size (`any_batch_size`). Its
attention maps are t2t-visualize's, on the served translation as the target (of the
ensemble's first run, for an ensemble).
"""

import re

from t2t_lite.errors import UserError
from t2t_lite.serving.served_model import ServedModel, output


class ServedRuns(ServedModel):
  """The run(s) of `output_dir` (t2t-decoder's --output_dir and --checkpoint_path), decoded
  with `decode_hparams` in batches of `max_batch_size`."""

  attention_unavailable = None

  def __init__(self, output_dir, checkpoint_path, decode_hparams, max_batch_size):
    from t2t_lite.run.ensemble import RunEnsemble, open_runs
    if re.search(r"(^|,)\s*batch_size\s*=", decode_hparams or ""):
      raise UserError("t2t-serve decodes batches of --max_batch_size sentences; drop "
                      "batch_size from --decode_hparams")
    runs = open_runs(output_dir, checkpoint_path)
    settings = ",".join(filter(None, [decode_hparams, f"batch_size={max_batch_size}"]))
    self.translator = runs.translator(settings, any_batch_size=True)
    self.translator.check_settings()
    first = runs.runs[0] if isinstance(runs, RunEnsemble) else runs
    self._drawn = first.translator("beam_size=1")  # Its model draws the attention maps.
    self.n_best = self.translator.settings.n_best
    self.widths = tuple(self.translator.widths)
    kind = (f"the ensemble of {len(runs.runs)} runs {output_dir}"
            if isinstance(runs, RunEnsemble) else f"the run {output_dir}")
    self.description = f"{kind} ({checkpoint_path or 'newest checkpoint'})"
    self.attention_source = first.output_dir

  def input_lengths(self, sentences):
    return self.translator.input_lengths(sentences)

  def decode(self, sentences):
    translation = self.translator.translation(sentences, progress=False)
    return [output([text for text, _ in ranked] or [""], [score for _, score in ranked] or
                   [0.0], self.n_best) for ranked in translation.n_best]

  def attention(self, sentence, target):
    from t2t_lite.visualization.attention_maps import sentence_attention
    return sentence_attention(self._drawn, sentence, target)
