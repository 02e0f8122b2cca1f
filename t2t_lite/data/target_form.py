"""What a problem's targets need at decode time beyond being text: the one interface a
problem implements for decoding (`Problem.target_form`). The files named below are
t2t_lite.decoding's, which reads it.

Plain text, `TargetForm()` itself, needs nothing: no count rule, no repair. A problem
whose targets stand for something else (parsing: linearised trees) gives a subclass:

  count_rule, counts(piece)     whether outputs decode under a count rule (token_counts.py),
                                and which target pieces it counts (by default those of
                                `counted_tokens`, with or without SentencePiece's "▁"):
                                each output holds `required_counts` of them
  required_counts(sources)      sources [batch] tf.string -> [batch] int32, in TensorFlow
                                ops (an exported SavedModel applies the rule too)
  continues(piece)              whether a piece may follow a counted one as part of the
                                same token (words of several pieces); False by default
  bracket_pairs                 (opener, closer) target tokens that must nest (the bracket
                                rule, bracket_rule.py; needs the count rule); () = none
  copies_source                 whether the counted pieces and their continuations, in
                                order, are the source's own pieces (the copy rule,
                                copy_rule.py; needs the bracket rule); False by default
  output_text(source, decoded)  a decoded target -> its output line (a tree as text)
  repairs, malformations(source, decoded)  whether output_text may have to repair a
                                malformed target, and what it repairs in this one (a tuple
                                of descriptions, () for none; the decoders count them)
"""

from t2t_lite.constants import WORD_START


class TargetForm:
  """Targets that are plain text."""

  count_rule = False
  counted_tokens = ()
  bracket_pairs = ()
  copies_source = False
  repairs = False

  def counts(self, piece):
    return piece.removeprefix(WORD_START) in self.counted_tokens

  def continues(self, piece):
    del piece
    return False

  def required_counts(self, sources):
    raise NotImplementedError(f"{type(self).__name__} has a count rule without "
                              f"required_counts")

  def output_text(self, source_text, decoded_text):
    del source_text
    return decoded_text

  def malformations(self, source_text, decoded_text):
    del source_text, decoded_text
    return ()


PLAIN_TEXT = TargetForm()
