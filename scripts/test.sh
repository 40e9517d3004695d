#!/usr/bin/env bash
# Runs every test: formatting, clippy (server and web), unit and integration tests on SQLite and
# PostgreSQL, the mobile check, the web build (scripts/build_web.sh) with browser tests in headless
# Chromium, and the desktop app under Xvfb. Screenshots land in test-output/screenshots/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# CI runs in a fresh clone: keep its build cache between runs, as a developer's target/ is.
if [[ "${CI:-}" == "true" && -z "${CARGO_TARGET_DIR:-}" ]]; then
  export CARGO_TARGET_DIR="$HOME/.cache/herald-tools/ci-target"
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
# Each stage's time, printed at the end (also when a stage fails).
STAGES=()
STAGE_NAME="set-up (tools)"
STAGE_START=$SECONDS
T0=$SECONDS
end_stage() { STAGES+=("$(printf '%6d s  %s' $((SECONDS - STAGE_START)) "$STAGE_NAME")"); }
step() {
  end_stage
  STAGE_NAME="$*"
  STAGE_START=$SECONDS
  printf '\n\033[1;34m==> %s\033[0m\n' "$*"
}
report() {
  local rc=$?
  end_stage
  printf '\n\033[1;34m==> stage times (%d s in all, exit %d)\033[0m\n' $((SECONDS - T0)) "$rc"
  printf '  %s\n' "${STAGES[@]}"
}
trap report EXIT
eval "$(bash scripts/setup.sh --test)"

step "PostgreSQL on 127.0.0.1:5432"
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  if [[ "${CI:-}" == "true" ]]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start 2>/dev/null || true
    sleep 2
    pg_isready -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is required in CI" >&2; exit 1; }
  else
    echo "PostgreSQL is not running: its test runs will be skipped" >&2
  fi
fi

step "cargo fmt --check"
cargo fmt --all --check

step "clippy (server, all targets)"
cargo clippy --all-targets --features server,browser-tests -- -D warnings
step "clippy (web, wasm32)"
cargo clippy --features web --target wasm32-unknown-unknown -- -D warnings
step "clippy (web first-load client, wasm32)"
cargo clippy --features web,first-load --target wasm32-unknown-unknown -- -D warnings
step "cargo check --features mobile"
cargo check --features mobile

step "unit and integration tests (SQLite and PostgreSQL)"
cargo test --workspace --features server

# One web build serves every browser test and the first-load budget: the release client, as users
# download it, beside the server binary the integration tests just built (the same code; a
# release server as well would compile the whole crate graph again for nothing the tests check).
step "web build: release client (scripts/build_web.sh), the tests' server"
bash scripts/build_web.sh --server-bin "$TARGET/debug/herald" --out "$TARGET/herald-web"
step "desktop build"
CARGO_TARGET_DIR="$TARGET/desktop" cargo build --features desktop

step "browser and desktop tests"
rm -rf test-output/screenshots
HERALD_WEB_DIR="$TARGET/herald-web" \
HERALD_DESKTOP_BIN="$TARGET/desktop/debug/herald" \
  cargo test --features server,browser-tests --test browser -- --test-threads=1 --skip first_load

step "first load: transfer and time to interactive on the release build (budget 400 KB, 1 s)"
HERALD_RELEASE_WEB_DIR="$TARGET/herald-web" \
  cargo test --features server,browser-tests --test browser first_load -- --nocapture

# The suite must pass whatever the hour: the sending tests again with the machine's clock pinned
# to 03:00 (quiet hours) and to 14:00 in the test organisation's zone (UTC), in odd time zones.
step "sending tests with the machine clock pinned to 03:00 UTC (TZ=Pacific/Kiritimati)"
HERALD_WEB_DIR="$TARGET/herald-web" bash scripts/pinned_clock.sh 03 Pacific/Kiritimati
step "sending tests with the machine clock pinned to 14:00 UTC (TZ=America/Los_Angeles)"
HERALD_WEB_DIR="$TARGET/herald-web" bash scripts/pinned_clock.sh 14 America/Los_Angeles
echo "Screenshots: $ROOT/test-output/screenshots"
