#!/usr/bin/env bash
# Installs what Herald's build and tests need, once, into a cache kept between runs:
# the wasm target, wasm-bindgen-cli at the Cargo.lock version, esbuild and wasm-opt (from npm),
# and, when asked with --test, Chromium, ChromeDriver, Xvfb, ImageMagick (desktop screenshots),
# libfaketime (the pinned-clock runs), the desktop (webview) libraries, Prism (the Twilio
# contract test), axe-core (the accessibility test), and schemathesis and openapi-spec-validator
# (pip; the public API's conformance test). The web app is built by scripts/build_web.sh, without dx (see there why).
# `--linker` installs only the linker (mold), so that a build can start while the rest installs.
# Every step checks first, so a second run does nothing and takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS="${HERALD_TOOLS:-$HOME/.cache/herald-tools}"
ESBUILD_VERSION=0.27.3
BINARYEN_VERSION=132
mkdir -p "$TOOLS/bin" "$TOOLS/node"

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1
linker_only=0
[[ "${1:-}" == "--linker" ]] && linker_only=1

say() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }

# Each phase's time, printed at the end of a first run (and appended to $TOOLS/timings.log).
T0=$SECONDS
TIMINGS=()
timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  TIMINGS+=("$(printf '%-34s %4d s' "$name" $((SECONDS - start)))")
}

# wasm-bindgen-cli is a build tool: how fast it runs hardly matters, how long it takes to
# compile does. A light release profile (opt-level 1, no LTO, many codegen units, no debug info)
# compiles them in well under half the time of their own profile.
light_install() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=64 CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_INCREMENTAL=false \
    cargo install --quiet "$@"
}

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    say "apt-get install ${missing[*]}"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# Linker and build helpers (mold is set in .cargo/config.toml): the tools' own builds link with it.
timed "apt: mold, pkg-config" apt_install mold pkg-config
((linker_only)) && exit 0

# The test packages and the npm tools download while the Rust tools compile: they need the network,
# not the cores. Their output goes to a log; a failure fails this script after the wait.
BG_LOG="$TOOLS/setup-background.log"
: >"$BG_LOG"
bg_pids=()
if ((want_test)); then
  (TIMINGS=(); timed "apt: browser, desktop, faketime" apt_install chromium chromium-driver xvfb imagemagick \
      libwebkit2gtk-4.1-dev libgtk-3-dev libxdo-dev libfaketime faketime
    printf '%s\n' "${TIMINGS[@]}" >"$TOOLS/.timings-apt") >>"$BG_LOG" 2>&1 &
  bg_pids+=($!)
fi
npm_tools=()
[[ -x "$TOOLS/node/node_modules/.bin/esbuild" && -x "$TOOLS/node/node_modules/.bin/wasm-opt" ]] \
  || npm_tools+=("esbuild@$ESBUILD_VERSION" "binaryen@$BINARYEN_VERSION")
# A mock that validates requests against Twilio's OpenAPI description, for the contract test.
((want_test)) && [[ ! -x "$TOOLS/node/node_modules/.bin/prism" ]] && npm_tools+=("@stoplight/prism-cli@5.16.0")
# Deque's accessibility rules, injected into pages by the browser tests (tests/browser/accessibility.rs).
((want_test)) && [[ ! -f "$TOOLS/node/node_modules/axe-core/axe.min.js" ]] && npm_tools+=("axe-core@4.14.1")
if ((${#npm_tools[@]})); then
  say "npm install ${npm_tools[*]} (in the background)"
  (TIMINGS=(); timed "npm: ${npm_tools[*]}" bash -c "cd '$TOOLS/node' && npm install --silent --no-audit --no-fund ${npm_tools[*]}"
    printf '%s\n' "${TIMINGS[@]}" >"$TOOLS/.timings-npm") >>"$BG_LOG" 2>&1 &
  bg_pids+=($!)
fi

# The public API's conformance test runs these against /v1 (tests/integration/api_conformance.rs),
# at the versions it was written against (their checks change between releases); the email tests
# read what Herald sent from aiosmtpd, a local SMTP server (tests/integration/email.rs).
if ((want_test)) && ! python3 -c 'import schemathesis, openapi_spec_validator, aiosmtpd' 2>/dev/null; then
  say "pip install schemathesis openapi-spec-validator aiosmtpd (in the background)"
  (TIMINGS=(); timed "pip: schemathesis, openapi-spec-validator, aiosmtpd" \
      python3 -m pip install --quiet schemathesis==4.32.5 openapi-spec-validator==0.9.0 aiosmtpd==1.4.6
    printf '%s\n' "${TIMINGS[@]}" >"$TOOLS/.timings-pip") >>"$BG_LOG" 2>&1 &
  bg_pids+=($!)
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  timed "rustup target add wasm32" rustup target add wasm32-unknown-unknown
fi
# The web client's release build compiles the standard library for size with the machine's nightly
# toolchain (scripts/build_web.sh says why); it needs that toolchain's library source.
if rustup toolchain list | grep -q '^nightly' &&
  ! rustup component list --toolchain nightly --installed | grep -q '^rust-src'; then
  say "rustup component add rust-src --toolchain nightly"
  timed "rustup rust-src (nightly)" rustup component add rust-src --toolchain nightly ||
    echo "setup: no nightly rust-src: the web client builds with stable's prebuilt library (larger)" >&2
fi

# wasm-bindgen-cli compiles while apt and npm download.
WB_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
wb_pid=""
if ! "$TOOLS/bin/wasm-bindgen" --version 2>/dev/null | grep -q "$WB_VERSION"; then
  say "cargo install wasm-bindgen-cli $WB_VERSION (in the background)"
  # Its own lockfile can name a yanked crate; then resolve afresh.
  (TIMINGS=(); timed "cargo install wasm-bindgen-cli" bash -c "$(declare -f light_install); \
      light_install wasm-bindgen-cli --version '$WB_VERSION' --locked --root '$TOOLS' \
      || light_install wasm-bindgen-cli --version '$WB_VERSION' --root '$TOOLS'"
    printf '%s\n' "${TIMINGS[@]}" >"$TOOLS/.timings-wb") >>"$BG_LOG" 2>&1 &
  wb_pid=$!
fi

failed=0
for pid in $wb_pid "${bg_pids[@]}"; do
  wait "$pid" || failed=1
done
for f in "$TOOLS"/.timings-*; do
  [[ -f "$f" ]] && mapfile -t -O "${#TIMINGS[@]}" TIMINGS <"$f" && rm -f "$f"
done
if ((failed)); then
  echo "setup: a background install failed; its log:" >&2
  cat "$BG_LOG" >&2
  exit 1
fi
if ((${#TIMINGS[@]})); then
  say "set-up took $((SECONDS - T0)) s:"
  printf '    %s\n' "${TIMINGS[@]}" >&2
  { date -u +%FT%TZ; printf '    %s\n' "${TIMINGS[@]}"; } >>"$TOOLS/timings.log"
fi

# Callers source the PATH line this prints.
echo "export PATH=\"$TOOLS/bin:$TOOLS/node/node_modules/.bin:\$PATH\" NO_DOWNLOADS=1"
