"""What every entry point shares: quiet TensorFlow, registries, one-line errors, and the
flags several commands take."""

import dataclasses
import os
import sys

from absl import app, flags

from t2t_lite import quiet
from t2t_lite.command_line import define_flags, setting
from t2t_lite.errors import UserError
from t2t_lite.file_errors import reporting_file_errors
from t2t_lite.registry import load_registries
from t2t_lite.training.stopping import StoppedBySignal


@dataclasses.dataclass(frozen=True)
class SharedFlags:
  """Flags several commands take, each defined once whichever commands a process imports."""
  t2t_usr_dir: str = setting(None, "A Python package directory whose __init__.py registers "
                             "your own problems, hparams sets or models (as in tensor2tensor).")
  problem: str = setting(None, "Registered problem name, e.g. translate_ende_wmt32k.")
  model: str = setting("transformer", "Registered model name.")
  hparams_set: str = setting(None, "Registered hparams set, e.g. transformer_base.")
  hparams: str = setting("", "Overrides of the set: 'name=value,name=value'.")
  data_dir: str = setting(None, "Directory of the problem's generated data (written by "
                          "t2t-datagen).")
  tmp_dir: str = setting(None, "Directory for raw downloads and extracted text.")
  output_dir: str = setting(None, "Run directory: checkpoints, hparams.json, summaries.")
  checkpoint_path: str = setting(None, "A checkpoint to use instead of the run directory's "
                                 "latest.")
  decode_hparams: str = setting("", "Decoding overrides, e.g. 'beam_size=4,alpha=0.6'.")
  vocab_size: int = setting(None, "Vocabulary size: t2t-datagen trains a SentencePiece "
                            "vocabulary of this size instead of the problem's own (e.g. for a "
                            "small corpus); t2t-trainer --summary builds the model for it "
                            "without a problem.")


def define_shared_flags(*names):
  """Defines the named `SharedFlags` that no other imported command has defined yet."""
  define_flags(SharedFlags, names)


define_shared_flags("t2t_usr_dir")  # Every command takes it.


def entry_point(main, registries=True):
  """The function a console script calls: runs `main(argv)` under absl and exits with what
  `call_main` returns.

  registries: load TensorFlow quietly, then the problems, hparams sets and models (and
    --t2t_usr_dir).
  """
  def run():
    program = os.path.basename(sys.argv[0])
    app.run(lambda argv: call_main(main, argv, program, registries))
  return run


def call_main(main, argv, program, registries=True):
  """`main(argv)` once absl has parsed the flags -> the exit status: a `UserError` (or a
  file-system failure) prints one line `program: error: ...` and gives 2; a run stopped
  by a signal (after saving) prints its one line and gives 128 + the signal's number."""
  try:
    if registries:
      quiet.import_tensorflow()
      load_registries(flags.FLAGS.t2t_usr_dir)
    return reporting_file_errors(main)(argv)
  except UserError as error:
    print(f"{program}: error: {error}", file=sys.stderr)
    return 2
  except StoppedBySignal as stopped:  # Saved first: 128 + the signal, not 0 (finished).
    print(f"{program}: {stopped}", file=sys.stderr)
    return stopped.exit_status
  except KeyboardInterrupt:
    print(f"{program}: interrupted", file=sys.stderr)
    return 130


def require_run_dir():
  """UserError unless --output_dir names the run directory to use."""
  if not flags.FLAGS.output_dir:
    raise UserError("--output_dir is required: the run directory t2t-trainer wrote")


def flags_used():
  """{name: value} of the flags set on the command line (recorded in the run directory)."""
  return {name: flags.FLAGS[name].value for name in flags.FLAGS
          if flags.FLAGS[name].present}

