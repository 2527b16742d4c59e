#!/usr/bin/env bash
# Rebuild cluegym's shipped word data, offline, in the only order that works:
#
#   1. scripts/train_word2vec.py train   word2vec on WordNet glosses -> .cache/word2vec/ (not shipped)
#   2. scripts/build_wordlists.py        keywords / hint vocabulary / Taboo targets, keeping only
#                                        words that GloVe and the step-1 model both know
#   3. scripts/train_word2vec.py export  restrict the step-1 model to the game lists + the 20,000
#                                        most frequent English words -> agents/data/word2vec_wordnet.npz
#
# Needs Debian's wordnet-base and the venv (bash scripts/setup.sh --test). Deterministic: a rerun
# writes byte-identical lists and vectors. About 2-3 minutes on 2 cores, almost all in step 1.
#
#   bash scripts/build_data.sh           # rebuild everything
#   bash scripts/build_data.sh --check   # rebuild into .cache/ and compare with the shipped files
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
export PYTHONHASHSEED=0

if [ "${1:-}" = "--check" ]; then
  "$PY" scripts/train_word2vec.py train
  "$PY" scripts/build_wordlists.py --check
  "$PY" scripts/train_word2vec.py export --output .cache/word2vec/check.npz
  if cmp -s .cache/word2vec/check.npz agents/data/word2vec_wordnet.npz; then
    echo "agents/data/word2vec_wordnet.npz: up to date"
  else
    echo "agents/data/word2vec_wordnet.npz: DIFFERS" >&2
    exit 1
  fi
  exit 0
fi

"$PY" scripts/train_word2vec.py train
"$PY" scripts/build_wordlists.py
"$PY" scripts/train_word2vec.py export
