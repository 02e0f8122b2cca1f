"""EVALB-compatible bracket scoring (Sekine & Collins 1997; the 2006 release's algorithm).

    result = score_corpus(gold_lines, test_lines, COLLINS)
    result.all.f1, result.short.f1     # all sentences; those of length <= CUTOFF_LEN
    print(format_report(result))       # the table and summary EVALB prints

    python -m t2t_lite.metrics.evalb -p COLLINS.prm gold.txt test.txt [--scores_json=F]

--scores_json also writes the summary's F-measure as data, in t2t-bleu --scores_json's
form: {"bracket_f1": {"score": 89.12, "signature": "..."}} (all sentences).

Line i of the gold and of the test file is sentence i, one bracketed tree, e.g.
`(S (NP (DT The) (NN cat)) (VP (VBD sat)))`. How a sentence is scored:
  - Words tagged with a DELETE_LABEL are removed (COLLINS.prm: punctuation and
    traces), then brackets with a DELETE_LABEL label and brackets spanning no
    word. Bracket labels lose function tags (NP-SBJ-1 -> NP, NP=2 -> NP). POS
    tags are not brackets; they count only in the tagging accuracy.
  - Skip (status 2): the test tree has no words. Error (status 1): a line does
    not parse, the word counts differ ("Length unmatch (gold|test)") or a word
    differs ("Words unmatch (gold|test)"). Both are left out of every total.
  - Brackets match as multisets: each gold bracket takes the first unmatched
    test bracket with its span (and its label when LABELED; EQ_LABEL pairs are
    equal), so (NP (NP the man)) against (NP the man) has recall 1/2.
  - Crossing: test brackets overlapping some gold bracket without nesting.
  - Length (column Len., and the CUTOFF_LEN block) counts gold words whose tag
    is not in DELETE_LABEL_FOR_LENGTH: punctuation counts, traces do not.
  - QUOTE_LABEL: a quote word (' " /) deleted on one side only, e.g. ' tagged
    '' in gold but POS in test, is put back on the deleted side (EVALB 2006).
  - MAX_ERROR: like EVALB, scoring gives up at the error after MAX_ERROR + 1.
Where EVALB's C code misbehaves (unbalanced brackets, words outside brackets,
over 200 words) the sentence is an error here, its numbers all 0.
"""

import argparse
import dataclasses
import json
import re
import sys

from t2t_lite.data.text_files import read_lines
from t2t_lite.data.trees import parse_trees
from t2t_lite.errors import UserError
from t2t_lite.metrics.evalb_params import COLLINS, EvalbParams, read_params
from t2t_lite.metrics.evalb_report import (ERROR, OK, SKIP, CorpusResult, SentenceResult,
                                           Totals, format_report)

__all__ = ["COLLINS", "EvalbParams", "read_params", "OK", "ERROR", "SKIP", "SentenceResult",
           "Totals", "CorpusResult", "score_sentence", "score_corpus", "format_report", "main"]

F1_TAG = "bracket_f1"  # --scores_json's key.
QUOTE_WORDS = ("'", '"', "/")   # The words QUOTE_LABEL applies to, as in evalb.c.


@dataclasses.dataclass
class _Quote:
  """A quote word seen while reading (QUOTE_LABEL), deleted or not."""

  word: str
  tag: str
  index: int              # Its position among the kept words (where it would go if deleted).
  first_bracket: int      # Brackets from this index on open after it.
  enclosing: tuple        # Indices of the brackets open around it.


@dataclasses.dataclass
class _Reading:
  """One line as EVALB sees it."""

  terminals: list         # [(word, tag)] of the words kept after DELETE_LABEL.
  brackets: list          # [[start, end, label]] in opening order; end exclusive, over terminals.
  length: int             # Words not tagged DELETE_LABEL_FOR_LENGTH, deleted ones included.
  quotes: list            # [_Quote].


def _read(line, params, side):
  """The `_Reading` of one line; UserError (one line) if it does not parse."""
  reading = _Reading([], [], 0, [])
  open_brackets = []

  def walk(node):
    if node.is_preterminal():
      tag, word = node.label, node.children[0]
      reading.length += tag not in params.delete_labels_for_length
      if tag in params.quote_labels and word in QUOTE_WORDS:
        reading.quotes.append(_Quote(word, tag, len(reading.terminals), len(reading.brackets),
                                     tuple(open_brackets)))
      if tag not in params.delete_labels:
        reading.terminals.append((word, tag))
      return
    index = len(reading.brackets)
    reading.brackets.append([len(reading.terminals), None, node.label])
    open_brackets.append(index)
    for child in node.children:
      walk(child)
    open_brackets.pop()
    reading.brackets[index][1] = len(reading.terminals)

  # A line may hold several top-level trees, e.g. `(P this) (Q is)`.
  for tree in parse_trees(line, source=side):
    walk(tree)
  return reading


