"""The fenced cluster of SPEC §5 (rules C1-C12) with §7's eager processing: levels `cluster` and `faults`.

One `Cluster` is one session. Its state is split as C2 splits it:

- **durable** (`self.durable`, plain JSON data, and `self.log`): the input
  log, the coordinator's table and in-flight handoff record, the last install
  and release message of each key (C11 delivers them again), the checkpoint
  store, the sink. With `--data` (disk.py) these are written to disk before
  each reply, and a restarted process reads them back (`recover`);
- **volatile**: whether the coordinator is up, and each worker's status and
  copies (a `Copy` per key it holds). A crash loses them (C10).

Each external action is a method `act_<type>`: it checks the action's guard
(refused with error 22, `not_enabled`, changing nothing), carries out its
effect, and returns its events (C12); `handle` then runs eager processing
(§7) and appends the events of every process step.
"""

import copy as copying

from interval_join import Operator, reject_reason, snapshot_counts

COORDINATOR = "coordinator"

# Error codes (PROTOCOL.md, "Errors") a cluster request may get.
NOT_SUPPORTED = 10
MALFORMED_REQUEST = 12
NOT_ENABLED = 22

# The request types of level `cluster`; level `faults` adds FAULTS (PROTOCOL.md, "Sessions and levels").
CLUSTER_REQUESTS = {"record", "freeze", "persist", "install", "commit", "release", "abort", "checkpoint", "inspect"}
FAULTS = {"crash", "restart", "pause", "resume", "failover", "duplicateInstall", "duplicateRelease"}


class Refused(Exception):
    """A request not carried out: the state is unchanged; `code` is the protocol's error code."""

    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


def not_enabled(text):
    return Refused(NOT_ENABLED, text)


def bad_config(config):
    """C1: why a cluster config is refused (error 1001), or None."""
    if not isinstance(config, dict):
        return "the config must be an object"
    workers, keys = config.get("workers"), config.get("keys")
    if not isinstance(workers, list) or not workers or not all(isinstance(w, str) and w for w in workers):
        return "workers must be a non-empty list of worker ids"
    if len(set(workers)) != len(workers) or COORDINATOR in workers:
        return "worker ids must be distinct, and none may be \"coordinator\""
    if not isinstance(keys, list) or not all(isinstance(k, dict) and isinstance(k.get("key"), str) and k["key"] for k in keys):
        return "keys must be a list of {key, owner}"
    names = [k["key"] for k in keys]
    if len(set(names)) != len(names):
        return "a key is declared twice"
    for k in keys:
        if k.get("owner") not in workers:
            return f"owner {k.get('owner')!r} of {k['key']} is not a listed worker"
    return None


def initial_durable(config):
    """C1: the durable parts of a new cluster: every key at its initial owner, epoch 1, fence 1; all else empty."""
    keys = [k["key"] for k in config["keys"]]
    return {
        "owner": {k["key"]: k["owner"] for k in config["keys"]},
        "epoch": {key: 1 for key in keys},
        "handoff": None,            # C5: (kind, key, src, dst, from, phase) or None
        "lastInstall": {},          # C11: key -> the last install message sent
        "lastRelease": {},          # C11: key -> the last release message sent
        "store": {},                # C4: key -> the latest checkpoint {epoch, cursor, state}
        "sink": {                   # C9
            "matches": {},          # match id -> "inserted" | "retracted" (absent: not there)
            "fence": {key: 1 for key in keys},
            "applied": 0,
            "deduped": 0,
            "fenced": 0,
        },
    }


class Copy:
    """C2: a worker's volatile copy of one key: (join state, cursor, epoch, frozen)."""

    def __init__(self, operator, cursor, epoch, frozen):
        self.operator = operator
        self.cursor = cursor
        self.epoch = epoch
        self.frozen = frozen

    def checkpoint(self):
        """C4: (epoch, cursor, join state), as plain data that later changes of the copy do not touch."""
        return {"epoch": self.epoch, "cursor": self.cursor, "state": self.operator.snapshot()}


