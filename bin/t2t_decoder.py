"""t2t-decoder: translates (or parses) with a trained run: beam search or greedy.

    t2t-decoder --output_dir=RUN --decode_from_file=src.en --decode_to_file=out.de \\
        [--decode_hparams="beam_size=4,alpha=0.6,batch_size=32,extra_length=50"] \\
        [--checkpoint_path=RUN/ckpt-N] [--problem=NAME]
    t2t-decoder --output_dir=RUN --decode_interactive
    t2t-decoder --output_dir=RUN --score_file=pairs.tsv [--decode_to_file=scores.txt]
    t2t-decoder --output_dir=RUN_A,RUN_B --decode_from_file=src.en --decode_to_file=out.de

The run directory holds the hparams, the problem and the vocabulary: no training
flag is repeated. Defaults come from the problem (translation: beam 4, alpha 0.6,
input + 50; parsing: beam 21, alpha 0.3, input + 300), then from the run's decoding.json
where t2t-avg-all wrote one (the length penalty it chose on dev), then from
--decode_hparams. Every input line gets
exactly one output line, in order; see `t2t_lite.decoding.translate` for the rules
(empty lines, truncation of over-long inputs). n_best=K writes K tab-separated
hypotheses per line; write_scores=True follows each with a tab and its score.
mbr=True ranks each line's whole beam by minimum Bayes risk first: the hypothesis
with the highest expected sentence BLEU against the beam comes out
(t2t_lite.decoding.mbr).
--score_file scores given `input<TAB>target` lines instead, as tensor2tensor does
(t2t_lite.decoding.scoring).
Several comma-separated run directories (one problem, one vocabulary) decode as an
ensemble: at each step the mean of their probabilities (t2t_lite.run.ensemble). A
right-to-left run (trained with --hparams=right_to_left=True) writes its outputs in
reading order; listed with left-to-right runs, it reranks their beam instead: the
left-to-right runs search, then every run scores each hypothesis whole and the beam is
ranked by their mean log-probability under the length penalty (t2t_lite.decoding.rerank).
"""

import dataclasses
import os
import sys

from absl import logging

from t2t_lite.bin import common
from t2t_lite.cli.command_line import define_flags, flag_values, reject_positional, require, setting
from t2t_lite.cli.shared_settings import TRAINED_RUN, shared


@dataclasses.dataclass(frozen=True)
class DecoderFlags:
  """The run(s) to decode with, and what to decode."""
  output_dir: str = shared("output_dir")
  checkpoint_path: str = shared("checkpoint_path")
  problem: str = shared("problem")
  decode_hparams: str = shared("decode_hparams")
  decode_from_file: str = setting(None, "Input file, one sentence per line.")
  decode_to_file: str = setting(None, "Output file, one line per input line (default: "
                                "standard output).")
  decode_interactive: bool = setting(False, "Read sentences from standard input, one per "
                                     "line, and print each translation as it is done.")
  score_file: str = setting(None, "Instead of decoding: score each `input<TAB>target` line "
                            "of this file (its loss per target token), one score per line.")
  worker_gpu: int = shared("worker_gpu")
  locally_shard_to_cpu: bool = shared("locally_shard_to_cpu")


define_flags(DecoderFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(DecoderFlags)
  from t2t_lite.data.text_files import read_lines
  from t2t_lite.errors import UserError
  from t2t_lite.files.atomic_files import write_text_atomic
  from t2t_lite.run.output_paths import check_output_file
  from t2t_lite.run.run_layout import DECODING_FILE
  from t2t_lite.run.ensemble import open_runs
  from t2t_lite.distribute.strategy import make_strategy
  require(args, output_dir=TRAINED_RUN)
  if args.score_file and (args.decode_from_file or args.decode_interactive):
    raise UserError("--score_file goes without --decode_from_file and --decode_interactive")
  if not args.score_file and bool(args.decode_from_file) == args.decode_interactive:
    raise UserError("pass exactly one of --decode_from_file=FILE and --decode_interactive")
  if args.decode_interactive and args.decode_to_file:
    raise UserError("--decode_interactive prints each translation; --decode_to_file goes "
                    "with --decode_from_file")
  source = args.score_file or args.decode_from_file
  if args.decode_to_file:
    check_output_file(args.decode_to_file, "--decode_to_file", [source])
  lines = None if args.decode_interactive else list(read_lines(source))
  strategy = make_strategy(args.worker_gpu, args.locally_shard_to_cpu, across_workers=False)
  runs = open_runs(args.output_dir, args.checkpoint_path, args.problem, strategy)
  if runs.chosen_decoding:  # Said on stderr: stdout may be the translations.
    print(f"t2t-decoder: decoding with {runs.chosen_decoding}, chosen on dev for this model "
          f"({os.path.join(args.output_dir, DECODING_FILE)}), under --decode_hparams",
          file=sys.stderr, flush=True)
  translator = runs.translator(args.decode_hparams)
  if not args.score_file:
    translator.check_settings()  # Before the first line is read or decoded.
  if args.decode_interactive:
    _decode_interactively(translator)
    return 0
  if args.score_file:
    from t2t_lite.decoding.scoring import score_lines
    outputs = score_lines(translator, lines)
  else:
    translation = translator.translation(lines)
    outputs = translation.lines
    if translator.target_form.repairs:
      logging.info(translation.repair_line())
  text = "".join(line + "\n" for line in outputs)
  if args.decode_to_file:
    write_text_atomic(args.decode_to_file, text)
  else:
    sys.stdout.write(text)
  return 0


def _decode_interactively(translator):
  """Translates standard input line by line; a line that is not UTF-8 is reported on
  standard error and gives an empty line."""
  from t2t_lite.data.text_files import decode_line
  from t2t_lite.errors import UserError
  for number, raw in enumerate(sys.stdin.buffer, start=1):
    try:
      line = decode_line(raw, "<stdin>", number)
    except UserError as error:
      print(f"t2t-decoder: skipped: {error}", file=sys.stderr, flush=True)
      print(flush=True)
      continue
    translator.first_line_number = number  # As its warnings name the line.
    print(translator.translate([line], progress=False)[0], flush=True)


run = common.entry_point(main)  # The console script.


if __name__ == "__main__":
  run()
