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
TensorBoard at those steps.
"""

from absl import flags

from t2t_lite.bin import common
from t2t_lite.errors import UserError
from t2t_lite.metrics.bleu import BLEU_VARIANTS, DEFAULT_LANGUAGE, score_files

flags.DEFINE_string("translation", None,
                    "Translated text, detokenized, one sentence per line (UTF-8).")
flags.DEFINE_list("reference", None,
                  "Reference file, detokenized, line i matching line i of --translation; "
                  "several references: comma-separated files.")
flags.DEFINE_string("translations_dir", None,
                    "Instead of --translation: score every file of this directory named "
                    "*-STEP (STEP: the training step that translated it), in step order.")
flags.DEFINE_string("event_dir", None, "With --translations_dir: write the scores to "
                    "TensorBoard events here, at each file's step (tags BLEU_cased, ...).")
flags.DEFINE_enum("bleu_variant", "both", BLEU_VARIANTS,
                  "Which scores to print: cased, uncased, or both (the compound-split BLEU "
                  "is cased, the lowercased tokenized BLEU uncased).")
flags.DEFINE_string("language", DEFAULT_LANGUAGE,
                    "Language of the translations, for Moses' tokenizer in the "
                    "tokenized BLEUs (tokenizer.perl -l): de, en, fr, ...")

FLAGS = flags.FLAGS


def main(argv):
  from t2t_lite.command_line import reject_positional
  reject_positional(argv)
  if FLAGS.translation and FLAGS.translations_dir:
    raise UserError("give --translation=FILE or --translations_dir=DIR, not both")
  if not FLAGS.translation and not FLAGS.translations_dir:
    raise UserError("--translation=FILE is required (or --translations_dir=DIR)")
  if not FLAGS.reference:
    raise UserError("--reference=FILE is required")
  if FLAGS.event_dir and not FLAGS.translations_dir:
    raise UserError("--event_dir goes with --translations_dir")
  if FLAGS.translations_dir:
    return _score_directory()
  report = score_files(FLAGS.translation, FLAGS.reference, FLAGS.language)
  print("\n".join(report.lines(FLAGS.bleu_variant)))
  return 0


def _score_directory():
  from t2t_lite.metrics.bleu_dir import BleuEvents, score_translations_dir
  events = None  # Made once the directory's files passed their checks.
  for step, path, report in score_translations_dir(FLAGS.translations_dir, FLAGS.reference,
                                                   FLAGS.language):
    print(f"{path} (step {step})")
    print("\n".join(report.lines(FLAGS.bleu_variant)), flush=True)
    if FLAGS.event_dir:
      events = events or BleuEvents(FLAGS.event_dir, FLAGS.bleu_variant)
      events.write(step, report)
  return 0


run = common.entry_point(main, registries=False)  # The console script.


if __name__ == "__main__":
  run()
