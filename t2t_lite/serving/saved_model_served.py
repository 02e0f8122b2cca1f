"""A SavedModel of t2t-exporter, served: its serving_default signature decodes each batch.

The signature holds the tokenizer, the search and the detokenizer; its decoding settings
(beam, alpha, n_best, ...) are the export's. Batches are sorted by the export's own
`input_lengths` function (t2t_lite.export.saved_model); an export older than it is sorted
by each sentence's UTF-8 bytes instead. Its search is traced at every width when exported:
`widths` are the ones its switch decodes at. It holds no layers to draw attention from.
"""

from t2t_lite.decoding.model_decoding import input_widths
from t2t_lite.errors import UserError
from t2t_lite.serving.served_model import ServedModel, output


class ServedSavedModel(ServedModel):
  """The SavedModel in `path` (version `version` of its base path)."""

  attention_unavailable = ("a SavedModel holds the search, not the model's layers: serve the "
                           "run directory (t2t-serve --output_dir=RUN) to see attention maps")

  def __init__(self, path, version):
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)
    from t2t_lite import quiet
    self._tf = tf
    self.description = f"the SavedModel {path} (version {version})"
    with quiet.chatter_hidden():
      self.model = tf.saved_model.load(path)
    signatures = self.model.signatures
    serving = signatures.get("serving_default")
    if serving is None or "sentences" not in serving.structured_input_signature[1]:
      raise UserError(f"{path} is a SavedModel without t2t-exporter's "
                      f"serving_default(sentences) signature; export the run with t2t-exporter")
    self.serve = serving
    self.n_best = serving.structured_outputs["n_best"].shape[1] or 1
    if "decode_ids" in signatures:
      ids = signatures["decode_ids"].structured_input_signature[1]["ids"]
      self.widths = tuple(input_widths(ids.shape[1], step=2))
    self._input_lengths = getattr(self.model, "input_lengths", None)

  def input_lengths(self, sentences):
    if self._input_lengths is None:  # An export older than the function.
      return [len(sentence.encode("utf-8")) for sentence in sentences]
    return self._input_lengths(self._tf.constant(sentences)).numpy().tolist()

  def decode(self, sentences):
    outputs = self.serve(sentences=self._tf.constant(sentences))
    n_best = outputs["n_best"].numpy()                  # [batch, n] bytes
    n_best_scores = outputs["n_best_scores"].numpy()    # [batch, n]
    return [output([text.decode("utf-8") for text in texts], scores, self.n_best)
            for texts, scores in zip(n_best, n_best_scores)]
