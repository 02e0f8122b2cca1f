"""t2t-trainer: trains a model on a problem; also `--summary` and `--registry_help`.

    t2t-trainer --problem=translate_ende_wmt32k --hparams_set=transformer_big \
        --data_dir=DATA --output_dir=RUN [--hparams='batch_size=4096'] ...

Running the same command again resumes from the latest checkpoint in --output_dir.

Batch size and replicas: `batch_size` (an hparam) is tokens per replica (per GPU)
per micro-batch. One step is one update over every replica and every
--gradient_accumulation_steps micro-batch, so the global batch is
batch_size x replicas x gradient_accumulation_steps tokens, and the
learning-rate schedule is a function of the step alone. The paper's ~25,000
tokens per step: 8 GPUs x batch_size=3125, or 1 GPU x batch_size=3125 x
--gradient_accumulation_steps=8 (same updates, 8x the time).
"""

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
common.define_shared_flags("problem", "model", "hparams_set", "hparams", "data_dir",
                           "output_dir", "vocab_size", "decode_hparams")
flags.DEFINE_integer("train_steps", 250000, "Total optimizer updates (paper: 100k base, "
                     "300k big); a resumed run continues up to this step.")
# tensor2tensor's schedule names -> ours (its default trains and evaluates as ours does).
SCHEDULE_ALIASES = {"continuous_train_and_eval": "train_and_evaluate"}
flags.DEFINE_enum("schedule", "train_and_evaluate",
                  ["train", "train_and_evaluate", "evaluate", *SCHEDULE_ALIASES],
                  "What to run; continuous_train_and_eval is tensor2tensor's name for "
                  "train_and_evaluate.")
flags.DEFINE_integer("eval_steps", 100, "Dev batches per replica per evaluation; 0 = all.")
flags.DEFINE_integer("local_eval_frequency", 1000, "Steps between evaluations.")
flags.DEFINE_integer("keep_checkpoint_max", 20, "Checkpoints kept (paper averages the last "
                     "5 for base, 20 for big).")
flags.DEFINE_integer("save_checkpoints_steps", 1000, "Save every N steps (0: off).")
flags.DEFINE_integer("save_checkpoints_secs", 600, "Save every M seconds (0: off); the paper "
                     "saved every 10 minutes.")
flags.DEFINE_integer("worker_gpu", 0, "Local GPUs to use (MirroredStrategy); 0 = all. With "
                     "TF_CONFIG naming several workers, MultiWorkerMirroredStrategy is used.")
flags.DEFINE_bool("xla", None, "Compile the per-replica step with XLA; default: on for GPUs, "
                  "off on CPU.")
flags.DEFINE_bool("xla_compile", None, "tensor2tensor's name for --xla.")
flags.DEFINE_enum("mixed_precision", None, ["bfloat16", "float16"], "Compute in this dtype "
                  "(softmax, layer norm and the loss stay float32; float16 uses dynamic loss "
                  "scaling). Default float32.")
flags.DEFINE_integer("gradient_accumulation_steps", 1, "Micro-batches per replica summed "
                     "into one update.")
flags.DEFINE_integer("random_seed", None, "Seed for weights, dropout and the input order "
                     "(which becomes deterministic).")
flags.DEFINE_integer("eval_decode_sentences", 100, "Dev sentences decoded (beam search "
                     "per --decode_hparams) and scored at each evaluation: sacreBLEU, or "
                     "bracket F1 for parsing. 0 = none.")
flags.DEFINE_string("warm_start_from", None, "Checkpoint (or run directory) whose model "
                    "weights start a new run.")
flags.DEFINE_bool("registry_help", False, "List the registered problems, hparams sets and "
                  "models, then exit.")
flags.DEFINE_bool("summary", False, "Build the model, print each part's parameter count "
                  "and a final line total_params=N, then exit. Needs --vocab_size or "
                  "--problem with --data_dir.")


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
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
  return _train(hparams)


def _train(hparams):
  from t2t_lite.errors import UserError
  from t2t_lite.registry import PROBLEMS
  from t2t_lite.training.trainer import TrainConfig, train
  for flag in ("problem", "data_dir", "output_dir"):
    if not FLAGS[flag].value:
      raise UserError(f"--{flag} is required to train (see t2t-trainer --helpfull)")
  problem = PROBLEMS[FLAGS.problem]()
  config = TrainConfig(
      output_dir=FLAGS.output_dir, train_steps=FLAGS.train_steps, model=FLAGS.model,
      schedule=SCHEDULE_ALIASES.get(FLAGS.schedule, FLAGS.schedule),
      eval_steps=FLAGS.eval_steps,
      local_eval_frequency=FLAGS.local_eval_frequency,
      keep_checkpoint_max=FLAGS.keep_checkpoint_max,
      save_checkpoints_steps=FLAGS.save_checkpoints_steps,
      save_checkpoints_secs=FLAGS.save_checkpoints_secs, worker_gpu=FLAGS.worker_gpu,
      xla=_xla(), mixed_precision=FLAGS.mixed_precision,
      gradient_accumulation_steps=FLAGS.gradient_accumulation_steps,
      random_seed=FLAGS.random_seed, warm_start_from=FLAGS.warm_start_from,
      eval_decode_sentences=FLAGS.eval_decode_sentences, decode_hparams=FLAGS.decode_hparams,
      flags=common.flags_used())
  train(problem, hparams, config, FLAGS.data_dir)
  return 0


def _xla():
  """--xla, or --xla_compile, its tensor2tensor name; None when neither is given."""
  from t2t_lite.errors import UserError
  given = {value for value in (FLAGS.xla, FLAGS.xla_compile) if value is not None}
  if len(given) > 1:
    raise UserError("--xla and --xla_compile (tensor2tensor's name for it) disagree; give one")
  return given.pop() if given else None


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
