"""WSJ parsing problem: the split by file, pairs from real trees, atomic bracket pieces, and
decoded output back to trees (also when the output is malformed)."""

import os

import pytest
import sentencepiece as spm
import tensorflow as tf

from model_fixtures import small_model
from t2t_lite.constants import EOS_ID
from t2t_lite.data.linearised_trees import decoded_tokens, punctuation_tags, tree_string
from t2t_lite.data.problem import DecodeDefaults, Drop, Sources
from t2t_lite.data.trees import POS_TAGS, linearize, normalize, read_mrg_file
from t2t_lite.data.vocabulary import train_sentencepiece
from t2t_lite.decoding.decode_hparams import DecodeHParams
from t2t_lite.decoding.translate import Translator
from t2t_lite.errors import UserError
from t2t_lite.metrics.evalb import COLLINS
from t2t_lite.problems.parsing_ptb import (ParsingEnglishPtb16k, ParsingEnglishPtb16kWords,
                                           find_mrg_files, split_files, wsj_section)
from t2t_lite.registry import PROBLEMS

PROBLEM = ParsingEnglishPtb16k()

# Pierre Vinken, the first tree of the WSJ (wsj_0001.mrg), linearised.
VINKEN = ("Pierre Vinken , 61 years old , will join the board as a nonexecutive director "
          "Nov. 29 .")
VINKEN_TREE = ("(S (NP (NP NNP NNP )NP , (ADJP (NP CD NNS )NP JJ )ADJP , )NP (VP MD (VP VB "
               "(NP DT NN )NP (PP IN (NP DT JJ NN )NP )PP (NP NNP CD )NP )VP )VP . )S")


@pytest.fixture(scope="module")
def sample(shared_data):
  """The NLTK WSJ sample: sections 00-01 only, 199 files."""
  return os.path.join(shared_data, "ptb_sample", "combined")


@pytest.fixture(scope="module")
def sample_pairs(sample):
  sources = Sources(tmp_dir=sample)
  return {split: list(PROBLEM.text_pairs(split, sources)) for split in PROBLEM.splits}


def test_registered_name_vocabulary_symbols_and_paper_decoding():
  assert PROBLEMS["parsing_english_ptb"] is PROBLEMS["parsing_english_ptb16k"] is (
      ParsingEnglishPtb16k)
  assert PROBLEM.vocab_size == 16384 and PROBLEM.shared_vocab
  assert PROBLEM.decode_defaults == DecodeDefaults(beam_size=21, alpha=0.3, extra_length=300,
                                                   dev_alphas=())
  for symbol in ("(S", ")S", "(NP", ")WHADVP", "XX", "NNP", "PRP$", "-LRB-", "\u2581(NP",
                 "\u2581)NP", "\u2581XX", "\u2581NNP", "\u2581,"):
    assert symbol in PROBLEM.user_defined_symbols
  assert len(set(PROBLEM.user_defined_symbols)) == len(PROBLEM.user_defined_symbols)


def test_sample_without_standard_sections_is_split_by_file_80_10_10(sample):
  paths = find_mrg_files(sample)
  assert len(paths) == 199 and {wsj_section(path) for path in paths} == {0, 1}
  splits = split_files(paths)
  names = {split: [os.path.basename(path) for path in chosen] for split, chosen in splits.items()}
  assert [len(names[split]) for split in ("train", "dev", "test")] == [161, 19, 19]
  assert names["train"][0] == "wsj_0001.mrg" and names["train"][-1] == "wsj_0161.mrg"
  assert names["dev"] == [f"wsj_{n:04d}.mrg" for n in range(162, 181)]
  assert names["test"] == [f"wsj_{n:04d}.mrg" for n in range(181, 200)]
  assert split_files(list(reversed(paths))) == splits  # The order given does not matter.


