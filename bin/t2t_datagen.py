"""t2t-datagen: writes a problem's vocabulary and sharded TFRecords of ids.

    t2t-datagen --problem=translate_from_files --data_dir=DIR \
        --train_source=F --train_target=F [--dev_source=F --dev_target=F] \
        [--test_source=F --test_target=F | --train_tsv=F --dev_tsv=F --test_tsv=F] \
        [--vocab_size=N] [--num_shards=N] [--num_concurrent_processes=N]

It encodes the records on every core, prints a progress line while it reads and a summary
at the end.
"""

import dataclasses
import os
import tempfile

from t2t_lite.bin import common
from t2t_lite.cli.command_line import (declared, define_flags, flag_values, reject_positional,
                                      require, setting)
from t2t_lite.cli.shared_settings import shared
from t2t_lite.data.datagen_settings import DATAGEN

SPLITS = ("train", "dev", "test")


def _source(split):
  return setting(None, f"Source-language text of the {split} split, one sentence a line.")


def _target(split):
  return setting(None, f"Target-language text of the {split} split, line-aligned with "
                 f"--{split}_source.")


def _tsv(split):
  return setting(None, f"The {split} split as one file of source<TAB>target lines.")


@dataclasses.dataclass(frozen=True)
class DatagenFlags:
  """The problem, where to write it, and a user's own files for it."""
  problem: str = shared("problem")
  data_dir: str = shared("data_dir")
  tmp_dir: str = shared("tmp_dir")
  vocab_size: int = shared("vocab_size")
  train_source: str = _source("train")
  train_target: str = _target("train")
  train_tsv: str = _tsv("train")
  dev_source: str = _source("dev")
  dev_target: str = _target("dev")
  dev_tsv: str = _tsv("dev")
  test_source: str = _source("test")
  test_target: str = _target("test")
  test_tsv: str = _tsv("test")
  num_shards: int = declared(DATAGEN, "num_shards")
  num_concurrent_processes: int = declared(DATAGEN, "num_concurrent_processes")
  progress: bool = setting(True, "Show a progress line on stderr while reading.")


define_flags(DatagenFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(DatagenFlags)
  from t2t_lite.data.problem import Sources
  from t2t_lite.errors import UserError
  from t2t_lite.registry import PROBLEMS
  require(args, problem="the problem to generate, e.g. translate_from_files (t2t-trainer "
          "--registry_help lists all)", data_dir="the directory to write the vocabulary and TFRecords into")
  problem = PROBLEMS[args.problem]()
  data_dir = os.path.abspath(os.path.expanduser(args.data_dir))
  tmp_dir = args.tmp_dir or os.path.join(tempfile.gettempdir(), "t2t_datagen")
  sources = Sources(tmp_dir=os.path.abspath(os.path.expanduser(tmp_dir)),
                    files=_split_files(args, UserError), tsv=_split_tsv(args))
  from t2t_lite.run.output_paths import check_data_directory
  check_data_directory(data_dir, "--data_dir", [path for pair in sources.files.values()
                                                for path in pair] + list(sources.tsv.values()))
  from t2t_lite.files.writer_lock import holding
  with holding(data_dir):  # One writer: a second t2t-datagen on it is refused in one line.
    summary = problem.generate_data(data_dir, sources, vocab_size=args.vocab_size,
                                    progress=args.progress, num_shards=args.num_shards,
                                    processes=args.num_concurrent_processes)
  print(summary)
  return 0


def _split_files(args, user_error):
  """{split: (source_path, target_path)} from the flags given in pairs."""
  files = {}
  for split in SPLITS:
    source, target = getattr(args, f"{split}_source"), getattr(args, f"{split}_target")
    if bool(source) != bool(target):
      given, missing = (f"{split}_source", f"{split}_target") if source else (
          f"{split}_target", f"{split}_source")
      raise user_error(f"--{given} needs --{missing} (line-aligned text of the other language)")
    if source:
      files[split] = (_path(source), _path(target))
  return files


def _split_tsv(args):
  return {split: _path(getattr(args, f"{split}_tsv")) for split in SPLITS
          if getattr(args, f"{split}_tsv")}


def _path(path):
  return os.path.abspath(os.path.expanduser(path))


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
