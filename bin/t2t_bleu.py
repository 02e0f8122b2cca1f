"""t2t-bleu: scores a translation file against one or more reference files.

    t2t-bleu --translation=out.de --reference=newstest2014.de

prints sacreBLEU cased and uncased (with sacrebleu's signatures) and the
paper-comparable tokenized BLEU with compound splitting, one labelled line each
(see t2t_lite.metrics.bleu for what each number means and how it is computed).
"""

from absl import flags

from t2t_lite.bin import common
from t2t_lite.errors import UserError
from t2t_lite.metrics.bleu import score_files

flags.DEFINE_string("translation", None,
                    "Translated text, detokenized, one sentence per line (UTF-8).")
flags.DEFINE_list("reference", None,
                  "Reference file, detokenized, line i matching line i of --translation; "
                  "several references: comma-separated files.")

FLAGS = flags.FLAGS


def main(argv):
  del argv
  for name in ("translation", "reference"):
    if not getattr(FLAGS, name):
      raise UserError(f"--{name}=FILE is required")
  print(score_files(FLAGS.translation, FLAGS.reference))
  return 0


def run():
  common.run_main(main, registries=False)


if __name__ == "__main__":
  run()
