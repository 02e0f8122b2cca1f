"""t2t-exporter: writes a text-in/text-out SavedModel of a trained run.

    t2t-exporter --output_dir=RUN [--export_dir=DIR] [--checkpoint_path=RUN/ckpt-N] \\
        [--decode_hparams="beam_size=4,alpha=0.6"]
    t2t-exporter --output_dir=RUN --export_format=ctranslate2 [--quantization=int8]

See `t2t_lite.export` for the signatures; loading needs only tensorflow and
tensorflow_text:

    import tensorflow as tf, tensorflow_text
    model = tf.saved_model.load(DIR)
    model.signatures["serving_default"](sentences=tf.constant(["Hello."]))["translations"]
"""

from absl import flags

from t2t_lite.bin import common
from t2t_lite.errors import UserError
from t2t_lite.export_ctranslate2 import QUANTIZATIONS, export_ctranslate2

FLAGS = flags.FLAGS
common.define_shared_flags("output_dir", "checkpoint_path", "decode_hparams")
flags.DEFINE_string("export_dir", None, "Where to write the SavedModel "
                    "(default: <output_dir>/export): a new or empty directory, or an earlier "
                    "export, which is replaced once the new one is complete.")
flags.DEFINE_enum("export_format", "savedmodel", ["savedmodel", "ctranslate2"],
                  "savedmodel: the SavedModel (t2t_lite.export); ctranslate2: a CTranslate2 "
                  "model directory with the SentencePiece model beside it (default export_dir "
                  "<output_dir>/ctranslate2[_QUANTIZATION]; needs pip install "
                  "t2t_lite[ctranslate2]; t2t_lite.export_ctranslate2).")
flags.DEFINE_enum("quantization", None, list(QUANTIZATIONS),
                  "With --export_format=ctranslate2: the weights' type (default float32).")


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
  common.require_run_dir()
  if FLAGS.export_format == "ctranslate2":
    if FLAGS.decode_hparams:
      raise UserError("--decode_hparams does not apply to --export_format=ctranslate2: "
                      "CTranslate2 takes its decoding options when it translates")
    path = export_ctranslate2(FLAGS.output_dir, FLAGS.export_dir, FLAGS.checkpoint_path,
                              FLAGS.quantization)
  elif FLAGS.quantization:
    raise UserError(f"--quantization={FLAGS.quantization} needs --export_format=ctranslate2; "
                    f"the SavedModel keeps the run's float32 weights")
  else:
    from t2t_lite.export import export_run
    path = export_run(FLAGS.output_dir, FLAGS.export_dir, FLAGS.checkpoint_path,
                      FLAGS.decode_hparams)
  print(f"exported {path}")
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
