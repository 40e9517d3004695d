#!/usr/bin/env bash
# Installs what Herald's build and tests need, once, into a cache kept between runs:
# the wasm target, dx, wasm-bindgen-cli at the Cargo.lock version, esbuild and wasm-opt (from npm),
# and, when asked with --test, Chromium, ChromeDriver, Xvfb, ImageMagick (desktop screenshots),
# libfaketime (the pinned-clock runs), the desktop (webview) libraries and Prism (the Twilio
# contract test).
# Every step checks first, so a second run does nothing and takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS="${HERALD_TOOLS:-$HOME/.cache/herald-tools}"
DX_VERSION=0.7.10
ESBUILD_VERSION=0.27.3
BINARYEN_VERSION=132
mkdir -p "$TOOLS/bin" "$TOOLS/node"

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

say() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }

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

# Linker and build helpers (mold is set in .cargo/config.toml).
apt_install mold pkg-config
if ((want_test)); then
  apt_install chromium chromium-driver xvfb imagemagick libwebkit2gtk-4.1-dev libgtk-3-dev libxdo-dev \
    libfaketime faketime
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! "$TOOLS/bin/dx" --version 2>/dev/null | grep -q "$DX_VERSION"; then
  say "cargo install dioxus-cli $DX_VERSION (about 11 minutes on 2 cores, once)"
  cargo install dioxus-cli --version "$DX_VERSION" --locked --root "$TOOLS"
fi

WB_VERSION=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
if ! "$TOOLS/bin/wasm-bindgen" --version 2>/dev/null | grep -q "$WB_VERSION"; then
  say "cargo install wasm-bindgen-cli $WB_VERSION"
  # Its own lockfile can name a yanked crate; then resolve afresh.
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked --root "$TOOLS" \
    || cargo install wasm-bindgen-cli --version "$WB_VERSION" --root "$TOOLS"
fi

if [[ ! -x "$TOOLS/node/node_modules/.bin/esbuild" || ! -x "$TOOLS/node/node_modules/.bin/wasm-opt" ]]; then
  say "npm install esbuild@$ESBUILD_VERSION binaryen@$BINARYEN_VERSION"
  (cd "$TOOLS/node" && npm install --silent --no-audit --no-fund "esbuild@$ESBUILD_VERSION" "binaryen@$BINARYEN_VERSION")
fi

# A mock that validates requests against Twilio's OpenAPI description, for the contract test.
if ((want_test)) && [[ ! -x "$TOOLS/node/node_modules/.bin/prism" ]]; then
  say "npm install @stoplight/prism-cli@5.16.0"
  (cd "$TOOLS/node" && npm install --silent --no-audit --no-fund "@stoplight/prism-cli@5.16.0")
fi

# Callers source the PATH line this prints.
echo "export PATH=\"$TOOLS/bin:$TOOLS/node/node_modules/.bin:\$PATH\" NO_DOWNLOADS=1"
