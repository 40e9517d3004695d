#!/usr/bin/env bash
# Runs Herald: installs missing tools, builds the web app (only when sources changed), migrates,
# seeds the demo organisation on an empty database, and serves. IP, PORT and DATABASE_URL come
# from the environment; the default database is a SQLite file under ./data.
# A first run prints each phase's time at the end of the build.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
T0=$SECONDS

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET/herald-web"
STAMP="$OUT/.herald-source-hash"
HASH=$(cat Cargo.toml Cargo.lock index.html migration/Cargo.toml scripts/build_web.sh \
  $(find src assets public migration/src -type f | sort) | sha256sum | cut -d' ' -f1)
if [[ -x "$OUT/server" && "$(cat "$STAMP" 2>/dev/null)" == "$HASH" ]]; then
  eval "$(bash scripts/setup.sh)"
else
  # The server compiles while the tools install: it needs only the linker, and the longest
  # install (wasm-bindgen-cli) leaves a core free for much of its time.
  bash scripts/setup.sh --linker
  mkdir -p "$TARGET"
  echo "==> cargo build --profile server-run --features server (in the background; log in $TARGET/server-build.log)" >&2
  cargo build --profile server-run --features server --bin herald >"$TARGET/server-build.log" 2>&1 &
  eval "$(bash scripts/setup.sh)"
  T_SETUP=$SECONDS
  # build_web.sh builds the server again beside the client: cargo waits on the target folder's
  # lock for the background build and then finds it done (a failure there shows again here).
  echo "==> scripts/build_web.sh (the first build takes a while)" >&2
  bash scripts/build_web.sh --server-profile server-run --out "$OUT"
  echo "$HASH" >"$STAMP"
  printf '==> built in %d s: set-up %d s (the server compiling beside it), then the rest %d s\n' \
    $((SECONDS - T0)) $((T_SETUP - T0)) $((SECONDS - T_SETUP)) >&2
fi

export HERALD_DATA_DIR="${HERALD_DATA_DIR:-$ROOT/data}"
export IP="${IP:-127.0.0.1}" PORT="${PORT:-8080}"
cd "$OUT"
exec ./server
