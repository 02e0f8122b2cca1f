"""Whether a parser's leaves drift off their words (docs/results.md, parsing).

    .venv/bin/python docs/leaf_drift.py RUN_DIR WORDS_FILE GOLD_FILE [DECODE_HPARAMS]

Decodes WORDS_FILE with the run as t2t-decoder does, keeps each output's leaves in order,
and sets them beside what they stand for: the gold POS tags of GOLD_FILE for
parsing_english_ptb16k (docs/ptb_split_files.py writes both files), the source words
for parsing_english_ptb16k_words. Two ways: the share right at their own word (the k-th
leaf against the k-th word or its tag), and the share matched in order (the longest
common subsequence). A leaf sequence that is right but shifted by a word or two scores
high on the second and low on the first: the decoder knows the leaves, and has lost its
place in the sentence.
"""

import difflib
import sys

from t2t_lite import quiet

quiet.import_tensorflow()

from t2t_lite.data.trees import is_leaf, parse_trees  # noqa: E402
from t2t_lite.data.linearised_trees import LinearisedTrees, decoded_tokens  # noqa: E402
from t2t_lite.run import Run  # noqa: E402


class _DecodedLeaves(LinearisedTrees):
  """Linearised trees whose output line is the decoded target itself, not a tree."""

  def output_text(self, source_text, decoded_text):
    return decoded_text


def main(run_dir, words_file, gold_file, decode_hparams=""):
  run = Run.open(run_dir)
  word_leaves = run.problem.target_form.word_leaves
  # This run object's only: nothing is written.
  run.problem.target_form = _DecodedLeaves(word_leaves)
  with open(words_file, encoding="utf-8") as handle:
    sentences = [line.rstrip("\n") for line in handle]
  with open(gold_file, encoding="utf-8") as handle:
    gold_trees = [parse_trees(line)[0] for line in handle]
  golds = [tree.words() if word_leaves else tree.tags() for tree in gold_trees]
  outputs = run.translate(sentences, decode_hparams, progress=True)
  at_their_word = in_order = words = drifted = 0
  for output, gold in zip(outputs, golds):
    leaves = [token for token in decoded_tokens(output, word_leaves)
              if is_leaf(token, word_leaves)]
    right_here = sum(leaf == tag for leaf, tag in zip(leaves, gold))
    matched = sum(block.size for block in difflib.SequenceMatcher(
        None, leaves, gold, autojunk=False).get_matching_blocks())
    at_their_word += right_here
    in_order += matched
    words += len(gold)
    drifted += matched - right_here >= 3
  print(f"{len(golds)} sentences, {words} words: leaves right at their own word "
        f"{at_their_word / words:.1%}, matched in order {in_order / words:.1%}; sentences "
        f"where matching in order finds 3 or more right leaves more: {drifted}")


if __name__ == "__main__":
  main(*sys.argv[1:])
