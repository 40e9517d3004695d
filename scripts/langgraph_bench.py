"""LangGraph baseline for benches/step_plan_bench.rs (issue 11).

Builds the same DAGs as the Rust bench (chains, 1->W->1 fan-outs, a layered grid) as LangGraph
StateGraphs whose nodes are no-op tools answering about 1 KB of JSON, each node reading its
parents' results from the state, and runs them without a checkpointer and with LangGraph's
SQLite checkpointer. Prints one JSON object per line: shape, size, steps, mode, seconds, and the
process's peak RSS in KiB.

Usage: langgraph_bench.py CHAIN_SIZES FANOUT_WIDTHS GRID (e.g. "10,100,1000" "5,50,500" "10x10")
"""
import json
import resource
import sys
import tempfile
import time
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.checkpoint.sqlite import SqliteSaver

PAD = "x" * 1000


def noop(name, parents):
    """A no-op tool: reads its parents' results, answers about 1 KB of JSON."""

    def node(state):
        seen = sum(state[p]["v"] for p in parents)
        return {name: {"v": seen + 1, "pad": PAD}}

    return node


def build(edges, order):
    """edges: node -> parents; order: nodes in a topological order. Each node's result is a
    state key of its own (one channel per node), as Herald keeps one result per step."""
    state = TypedDict("State", {n: dict for n in order})
    g = StateGraph(state)
    for n in order:
        g.add_node(n, noop(n, edges[n]))
    for n in order:
        ps = edges[n]
        if not ps:
            g.add_edge(START, n)
        elif len(ps) == 1:
            g.add_edge(ps[0], n)
        else:
            g.add_edge(ps, n)  # waits for every parent (fan-in)
    children = {p for ps in edges.values() for p in ps}
    for n in order:
        if n not in children:
            g.add_edge(n, END)
    return g


def chain(n):
    order = [f"s{i}" for i in range(n)]
    return {o: ([order[i - 1]] if i else []) for i, o in enumerate(order)}, order


def fanout(w):
    mids = [f"m{i}" for i in range(w)]
    edges = {"src": []}
    edges.update({m: ["src"] for m in mids})
    edges["sink"] = mids
    return edges, ["src", *mids, "sink"]


def grid(layers, width):
    edges, order = {}, []
    for layer in range(layers):
        for j in range(width):
            n = f"g{layer}_{j}"
            edges[n] = [f"g{layer - 1}_{j}"] if layer else []
            order.append(n)
    return edges, order


def once(g, checkpoint, limit):
    if checkpoint:
        with tempfile.TemporaryDirectory() as d:
            with SqliteSaver.from_conn_string(f"{d}/lg.db") as saver:
                app = g.compile(checkpointer=saver)
                cfg = {"configurable": {"thread_id": "bench"}, "recursion_limit": limit}
                t = time.perf_counter()
                app.invoke({}, cfg)
                return time.perf_counter() - t
    app = g.compile()
    t = time.perf_counter()
    app.invoke({}, {"recursion_limit": limit})
    return time.perf_counter() - t


def run(shape, size, edges, order, checkpoint):
    """The median of three runs (after a warm-up), as the Rust side takes its median."""
    steps = len(order)
    limit = steps * 4 + 100
    g = build(edges, order)
    once(g, checkpoint, limit)
    secs = sorted(once(g, checkpoint, limit) for _ in range(3))[1]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"shape": shape, "size": size, "steps": steps,
                      "mode": "sqlite" if checkpoint else "memory",
                      "seconds": secs, "peak_kib": peak}), flush=True)


def main():
    chains = [int(x) for x in sys.argv[1].split(",")]
    widths = [int(x) for x in sys.argv[2].split(",")]
    layers, width = (int(x) for x in sys.argv[3].split("x"))
    for checkpoint in (False, True):
        for n in chains:
            run("chain", n, *chain(n), checkpoint)
        for w in widths:
            run("fanout", w, *fanout(w), checkpoint)
        run("grid", layers * width, *grid(layers, width), checkpoint)


if __name__ == "__main__":
    main()