def _fix_quotes(gold, test, params):
  """Puts back a quote word deleted on one side only (evalb.c's fix_quote, step for step)."""
  def deleted(tag):
    return tag in params.delete_labels

  for i, test_quote in enumerate(test.quotes):
    index = test_quote.index
    for j, gold_quote in enumerate(gold.quotes):
      if gold_quote.index != index or gold_quote.tag == test_quote.tag:
        continue
      if deleted(gold_quote.tag) and not deleted(test_quote.tag):
        _reinsert(gold_quote, gold)
        for later in gold.quotes[j:]:
          later.index += 1
      elif deleted(test_quote.tag) and not deleted(gold_quote.tag):
        _reinsert(test_quote, test)
        for later in test.quotes[i:]:
          later.index += 1


def _reinsert(quote, reading):
  reading.terminals.insert(quote.index, (quote.word, quote.tag))
  for bracket in reading.brackets[quote.first_bracket:]:
    bracket[0] += 1
    bracket[1] += 1
  for k in quote.enclosing:
    reading.brackets[k][1] += 1


def _scored_brackets(reading, params):
  """[(start, end, label)] of the brackets EVALB keeps, labels without function tags."""
  kept = []
  for start, end, label in reading.brackets:
    # EVALB cuts at the first - or = wherever it is (-NONE- -> ""), unlike
    # trees.strip_function_tags, which keeps -LRB- whole.
    label = re.split(r"[-=]", label, maxsplit=1)[0]
    if start == end or any(params.labels_equal(label, gone) for gone in params.delete_labels):
      continue
    kept.append((start, end, label))
  return kept


def score_sentence(gold_tree_string, test_tree_string, params=COLLINS, sentence_id=1):
  """The `SentenceResult` of one test tree against its gold tree (one line each)."""
  def unscored(status, gold=None, message=""):
    length, words = (gold.length, len(gold.terminals)) if gold else (0, 0)
    return SentenceResult(sentence_id, length, status, 0, 0, 0, 0, words, 0, message)

  try:
    gold = _read(gold_tree_string, params, "gold")
  except UserError as error:
    gold, gold_error = None, str(error)
  else:
    gold_error = ""
  try:
    test = _read(test_tree_string, params, "test")
  except UserError as error:
    return unscored(ERROR, gold, gold_error or str(error))
  if not test.terminals:
    return unscored(SKIP, gold)
  if gold is None:
    return unscored(ERROR, None, gold_error)

  if len(gold.terminals) != len(test.terminals):
    _fix_quotes(gold, test, params)
    if len(gold.terminals) != len(test.terminals):
      return unscored(ERROR, gold,
                      f"Length unmatch ({len(gold.terminals)}|{len(test.terminals)})")
  for (gold_word, _), (test_word, _) in zip(gold.terminals, test.terminals):
    if not params.words_equal(gold_word, test_word):
      return unscored(ERROR, gold, f"Words unmatch ({gold_word}|{test_word})")

  gold_brackets = _scored_brackets(gold, params)
  test_brackets = _scored_brackets(test, params)
  unmatched = list(test_brackets)
  matched = 0
  for start, end, label in gold_brackets:
    for j, candidate in enumerate(unmatched):
      if (candidate is not None and candidate[:2] == (start, end)
          and (not params.labeled or params.labels_equal(label, candidate[2]))):
        unmatched[j] = None
        matched += 1
        break
  crossing = sum(
      any(g_start < t_start < g_end < t_end or t_start < g_start < t_end < g_end
          for g_start, g_end, _ in gold_brackets)
      for t_start, t_end, _ in test_brackets)
  correct_tags = sum(params.labels_equal(gold_tag, test_tag)
                     for (_, gold_tag), (_, test_tag) in zip(gold.terminals, test.terminals))
  return SentenceResult(sentence_id, gold.length, OK, matched, len(gold_brackets),
                        len(test_brackets), crossing, len(gold.terminals), correct_tags)