class Cluster:
    def __init__(self, config, faults, durable=None, log=None, recovered=False):
        self.join = config["join"]
        self.workers = list(config["workers"])            # config order: the order of eager processing (C1, §7)
        self.keys = [k["key"] for k in config["keys"]]
        self.faults = faults                              # level faults (True) or cluster (False)
        self.durable = durable if durable is not None else initial_durable(config)
        self.log = log if log is not None else []
        self.on_append = None                             # disk.py's journal append, when --data is given
        if recovered:
            # PROTOCOL.md "Kill mode", re-attach: as after a crash of every node (C10): all down, no copies.
            self.coordinator_up = False
            self.nodes = {w: {"status": "down", "copies": {}} for w in self.workers}
        else:
            # C1: every node up; each key's owner holds an empty, active copy at cursor 0, epoch 1.
            self.coordinator_up = True
            self.nodes = {w: {"status": "up", "copies": {}} for w in self.workers}
            for key, owner in self.durable["owner"].items():
                self.nodes[owner]["copies"][key] = self.copy_from(None, 1, frozen=False)

    # -- helpers -----------------------------------------------------------

    def copy_from(self, checkpoint, epoch, frozen):
        """C4: restore a checkpoint (its state and cursor), or an empty copy at cursor 0 when there is none."""
        state = checkpoint["state"] if checkpoint else None
        operator = Operator.restore(self.join["allowedLateness"], self.join["maxIntervalLength"], state)
        return Copy(operator, checkpoint["cursor"] if checkpoint else 0, epoch, frozen)

    def status(self, w):
        return self.nodes[w]["status"]

    def up(self, w):
        return self.nodes[w]["status"] == "up"

    def held(self, w, key):
        return self.nodes[w]["copies"].get(key)

    def handoff_of(self, key):
        h = self.durable["handoff"]
        return h if h is not None and h["key"] == key else None

    def need_coordinator(self):
        if not self.coordinator_up:
            raise not_enabled("the coordinator is down")

    def need_key(self, key):
        if key not in self.keys:
            raise not_enabled(f"unknown key {key}")

    def need_worker(self, w):
        if w not in self.workers:
            raise not_enabled(f"unknown worker {w}")

    def next_relevant(self, key, cursor):
        """C3: the index of the first record at or after `cursor` that key reads (a watermark or one of its own)."""
        i = cursor
        while i < len(self.log) and not (self.log[i]["kind"] == "watermark" or self.log[i]["key"] == key):
            i += 1
        return i

    # -- the protocol entry point ------------------------------------------

    def handle(self, request):
        """One request of a cluster session: its reply body (without in_reply_to)."""
        kind = request["type"]
        if kind == "inspect":
            return {"type": "inspect_ok", "observation": self.observe()}
        fault = kind in FAULTS or (kind == "commit" and request.get("crashAfterFence") is True)
        if kind not in CLUSTER_REQUESTS and kind not in FAULTS:
            raise Refused(NOT_SUPPORTED, f"{kind} is not a cluster request")
        if fault and not self.faults:
            raise Refused(NOT_SUPPORTED, f"{kind} with crashAfterFence is not part of level cluster" if kind == "commit" else f"{kind} is not part of level cluster")
        try:
            events = getattr(self, "act_" + kind)(request)
        except (KeyError, TypeError) as e:
            raise Refused(MALFORMED_REQUEST, f"{kind} is missing or mistypes a field: {e}") from e
        return {"type": f"{kind}_ok", "events": events + self.settle()}

    # -- §7: eager processing ----------------------------------------------

    def settle(self):
        """§7: run every enabled process step, first worker in config order, then first key, until none is."""
        events = []
        progressed = True
        while progressed:
            progressed = False
            for w in self.workers:
                for key in self.keys:
                    while self.can_process(w, key):
                        events += self.process(w, key)
                        progressed = True
        return events

    def can_process(self, w, key):
        """C3: w is up, holds an active copy of key, and a relevant record lies at or after its cursor."""
        c = self.held(w, key)
        return self.up(w) and c is not None and not c.frozen and self.next_relevant(key, c.cursor) < len(self.log)

    def process(self, w, key):
        """C3: the copy applies its next relevant record; its changes go to the sink as one write (C9)."""
        c = self.held(w, key)
        index = self.next_relevant(key, c.cursor)
        outcome, changes = c.operator.apply(self.log[index])
        c.cursor = index + 1
        fenced = bool(changes) and self.sink_write(key, c.epoch, changes)
        events = [{"type": "processed", "worker": w, "key": key, "index": index, "epoch": c.epoch,
                   "outcome": outcome, "changes": changes, "fenced": fenced}]
        if fenced:
            # C9: a writer the sink fenced has lost the key: it drops its copy.
            del self.nodes[w]["copies"][key]
            events.append({"type": "dropped", "worker": w, "key": key, "reason": "fenced"})
        return events

    def sink_write(self, key, epoch, changes):
        """C9: one write tagged (key, epoch); True if fenced. The fence is the sink's own record, never the writer's."""
        sink = self.durable["sink"]
        if epoch < sink["fence"].get(key, 0):
            sink["fenced"] += len(changes)
            return True
        sink["fence"][key] = max(sink["fence"].get(key, 0), epoch)
        for ch in changes:
            now = sink["matches"].get(ch["match"])
            if ch["op"] == "insert" and now is None:
                sink["matches"][ch["match"]] = "inserted"
                sink["applied"] += 1
            elif ch["op"] == "retract" and now != "retracted":
                sink["matches"][ch["match"]] = "retracted"  # retracted is terminal: a replayed insert cannot resurrect it
                sink["applied"] += 1
            else:
                sink["deduped"] += 1  # a replay (C4): already there
        return False

    def raise_fence(self, key, epoch):
        """C7, C8: the fence part."""
        fence = self.durable["sink"]["fence"]
        fence[key] = max(fence.get(key, 0), epoch)

    # -- C3: records ---------------------------------------------------------

    def act_record(self, request):
        r = request["record"]
        if not isinstance(r, dict) or r.get("kind") not in ("insert", "retract", "watermark"):
            raise Refused(MALFORMED_REQUEST, "record must be an insert, a retract or a watermark")
        reason = reject_reason(r, self.join["maxIntervalLength"])
        if reason is None and r["kind"] != "watermark" and r["key"] not in self.keys:
            reason = "unknown_key"
        if reason is not None:
            return [{"type": "rejected", "outcome": {"code": "rejected", "reason": reason}}]
        if self.on_append is not None:
            self.on_append(r)  # durable before anything reads it (disk.py)
        self.log.append(r)
        return [{"type": "appended", "index": len(self.log) - 1}]

    # -- C5, C6, C7: a migration ---------------------------------------------

    def act_freeze(self, request):
        key, to = request["key"], request["to"]
        self.need_coordinator()
        self.need_key(key)
        self.need_worker(to)
        if self.durable["handoff"] is not None:
            raise not_enabled(f"a handoff of {self.durable['handoff']['key']} is in flight")
        src, epoch = self.durable["owner"][key], self.durable["epoch"][key]
        if to == src:
            raise not_enabled(f"{to} already owns {key}")
        if not self.up(src) or not self.up(to):
            raise not_enabled("the owner and the destination must be up")
        c = self.held(src, key)
        if c is None or c.frozen or c.epoch != epoch:
            raise not_enabled(f"{src} does not hold {key} active")
        self.durable["handoff"] = {"kind": "migrate", "key": key, "src": src, "dst": to, "from": epoch, "phase": "frozen"}
        c.frozen = True
        return []

    def act_persist(self, request):
        key = request["key"]
        self.need_coordinator()
        h = self.handoff_of(key)
        if h is None or h["kind"] != "migrate" or h["phase"] != "frozen":
            raise not_enabled(f"no migration of {key} awaits persist")
        c = self.held(h["src"], key) if self.up(h["src"]) else None
        if c is None or not c.frozen:
            raise not_enabled(f"{h['src']} holds no frozen copy of {key}")
        self.durable["store"][key] = c.checkpoint()
        h["phase"] = "persisted"
        return []

    def act_install(self, request):
        key = request["key"]
        self.need_coordinator()
        h = self.handoff_of(key)
        if h is None or h["kind"] != "migrate" or h["phase"] not in ("persisted", "installed", "fenced"):
            raise not_enabled(f"no migration of {key} awaits install")
        if not self.up(h["dst"]):
            raise not_enabled(f"{h['dst']} is not up")
        message = {"key": key, "dst": h["dst"], "epoch": h["from"] + 1, "checkpoint": copying.deepcopy(self.durable["store"].get(key))}
        self.durable["lastInstall"][key] = message
        if h["phase"] != "fenced":
            h["phase"] = "installed"
        return self.deliver_install(message)

    def deliver_install(self, m):
        """C6: the install epoch check, then a frozen copy from the message's checkpoint."""
        held = self.held(m["dst"], m["key"])
        if held is not None and held.epoch >= m["epoch"]:
            return [{"type": "refused", "worker": m["dst"], "key": m["key"], "reason": "stale-epoch"}]
        c = self.copy_from(m["checkpoint"], m["epoch"], frozen=True)
        self.nodes[m["dst"]]["copies"][m["key"]] = c
        return [{"type": "restored", "worker": m["dst"], "key": m["key"], "cursor": c.cursor, "epoch": m["epoch"]}]

    def act_commit(self, request):
        key, crash_after_fence = request["key"], request.get("crashAfterFence") is True
        self.need_coordinator()
        h = self.handoff_of(key)
        if h is None or h["phase"] not in ("installed", "fenced"):
            raise not_enabled(f"no handoff of {key} awaits commit")
        if crash_after_fence and h["phase"] != "installed":
            raise not_enabled("the fence is already raised")
        if h["kind"] == "migrate":
            c = self.held(h["dst"], key)
            if not self.up(h["dst"]) or c is None or c.epoch != h["from"] + 1:
                raise not_enabled(f"{h['dst']} holds no installed copy of {key}")
        elif self.status(h["dst"]) == "paused":
            raise not_enabled(f"{h['dst']} is paused")
        if h["phase"] == "installed":
            self.raise_fence(key, h["from"] + 1)  # C7 part 1: the fence first
            h["phase"] = "fenced"
            if crash_after_fence:
                self.coordinator_up = False
                return []
        return self.ownership(h)

    def ownership(self, h):
        """C7/C8 part 2: owner and epoch; a migration's destination goes active, a failover's restores (C8)."""
        key, epoch = h["key"], h["from"] + 1
        self.durable["owner"][key] = h["dst"]
        self.durable["epoch"][key] = epoch
        if h["kind"] == "migrate":
            h["phase"] = "committed"
            self.held(h["dst"], key).frozen = False
            return []
        self.durable["handoff"] = None
        if not self.up(h["dst"]):
            return []  # C8: a down destination recovers the key when it restarts (C10)
        c = self.copy_from(self.durable["store"].get(key), epoch, frozen=False)
        self.nodes[h["dst"]]["copies"][key] = c
        return [{"type": "restored", "worker": h["dst"], "key": key, "cursor": c.cursor, "epoch": epoch}]

    def act_release(self, request):
        key = request["key"]
        self.need_coordinator()
        h = self.handoff_of(key)
        if h is None or h["phase"] != "committed":
            raise not_enabled(f"no handoff of {key} awaits release")
        if self.status(h["src"]) == "paused":
            raise not_enabled(f"{h['src']} is paused")
        message = {"key": key, "src": h["src"], "epoch": h["from"]}
        self.durable["lastRelease"][key] = message
        self.durable["handoff"] = None
        return self.deliver_release(message) if self.up(h["src"]) else []

    def deliver_release(self, m):
        """C7: the release epoch check: the source drops its copy only if it is still of the released epoch."""
        c = self.held(m["src"], m["key"])
        if c is None or c.epoch != m["epoch"]:
            return []
        del self.nodes[m["src"]]["copies"][m["key"]]
        return [{"type": "dropped", "worker": m["src"], "key": m["key"], "reason": "released"}]

    def act_abort(self, request):
        key = request["key"]
        self.need_coordinator()
        h = self.handoff_of(key)
        if h is None or h["kind"] != "migrate":
            raise not_enabled(f"no migration of {key} in flight")
        if h["phase"] in ("fenced", "committed"):
            raise not_enabled("past the fence a handoff only goes forward")
        if self.status(h["src"]) == "paused":
            raise not_enabled(f"{h['src']} is paused")
        self.durable["handoff"] = None
        src = self.held(h["src"], key)
        if self.up(h["src"]) and src is not None and src.frozen and src.epoch == h["from"]:
            src.frozen = False
        dst = self.held(h["dst"], key)
        if self.up(h["dst"]) and dst is not None and dst.frozen and dst.epoch == h["from"] + 1:
            del self.nodes[h["dst"]]["copies"][key]
            return [{"type": "dropped", "worker": h["dst"], "key": key, "reason": "aborted"}]
        return []

    # -- C4: periodic checkpoints ---------------------------------------------

    def act_checkpoint(self, request):
        w, key = request["worker"], request["key"]
        self.need_worker(w)
        self.need_key(key)
        c = self.held(w, key) if self.up(w) else None
        if c is None or c.frozen:
            raise not_enabled(f"{w} holds no active copy of {key}")
        self.durable["store"][key] = c.checkpoint()
        return []

    # -- C8, C10, C11: faults (level faults) -----------------------------------

    def act_failover(self, request):
        key, to = request["key"], request["to"]
        self.need_coordinator()
        self.need_key(key)
        self.need_worker(to)
        if self.durable["handoff"] is not None:
            raise not_enabled(f"a handoff of {self.durable['handoff']['key']} is in flight")
        dead, epoch = self.durable["owner"][key], self.durable["epoch"][key]
        if self.up(dead):
            raise not_enabled(f"the owner {dead} is up")
        if not self.up(to):
            raise not_enabled(f"{to} is not up")
        h = {"kind": "failover", "key": key, "src": dead, "dst": to, "from": epoch, "phase": "fenced"}
        self.raise_fence(key, epoch + 1)  # the fence first (C8, as C7)
        self.durable["handoff"] = h
        if request.get("crashAfterFence") is True:
            self.coordinator_up = False
            return []
        return self.ownership(h)

    def act_crash(self, request):
        node = request["node"]
        if node == COORDINATOR:
            if not self.coordinator_up:
                raise not_enabled("the coordinator is already down")
            self.coordinator_up = False  # C10: its durable record stays intact
            return []
        self.need_worker(node)
        if self.status(node) == "down":
            raise not_enabled(f"{node} is already down")
        self.nodes[node] = {"status": "down", "copies": {}}  # C10: all its copies are lost
        return []

    def act_restart(self, request):
        node = request["node"]
        if node == COORDINATOR:
            if self.coordinator_up:
                raise not_enabled("the coordinator is up")
            self.coordinator_up = True
            return []
        self.need_worker(node)
        if self.status(node) != "down":
            raise not_enabled(f"{node} is not down")
        # C10: up with no copies, then it recovers every key the table gives it, from the latest checkpoint.
        self.nodes[node] = {"status": "up", "copies": {}}
        events = []
        for key in self.keys:
            if self.durable["owner"][key] != node:
                continue
            c = self.copy_from(self.durable["store"].get(key), self.durable["epoch"][key], frozen=False)
            self.nodes[node]["copies"][key] = c
            events.append({"type": "restored", "worker": node, "key": key, "cursor": c.cursor, "epoch": c.epoch})
        return events

    def act_pause(self, request):
        w = request["worker"]
        self.need_worker(w)
        if not self.up(w):
            raise not_enabled(f"{w} is not up")
        self.nodes[w]["status"] = "paused"  # C10: it keeps its copies
        return []

    def act_resume(self, request):
        w = request["worker"]
        self.need_worker(w)
        if self.status(w) != "paused":
            raise not_enabled(f"{w} is not paused")
        self.nodes[w]["status"] = "up"  # a zombie, if its keys were failed over meanwhile
        return []

    def act_duplicateInstall(self, request):
        key = request["key"]
        m = self.durable["lastInstall"].get(key)
        if m is None:
            raise not_enabled(f"no install of {key} was ever sent")
        if not self.up(m["dst"]):
            raise not_enabled(f"{m['dst']} is not up")
        return self.deliver_install(m)

    def act_duplicateRelease(self, request):
        key = request["key"]
        m = self.durable["lastRelease"].get(key)
        if m is None:
            raise not_enabled(f"no release of {key} was ever sent")
        if not self.up(m["src"]):
            raise not_enabled(f"{m['src']} is not up")
        return self.deliver_release(m)

    # -- §7: the observation ---------------------------------------------------

    def observe(self):
        d = self.durable
        workers = {}
        for w in self.workers:
            copies = {}
            for key in self.keys:
                c = self.held(w, key)
                if c is not None:
                    copies[key] = {"epoch": c.epoch, "cursor": c.cursor, "frozen": c.frozen, "retained": c.operator.counts()}
            workers[w] = {"status": self.status(w), "keys": copies}
        store = {}
        for key in self.keys:
            cp = d["store"].get(key)
            if cp is not None:
                store[key] = {"epoch": cp["epoch"], "cursor": cp["cursor"], "retained": snapshot_counts(cp["state"])}
        sink = d["sink"]
        return {
            "log": len(self.log),
            "coordinator": {
                "up": self.coordinator_up,
                "handoff": dict(d["handoff"]) if d["handoff"] is not None else None,
                "keys": {key: {"owner": d["owner"][key], "epoch": d["epoch"][key]} for key in self.keys},
            },
            "workers": workers,
            "store": store,
            "sink": {
                "fence": dict(sink["fence"]),
                "matches": {m: sink["matches"][m] for m in sorted(sink["matches"])},  # §0: code point order
                "applied": sink["applied"],
                "deduped": sink["deduped"],
                "fenced": sink["fenced"],
            },
        }

