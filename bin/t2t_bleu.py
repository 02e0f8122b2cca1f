"""t2t-bleu: scores a translation file against one or more reference files.

    t2t-bleu --translation=out.de --reference=newstest2014.de [--language=de]
    t2t-bleu --translations_dir=DIR --reference=newstest2014.de [--event_dir=EVENTS]

prints, one labelled line each: sacreBLEU cased and uncased (with sacrebleu's
signatures), tensor2tensor's BLEU_cased and BLEU_uncased, the
paper-comparable tokenized BLEU with compound splitting (Moses' tokenizer for
--language), and the lowercased tokenized BLEU Multi30k papers report
(multi-bleu.perl on the dataset's lowercased Moses tokens). See
t2t_lite.metrics.bleu for what each number means and how it is computed.
--bleu_variant=cased|uncased keeps only those (the compound-split BLEU is
cased, the lowercased tokenized one uncased). --translations_dir scores each
file named `*-STEP` there, in step order, and --event_dir writes the scores to
TensorBoard at those steps. --scores_json=FILE also writes the printed scores as data:
{"BLEU_lowercased_tokenized": {"score": 42.78, "signature": "..."}, ...}.
"""

import dataclasses
import json

from absl import logging

from t2t_lite.bin import common
from t2t_lite.cli.command_line import define_flags, flag_values, reject_positional, require, setting
from t2t_lite.errors import UserError
from t2t_lite.metrics.bleu import BLEU_VARIANTS, DEFAULT_LANGUAGE, score_files
from t2t_lite.metrics.moses import knows_abbreviations_of


@dataclasses.dataclass(frozen=True)
class BleuFlags:
  """What to score against what, and which scores to print."""
  translation: str = setting(None, "Translated text, detokenized, one sentence per line "
                             "(UTF-8).")
  reference: list = setting(None, "Reference file, detokenized, line i matching line i of "
                            "--translation; several references: comma-separated files.")
  translations_dir: str = setting(None, "Instead of --translation: score every file of this "
                                  "directory named *-STEP (STEP: the training step that "
                                  "translated it), in step order.")
  event_dir: str = setting(None, "With --translations_dir: write the scores to TensorBoard "
                           "events here, at each file's step (tags BLEU_cased, ...).")
  bleu_variant: str = setting("both", "Which scores to print: cased, uncased, or both (the "
                              "compound-split BLEU is cased, the lowercased tokenized BLEU "
                              "uncased).", choices=BLEU_VARIANTS)
  language: str = setting(DEFAULT_LANGUAGE, "Language of the translations, for Moses' "
                          "tokenizer in the tokenized BLEUs (tokenizer.perl -l): de, en, fr, "
                          "...")
  scores_json: str = setting(None, "With --translation: also write the printed scores to "
                             "this file as JSON, {tag: {\"score\", \"signature\"}}.")


define_flags(BleuFlags)


def main(argv):
  reject_positional(argv)
  args = flag_values(BleuFlags)
  if args.translation and args.translations_dir:
    raise UserError("give --translation=FILE or --translations_dir=DIR, not both")
  if not args.translations_dir:
    require(args, translation="the file to score (or --translations_dir=DIR)")
  require(args, reference="the reference translation file(s) to score against")
  if args.event_dir and not args.translations_dir:
    raise UserError("--event_dir goes with --translations_dir")
  if args.scores_json and not args.translation:
    raise UserError("--scores_json goes with --translation")
  if args.event_dir or args.scores_json:
    from t2t_lite import quiet
    quiet.import_tensorflow()  # Before the guard's imports load it with its chatter.
    from t2t_lite.run import output_paths
    if args.event_dir:
      output_paths.check_output_directory(args.event_dir, "--event_dir")
    if args.scores_json:
      output_paths.check_output_file(args.scores_json, "--scores_json",
                                     [args.translation, *args.reference])
  if not knows_abbreviations_of(args.language):
    logging.warning("--language=%s: Moses knows no abbreviations of that language; the "
                    "tokenized BLEUs use English's, as tokenizer.perl -l %s does",
                    args.language, args.language)
  if args.translations_dir:
    return _score_directory(args)
  report = score_files(args.translation, args.reference, args.language)
  print("\n".join(report.lines(args.bleu_variant)))
  if args.scores_json:
    from t2t_lite.files.atomic_files import write_text_atomic
    scores = {tag: {"score": bleu.score, "signature": bleu.signature}
              for tag, bleu in report.scores(args.bleu_variant).items()}
    write_text_atomic(args.scores_json, json.dumps(scores, indent=1) + "\n")
  return 0


def _score_directory(args):
  from t2t_lite.metrics.bleu_dir import BleuEvents, score_translations_dir
  events = None  # Made once the directory's files passed their checks.
  for step, path, report in score_translations_dir(args.translations_dir, args.reference,
                                                   args.language):
    print(f"{path} (step {step})")
    print("\n".join(report.lines(args.bleu_variant)), flush=True)
    if args.event_dir:
      events = events or BleuEvents(args.event_dir, args.bleu_variant)
      events.write(step, report)
  return 0


run = common.entry_point(main, registries=False)  # The console script.


if __name__ == "__main__":
  run()
