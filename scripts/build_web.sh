#!/usr/bin/env bash
# Builds the web app without dx: the wasm client (profile wasm-release), wasm-bindgen, wasm-opt -O2,
# the JS glue bundled and minified by esbuild, the stylesheet minified, content-hashed names
# (`name-dxh<hex>.ext`, the scheme dx uses and src/server/assets.rs caches as immutable), brotli
# copies, public/index.html from ./index.html, and the server binary beside public/.
#
# Why not `dx build`: dx compiles from source in 18 to 29 minutes on 2 cores (about 800 crates),
# more than the whole first-run goal, and the registries hold no prebuilt dx. The app needs none
# of dx's asset pipeline: its one stylesheet is linked from index.html here.
#
# usage: scripts/build_web.sh [--server-profile PROFILE | --server-bin PATH] [--out DIR]
#   --server-profile  builds the server with `cargo build --profile PROFILE` (default server-run)
#   --server-bin      copies an already built server (the test command's debug binary)
#   --out             the output folder (default $CARGO_TARGET_DIR/herald-web): DIR/server, DIR/public
# Needs wasm-bindgen (the Cargo.lock version), wasm-opt, esbuild and node on PATH: scripts/setup.sh
# puts them there.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET/herald-web"
SERVER_PROFILE=server-run
SERVER_BIN=""
while (($#)); do
  case "$1" in
    --server-profile) SERVER_PROFILE=$2; shift 2 ;;
    --server-bin) SERVER_BIN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "build_web: unknown argument $1" >&2; exit 2 ;;
  esac
done
say() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
hash_of() { sha256sum "$1" | cut -c1-16; }

# The server and the client compile side by side: each has long single-threaded stretches (the
# client's fat LTO, the server's last crates and link) that the other fills. The client has its own
# target folder so that neither waits on the other's lock (no compiled crate could be shared
# anyway: different targets and profiles).
server_pid=""
if [[ -z "$SERVER_BIN" ]]; then
  say "cargo build --profile $SERVER_PROFILE --features server (the server, in the background)"
  cargo build --quiet --profile "$SERVER_PROFILE" --features server --bin herald &
  server_pid=$!
  SERVER_BIN="$TARGET/$SERVER_PROFILE/herald"
  [[ "$SERVER_PROFILE" == dev ]] && SERVER_BIN="$TARGET/debug/herald"
fi

# getrandom 0.3 reads its browser backend from this cfg (dx passes it too).
FLAGS='--cfg getrandom_backend="wasm_js"'
# The standard library compiled for size, with panics that abort at once (no message formatting):
# 42 KB less brotli wasm than stable's prebuilt library (537.7 KB to 495.3 KB, measured on the
# same code), for the first-load budget. It needs a nightly toolchain with rust-src; the machine
# image ships nightly and scripts/setup.sh adds rust-src. Without them: the stable build, larger.
WEB_CLIENT="$TARGET/web-client"
CARGO_CMD=(cargo build)
if rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^rust-src'; then
  WEB_CLIENT="$TARGET/web-client-std"
  CARGO_CMD=(cargo +nightly build -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size)
  FLAGS="$FLAGS -Zunstable-options -Cpanic=immediate-abort"
else
  echo "build_web: no nightly rust-src; the client uses stable's prebuilt standard library" >&2
fi
STAGE="$(mktemp -d "$TARGET/.herald-web.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
PUB="$STAGE/public"
mkdir -p "$PUB/assets"
cp -R "$ROOT/public/." "$PUB/"

