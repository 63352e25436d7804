"""The single-partition interval join of SPEC §1-§3, rules J0-J9.

Level `operator` of the protocol feeds one `Operator` directly (join.py); at
levels `cluster` and `faults` every copy of a key a worker holds is one
(cluster.py, C2). Kept small and plain: it scans all rows per record, where a
real system would index its rows by key and by horizon (see impl/operator.ts).
"""

TIME_MIN, TIME_MAX = -(2 ** 50), 2 ** 50  # SPEC §0


def reject_reason(r, max_length):
    """J1: the first validity check that fails, or None (D = max_length, J0)."""
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
    if r["end"] - r["start"] > max_length:
        return "too_long"
    return None


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
        return reject_reason(r, self.max_length)

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

    def snapshot(self):
        """The join state as plain JSON data: what a checkpoint holds (C4), and what goes to disk."""
        return {
            "wm": dict(self.wm),
            "rows": [[*identity, *row["content"], row["live"]] for identity, row in self.rows.items()],
            "matches": [list(m) for m in self.matches],
        }

    @classmethod
    def restore(cls, lateness, max_length, snapshot):
        """C4: an operator with a checkpoint's join state (None: the empty state)."""
        op = cls(lateness, max_length)
        if snapshot is not None:
            op.wm = dict(snapshot["wm"])
            op.rows = {(k, s, i): {"content": (ts, start, end), "live": live} for k, s, i, ts, start, end, live in snapshot["rows"]}
            op.matches = {tuple(m): True for m in snapshot["matches"]}
        return op


def snapshot_counts(snapshot):
    """§3: the retained counts of a checkpoint's join state."""
    live = sum(1 for row in snapshot["rows"] if row[6])
    return {"live": live, "tombstones": len(snapshot["rows"]) - live, "matches": len(snapshot["matches"])}


def change(op, key, left, right):
    return {"op": op, "match": match_id(key, left, right), "key": key, "left": left, "right": right}
