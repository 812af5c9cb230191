#!/usr/bin/env bash
# Measures the ways a newcomer could install and start Leafpile on Debian 12
# with its own Python (PEP 668: EXTERNALLY-MANAGED), each from a fresh copy of
# the checkout, a fresh HOME and an empty download cache, then once more with
# the cache warm. Prints one line per way: seconds until `leafpile --version`
# answers (wall), and the CPU seconds it took (user + system, all processes:
# on a machine others keep busy, the wall time says more about them than
# about the install). Results are written up in docs/install.md.
#
#   bash docs/measure_install.sh            (needs: /usr/bin/python3, python3-venv,
#                                            /usr/bin/time; pipx and uv are measured
#                                            when installed)
#   LEAFPILE_PURE_PYTHON=1 bash docs/measure_install.sh   (the same without the
#                                            compiled solver)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/leafpile-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
export PATH=${EXTRA_PATH:+$EXTRA_PATH:}/usr/local/bin:/usr/bin:/bin
unset PIP_FIND_LINKS VIRTUAL_ENV

copy() {  # a fresh copy of the checkout's tracked files
  rm -rf "$work/src" && mkdir -p "$work/src"
  (cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
}

timed() {  # timed NAME COMMAND: runs COMMAND in a fresh copy, prints the seconds
  local name=$1 cache=$2
  shift 2
  copy
  (cd "$work/src" && HOME="$work/home" XDG_CACHE_HOME="$work/cache-$cache" \
    /usr/bin/time -f '%e %U %S' -o "$work/$name.time" bash -c "$*") \
    >"$work/$name.log" 2>&1 || { echo "$name: failed, see below"; tail -5 "$work/$name.log"; return 0; }
  awk -v n="$name" '{ printf "%-28s %6.1f s wall %6.1f s CPU\n", n, $1, $2 + $3 }' "$work/$name.time"
}

mkdir -p "$work/home"
echo "$(date -u +%Y-%m-%dT%H:%MZ), load: $(cut -d' ' -f1-3 /proc/loadavg), $(/usr/bin/python3 --version)," \
  "LEAFPILE_PURE_PYTHON=${LEAFPILE_PURE_PYTHON:-}"
venv_line='python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/leafpile --version'
timed "venv (cold cache)" venv "$venv_line"
timed "venv (warm cache)" venv "$venv_line"
if command -v pipx >/dev/null; then
  pipx_line='PIPX_HOME=$HOME/pipx PIPX_BIN_DIR=$HOME/bin pipx install --force . && $HOME/bin/leafpile --version'
  timed "pipx (cold cache)" pipx "$pipx_line"
  timed "pipx (warm cache)" pipx "$pipx_line"
fi
if command -v uv >/dev/null; then
  uv_line='uv run --quiet --no-dev leafpile --version'
  timed "uv run (cold cache)" uv "$uv_line"
  timed "uv run (warm cache)" uv "$uv_line"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
