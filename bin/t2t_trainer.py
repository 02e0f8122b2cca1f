"""t2t-trainer: trains a model on a problem; also `--summary` and `--registry_help`.

    t2t-trainer --problem=translate_ende_wmt32k --hparams_set=transformer_big \
        --data_dir=DATA --output_dir=RUN [--hparams='batch_size=4096'] ...

Run again, it resumes from the latest checkpoint in --output_dir. `batch_size` is tokens
per replica (`t2t_lite.training.trainer`); the flags are `t2t_lite.training.config`'s.
"""

from absl import flags

from t2t_lite import command_line, registry, summary
from t2t_lite.bin import common
from t2t_lite.training.config import TrainConfig

FLAGS = flags.FLAGS
common.define_shared_flags("problem", "model", "hparams_set", "hparams", "data_dir",
                           "output_dir", "vocab_size", "decode_hparams")
command_line.define_flags(TrainConfig)
flags.DEFINE_bool("registry_help", False, "List the registered problems, hparams sets and "
                  "models, then exit.")
flags.DEFINE_bool("summary", False, "Build the model, print each part's parameter count and a "
                  "final line total_params=N, then exit. Needs --vocab_size or --problem with "
                  "--data_dir.")


def main(argv):
  command_line.reject_positional(argv)
  if FLAGS.registry_help:
    print(registry.registry_help())
    return 0
  hparams = registry.hparams_for(FLAGS.hparams_set, FLAGS.hparams)
  if FLAGS.summary:
    print(summary.summary_for(FLAGS.model, hparams, FLAGS.vocab_size, FLAGS.problem,
                              FLAGS.data_dir))
    return 0
  command_line.require("to train (see t2t-trainer --helpfull)", "problem", "data_dir", "output_dir")
  config = command_line.config_from_flags(TrainConfig, flags=common.flags_used())
  from t2t_lite.training.trainer import train  # Heavy: only when training.
  train(registry.PROBLEMS[FLAGS.problem](), hparams, config, FLAGS.data_dir)
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
