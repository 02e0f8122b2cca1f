"""t2t-datagen: writes a problem's vocabulary and sharded TFRecords of ids.

    t2t-datagen --problem=translate_from_files --data_dir=DIR \
        --train_source=F --train_target=F [--dev_source=F --dev_target=F] \
        [--test_source=F --test_target=F | --train_tsv=F --dev_tsv=F --test_tsv=F] \
        [--vocab_size=N]

It prints a progress line while it reads and a summary at the end.
"""

import os
import tempfile

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
SPLITS = ("train", "dev", "test")

common.define_shared_flags("problem", "data_dir", "tmp_dir", "vocab_size")
for _split in SPLITS:
  flags.DEFINE_string(f"{_split}_source", None,
                      f"Source-language text of the {_split} split, one sentence a line.")
  flags.DEFINE_string(f"{_split}_target", None,
                      f"Target-language text of the {_split} split, line-aligned with "
                      f"--{_split}_source.")
  flags.DEFINE_string(f"{_split}_tsv", None,
                      f"The {_split} split as one file of source<TAB>target lines.")
flags.DEFINE_bool("progress", True, "Show a progress line on stderr while reading.")


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
  from t2t_lite.data.problem import Sources
  from t2t_lite.errors import UserError
  from t2t_lite.registry import PROBLEMS
  if not FLAGS.problem:
    raise UserError("--problem is required, e.g. --problem=translate_from_files "
                    "(t2t-trainer --registry_help lists all)")
  if not FLAGS.data_dir:
    raise UserError("--data_dir is required: the directory to write the vocabulary and "
                    "TFRecords into")
  problem = PROBLEMS[FLAGS.problem]()
  data_dir = os.path.abspath(os.path.expanduser(FLAGS.data_dir))
  if os.path.exists(data_dir) and not os.path.isdir(data_dir):
    raise UserError(f"--data_dir={FLAGS.data_dir} is a file, not a directory")
  tmp_dir = FLAGS.tmp_dir or os.path.join(tempfile.gettempdir(), "t2t_datagen")
  sources = Sources(tmp_dir=os.path.abspath(os.path.expanduser(tmp_dir)),
                    files=_split_files(UserError), tsv=_split_tsv())
  from t2t_lite.writer_lock import holding
  with holding(data_dir):  # One writer: a second t2t-datagen on it is refused in one line.
    summary = problem.generate_data(data_dir, sources, vocab_size=FLAGS.vocab_size,
                                    progress=FLAGS.progress)
  print(summary)
  return 0


def _split_files(user_error):
  """{split: (source_path, target_path)} from the flags given in pairs."""
  files = {}
  for split in SPLITS:
    source, target = FLAGS[f"{split}_source"].value, FLAGS[f"{split}_target"].value
    if bool(source) != bool(target):
      given, missing = (f"{split}_source", f"{split}_target") if source else (
          f"{split}_target", f"{split}_source")
      raise user_error(f"--{given} needs --{missing} (line-aligned text of the other language)")
    if source:
      files[split] = (_path(source), _path(target))
  return files


def _split_tsv():
  return {split: _path(FLAGS[f"{split}_tsv"].value) for split in SPLITS
          if FLAGS[f"{split}_tsv"].value}


def _path(path):
  return os.path.abspath(os.path.expanduser(path))


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