def test_sample_trees_per_split_and_real_pairs(sample, sample_pairs):
  assert {split: len(pairs) for split, pairs in sample_pairs.items()} == {
      "train": 3406, "dev": 271, "test": 237}   # 3,914 trees in all.
  assert not any(isinstance(pair, Drop) for pairs in sample_pairs.values() for pair in pairs)
  assert sample_pairs["train"][0] == (VINKEN, VINKEN_TREE)
  sources = {split: {source for source, _ in pairs} for split, pairs in sample_pairs.items()}
  assert not sources["dev"] & sources["test"]
  for source, target in sample_pairs["test"]:
    tokens = target.split()
    assert sum(t in POS_TAGS for t in tokens) == len(source.split())
    assert sum(t.startswith("(") for t in tokens) == sum(t.startswith(")") for t in tokens)


def test_standard_sections_split_and_nested_directories(tmp_path):
  def tree(word):
    return f"( (S (NP-SBJ (NN {word}) ) (VP (VBD slept) ) (. .) ))\n"
  layout = {"00/wsj_0001.mrg": "zero", "02/wsj_0201.mrg": "two", "21/wsj_2199.mrg": "twentyone",
            "22/wsj_2201.mrg": "twentytwo", "23/wsj_2301.mrg": "twentythree",
            "24/wsj_2401.mrg": "twentyfour", "notes/other.mrg": "other"}
  for name, word in layout.items():
    (tmp_path / name).parent.mkdir(exist_ok=True)
    (tmp_path / name).write_text(tree(word))
  sources = Sources(tmp_dir=str(tmp_path))
  words = {split: [source.split()[0] for source, _ in PROBLEM.text_pairs(split, sources)]
           for split in PROBLEM.splits}
  assert words == {"train": ["two", "twentyone"], "dev": ["twentytwo"], "test": ["twentythree"]}
  _, target = next(PROBLEM.text_pairs("dev", sources))
  assert target == "(S (NP NN )NP (VP VBD )VP . )S"


def test_custom_split_of_few_files_and_trace_only_trees(tmp_path):
  (tmp_path / "a.mrg").write_text("( (S (NP (DT The) (NN cat)) (VP (VBD sat))))\n"
                                  "( (S (NP-SBJ (-NONE- *)) ))\n")
  (tmp_path / "b.mrg").write_text("( (NP (NN dog)))\n")
  assert split_files(find_mrg_files(str(tmp_path))) == {
      "train": [str(tmp_path / "a.mrg"), str(tmp_path / "b.mrg")], "dev": [], "test": []}
  sources = Sources(tmp_dir=str(tmp_path))
  assert list(PROBLEM.text_pairs("train", sources)) == [
      ("The cat sat", "(S (NP DT NN )NP (VP VBD )VP )S"),
      Drop("tree without words (only traces)"),
      ("dog", "(NP NN )NP")]
  assert list(PROBLEM.text_pairs("dev", sources)) == []


def test_no_treebank_and_wrong_inputs_are_one_line_errors(tmp_path):
  with pytest.raises(UserError) as caught:
    list(PROBLEM.text_pairs("train", Sources(tmp_dir=str(tmp_path))))
  assert "no .mrg files under" in str(caught.value) and "--tmp_dir" in str(caught.value)
  assert "\n" not in str(caught.value)
  with pytest.raises(UserError, match="reads Penn Treebank .mrg files from --tmp_dir"):
    list(PROBLEM.text_pairs("train", Sources(tmp_dir=str(tmp_path),
                                             tsv={"train": "t.tsv"})))
  (tmp_path / "bad.mrg").write_text("( (S (NP (NN dog)) )\n")
  with pytest.raises(UserError, match=r"bad\.mrg: tree 1: unbalanced parentheses"):
    list(PROBLEM.text_pairs("train", Sources(tmp_dir=str(tmp_path))))


def test_decoded_targets_go_back_to_the_gold_trees(sample):
  """Every sample tree: words + its linearisation (+ gold tags) -> the normalised gold tree."""
  count = 0
  for path in find_mrg_files(sample)[:60]:
    for tree in read_mrg_file(path):
      gold = normalize(tree)
      words, tokens = linearize(gold)
      source, target = " ".join(words), " ".join(tokens)
      assert tree_string(source, target, tags=gold.tags()) == gold.to_string()
      glued = target.replace(" ", "")   # A model that never emits the space piece.
      assert tree_string(source, glued, tags=gold.tags()) == gold.to_string()
      count += 1
  assert count > 1000


