"""The front pages (README.md, docs/index.md, docs/recipes.md) quote scores only where
docs/reference_pages.py writes them from the records and docs/headline_results.json: a BLEU
or F1 figure typed anywhere else on them fails here."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))

import reference_pages  # noqa: E402

FRONT_PAGES = ["README.md", os.path.join("docs", "index.md"), os.path.join("docs", "recipes.md")]
# The marker lines around what reference_pages writes, (start, end).
BLOCKS = [(reference_pages.TABLE_START, reference_pages.TABLE_END),
          (reference_pages.OWN_DATA_START, reference_pages.OWN_DATA_END),
          (reference_pages.RECIPES_START, reference_pages.RECIPES_END),
          (reference_pages.HEAD_START, reference_pages.HEAD_END)]
# A score as the pages quote BLEU and F1: 10.0 to 999.99 (versions such as 3.11 and
# settings such as 0.997 or 1.4 have one digit before the point).
SCORE = re.compile(r"(?<![\w.])\d{2,3}\.\d{1,2}(?![\w.])")


def typed_text(text, generated_starts=()):
  """`text` without the blocks and the lines that reference_pages writes (`generated_starts`:
  how each of its written lines begins)."""
  for start, end in BLOCKS:
    while start in text:
      text = text[:text.index(start)] + text[text.index(end, text.index(start)) + len(end):]
  return "\n".join(line for line in text.split("\n")
                   if not any(line.startswith(begin) for begin in generated_starts))


def generated_starts(path):
  """How each line that reference_pages writes on the page at `path` begins."""
  written = {}
  for write_lines in reference_pages.LINE_WRITERS:
    for page, page_lines in write_lines().items():
      written.setdefault(os.path.abspath(page), []).extend(start for start, _ in page_lines)
  return written.get(os.path.abspath(path), [])


def test_a_score_typed_outside_the_written_blocks_is_found():
  start, end = reference_pages.RECIPES_START, reference_pages.RECIPES_END
  page = (f"Python 3.11, dropout 0.2, alpha 1.4, beta2 0.997.\n{start}\n| x | 42.78 |\n{end}\n"
          f"Its record: 4.83.\nThe recipe reached 41.25 in two hours.\n")
  assert SCORE.findall(typed_text(page, ["Its record"])) == ["41.25"]
  assert SCORE.findall(typed_text(page.replace("41.25", "forty"), ["Its record"])) == []
  assert SCORE.findall("an F1 of 65.3, test 39.6") == ["65.3", "39.6"]


def test_the_front_pages_quote_scores_only_from_records():
  for page in FRONT_PAGES:
    path = os.path.join(ROOT, page)
    with open(path, encoding="utf-8") as f:
      typed = typed_text(f.read(), generated_starts(path))
    assert SCORE.findall(typed) == [], (
        f"{page} quotes a score outside what docs/reference_pages.py writes from records: "
        f"write it into a record, or move it to the lab notebook (docs/results.md)")