# One client: compiled with FEATURES, bound, optimised, its loader bundled, under hashed names in
# public/assets. Sets CLIENT_JS to the loader's name.
build_client() {
  local name=$1 features=$2
  say "${CARGO_CMD[*]} --profile wasm-release --target wasm32-unknown-unknown --features $features"
  CARGO_TARGET_DIR="$WEB_CLIENT" RUSTFLAGS="$FLAGS" \
    "${CARGO_CMD[@]}" --quiet --profile wasm-release --target wasm32-unknown-unknown \
    --no-default-features --features "$features" --bin herald
  local wasm_in="$WEB_CLIENT/wasm32-unknown-unknown/wasm-release/herald.wasm"
  local work="$STAGE/$name"
  say "$name: wasm-bindgen, wasm-opt -O2, esbuild"
  wasm-bindgen --target web --no-demangle --remove-name-section --remove-producers-section \
    --keep-lld-exports --out-name herald --no-typescript --out-dir "$work" "$wasm_in"
  # -O2 measured best for the compressed transfer (see Dioxus.toml's note); the features are the
  # ones Rust's wasm32 output uses.
  wasm-opt "$work/herald_bg.wasm" -O2 -o "$work/opt.wasm" --enable-reference-types \
    --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
    --enable-threads --strip-debug
  local wasm_name="${name}_bg-dxh$(hash_of "$work/opt.wasm").wasm"
  cp "$work/opt.wasm" "$PUB/assets/$wasm_name"
  # The loader: fetch and start the wasm as soon as the module runs.
  cat >>"$work/herald.js" <<JS

__wbg_init({ module_or_path: "/assets/$wasm_name" }).then((wasm) => {
  if (wasm.__wbindgen_start == undefined) {
    wasm.main();
  }
});
JS
  esbuild "$work/herald.js" --outfile="$work/loader.js" --log-level=warning --minify \
    --bundle --format=esm
  CLIENT_JS="${name}-dxh$(hash_of "$work/loader.js").js"
  mv "$work/loader.js" "$PUB/assets/$CLIENT_JS"
  rm -rf "$work"
}

# Two clients (src/ui/views/full_client.rs): the first-load client, without the pages a person opens
# seldom, which every other page loads; and the full client, which the server sends with those
# pages' addresses. The features are the only difference; the dependencies compile once.
build_client herald "web,first-load"
FIRST_JS=$CLIENT_JS
build_client herald-full web
FULL_JS=$CLIENT_JS

esbuild "$ROOT/assets/main.css" --outfile="$STAGE/main.css" --log-level=warning --minify
CSS_NAME="main-dxh$(hash_of "$STAGE/main.css").css"
mv "$STAGE/main.css" "$PUB/assets/$CSS_NAME"
# The seldom-opened pages' rules: linked by the full client's template only.
esbuild "$ROOT/assets/full.css" --outfile="$STAGE/full.css" --log-level=warning --minify
FULL_CSS_NAME="full-dxh$(hash_of "$STAGE/full.css").css"
mv "$STAGE/full.css" "$PUB/assets/$FULL_CSS_NAME"

# The page templates the server renders into (dioxus-server splits them at id="main"): the title,
# the stylesheet and a preload of the module in the head, the module at the end of the body.
template() {
  local js=$1 out=$2 extra=${3:-}
  local head="<link rel=\"stylesheet\" href=\"/assets/$CSS_NAME\">$extra<link rel=\"modulepreload\" href=\"/assets/$js\">"
  local body="<script type=\"module\" async src=\"/assets/$js\"></script>"
  sed -e "s|{app_title}|Herald|" -e "s|</head>|$head</head>|" -e "s|</body>|$body</body>|" \
    "$ROOT/index.html" >"$out"
  grep -q "$js" "$out" || { echo "build_web: index.html has no </body>" >&2; exit 1; }
}
template "$FIRST_JS" "$PUB/index.html"
template "$FULL_JS" "$PUB/index-full.html" "<link rel=\"stylesheet\" href=\"/assets/$FULL_CSS_NAME\">"

# Brotli at its best (quality 11) beside each hashed asset; the server adds gzip at start-up.
node -e '
const fs = require("fs"), path = require("path"), zlib = require("zlib");
const dir = process.argv[1];
const q = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 22 } };
for (const name of fs.readdirSync(dir)) {
  const p = path.join(dir, name);
  fs.writeFileSync(p + ".br", zlib.brotliCompressSync(fs.readFileSync(p), q));
}' "$PUB/assets"

if [[ -n "$server_pid" ]]; then
  say "waiting for the server build"
  wait "$server_pid"
fi
cp "$SERVER_BIN" "$STAGE/server"
# Swap the finished build in whole: a server running from the old folder keeps its files.
mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.old"
[[ -d "$OUT" ]] && mv "$OUT" "$OUT.old"
mv "$STAGE" "$OUT"
rm -rf "$OUT.old"
trap - EXIT
say "built $OUT: brotli wasm $(du -k "$OUT"/public/assets/herald_bg-dxh*.wasm.br | cut -f1) KB first-load, $(du -k "$OUT"/public/assets/herald-full_bg-dxh*.wasm.br | cut -f1) KB full"
