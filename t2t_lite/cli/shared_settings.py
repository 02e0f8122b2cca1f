"""The settings several commands take, each declared once here; a command's flags dataclass
takes one by name:

    @dataclasses.dataclass(frozen=True)
    class DecoderFlags:
      output_dir: str = shared("output_dir")

A library function taking one as an argument checks it against the same declaration:
check_declared(SHARED, "vocab_size", vocab_size) (`command_line.check_declared`).
"""

from t2t_lite.cli.command_line import declared

# name -> (default, help text[, the rest of its `setting`: its range]). Each command's
# dataclass gives the type.
SHARED = {
    "t2t_usr_dir": (None, "A folder of Python modules (or a package whose __init__.py imports "
                    "them) that register your own problems, hparams sets or models (as in "
                    "tensor2tensor); each imported."),
    "problem": (None, "Registered problem name, e.g. translate_ende_wmt32k."),
    "model": ("transformer", "Registered model name."),
    "hparams_set": (None, "Registered hparams set, e.g. transformer_base."),
    "hparams": ("", "Overrides of the set: 'name=value,name=value'."),
    "data_dir": (None, "Directory of the problem's generated data (written by t2t-datagen)."),
    "tmp_dir": (None, "Directory for raw downloads and extracted text."),
    "output_dir": (None, "Run directory: checkpoints, hparams.json, summaries."),
    "checkpoint_path": (None, "A checkpoint to use instead of the run directory's latest."),
    "decode_hparams": ("", "Decoding overrides, e.g. 'beam_size=4,alpha=0.6'."),
    "worker_gpu": (0, "Local GPUs to use (MirroredStrategy over them); 0 = all. On a machine "
                   "without GPUs, 0 or 1 means the CPU. With TF_CONFIG naming several "
                   "workers, t2t-trainer uses MultiWorkerMirroredStrategy (the other "
                   "commands use this machine's devices only).", dict(minimum=0)),
    "locally_shard_to_cpu": (False, "Run the --worker_gpu replicas on as many logical "
                             "devices of the CPU (MirroredStrategy), as tensor2tensor's flag "
                             "did: several replicas on any machine, e.g. for testing. At "
                             "most 8 replicas a usable core."),
    "vocab_size": (None, "Vocabulary size: t2t-datagen trains a SentencePiece vocabulary of "
                   "this size instead of the problem's own (e.g. for a small corpus); "
                   "t2t-trainer --summary builds the model for it without a problem.",
                   dict(minimum=2, bound_hint="padding and EOS")),
}


def shared(name):
  """The dataclass field of the shared setting `name`."""
  return declared(SHARED, name)


# Why --output_dir is required where a command reads a trained run.
TRAINED_RUN = "the run directory t2t-trainer wrote"
