#!/usr/bin/env bash
# Step plans against LangGraph (issue 11): installs LangGraph (PyPI `langgraph` 1.2.22 and its
# SQLite checkpointer) into a virtualenv in the tools cache, once, then runs the release bench,
# which runs both in the same run and prints them side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${HERALD_TOOLS:-$HOME/.cache/herald-tools}/langgraph"
if ! "$VENV/bin/python" -c 'import langgraph, langgraph.checkpoint.sqlite' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "langgraph==1.2.22" "langgraph-checkpoint-sqlite"
fi
LANGGRAPH_PYTHON="$VENV/bin/python" cargo run --release --features server --bin step_plan_bench
