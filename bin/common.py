"""What every entry point shares: quiet TensorFlow, registries, one-line errors."""

import os
import sys

from absl import app, flags

from t2t_lite import quiet
from t2t_lite.errors import UserError
from t2t_lite.file_errors import reporting_file_errors

flags.DEFINE_string("t2t_usr_dir", None,
                    "A Python package directory whose __init__.py registers your own "
                    "problems, hparams sets or models (as in tensor2tensor).")

# Flags several commands take, defined once whichever commands a process imports.
SHARED_FLAGS = {
    "problem": (flags.DEFINE_string, None,
                "Registered problem name, e.g. translate_ende_wmt32k."),
    "model": (flags.DEFINE_string, "transformer", "Registered model name."),
    "hparams_set": (flags.DEFINE_string, None,
                    "Registered hparams set, e.g. transformer_base."),
    "hparams": (flags.DEFINE_string, "", "Overrides of the set: 'name=value,name=value'."),
    "data_dir": (flags.DEFINE_string, None,
                 "Directory of the problem's generated data (written by t2t-datagen)."),
    "tmp_dir": (flags.DEFINE_string, None, "Directory for raw downloads and extracted text."),
    "output_dir": (flags.DEFINE_string, None,
                   "Run directory: checkpoints, hparams.json, summaries."),
    "checkpoint_path": (flags.DEFINE_string, None,
                        "A checkpoint to use instead of the run directory's latest."),
    "decode_hparams": (flags.DEFINE_string, "",
                       "Decoding overrides, e.g. 'beam_size=4,alpha=0.6'."),
    "vocab_size": (flags.DEFINE_integer, None,
                   "Vocabulary size: t2t-datagen trains a SentencePiece vocabulary of this "
                   "size instead of the problem's own (e.g. for a small corpus); "
                   "t2t-trainer --summary builds the model for it without a problem."),
}


def define_shared_flags(*names):
  """Defines the named `SHARED_FLAGS` that no other imported command has defined yet."""
  for name in names:
    if name not in flags.FLAGS:
      define, default, help_text = SHARED_FLAGS[name]
      define(name, default, help_text)


def load_registries(usr_dir=None):
  """Registers the built-in problems, hparams sets and models, then the user's."""
  import t2t_lite.hparams_sets  # noqa: F401
  import t2t_lite.models  # noqa: F401
  import t2t_lite.problems  # noqa: F401
  from t2t_lite.registry import import_usr_dir
  if usr_dir:
    import_usr_dir(usr_dir)


def run_main(main, registries=True):
  """Runs `main(argv)` under absl and exits with what `call_main` returns.

  registries: load TensorFlow quietly, then the problems, hparams sets and models (and
    --t2t_usr_dir).
  """
  program = os.path.basename(sys.argv[0])
  app.run(lambda argv: call_main(main, argv, program, registries))


def call_main(main, argv, program, registries=True):
  """`main(argv)` once absl has parsed the flags -> the exit status: a `UserError` (or a
  file-system failure) prints one line `program: error: ...` and gives 2."""
  try:
    if registries:
      quiet.import_tensorflow()
      load_registries(flags.FLAGS.t2t_usr_dir)
    return reporting_file_errors(main)(argv)
  except UserError as error:
    print(f"{program}: error: {error}", file=sys.stderr)
    return 2
  except KeyboardInterrupt:
    print(f"{program}: interrupted", file=sys.stderr)
    return 130


def flags_used():
  """{name: value} of the flags set on the command line (recorded in the run directory)."""
  return {name: flags.FLAGS[name].value for name in flags.FLAGS
          if flags.FLAGS[name].present}

