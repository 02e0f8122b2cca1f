"""t2t-trainer: trains a model on a problem; also `--summary` and `--registry_help`."""

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
common.define_shared_flags("problem", "model", "hparams_set", "hparams", "data_dir",
                           "output_dir")
flags.DEFINE_integer("train_steps", 250000, "Number of training steps.")
flags.DEFINE_bool("registry_help", False, "List the registered problems, hparams sets and "
                  "models, then exit.")
flags.DEFINE_bool("summary", False, "Build the model, print each part's parameter count "
                  "and a final line total_params=N, then exit. Needs --vocab_size or "
                  "--problem with --data_dir.")
flags.DEFINE_integer("vocab_size", None, "Vocabulary size for --summary without a problem.")


def main(argv):
  del argv
  from t2t_lite import registry
  if FLAGS.registry_help:
    print(registry.registry_help())
    return 0
  hparams = _hparams()
  if FLAGS.summary:
    from t2t_lite.summary import format_summary
    input_vocab_size, target_vocab_size = _vocab_sizes()
    model = registry.MODELS[FLAGS.model](hparams, input_vocab_size, target_vocab_size)
    print(format_summary(model))
    return 0
  common.not_available_yet("training")


def _hparams():
  from t2t_lite.errors import UserError
  from t2t_lite.registry import HPARAMS
  if not FLAGS.hparams_set:
    raise UserError("--hparams_set is required, e.g. --hparams_set=transformer_base "
                    "(--registry_help lists all)")
  return HPARAMS[FLAGS.hparams_set]().override(FLAGS.hparams)


def _vocab_sizes():
  """(input, target) vocabulary sizes from --vocab_size or the problem's data."""
  from t2t_lite.errors import UserError
  from t2t_lite.registry import PROBLEMS
  if FLAGS.vocab_size is not None:
    if FLAGS.vocab_size < 2:
      raise UserError(f"--vocab_size={FLAGS.vocab_size} must be at least 2 (padding and EOS)")
    return FLAGS.vocab_size, FLAGS.vocab_size
  if FLAGS.problem:
    if not FLAGS.data_dir:
      raise UserError("--summary with --problem needs --data_dir (where t2t-datagen "
                      "wrote the vocabulary), or pass --vocab_size")
    return PROBLEMS[FLAGS.problem]().vocab_sizes(FLAGS.data_dir)
  raise UserError("--summary needs --vocab_size=N or --problem with --data_dir")


def run():
  common.run_main(main)


if __name__ == "__main__":
  run()
