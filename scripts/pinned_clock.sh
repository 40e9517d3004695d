#!/usr/bin/env bash
# Runs the sending tests with the machine's clock pinned to an hour of today in UTC (the test
# organisation's zone), through libfaketime: every process the tests start, the real server
# binaries included, believes it is that hour. The tests must pass anyway, because Herald takes
# its time from an injected clock and the tests set that clock to daytime.
#
#   scripts/pinned_clock.sh HOUR [TZ]     e.g. scripts/pinned_clock.sh 03 Pacific/Kiritimati
#
# Expects the integration and browser test binaries to be built (scripts/test.sh does that).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
HOUR="${1:?the hour to pin, e.g. 03}"
ZONE="${2:-UTC}"
FAKETIME_LIB=$(dpkg -L libfaketime 2>/dev/null | grep -m1 'libfaketime.so.1$' || true)
[[ -n "$FAKETIME_LIB" ]] || { echo "libfaketime is missing (scripts/setup.sh --test installs it)" >&2; exit 1; }

# A relative shift keeps every process, and every restart of the server, on one time line.
now=$(date -u +%s)
target=$(date -u -d "$(date -u +%F) ${HOUR}:00:00" +%s)
shift_secs=$((target - now))
sign="+"; ((shift_secs < 0)) && sign="-"
shift_arg="${sign}${shift_secs#-}"

# The test binaries, as cargo built them (their paths carry a hash).
binaries() {
  cargo test --features "$1" --test "$2" --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["executable"])'
}
INTEGRATION=$(binaries server integration)
[[ -x "$INTEGRATION" ]] || { echo "the integration test binary is not built" >&2; exit 1; }

pinned() {
  env LD_PRELOAD="$FAKETIME_LIB" FAKETIME="$shift_arg" FAKETIME_DONT_FAKE_MONOTONIC=1 \
    FAKETIME_NO_CACHE=1 TZ="$ZONE" "$@"
}
echo "machine clock pinned to $(pinned date -u '+%F %H:%M:%S UTC') (TZ=$ZONE)"
[[ "$(pinned date -u +%H)" == "$HOUR" ]] || { echo "libfaketime did not take" >&2; exit 1; }

# Every test that texts someone: campaigns and their engines, the kill -9 test, agents that
# reply, the composer, plans that start campaigns, the Twilio transport, and the compliance gate.
pinned "$INTEGRATION" --test-threads=4 \
  campaign crash messaging agent hosted_models plans:: twilio_transport compliance

if [[ -n "${HERALD_WEB_DIR:-}" ]]; then
  BROWSER=$(binaries server,browser-tests browser)
  [[ -x "$BROWSER" ]] || { echo "the browser test binary is not built" >&2; exit 1; }
  # The campaign from plan card to "Sent", and a text sent from the composer.
  pinned "$BROWSER" --test-threads=1 campaign messaging
fi
