"""Right-to-left runs (hparams right_to_left=True): targets read and written last token first.

Such a run trains on each target with its tokens reversed and EOS still last
("a b c EOS" becomes "c b a EOS"), and decodes in that order; t2t-decoder, the
SavedModel and the dev decodings turn its outputs back before they become text,
and --score_file reverses the targets it scores (the reversal:
t2t_lite.data.target_order). Its use is reranking: a beam searched left to right,
scored again by runs of both directions (t2t_lite.decoding.rerank), which err at
opposite ends of a sentence.

    check_rules(hparams, rule_tables)   # a right-to-left run decodes without rules
"""

from t2t_lite.errors import UserError


def check_rules(hparams, rule_tables):
  """UserError when a right-to-left model would decode under the problem's decoding rules
  (`rule_tables` not None: t2t_lite.decoding.token_counts), which build outputs left to
  right."""
  if hparams.right_to_left and rule_tables is not None:
    raise UserError("a right-to-left run decodes without this problem's decoding rules, "
                    "which build outputs left to right: pass --decode_hparams=count_rule="
                    "False (the other rules go with it), or decode a left-to-right run")
