"""The Ding dictionary's example sentences as parallel files for docs/own_data_corpora.sh:
OUT/{train,val,test}.{en,de}, split as translate_deen_ding8k splits them (by a hash of the
German sentence: a sixteenth val, a sixteenth test), its dropped pairs dropped.

    python docs/ding_corpus.py OUT [TMP_DIR]

TMP_DIR: where a downloaded de-en.txt lies (default: Debian's trans-de-en, installed).
"""

import collections
import os
import sys

from t2t_lite.data.problem import Sources
from t2t_lite.registry import PROBLEMS

SPLITS = {"train": "train", "dev": "val", "test": "test"}  # The problem's -> the files'.


def write_corpus(out, tmp_dir=""):
  """Writes OUT/{train,val,test}.{en,de} -> {file split: pairs}."""
  problem = PROBLEMS["translate_deen_ding8k"]()
  os.makedirs(out, exist_ok=True)
  written = {}
  for split, name in SPLITS.items():
    pairs = list(problem.clean_pairs(split, Sources(tmp_dir), collections.Counter()))
    for side, language in ((0, "de"), (1, "en")):
      with open(os.path.join(out, f"{name}.{language}"), "w", encoding="utf-8") as f:
        f.writelines(pair[side] + "\n" for pair in pairs)
    written[name] = len(pairs)
  return written


if __name__ == "__main__":
  print(write_corpus(*sys.argv[1:3]))
