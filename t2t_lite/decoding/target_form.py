"""What a problem's targets need at decode time beyond being text: the one interface a
problem implements for decoding (`Problem.target_form`).

Plain text, `TargetForm()` itself, needs nothing: no count rule, no repair. A problem
whose targets stand for something else (parsing: linearised trees) gives a subclass:

  counted_tokens                target tokens of the count rule (token_counts.py): each
                                output holds `required_counts` of them; () = no rule
  required_counts(sources)      sources [batch] tf.string -> [batch] int32, in TensorFlow
                                ops (an exported SavedModel applies the rule too)
  bracket_pairs                 (opener, closer) target tokens that must nest (the bracket
                                rule, bracket_rule.py; needs the count rule); () = none
  output_text(source, decoded)  a decoded target -> its output line (a tree as text)
  repairs, malformations(source, decoded)  whether output_text may have to repair a
                                malformed target, and what it repairs in this one (a tuple
                                of descriptions, () for none; the decoders count them)
"""


class TargetForm:
  """Targets that are plain text."""

  counted_tokens = ()
  bracket_pairs = ()
  repairs = False

  def required_counts(self, sources):
    raise NotImplementedError(f"{type(self).__name__} has counted_tokens without "
                              f"required_counts")

  def output_text(self, source_text, decoded_text):
    del source_text
    return decoded_text

  def malformations(self, source_text, decoded_text):
    del source_text, decoded_text
    return ()


PLAIN_TEXT = TargetForm()
