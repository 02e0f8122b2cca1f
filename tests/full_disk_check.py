"""Writes to a full and to a read-only file system; prints each one-line error.

    python full_disk_check.py FULL_DIR READ_ONLY_DIR WORK_DIR

Run inside a private mount namespace where FULL_DIR is a tiny tmpfs and
READ_ONLY_DIR a read-only one (see test_file_errors.py). Prints one line per
case, "case: message", then the files left in FULL_DIR.
"""

import os
import sys

import tensorflow as tf

from t2t_lite.data.problem import Sources
from t2t_lite.errors import UserError
from t2t_lite.files.file_errors import reporting_file_errors
from t2t_lite.registry import PROBLEMS
from t2t_lite.run.checkpoints import Checkpoints
from tiny_runs import tiny_text

full, read_only, work = sys.argv[1:4]
with open(os.path.join(work, "train.tsv"), "w", encoding="utf-8") as f:
  f.write(tiny_text(2000))
sources = Sources(tmp_dir=work, tsv={"train": os.path.join(work, "train.tsv")})


def datagen(data_dir):
  PROBLEMS["translate_from_files"]().generate_data(data_dir, sources, vocab_size=300,
                                                   progress=False)


def checkpoint(output_dir):
  variable = tf.Variable(tf.zeros([1 << 16]))
  Checkpoints(tf.distribute.get_strategy(), output_dir, 2, 1, 0, v=variable).save(1)


for case, work_function, target in (("datagen full", datagen, os.path.join(full, "data")),
                                     ("datagen read-only", datagen, read_only),
                                     ("checkpoint full", checkpoint, os.path.join(full, "run")),
                                     ("checkpoint read-only", checkpoint, read_only)):
  try:
    reporting_file_errors(work_function)(target)
    print(f"{case}: no error")
  except UserError as error:
    print(f"{case}: {error}")
for root, _, names in os.walk(full):
  for name in names:
    print("left:", os.path.relpath(os.path.join(root, name), full))
