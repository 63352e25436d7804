#!/usr/bin/env python3
"""A starter implementation of the streamjoin conformance protocol, level `operator`.

Copy this file to begin an implementation of your own in Python (standard
library only, Python 3.8 or later), then check it against the reference model:

    npx streamjoin conform --sut "python3 join.py" --exhaustive

The protocol is spec/PROTOCOL.md (version 2): one JSON request per line on
stdin, one JSON reply per line on stdout, each reply flushed at once. The
semantics of a `record` request is SPEC.md §1-§3, rules J0-J9; the comments
below cite them. This file is one operator, kept small and plain: a real
system would index its rows by key and by horizon (see impl/operator.ts).
"""

import json
import sys

PROTOCOL = 2
LEVELS = ["operator"]
IMPLEMENTATION = {"name": "streamjoin-python-starter", "version": "0.1.0"}

# Error codes (PROTOCOL.md, "Errors"): Maelstrom's numbers below 1000.
NOT_SUPPORTED = 10
MALFORMED_REQUEST = 12
UNKNOWN_TYPE = 1000
BAD_CONFIG = 1001
NO_SESSION = 1002
INTERNAL_ERROR = 1003

# Every request type of the protocol: the ones above level `operator` are
# answered with NOT_SUPPORTED, anything else with UNKNOWN_TYPE.
REQUEST_TYPES = {
    "init", "record", "freeze", "persist", "install", "commit", "release", "abort", "checkpoint",
    "crash", "restart", "pause", "resume", "failover", "duplicateInstall", "duplicateRelease", "inspect",
}

TIME_MIN, TIME_MAX = -(2 ** 50), 2 ** 50  # SPEC §0


def match_id(key, left, right):
    """J3: the match id, each part with "%" escaped first, then "/"."""
    def esc(s):
        return s.replace("%", "%25").replace("/", "%2F")
    return f"{esc(key)}/{esc(left)}/{esc(right)}"


class Operator:
    """The single-partition interval join (SPEC §2), with minimal retention (J8)."""

    def __init__(self, lateness, max_length):
        self.lateness = lateness      # L (J0)
        self.max_length = max_length  # D (J0)
        self.wm = {"L": None, "R": None}  # None is minus infinity (J4)
        self.rows = {}     # identity (key, side, id) -> {"content": (ts, start, end), "live": bool} (J2)
        self.matches = {}  # (key, left id, right id) -> True: the retained active matches (J3, J8)

    def global_watermark(self):
        """J4: the lower of the two sides, minus infinity until both reported."""
        if self.wm["L"] is None or self.wm["R"] is None:
            return None
        return min(self.wm["L"], self.wm["R"])

    def retained(self, end):
        """J8: a row is kept while gw <= end + L + D."""
        gw = self.global_watermark()
        return gw is None or gw <= end + self.lateness + self.max_length

    def reject_reason(self, r):
        """J1: the first validity check that fails, or None."""
        if r["kind"] == "watermark":
            if r["side"] not in ("L", "R"):
                return "bad_side"
            return None if TIME_MIN <= r["wm"] <= TIME_MAX else "out_of_range"
        if r["key"] == "":
            return "empty_key"
        if r["id"] == "":
            return "empty_id"
        if r["side"] not in ("L", "R"):
            return "bad_side"
        if not all(TIME_MIN <= r[t] <= TIME_MAX for t in ("ts", "start", "end")):
            return "out_of_range"
        if r["ts"] < r["start"]:
            return "ts_before_start"
        if r["ts"] > r["end"]:
            return "ts_after_end"
        if r["end"] - r["start"] > self.max_length:
            return "too_long"
        return None

    def apply(self, r):
        """J7: one record; returns its outcome and its changes, checks in the J7 order."""
        reason = self.reject_reason(r)
        if reason is not None:
            return {"code": "rejected", "reason": reason}, []
        if r["kind"] == "watermark":
            return self.watermark(r["side"], r["wm"])
        gw = self.global_watermark()
        if r["kind"] == "insert":
            late = gw is not None and r["ts"] < gw - self.lateness  # J5
        else:
            late = not self.retained(r["end"])  # J6: its horizon has passed
        if late:
            return {"code": "late"}, []
        identity = (r["key"], r["side"], r["id"])
        content = (r["ts"], r["start"], r["end"])
        bound = self.rows.get(identity)
        if bound is not None and bound["content"] != content:
            return {"code": "rejected", "reason": "conflict"}, []  # J2: the first content wins
        if r["kind"] == "insert":
            if bound is not None:
                return {"code": "duplicate"}, []
            return {"code": "accepted"}, self.insert(identity, content)
        if bound is None:
            # J6: the retract overtook its insert: a tombstone, so the insert is a duplicate.
            self.rows[identity] = {"content": content, "live": False}
            return {"code": "accepted"}, []
        if not bound["live"]:
            return {"code": "duplicate"}, []
        return {"code": "accepted"}, self.retract(identity)

    def insert(self, identity, content):
        """J7 step 5: bind a live row, and a match with every live overlapping row of the other side."""
        key, side, row_id = identity
        _, start, end = content
        self.rows[identity] = {"content": content, "live": True}
        changes = []
        for (other_key, other_side, other_id), other in self.rows.items():
            if other_key != key or other_side == side or not other["live"]:
                continue
            _, other_start, other_end = other["content"]
            if start <= other_end and other_start <= end:  # J3: inclusive overlap
                left, right = (row_id, other_id) if side == "L" else (other_id, row_id)
                self.matches[(key, left, right)] = True
                changes.append(change("insert", key, left, right))
        return changes

    def retract(self, identity):
        """J6: the row becomes a tombstone; every active match it is in is retracted."""
        key, side, row_id = identity
        self.rows[identity]["live"] = False
        gone = [m for m in self.matches if m[0] == key and m[1 if side == "L" else 2] == row_id]
        for m in gone:
            del self.matches[m]
        return [change("retract", *m) for m in gone]

    def watermark(self, side, value):
        """J4, then J8: raise one side's watermark, then evict what passed its horizon."""
        if self.wm[side] is not None and value <= self.wm[side]:
            return {"code": "stale"}, []
        self.wm[side] = value
        self.rows = {i: row for i, row in self.rows.items() if self.retained(row["content"][2])}
        # An active match is kept while at least one of its endpoints is (J8).
        self.matches = {
            m: True for m in self.matches if (m[0], "L", m[1]) in self.rows or (m[0], "R", m[2]) in self.rows
        }
        return {"code": "accepted"}, []

    def counts(self):
        """§3: the retained counts over all keys."""
        live = sum(1 for row in self.rows.values() if row["live"])
        return {"live": live, "tombstones": len(self.rows) - live, "matches": len(self.matches)}


