"""translate_from_files: a user's own parallel corpus, any language pair.

Its text comes from t2t-datagen flags, per split: two line-aligned files
(`--train_source=F --train_target=F`, likewise dev and test) or one file of
`source<TAB>target` lines (`--train_tsv=F`). Training text is required; a
dev or test split without files is written empty.

    t2t-datagen --problem=translate_from_files --data_dir=DIR \\
        --train_source=train.en --train_target=train.de \\
        --dev_source=dev.en --dev_target=dev.de --vocab_size=8000
"""

from t2t_lite.data.problem import TextPairProblem
from t2t_lite.data.published_files import NEWSTEST2014, check_published
from t2t_lite.data.text_files import read_parallel_files, read_tsv
from t2t_lite.errors import UserError


class TranslateFromFiles(TextPairProblem):
  """Translation between the sides of local files; one shared 32k BPE vocabulary by default."""

  vocab_size = 32768
  shared_vocab = True

  def text_pairs(self, split, sources):
    if split in sources.files and split in sources.tsv:
      raise UserError(f"{self.name}: give the {split} text either as source and target files "
                      f"or as a TSV file, not both")
    if split in sources.files:
      for path in sources.files[split]:  # The WMT14 test sets, known by name, by content.
        check_published(path, NEWSTEST2014, "WMT14")
      yield from read_parallel_files(*sources.files[split])
    elif split in sources.tsv:
      yield from read_tsv(sources.tsv[split])
    elif split == "train":
      raise UserError(f"{self.name} needs training text: pass --train_source and "
                      f"--train_target, or --train_tsv")
