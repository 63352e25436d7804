"""The join of one partition as a fold over its log (SPEC §1-§3).

The ledger never evicts: a state remembers every row and every active match it
has ever bound, and the retained counts are computed by filtering on the
horizon (J8). That is enough because no outcome depends on eviction inside the
input contract (J7's rationale, J9): a late record stops at check 2 whether or
not its row is still held. The state is a value; `step` copies it, so that a
state can be memoized per log prefix (see cluster.py) and never mutated after.
"""

from bugs import bug

TIME_LIMIT = 2**50


def esc(text):
    """J3's escaping: '%' first, then '/', so that the encoding is injective."""
    return text.replace("%", "%25").replace("/", "%2F")


def match_id(key, left, right):
    return esc(key) + "/" + esc(left) + "/" + esc(right)


def active_key(key, left, right):
    """How the state files an active match."""
    if bug("naive-match-id"):
        return (key, "L:" + left + "|R:" + right)
    return (key, left, right)


class JoinState:
    """Rows by identity, active matches, and the two watermarks (None is −∞)."""

    __slots__ = ("rows", "matches", "wm")

    def __init__(self):
        # (key, side, id) -> (ts, start, end, live)
        self.rows = {}
        # active_key(...) -> (key, left, right, left_end, right_end)
        self.matches = {}
        self.wm = {"L": None, "R": None}

    def copy(self):
        # A binding is a tuple, never changed in place: a shallow copy of each map is a full copy of the state.
        other = JoinState()
        other.rows = dict(self.rows)
        other.matches = dict(self.matches)
        other.wm = dict(self.wm)
        return other

    def global_watermark(self):
        left, right = self.wm["L"], self.wm["R"]
        if left is None or right is None:
            return None
        return min(left, right)

    def retained(self, config, key=None):
        """J8: a row is retained while gw <= end + L + D; an active match while one endpoint is."""
        gw = self.global_watermark()
        # gw <= end + L + D, as the least end kept: every row and match is kept before both watermarks are known.
        least_end = None if gw is None else gw - config["allowedLateness"] - config["maxIntervalLength"]
        live = tombstones = matches = 0
        # Called at every step over every row the ledger ever bound: one pass each, no call per row.
        for (row_key, _side, _id), (_ts, _start, end, is_live) in self.rows.items():
            if (key is None or row_key == key) and (least_end is None or end >= least_end):
                if is_live:
                    live += 1
                else:
                    tombstones += 1
        for match_key, _left, _right, left_end, right_end in self.matches.values():
            if (key is None or match_key == key) and (least_end is None or left_end >= least_end or right_end >= least_end):
                matches += 1
        return {"live": live, "tombstones": tombstones, "matches": matches}


def out_of_range(value):
    return value < -TIME_LIMIT or value > TIME_LIMIT


def reject_reason(record, max_length):
    """J1's checks in their order; None when the record is valid."""
    if record["kind"] == "watermark":
        if record["side"] not in ("L", "R"):
            return "bad_side"
        if out_of_range(record["wm"]):
            return "out_of_range"
        return None
    if record["key"] == "":
        return "empty_key"
    if record["id"] == "":
        return "empty_id"
    if record["side"] not in ("L", "R"):
        return "bad_side"
    if any(out_of_range(record[field]) for field in ("ts", "start", "end")):
        return "out_of_range"
    if record["ts"] < record["start"]:
        return "ts_before_start"
    if record["ts"] > record["end"]:
        return "ts_after_end"
    if record["end"] - record["start"] > max_length:
        return "too_long"
    return None


def rejected(reason):
    return {"code": "rejected", "reason": reason}


def change(op, key, left, right):
    return {"op": op, "match": match_id(key, left, right), "key": key, "left": left, "right": right}


def step(state, record, config):
    """Apply one record (J7's table, in its order). Returns (new state, outcome, changes)."""
    lateness = config["allowedLateness"]
    max_length = config["maxIntervalLength"]
    reason = reject_reason(record, max_length)
    if reason is not None:
        return state, rejected(reason), []
    gw = state.global_watermark()
    if record["kind"] == "watermark":
        side, value = record["side"], record["wm"]
        current = state.wm[side]
        if current is not None and value <= current:
            return state, {"code": "stale"}, []
        after = state.copy()
        after.wm[side] = value
        return after, {"code": "accepted"}, []

    key, side, row_id = record["key"], record["side"], record["id"]
    ts, start, end = record["ts"], record["start"], record["end"]
    if record["kind"] == "insert":
        late_edge = gw is not None and (ts <= gw - lateness if bug("late-inclusive") else ts < gw - lateness)
        if late_edge:
            return state, {"code": "late"}, []
    elif gw is not None and gw > end + lateness + max_length:
        return state, {"code": "late"}, []

    identity = (key, side, row_id)
    bound = state.rows.get(identity)
    if bound is not None:
        if bound[:3] != (ts, start, end):
            return state, rejected("conflict"), []
        if record["kind"] == "insert" or not bound[3]:
            return state, {"code": "duplicate"}, []

    after = state.copy()
    changes = []
    if record["kind"] == "insert":
        after.rows[identity] = (ts, start, end, True)
        other = "R" if side == "L" else "L"
        for (row_key, row_side, other_id), (_ts, other_start, other_end, live) in state.rows.items():
            if row_key != key or row_side != other or not live:
                continue
            if start <= other_end and other_start <= end:
                left, right = (row_id, other_id) if side == "L" else (other_id, row_id)
                left_end, right_end = (end, other_end) if side == "L" else (other_end, end)
                after.matches[active_key(key, left, right)] = (key, left, right, left_end, right_end)
                changes.append(change("insert", key, left, right))
    elif bound is None:
        # J6: a retract that overtook its insert binds a tombstone, so the insert is a duplicate.
        if not bug("retract-unbound-dropped"):
            after.rows[identity] = (ts, start, end, False)
    else:
        after.rows[identity] = (ts, start, end, False)
        end_index = 1 if side == "L" else 2
        for filed, match in state.matches.items():
            if match[0] == key and match[end_index] == row_id:
                del after.matches[filed]
                changes.append(change("retract", key, match[1], match[2]))
    return after, {"code": "accepted"}, changes
