"""t2t-visualize: every attention head of every layer on one sentence, as heat maps.

    t2t-visualize --output_dir=RUN --sentence="Resumption of the session" \\
        --visualize_dir=DIR [--target="Wiederaufnahme der Sitzungsperiode"] \\
        [--checkpoint_path=RUN/ckpt-N]

Without --target the sentence is translated greedily and the model's attention
on its own translation is drawn; with --target, on that target (teacher-forced).
Encoder self-attention, decoder self-attention and encoder-decoder attention
of every layer and head, and each layer's heads averaged, are written as PNG
heat maps with HTML pages labelled by the SentencePiece tokens; open
DIR/index.html (see `t2t_lite.visualization.page` for the files).
"""

import os

from absl import flags

from t2t_lite.bin import common

FLAGS = flags.FLAGS
common.define_shared_flags("output_dir", "checkpoint_path")
flags.DEFINE_string("sentence", None, "The source sentence whose attention is drawn.")
flags.DEFINE_string("target", None, "A target text to force instead of the greedy "
                    "translation of --sentence.")
flags.DEFINE_string("visualize_dir", None, "Where to write index.html and the heat maps.")


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
  from t2t_lite.errors import UserError
  from t2t_lite.output_paths import check_output_directory
  from t2t_lite.run import Run
  from t2t_lite.visualization.attention_maps import sentence_attention
  from t2t_lite.visualization.page import write_visualization
  common.require_run_dir()
  if FLAGS.sentence is None:
    raise UserError("--sentence is required: the source sentence to visualize")
  if not FLAGS.visualize_dir:
    raise UserError("--visualize_dir is required: where to write index.html and the images")
  check_output_directory(FLAGS.visualize_dir, "--visualize_dir")
  translator = Run.open(FLAGS.output_dir, FLAGS.checkpoint_path).translator("beam_size=1")
  maps = sentence_attention(translator, FLAGS.sentence, FLAGS.target)
  written = write_visualization(maps, FLAGS.visualize_dir)
  label = "target" if maps.teacher_forced else "greedy translation"
  print(f"{label}: {maps.target_text}")
  images = sum(name.endswith(".png") for name in written)
  print(f"wrote {os.path.join(FLAGS.visualize_dir, 'index.html')} and {images} heat maps")
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
