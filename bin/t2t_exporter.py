"""t2t-exporter: writes a text-in/text-out SavedModel of a trained run.

    t2t-exporter --output_dir=RUN [--export_dir=DIR] [--checkpoint_path=RUN/ckpt-N] \\
        [--decode_hparams="beam_size=4,alpha=0.6"]
    t2t-exporter --output_dir=RUN --export_format=ctranslate2 [--quantization=int8]

See `t2t_lite.export.saved_model` for the signatures; loading needs only tensorflow and
tensorflow_text:

    import tensorflow as tf, tensorflow_text
    model = tf.saved_model.load(DIR)
    model.signatures["serving_default"](sentences=tf.constant(["Hello."]))["translations"]
"""

import dataclasses

from t2t_lite.bin import common
from t2t_lite.cli.command_line import define_flags, flag_values, reject_positional, require, setting
from t2t_lite.cli.shared_settings import TRAINED_RUN, shared
from t2t_lite.errors import UserError
from t2t_lite.export.ctranslate2 import QUANTIZATIONS, export_ctranslate2


@dataclasses.dataclass(frozen=True)
class ExporterFlags:
  """The run to export, and where and how to export it."""
  output_dir: str = shared("output_dir")
  checkpoint_path: str = shared("checkpoint_path")
  decode_hparams: str = shared("decode_hparams")
  export_dir: str = setting(None, "Where to write the SavedModel (default: "
                            "<output_dir>/export): a new or empty directory, or an earlier "
                            "export, which is replaced once the new one is complete.")
  export_format: str = setting(
      "savedmodel", "savedmodel: the SavedModel (t2t_lite.export.saved_model); ctranslate2: a "
      "CTranslate2 model directory with the SentencePiece model beside it (default "
      "export_dir <output_dir>/ctranslate2[_QUANTIZATION]; needs the ctranslate2 "
      "extra: pip install -e \".[ctranslate2]\"; t2t_lite.export.ctranslate2).",
      choices=("savedmodel", "ctranslate2"))
  quantization: str = setting(None, "With --export_format=ctranslate2: the weights' type "
                              "(default float32).", choices=tuple(QUANTIZATIONS))


define_flags(ExporterFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(ExporterFlags)
  require(args, output_dir=TRAINED_RUN)
  if args.export_format == "ctranslate2":
    if args.decode_hparams:
      raise UserError("--decode_hparams does not apply to --export_format=ctranslate2: "
                      "CTranslate2 takes its decoding options when it translates")
    path = export_ctranslate2(args.output_dir, args.export_dir, args.checkpoint_path,
                              args.quantization)
  elif args.quantization:
    raise UserError(f"--quantization={args.quantization} needs --export_format=ctranslate2; "
                    f"the SavedModel keeps the run's float32 weights")
  else:
    from t2t_lite.export.saved_model import export_run
    path = export_run(args.output_dir, args.export_dir, args.checkpoint_path,
                      args.decode_hparams)
  print(f"exported {path}")
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
