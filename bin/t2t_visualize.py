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

import dataclasses
import os

from t2t_lite.bin import common
from t2t_lite.cli.command_line import define_flags, flag_values, reject_positional, require, setting
from t2t_lite.cli.shared_settings import TRAINED_RUN, shared


@dataclasses.dataclass(frozen=True)
class VisualizeFlags:
  """The run, the sentence, and where to draw its attention."""
  output_dir: str = shared("output_dir")
  checkpoint_path: str = shared("checkpoint_path")
  sentence: str = setting(None, "The source sentence whose attention is drawn.")
  target: str = setting(None, "A target text to force instead of the greedy translation of "
                        "--sentence.")
  visualize_dir: str = setting(None, "Where to write index.html and the heat maps.")
  worker_gpu: int = shared("worker_gpu")
  locally_shard_to_cpu: bool = shared("locally_shard_to_cpu")


define_flags(VisualizeFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(VisualizeFlags)
  from t2t_lite.run.output_paths import check_output_directory
  from t2t_lite.run import Run
  from t2t_lite.distribute.strategy import make_strategy
  from t2t_lite.visualization.attention_maps import sentence_attention
  from t2t_lite.visualization.page import write_visualization
  require(args, output_dir=TRAINED_RUN)
  if args.sentence is None:  # An empty sentence is one to draw.
    require(args, sentence="the source sentence to visualize")
  require(args, visualize_dir="where to write index.html and the images")
  check_output_directory(args.visualize_dir, "--visualize_dir")
  strategy = make_strategy(args.worker_gpu, args.locally_shard_to_cpu, across_workers=False)
  translator = Run.open(args.output_dir, args.checkpoint_path,
                        strategy=strategy).translator("beam_size=1")
  maps = sentence_attention(translator, args.sentence, args.target)
  written = write_visualization(maps, args.visualize_dir)
  label = "target" if maps.teacher_forced else "greedy translation"
  print(f"{label}: {maps.target_text}")
  images = sum(name.endswith(".png") for name in written)
  print(f"wrote {os.path.join(args.visualize_dir, 'index.html')} and {images} heat maps")
  return 0


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
