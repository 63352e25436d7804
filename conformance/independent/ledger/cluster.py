"""The fenced cluster (SPEC §5, §7) kept as a log and projections of it.

A copy of a key is only (epoch, cursor, frozen), and a checkpoint only
(epoch, cursor): C3's rationale says a copy's join state is a function of
(key, cursor) alone, so the ledger computes that state by folding the key's
records of the log prefix, once, and memoizes it. Restoring a checkpoint is
setting a cursor.
"""

from bugs import bug
from join import JoinState, reject_reason, step


class NotEnabled(Exception):
    """A guard refused the action (error 22); nothing was changed."""


class Copy:
    __slots__ = ("epoch", "cursor", "frozen")

    def __init__(self, epoch, cursor, frozen):
        self.epoch, self.cursor, self.frozen = epoch, cursor, frozen


class Cluster:
    def __init__(self, config):
        self.join = config["join"]
        self.workers = list(config["workers"])
        self.keys = [placement["key"] for placement in config["keys"]]
        self.log = []
        # (key, cursor) -> JoinState after the key's records before cursor; (key, index) -> (outcome, changes)
        self.states = {(key, 0): JoinState() for key in self.keys}
        self.steps = {}
        # (key, cursor) -> index of the key's first record at or after cursor, once the log has one
        self.next_index = {}
        self.coordinator_up = True
        self.handoff = None
        self.owner = {placement["key"]: placement["owner"] for placement in config["keys"]}
        self.epoch = {key: 1 for key in self.keys}
        self.status = {worker: "up" for worker in self.workers}
        self.copies = {worker: {} for worker in self.workers}
        for key in self.keys:
            self.copies[self.owner[key]][key] = Copy(1, 0, False)
        self.store = {}
        self.fence = {key: 1 for key in self.keys}
        self.sink = {}
        self.counters = {"applied": 0, "deduped": 0, "fenced": 0}
        self.last_install = {}
        self.last_release = {}

    # -- projections of the log -------------------------------------------------

    def relevant(self, key, index):
        record = self.log[index]
        return record["kind"] == "watermark" or record["key"] == key

    def next_relevant(self, key, cursor):
        # The log only grows: once found, the key's next record after a cursor stays the same (memoized, as states are).
        known = self.next_index.get((key, cursor))
        if known is not None:
            return known
        for index in range(cursor, len(self.log)):
            if self.relevant(key, index):
                self.next_index[(key, cursor)] = index
                return index
        return None

    def state_at(self, key, cursor):
        known = self.states.get((key, cursor))
        if known is not None:
            return known
        # A cursor no copy has passed yet: fold from the nearest known prefix.
        start = max(c for (k, c) in self.states if k == key and c <= cursor)
        state = self.states[(key, start)]
        for index in range(start, cursor):
            if self.relevant(key, index):
                state = self.apply(key, index, state)
        return state

    def apply(self, key, index, before):
        if (key, index + 1) not in self.states:
            after, outcome, changes = step(before, self.log[index], self.join)
            self.states[(key, index + 1)] = after
            self.steps[(key, index)] = (outcome, changes)
        return self.states[(key, index + 1)]

    # -- eager processing (§7) and the sink (C9) ----------------------------------

    def ordinal(self, worker, key):
        return self.workers.index(worker) * len(self.keys) + self.keys.index(key)

    def enabled_steps(self):
        found = {}
        for worker in self.workers:
            if self.status[worker] != "up":
                continue
            for key, copy in self.copies[worker].items():
                if not copy.frozen and self.next_relevant(key, copy.cursor) is not None:
                    found[self.ordinal(worker, key)] = (worker, key)
        return found

    def run_eagerly(self, events):
        while True:
            found = self.enabled_steps()
            if not found:
                return
            first = min(found, key=str) if bug("eager-string-order") else min(found)
            self.process(*found[first], events)

    def process(self, worker, key, events):
        copy = self.copies[worker][key]
        index = self.next_relevant(key, copy.cursor)
        self.apply(key, index, self.state_at(key, copy.cursor))
        outcome, changes = self.steps[(key, index)]
        copy.cursor = index + 1
        fenced = bool(changes) and not self.write(key, copy.epoch, changes)
        events.append({"type": "processed", "worker": worker, "key": key, "index": index, "epoch": copy.epoch,
                       "outcome": outcome, "changes": changes, "fenced": fenced})
        if fenced:
            del self.copies[worker][key]
            events.append({"type": "dropped", "worker": worker, "key": key, "reason": "fenced"})

    def write(self, key, epoch, changes):
        """C9: one write of one record's changes; False when fenced."""
        if epoch < self.fence[key]:
            self.counters["fenced"] += len(changes)
            return False
        self.fence[key] = max(self.fence[key], epoch)
        for change in changes:
            current = self.sink.get(change["match"])
            if change["op"] == "insert":
                resurrect = current == "retracted" and bug("no-terminal-retract")
                if current is None or resurrect:
                    self.sink[change["match"]] = "inserted"
                    self.counters["applied"] += 1
                else:
                    self.counters["deduped"] += 1
            elif current == "retracted":
                self.counters["deduped"] += 1
            else:
                self.sink[change["match"]] = "retracted"
                self.counters["applied"] += 1
        return True

    # -- guards --------------------------------------------------------------------

    def require(self, condition, why):
        if not condition:
            raise NotEnabled(why)

    def require_key(self, key):
        self.require(key in self.epoch, f"{key!r} is not a declared key")

    def require_worker(self, worker):
        self.require(worker in self.status, f"{worker!r} is not a worker")

    def require_coordinator(self):
        self.require(self.coordinator_up, "the coordinator is down")

    def handoff_of(self, key, kind, phases):
        record = self.handoff
        self.require(record is not None and record["key"] == key and record["kind"] == kind and record["phase"] in phases,
                     f"no {kind} of {key} in phase {'/'.join(phases)}")
        return record

    def checkpoint_of(self, worker, key):
        copy = self.copies[worker][key]
        stamp = self.epoch[key] if bug("checkpoint-coordinator-epoch") else copy.epoch
        self.store[key] = (stamp, copy.cursor)

    def restore(self, worker, key, epoch, checkpoint, frozen, events):
        cursor = checkpoint[1] if checkpoint is not None else 0
        self.copies[worker][key] = Copy(epoch, cursor, frozen)
        events.append({"type": "restored", "worker": worker, "key": key, "cursor": cursor, "epoch": epoch})

    # -- actions (§5) ----------------------------------------------------------------

    def record(self, record, events):
        reason = reject_reason(record, self.join["maxIntervalLength"])
        if reason is not None:
            events.append({"type": "rejected", "outcome": {"code": "rejected", "reason": reason}})
        elif record["kind"] != "watermark" and record["key"] not in self.epoch:
            events.append({"type": "rejected", "outcome": {"code": "rejected", "reason": "unknown_key"}})
        else:
            events.append({"type": "appended", "index": len(self.log)})
            self.log.append(record)

    def freeze(self, key, to, events):
        self.require_key(key)
        self.require_worker(to)
        self.require_coordinator()
        self.require(self.handoff is None, "a handoff is in flight")
        source = self.owner[key]
        self.require(to != source, f"{to} already owns {key}")
        self.require(self.status[source] == "up" and self.status[to] == "up", "the owner and the destination must be up")
        copy = self.copies[source].get(key)
        self.require(copy is not None and not copy.frozen and copy.epoch == self.epoch[key], "the owner has no active copy")
        copy.frozen = True
        self.handoff = {"kind": "migrate", "key": key, "src": source, "dst": to, "from": self.epoch[key], "phase": "frozen"}

    def persist(self, key, events):
        self.require_key(key)
        self.require_coordinator()
        record = self.handoff_of(key, "migrate", ("frozen",))
        copy = self.copies[record["src"]].get(key)
        self.require(self.status[record["src"]] == "up" and copy is not None and copy.frozen, "the source lost its copy")
        self.checkpoint_of(record["src"], key)
        record["phase"] = "persisted"

    def deliver_install(self, message, events):
        worker, key, epoch, checkpoint = message
        held = self.copies[worker].get(key)
        if bug("install-check-any-key"):
            stale = any(copy.epoch >= epoch for copy in self.copies[worker].values())
        else:
            stale = held is not None and held.epoch >= epoch
        if stale:
            events.append({"type": "refused", "worker": worker, "key": key, "reason": "stale-epoch"})
        else:
            self.restore(worker, key, epoch, None if bug("install-fresh") else checkpoint, True, events)

    def install(self, key, events):
        self.require_key(key)
        self.require_coordinator()
        record = self.handoff_of(key, "migrate", ("persisted", "installed", "fenced"))
        self.require(self.status[record["dst"]] == "up", "the destination is not up")
        message = (record["dst"], key, record["from"] + 1, self.store.get(key))
        self.last_install[key] = message
        if record["phase"] != "fenced":
            record["phase"] = "installed"
        self.deliver_install(message, events)

    def raise_fence(self, record):
        self.fence[record["key"]] = max(self.fence[record["key"]], record["from"] + 1)
        record["phase"] = "fenced"

    def take_ownership(self, record, events):
        key, target = record["key"], record["dst"]
        self.owner[key] = target
        self.epoch[key] = record["from"] + 1
        if record["kind"] == "migrate":
            self.copies[target][key].frozen = False
            record["phase"] = "committed"
            return
        self.handoff = None
        if self.status[target] == "up":
            self.restore(target, key, self.epoch[key], self.store.get(key), False, events)

    def commit(self, key, crash_after_fence, events):
        self.require_key(key)
        self.require_coordinator()
        record = self.handoff
        self.require(record is not None and record["key"] == key, f"no handoff of {key} in flight")
        if record["kind"] == "migrate":
            self.require(record["phase"] in ("installed", "fenced"), "the migration is not installed")
            held = self.copies[record["dst"]].get(key)
            self.require(self.status[record["dst"]] == "up" and held is not None and held.epoch == record["from"] + 1,
                         "the destination does not hold the installed copy")
        else:
            self.require(record["phase"] == "fenced" and self.status[record["dst"]] != "paused", "the failover cannot commit")
        if crash_after_fence:
            self.require(record["phase"] == "installed", "crashAfterFence needs phase installed")
        if record["phase"] == "installed":
            self.raise_fence(record)
            if crash_after_fence:
                self.coordinator_up = False
                return
        self.take_ownership(record, events)

    def release(self, key, events):
        self.require_key(key)
        self.require_coordinator()
        record = self.handoff_of(key, "migrate", ("committed",))
        self.require(self.status[record["src"]] != "paused", "the source is paused")
        self.handoff = None
        message = (record["src"], key, record["from"])
        self.last_release[key] = message
        self.deliver_release(message, events)

    def deliver_release(self, message, events):
        worker, key, epoch = message
        held = self.copies[worker].get(key)
        if self.status[worker] == "up" and held is not None and held.epoch == epoch:
            del self.copies[worker][key]
            events.append({"type": "dropped", "worker": worker, "key": key, "reason": "released"})

    def abort(self, key, events):
        self.require_key(key)
        self.require_coordinator()
        record = self.handoff_of(key, "migrate", ("frozen", "persisted", "installed"))
        self.require(self.status[record["src"]] != "paused", "the source is paused")
        self.handoff = None
        source = self.copies[record["src"]].get(key)
        if self.status[record["src"]] == "up" and source is not None and source.frozen and source.epoch == record["from"]:
            source.frozen = False
        target = self.copies[record["dst"]].get(key)
        if self.status[record["dst"]] == "up" and target is not None and target.frozen and target.epoch == record["from"] + 1:
            del self.copies[record["dst"]][key]
            events.append({"type": "dropped", "worker": record["dst"], "key": key, "reason": "aborted"})

    def failover(self, key, to, crash_after_fence, events):
        self.require_key(key)
        self.require_worker(to)
        self.require_coordinator()
        self.require(self.handoff is None, "a handoff is in flight")
        self.require(self.status[self.owner[key]] != "up", "the owner is up")
        self.require(self.status[to] == "up", f"{to} is not up")
        record = {"kind": "failover", "key": key, "src": self.owner[key], "dst": to, "from": self.epoch[key], "phase": "fenced"}
        self.handoff = record
        self.raise_fence(record)
        if crash_after_fence:
            self.coordinator_up = False
            return
        self.take_ownership(record, events)

    def checkpoint(self, worker, key, events):
        self.require_key(key)
        self.require_worker(worker)
        copy = self.copies[worker].get(key)
        self.require(self.status[worker] == "up" and copy is not None and not copy.frozen, f"{worker} has no active copy of {key}")
        self.checkpoint_of(worker, key)

    def crash(self, node, events):
        if node == "coordinator":
            self.require(self.coordinator_up, "the coordinator is down")
            self.coordinator_up = False
            return
        self.require_worker(node)
        self.require(self.status[node] != "down", f"{node} is down")
        self.status[node] = "down"
        self.copies[node] = {}

    def restart(self, node, events):
        if node == "coordinator":
            self.require(not self.coordinator_up, "the coordinator is up")
            self.coordinator_up = True
            return
        self.require_worker(node)
        self.require(self.status[node] == "down", f"{node} is not down")
        self.status[node] = "up"
        for key in self.keys:
            if self.owner[key] == node:
                self.restore(node, key, self.epoch[key], self.store.get(key), False, events)

    def pause(self, worker, events):
        self.require_worker(worker)
        self.require(self.status[worker] == "up", f"{worker} is not up")
        self.status[worker] = "paused"

    def resume(self, worker, events):
        self.require_worker(worker)
        self.require(self.status[worker] == "paused", f"{worker} is not paused")
        self.status[worker] = "up"

    def duplicate_install(self, key, events):
        self.require_key(key)
        message = self.last_install.get(key)
        self.require(message is not None and self.status[message[0]] == "up", "no install to deliver")
        self.deliver_install(message, events)

    def duplicate_release(self, key, events):
        self.require_key(key)
        message = self.last_release.get(key)
        self.require(message is not None and self.status[message[0]] == "up", "no release to deliver")
        self.deliver_release(message, events)

    # -- the observation (§7) ----------------------------------------------------------

    def observe(self):
        def counts(key, cursor):
            return self.state_at(key, cursor).retained(self.join, key)

        handoff = None if self.handoff is None else dict(self.handoff)
        return {
            "log": len(self.log),
            "coordinator": {"up": self.coordinator_up, "handoff": handoff,
                            "keys": {key: {"owner": self.owner[key], "epoch": self.epoch[key]} for key in self.keys}},
            "workers": {worker: {"status": self.status[worker],
                                 "keys": {key: {"epoch": copy.epoch, "cursor": copy.cursor, "frozen": copy.frozen,
                                                "retained": counts(key, copy.cursor)}
                                          for key, copy in self.copies[worker].items()}}
                        for worker in self.workers},
            "store": {key: {"epoch": epoch, "cursor": cursor, "retained": counts(key, cursor)}
                      for key, (epoch, cursor) in self.store.items()},
            "sink": {"fence": dict(self.fence), "matches": dict(self.sink), **self.counters},
        }
