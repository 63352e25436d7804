#!/usr/bin/env python3
"""An engine that decides matches only, checked live from any language.

`streamjoin conform --sut "python3 sidecar.py"` talks to this process in the
conformance protocol at level `operator`. The process runs
`streamjoin serve --model` beside it and forwards each request there: the
model answers with the record's outcome and the retained counts (the spec's
bookkeeping: validity J1, duplicates and conflicts J2, watermarks J4,
lateness J5/J6, tombstones J6, eviction J8). Only the records that change
the live rows reach the engine, which decides the matches:

- an accepted insert;
- an accepted retract whose `retained.live` is one less than after the
  record before (a retract that overtakes its insert binds a tombstone and
  leaves `live` as it was: the engine never hears of it).

The reply is the model's, with the engine's changes in place of the
model's; `conform` then compares them with the model's, record by record.

Replace `Engine` with an adapter to your engine (a query against your
database, a call to your dataflow). `STREAMJOIN_MODEL` is the command that
serves the model (default `npx streamjoin serve --model`). `SJ_BUG=strict`
switches on a one-character bug (`<` for `<=`) to see a divergence.
Standard library only (Python 3.8 or later).
"""

import json
import os
import subprocess
import sys

MODEL = os.environ.get("STREAMJOIN_MODEL", "npx streamjoin serve --model")
STRICT = os.environ.get("SJ_BUG") == "strict"
IMPLEMENTATION = {"name": "python-sidecar-join", "version": "1"}
NOT_SUPPORTED = 10


def match_id(key, left, right):
    """SPEC J3: the match id, each part with % written %25 and / written %2F."""

    def esc(s):
        return s.replace("%", "%25").replace("/", "%2F")

    return f"{esc(key)}/{esc(left)}/{esc(right)}"


def overlaps(a, b):
    """SPEC J3: inclusive intervals overlap."""
    if STRICT:
        return a["start"] < b["end"] and b["start"] <= a["end"]
    return a["start"] <= b["end"] and b["start"] <= a["end"]


class Engine:
    """The engine: here a naive join that keeps every row it is given."""

    def __init__(self):
        self.rows = {}

    def apply(self, record):
        """The changes an accepted insert makes, or the accepted retract of a live row withdraws."""
        identity = (record["key"], record["side"], record["id"])
        op = record["kind"]
        if op == "retract":
            self.rows.pop(identity, None)
        changes = []
        for (key, side, _), other in self.rows.items():
            if key == record["key"] and side != record["side"] and overlaps(record, other):
                left, right = (record, other) if record["side"] == "L" else (other, record)
                changes.append({"op": op, "match": match_id(key, left["id"], right["id"]), "key": key, "left": left["id"], "right": right["id"]})
        if op == "insert":
            self.rows[identity] = record
        return changes


class Sidecar:
    """One connection from the harness, with the model beside it."""

    def __init__(self):
        self.model = subprocess.Popen(MODEL, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.engine = None
        self.live = 0

    def ask_model(self, request):
        self.model.stdin.write(json.dumps(request) + "\n")
        self.model.stdin.flush()
        line = self.model.stdout.readline()
        if line == "":
            raise RuntimeError("the model exited")
        return json.loads(line)

    def handle(self, request):
        kind = request.get("type")
        if kind == "init" and request.get("level") != "operator":
            return {"in_reply_to": request.get("id"), "type": "error", "code": NOT_SUPPORTED, "text": "level operator only"}
        if kind not in ("init", "record"):
            return {"in_reply_to": request.get("id"), "type": "error", "code": NOT_SUPPORTED, "text": f"{kind} is not part of level operator"}
        reply = self.ask_model(request)
        if reply.get("type") == "init_ok":
            self.engine, self.live = Engine(), 0
            return {**reply, "implementation": IMPLEMENTATION, "levels": ["operator"]}
        if reply.get("type") != "record_ok":
            return reply  # the model refused it (a malformed request, no session): so do we
        record = request["record"]
        live = reply["retained"]["live"]
        forward = reply["outcome"]["code"] == "accepted" and (record["kind"] == "insert" or (record["kind"] == "retract" and live < self.live))
        self.live = live
        return {**reply, "changes": self.engine.apply(record) if forward else []}


def main():
    sidecar = Sidecar()
    for line in sys.stdin:
        if line.strip() == "":
            continue
        # Flush every reply: a buffered reply makes a correct system look hung.
        print(json.dumps(sidecar.handle(json.loads(line)), ensure_ascii=False), flush=True)
    sidecar.model.stdin.close()
    sidecar.model.wait()


if __name__ == "__main__":
    main()