def score_corpus(gold_lines, test_lines, params=COLLINS):
  """The `CorpusResult` of test trees against gold trees, line by line, as EVALB scores them.

  Unequal numbers of lines are reported like EVALB ("Number of lines unmatch")
  and only the common lines are scored. Raises UserError when the errors pass
  MAX_ERROR + 1, where EVALB gives up.
  """
  gold_lines, test_lines = list(gold_lines), list(test_lines)
  sentences, messages = [], []
  every, short = Totals(), Totals()

  def error(line_number, message):
    messages.append(f"{line_number} : {message}")
    if len(messages) > params.max_error + 1:
      raise UserError(f"line {line_number}: {message}; giving up after {len(messages)} errors "
                      f"(MAX_ERROR {params.max_error}), as EVALB does: check that line i of "
                      "both files is the same sentence, or raise MAX_ERROR")

  for number, (gold_line, test_line) in enumerate(zip(gold_lines, test_lines), start=1):
    sentence = score_sentence(gold_line, test_line, params, number)
    sentences.append(sentence)
    every = every.add(sentence)
    if sentence.length <= params.cutoff_len:
      short = short.add(sentence)
    if sentence.status == ERROR:
      error(number, sentence.message)
  if len(gold_lines) > len(test_lines):
    error(len(test_lines) + 1, "Number of lines unmatch (too many lines in gold file)")
  elif len(test_lines) > len(gold_lines):
    error(len(gold_lines) + 1, "Number of lines unmatch (too many lines in test file)")
  return CorpusResult(tuple(sentences), every, short, params.cutoff_len, tuple(messages))


class _ArgumentParser(argparse.ArgumentParser):
  """Usage mistakes print one line and exit with status 2."""

  def error(self, message):
    self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv=None):
  """`evalb [-p PARAM_FILE] [-e N] [-c N] [--no-fmeasure] GOLD TEST`: the report on stdout."""
  parser = _ArgumentParser(
      prog="evalb", description="Score test trees against gold trees as EVALB does; "
      "one bracketed tree per line in each file.")
  parser.add_argument("-p", dest="params", metavar="PARAM_FILE",
                      help="EVALB parameter file (default: the settings of COLLINS.prm)")
  parser.add_argument("-e", dest="max_error", type=int, metavar="N",
                      help="give up after this many errors (overrides MAX_ERROR)")
  parser.add_argument("-c", dest="cutoff_len", type=int, metavar="N",
                      help="length limit of the second summary (overrides CUTOFF_LEN)")
  parser.add_argument("--no-fmeasure", action="store_true",
                      help="leave out the F-measure lines (EVALB's layout before 2006)")
  parser.add_argument("--scores_json", metavar="FILE",
                      help="also write the F-measure of all sentences to FILE as JSON")
  parser.add_argument("gold", help="gold trees, one per line")
  parser.add_argument("test", help="test trees, one per line")
  args = parser.parse_args(argv)
  try:
    params = read_params(args.params) if args.params else COLLINS
    overrides = {name: getattr(args, name) for name in ("max_error", "cutoff_len")
                 if getattr(args, name) is not None}
    if any(value < 0 for value in overrides.values()):
      raise UserError("-e and -c take a number of 0 or more")
    params = dataclasses.replace(params, **overrides)
    if args.scores_json:
      from t2t_lite import quiet
      quiet.import_tensorflow()  # Before the guard's imports load it with its chatter.
      from t2t_lite.run.output_paths import check_output_file
      check_output_file(args.scores_json, "--scores_json", [args.gold, args.test])
    result = score_corpus(list(read_lines(args.gold, "gold file")),
                          list(read_lines(args.test, "test file")), params)
  except UserError as error:
    print(f"{parser.prog}: error: {error}", file=sys.stderr)
    return 2
  for message in result.messages:
    print(message, file=sys.stderr)
  sys.stdout.write(format_report(result, fmeasure=not args.no_fmeasure))
  if args.scores_json:
    from t2t_lite.files.atomic_files import write_text_atomic
    write_text_atomic(args.scores_json, json.dumps(
        {F1_TAG: {"score": round(result.all.f1, 2),
                  "signature": f"EVALB, {args.params or 'COLLINS.prm'}, all sentences"}}))
  return 0


if __name__ == "__main__":
  sys.exit(main())
