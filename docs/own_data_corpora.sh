#!/usr/bin/env bash
# The corpora of docs/own-data.md's measurements, cut from the shared data folder into
# OUT/NAME/{train,val,test}.{en,de}, English→German:
#
#   docs/own_data_corpora.sh OUT [SHARED_DATA]
#
#   europarl18k  Europarl v7's first 20,000 pairs: lines 1-18,000 train, 18,001-19,000
#                val, 19,001-20,000 test
#   europarl10k, europarl5k  the first 10,000 and 5,000 lines of europarl18k's train,
#                with its val and test
#   news13k      the news test sets 2008-2012 (13,071 pairs) as training pairs;
#                newstest2013's first 1,000 lines as val, newstest2014's (full) as test
#   multi30k     Multi30k task 1 (29,000 pairs of captions), its val (1,014) and
#                test_2016_flickr (1,000)
#   ding         the Ding dictionary's example sentences (Debian's trans-de-en, not in the
#                shared folder; skipped without it), split as translate_deen_ding8k
#                splits them: a sixteenth val, a sixteenth test (docs/ding_corpus.py)
set -euo pipefail
OUT=$1
SHARED=${2:-$(dirname "$0")/../../shared/data}
EUROPARL=$SHARED/europarl/europarl-v7.de-en.first20k
WMT=$SHARED/wmt14

cut_lines() {  # cut_lines FILE FIRST LAST
  sed -n "$2,$3p" "$1"
}

for LANG in en de; do
  mkdir -p "$OUT/europarl18k" "$OUT/europarl10k" "$OUT/europarl5k" "$OUT/news13k" \
    "$OUT/multi30k"
  cut_lines "$EUROPARL.$LANG" 1 18000 > "$OUT/europarl18k/train.$LANG"
  cut_lines "$EUROPARL.$LANG" 18001 19000 > "$OUT/europarl18k/val.$LANG"
  cut_lines "$EUROPARL.$LANG" 19001 20000 > "$OUT/europarl18k/test.$LANG"
  for SIZE in 10 5; do
    cut_lines "$EUROPARL.$LANG" 1 "${SIZE}000" > "$OUT/europarl${SIZE}k/train.$LANG"
    cp "$OUT/europarl18k/val.$LANG" "$OUT/europarl18k/test.$LANG" "$OUT/europarl${SIZE}k/"
  done
  cat "$WMT"/newstest20{08,09,10,11,12}."$LANG" > "$OUT/news13k/train.$LANG"
  cut_lines "$WMT/newstest2013.$LANG" 1 1000 > "$OUT/news13k/val.$LANG"
  cut_lines "$WMT/newstest2014-full.en-de.$LANG" 1 1000 > "$OUT/news13k/test.$LANG"
  cp "$SHARED/multi30k/train.$LANG" "$OUT/multi30k/train.$LANG"
  cp "$SHARED/multi30k/val.$LANG" "$OUT/multi30k/val.$LANG"
  cp "$SHARED/multi30k/test_2016_flickr.$LANG" "$OUT/multi30k/test.$LANG"
done
if [ -f /usr/share/trans/de-en ]; then
  "$(dirname "$0")"/../.venv/bin/python "$(dirname "$0")"/ding_corpus.py "$OUT/ding"
fi
wc -l "$OUT"/*/train.en
