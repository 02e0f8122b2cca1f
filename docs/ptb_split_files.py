"""One split of parsing_english_ptb16k as EVALB's inputs: the words and the gold trees.

    .venv/bin/python docs/ptb_split_files.py TREEBANK_DIR SPLIT WORDS_FILE GOLD_FILE

TREEBANK_DIR is t2t-datagen's --tmp_dir (a directory of .mrg files), SPLIT one of
train, dev, test, split by file as t2t-datagen splits them. WORDS_FILE gets each tree's
words (t2t-decoder's input), GOLD_FILE the same trees normalised as the problem reads
them (function tags and traces gone, the real POS tags kept), one per line: the gold
file of `python -m t2t_lite.metrics.evalb`. Trees without words are left out of both, as
t2t-datagen leaves them out.
"""

import sys

from t2t_lite import quiet

quiet.import_tensorflow()  # The problem module imports it: without its start-up chatter.

from t2t_lite.data.trees import normalize, read_mrg_file  # noqa: E402
from t2t_lite.files.atomic_files import write_text_atomic  # noqa: E402
from t2t_lite.problems.parsing_ptb import find_mrg_files, split_files  # noqa: E402


def main(treebank_dir, split, words_file, gold_file):
  words, gold = [], []
  for path in split_files(find_mrg_files(treebank_dir))[split]:
    for tree in read_mrg_file(path):
      tree = normalize(tree)
      if tree.words():
        words.append(" ".join(tree.words()) + "\n")
        gold.append(tree.to_string() + "\n")
  write_text_atomic(words_file, "".join(words))
  write_text_atomic(gold_file, "".join(gold))
  print(f"{split}: {len(words)} trees -> {words_file}, {gold_file}")


if __name__ == "__main__":
  main(*sys.argv[1:])