def test_punctuation_tags_delete_what_the_gold_tags_delete(sample):
  """EVALB deletes words by tag: the tags t2t-decoder writes delete the gold's words (a
  disagreement is a length error), quotes and possessive `'` told apart."""
  disagreements, quotes = [], 0
  for path in find_mrg_files(sample):
    for tree in read_mrg_file(path):
      gold = normalize(tree)
      words, _ = linearize(gold)
      quotes += "`" in words
      disagreements += [(word, gold_tag) for word, tag, gold_tag
                        in zip(words, punctuation_tags(words), gold.tags())
                        if (tag in COLLINS.delete_labels) != (gold_tag in COLLINS.delete_labels)]
  assert quotes >= 5
  # The sample's own slips: a word tagged as a comma, a closing quote never opened.
  assert sorted(disagreements) == [("'", "''"), ("Wa", ",")]


def test_malformed_output_still_gives_a_tree_with_every_word_once():
  source = "The cat sat on the mat ."
  for decoded in ["(S (NP XX XX )NP (VP XX (PP XX (NP XX XX",      # Cut off.
                  ")VP )S (S (NP XX XX )NP )NP )NP XX XX XX XX XX XX XX XX",
                  "", "garbage (NP"]:
    tree = tree_string(source, decoded)
    assert tree.count("(") == tree.count(")")
    assert [piece.rstrip(")") for piece in tree.split() if not piece.startswith("(")] == (
        source.split())
  assert tree_string(source, "(S (NP XX XX )NP (VP XX (PP XX (NP XX XX") == (
      "(S (NP (XX The) (XX cat)) (VP (XX sat) (PP (XX on) (NP (XX the) (XX mat)))) (XX .))")


def test_only_malformed_output_needs_repair():
  source = "The cat sat ."
  well_formed = "(S (NP XX XX )NP (VP XX )VP XX )S"
  assert not PROBLEM.target_form.malformations(source, well_formed)
  assert not PROBLEM.target_form.malformations(source, "(S(NPXXXX)NP(VPXX)VPXX)S")  # Glued, still whole.
  for malformed in ["(S (NP XX XX )NP (VP XX",                 # Cut off.
                    "(S (NP XX XX )VP (VP XX )VP XX )S",       # A closer names another label.
                    "(S (NP XX XX )NP )S (VP XX XX )VP",       # Two roots.
                    "(S (NP XX XX )NP (VP XX )VP )S",          # A word short.
                    "(S (NP XX XX )NP (VP XX XX )VP XX )S",    # A word too many.
                    "(S (NP )NP XX XX XX XX )S",               # An empty constituent.
                    "XX XX XX XX", ""]:
    assert PROBLEM.target_form.malformations(source, malformed), malformed
    repaired = PROBLEM.target_form.output_text(source, malformed)   # A tree all the same: "." tagged.
    assert repaired.count("(XX ") == 3 and repaired.count("(. .)") == 1, repaired


class FixedOutputVocabulary:
  """Encodes each word as one id; decodes every hypothesis as the same `output` text."""

  def __init__(self, output):
    self.output = output

  def encode(self, strings):
    texts = [text.decode("utf-8") for text in strings.numpy()]
    return tf.ragged.constant([[2 + len(word) for word in text.split()] + [EOS_ID]
                               for text in texts], dtype=tf.int32)

  def decode(self, ids):
    return tf.constant([self.output] * ids.shape[0])


@pytest.mark.parametrize("output, repaired", [("(S XX XX )S", 0), ("(S XX XX", 3)])
def test_the_translator_counts_the_lines_it_repaired(output, repaired):
  model = small_model()
  vocabulary = FixedOutputVocabulary(output)
  translator = Translator(model, (vocabulary, vocabulary), PROBLEM.target_form,
                          DecodeHParams(beam_size=1, extra_length=2, batch_size=2,
                                        count_rule=False), tf.distribute.get_strategy())
  translation = translator.translation(["Vinken joined", "", "He left", "They did"],
                                       progress=False)
  outputs = translation.lines
  assert outputs[1] == "" and all(line.startswith("(S (XX ") for line in outputs[::2])
  assert (translation.decoded, translation.repaired) == (3, repaired)
  assert translation.malformations == ({"brackets left open": 3} if repaired else {})
  assert translation.repair_line().startswith(f"{repaired} of 3 decoded lines")


