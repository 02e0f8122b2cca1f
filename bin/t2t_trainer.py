"""t2t-trainer: trains a model on a problem; also `--summary` and `--registry_help`.

    t2t-trainer --problem=translate_ende_wmt32k --hparams_set=transformer_big \
        --data_dir=DATA --output_dir=RUN [--hparams='batch_size=4096'] ...

Run again, it resumes from the latest checkpoint in --output_dir. `batch_size` is tokens
per replica (`t2t_lite.training.trainer`); how to train is `t2t_lite.training.config`'s
flags, what to train these.
"""

import dataclasses

from t2t_lite import registry
from t2t_lite.bin import common
from t2t_lite.cli import command_line
from t2t_lite.cli.command_line import setting
from t2t_lite.cli.shared_settings import shared
from t2t_lite.models import parameter_summary
from t2t_lite.training import auto_hparams
from t2t_lite.training.config import TrainConfig


@dataclasses.dataclass(frozen=True)
class TrainerFlags:
  """What to train, and the two modes that train nothing."""
  problem: str = shared("problem")
  model: str = shared("model")
  hparams_set: str = shared("hparams_set")
  hparams: str = shared("hparams")
  data_dir: str = shared("data_dir")
  vocab_size: int = shared("vocab_size")
  registry_help: bool = setting(False, "List the registered problems, hparams sets and "
                                "models, then exit.")
  summary: bool = setting(False, "Build the model, print each part's parameter count and a "
                          "final line total_params=N, then exit. Needs --vocab_size or "
                          "--problem with --data_dir.")


command_line.define_flags(TrainerFlags)
command_line.define_flags(TrainConfig, module_name=__name__)


def main(argv):
  command_line.reject_positional(argv)
  args = command_line.flag_values(TrainerFlags)
  if args.registry_help:
    print(registry.registry_help())
    return 0
  hparams = registry.hparams_for(args.hparams_set, args.hparams)
  if args.summary:
    print(parameter_summary.summary_for(args.model, hparams, args.vocab_size, args.problem,
                                        args.data_dir))
    return 0
  command_line.require(args, problem="what to train on (t2t-trainer --registry_help lists "
                       "them)", data_dir="the directory t2t-datagen wrote the problem's data in")
  config = command_line.flag_values(TrainConfig, flags=command_line.flags_used())
  problem = registry.PROBLEMS[args.problem]()
  from t2t_lite.data.damaged_records import naming_damaged_records
  from t2t_lite.training.trainer import begun_hparams, train  # Heavy: only when training.
  if args.hparams_set == auto_hparams.AUTO_SET:
    hparams, line = auto_hparams.for_run(registry.hparams_for(args.hparams_set), problem,
                                         args.data_dir, config, args.hparams,
                                         begun_hparams(config))
    print(line, flush=True)
  with naming_damaged_records(problem.name, args.data_dir, ("train", "dev")):
    train(problem, hparams, config, args.data_dir)
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