def change(op, key, left, right):
    return {"op": op, "match": match_id(key, left, right), "key": key, "left": left, "right": right}


class ProtocolError(Exception):
    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


def valid_config(config):
    """J0: both bounds integers in [0, 2^50]."""
    return isinstance(config, dict) and all(
        isinstance(config.get(k), int) and 0 <= config[k] <= TIME_MAX for k in ("allowedLateness", "maxIntervalLength")
    )


class Server:
    """One connection: `init` starts a session (a fresh operator); `record` feeds it."""

    def __init__(self):
        self.operator = None

    def handle(self, request):
        kind = request.get("type")
        if kind == "init":
            if request.get("protocol") != PROTOCOL:
                raise ProtocolError(NOT_SUPPORTED, f"protocol {request.get('protocol')} is not supported; this is {PROTOCOL}")
            if request.get("level") not in LEVELS:
                raise ProtocolError(NOT_SUPPORTED, f"level {request.get('level')} is not supported")
            if not valid_config(request.get("config")):
                raise ProtocolError(BAD_CONFIG, "allowedLateness and maxIntervalLength must be integers in [0, 2^50]")
            config = request["config"]
            self.operator = Operator(config["allowedLateness"], config["maxIntervalLength"])
            return {"type": "init_ok", "protocol": PROTOCOL, "implementation": IMPLEMENTATION, "levels": LEVELS}
        if kind not in REQUEST_TYPES:
            raise ProtocolError(UNKNOWN_TYPE, f"unknown request type {json.dumps(kind)}")
        if self.operator is None:
            raise ProtocolError(NO_SESSION, "no session: send init first")
        if kind != "record":
            raise ProtocolError(NOT_SUPPORTED, f"{kind} is not part of level operator")
        record = request.get("record")
        if not isinstance(record, dict) or record.get("kind") not in ("insert", "retract", "watermark"):
            raise ProtocolError(MALFORMED_REQUEST, "record must be an insert, a retract or a watermark")
        try:
            outcome, changes = self.operator.apply(record)
        except (KeyError, TypeError) as e:
            raise ProtocolError(MALFORMED_REQUEST, f"record is missing or mistypes a field: {e}") from e
        return {"type": "record_ok", "outcome": outcome, "changes": changes, "retained": self.operator.counts()}


def reply_to(server, line):
    """The reply line to one request line."""
    try:
        request = json.loads(line)
    except ValueError as e:
        return {"in_reply_to": None, "type": "error", "code": MALFORMED_REQUEST, "text": f"not JSON: {e}"}
    if not isinstance(request, dict) or not isinstance(request.get("id"), int):
        return {"in_reply_to": None, "type": "error", "code": MALFORMED_REQUEST, "text": "a request is an object with an integer id"}
    try:
        return {"in_reply_to": request["id"], **server.handle(request)}
    except ProtocolError as e:
        return {"in_reply_to": request["id"], "type": "error", "code": e.code, "text": str(e)}
    except Exception as e:  # a bug here: say so, and keep serving
        print(f"internal error: {e!r}", file=sys.stderr)
        return {"in_reply_to": request["id"], "type": "error", "code": INTERNAL_ERROR, "text": repr(e)}


def main():
    server = Server()
    for line in sys.stdin:
        if line.strip() == "":
            continue
        # Flush every reply (PROTOCOL.md, Transport): a buffered reply makes a correct system look hung.
        print(json.dumps(reply_to(server, line), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