def test_decoded_tokens_split_glued_tokens():
  assert decoded_tokens("(S(NPXXXX)NPXX )S") == ["(S", "(NP", "XX", "XX", ")NP", "XX", ")S"]
  assert decoded_tokens("(NXXXXX )NX (X XX )X") == ["(NX", "XX", "XX", ")NX", "(X", "XX", ")X"]
  assert decoded_tokens("(NP XX )NP") == ["(NP", "XX", ")NP"]
  assert decoded_tokens("(NPDTNN )NP(VPVBD") == ["(NP", "DT", "NN", ")NP", "(VP", "VBD"]
  assert decoded_tokens("(SBARINPRP$NNS") == ["(SBAR", "IN", "PRP$", "NNS"]
  assert decoded_tokens("(NPNNPS )NPXXNN") == ["(NP", "NNPS", ")NP", "XX", "NN"]
  assert decoded_tokens("(NPQZ NNX") == ["(NPQZ", "NNX"]  # No split: left as they are.


def test_every_linearised_token_is_one_vocabulary_piece(sample_pairs):
  texts = [text for pair in sample_pairs["dev"] + sample_pairs["test"] for text in pair]
  model = train_sentencepiece(texts, 2000, user_defined_symbols=PROBLEM.user_defined_symbols)
  processor = spm.SentencePieceProcessor(model_proto=model)
  for _, target in sample_pairs["test"][:50]:
    pieces = processor.encode(target, out_type=str)
    assert len(pieces) == len(target.split())   # Not twice as many: "▁(NP", not "▁", "(NP".
    assert processor.decode(processor.encode(target)) == target


WORDS_PROBLEM = ParsingEnglishPtb16kWords()


def test_the_word_leaf_problem_writes_each_word_and_reads_it_back(sample):
  assert PROBLEMS["parsing_english_ptb16k_words"] is ParsingEnglishPtb16kWords
  assert "\u2581(NP" in WORDS_PROBLEM.user_defined_symbols
  assert not set(POS_TAGS) & set(WORDS_PROBLEM.user_defined_symbols)  # `CNN` stays whole.
  pairs = list(WORDS_PROBLEM.text_pairs("test", Sources(tmp_dir=sample)))
  assert len(pairs) == len(list(PROBLEM.text_pairs("test", Sources(tmp_dir=sample))))
  source, target = pairs[0]
  assert [token for token in target.split() if token[0] not in "()"] == source.split()
  form = WORDS_PROBLEM.target_form
  for path in find_mrg_files(sample)[:60]:
    for tree in read_mrg_file(path):
      gold = normalize(tree)
      words, tokens = linearize(gold, word_leaves=True)
      source, target = " ".join(words), " ".join(tokens)
      assert not form.malformations(source, target)
      assert tree_string(source, target, gold.tags(), word_leaves=True) == gold.to_string()


def test_word_leaves_count_word_starts_and_continue_with_plain_pieces():
  form = WORDS_PROBLEM.target_form
  assert [form.counts(piece) for piece in ("\u2581Vinken", "\u2581", "\u2581(NP", "ken",
                                           "(NP", "</s>")] == [True, True, False, False,
                                                                False, False]
  assert [form.continues(piece) for piece in ("ken", "\u2581Vinken", ")NP", "<unk>",
                                              "</s>")] == [True, False, False, False, False]
  # A model's words need not be the source's: the tree holds the source's words.
  assert form.output_text("Pierre left .", "(S (NP Pierr )NP (VP left )VP . )S") == (
      "(S (NP (XX Pierre)) (VP (XX left)) (. .))")
  assert form.malformations("Pierre left .", "(S (NP Pierre left )NP") == (
      "fewer leaves than words", "brackets left open")
  assert decoded_tokens("(NPThe cat)NP(VPINTO", word_leaves=True) == [
      "(NP", "The", "cat", ")NP", "(VP", "INTO"]
