#!/usr/bin/env bash
# Runs Herald: installs missing tools, builds the web app (only when sources changed), migrates,
# seeds the demo organisation on an empty database, and serves. IP, PORT and DATABASE_URL come
# from the environment; the default database is a SQLite file under ./data.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
eval "$(bash scripts/setup.sh)"

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET/dx/herald/release/web"
STAMP="$OUT/.herald-source-hash"
HASH=$(cat Cargo.toml Cargo.lock Dioxus.toml migration/Cargo.toml \
  $(find src assets migration/src -type f | sort) | sha256sum | cut -d' ' -f1)
if [[ ! -x "$OUT/server" || "$(cat "$STAMP" 2>/dev/null)" != "$HASH" ]]; then
  echo "==> dx build --platform web --release (first build takes a while)" >&2
  dx build --platform web --release --debug-symbols=false
  echo "$HASH" > "$STAMP"
fi

export HERALD_DATA_DIR="${HERALD_DATA_DIR:-$ROOT/data}"
export IP="${IP:-127.0.0.1}" PORT="${PORT:-8080}"
cd "$OUT"
exec ./server
