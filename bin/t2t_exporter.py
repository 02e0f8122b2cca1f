"""t2t-exporter: writes a text-in/text-out SavedModel of a trained run.

    t2t-exporter --output_dir=RUN [--export_dir=DIR] [--checkpoint_path=RUN/ckpt-N] \\
        [--decode_hparams="beam_size=4,alpha=0.6"]

See `t2t_lite.export` for the signatures; loading needs only tensorflow and
tensorflow_text:

    import tensorflow as tf, tensorflow_text
    model = tf.saved_model.load(DIR)
    model.signatures["serving_default"](sentences=tf.constant(["Hello."]))["translations"]
"""

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
common.define_shared_flags("output_dir", "checkpoint_path", "decode_hparams")
flags.DEFINE_string("export_dir", None, "Where to write the SavedModel "
                    "(default: <output_dir>/export): a new or empty directory, or an earlier "
                    "export, which is replaced once the new one is complete.")


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
  from t2t_lite.export import export_run
  common.require_run_dir()
  path = export_run(FLAGS.output_dir, FLAGS.export_dir, FLAGS.checkpoint_path,
                    FLAGS.decode_hparams)
  print(f"exported {path}")
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
