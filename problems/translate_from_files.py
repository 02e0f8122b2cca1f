"""translate_from_files: a user's own parallel corpus, any language pair.

Its text comes from t2t-datagen flags, per split: two line-aligned files
(`--train_source=F --train_target=F`, likewise dev and test) or one file of
`source<TAB>target` lines (`--train_tsv=F`). Training text is required; a
dev or test split without files is written empty.

    t2t-datagen --problem=translate_from_files --data_dir=DIR \\
        --train_source=train.en --train_target=train.de \\
        --dev_source=dev.en --dev_target=dev.de --vocab_size=8000
"""

from t2t_lite.built_in import problem
from t2t_lite.data.problem import TextPairProblem
from t2t_lite.data.published_files import check_published
from t2t_lite.data.text_files import read_parallel_files, read_tsv
from t2t_lite.errors import UserError

# The WMT14 test sets as plain text (sacreBLEU's wmt14/full and wmt14), known by name and
# checked by content wherever a user's files are read.
NEWSTEST2014 = {
    "newstest2014-filtered.en-de.de":
        "48fad9e043d7e8e89c06fa8203283501166e4f4a059f6cf08d9a4d6674a19fd8",
    "newstest2014-filtered.en-de.en":
        "18db2323feae45b4b9e7d3b400d3ee3740f03a4da50046c07e3c255b9985a3f9",
    "newstest2014-full.en-de.de":
        "ae5d110486bc33d7175e9e28c7d0051eb3e5fcd2166dd93371089852c091a20e",
    "newstest2014-full.en-de.en":
        "1e10b7cb106e08ab9b3a4ed85f5c866bd9391d2659626e68a6e0904d5b1aebcf",
    "newstest2014-full.en-fr.en":
        "967dca935c7cde4ffc2fc8c9424c682335e1690440dbda104948eb1ffa537fc2",
    "newstest2014-full.en-fr.fr":
        "82526d36ae1cd4d5f20919fbf8130e519cc68a0e57fe47bb205d199626457de9",
}


@problem
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
