"""The data directory of the on-disk mode (`join.py --data DIR`): SPEC C2's durable parts, crash-safe.

Kill mode (spec/PROTOCOL.md, "Kill mode") sends SIGKILL at any moment,
including in the middle of a write. Two techniques keep the directory
readable whatever the moment:

- the input log is an **append-only journal** (`log.jsonl`, one record per
  line): a line is written, then fsync'd, before the request is answered; a
  kill can leave only the last line torn, and recovery cuts it off (that
  request was never answered, so nothing acknowledged is lost);
- everything else durable (the coordinator's table and handoff record, the
  last install and release messages, the checkpoint store, the sink) is one
  JSON document, `state.json`, replaced **atomically**: written to a
  temporary file, fsync'd, renamed over the old one, the directory fsync'd.
  A kill leaves the old document or the new one, never half of either.

One `state.json` for all of them is the simplest way to keep C7's order (the
sink's fence before the coordinator's ownership part) and C9's "one write is
atomic" true on disk: a request's durable effect lands at once. A real system
would split it (and write the store and the sink on their own machines); then
the order of its writes is the order of the rules.

The test hook `STREAMJOIN_KILL_AT_WRITE=L:N` (PROTOCOL.md) is implemented
here: the process kills itself at its Nth durable write point while it
handles request line L, so that the harness reaches the torn states above.
"""

import json
import os
import signal

LOG_FILE = "log.jsonl"
STATE_FILE = "state.json"


class KillAtWrite:
    """PROTOCOL.md, "Kill mode": SIGKILL at durable write point N of request line L (counting from 1)."""

    def __init__(self, value):
        self.target = None
        if value:
            line, write = value.split(":")
            self.target = (int(line), int(write))
        self.line = 0
        self.writes = 0

    def next_line(self):
        self.line += 1
        self.writes = 0

    def write_point(self):
        self.writes += 1
        if self.target == (self.line, self.writes):
            os.kill(os.getpid(), signal.SIGKILL)


class DataDirectory:
    """The durable parts of one session in DIR: `log.jsonl` (journal) and `state.json` (atomic)."""

    def __init__(self, path, hook):
        self.path = path
        self.hook = hook
        self.written_state = None  # the text of state.json on disk, to skip rewriting it unchanged
        os.makedirs(path, exist_ok=True)

    def _file(self, name):
        return os.path.join(self.path, name)

    def _sync_directory(self):
        """A rename or a new file is durable only once its directory is fsync'd."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def start_session(self, state):
        """`init` without recover discards any earlier session: an empty log, a fresh state.json."""
        self.written_state = None
        with open(self._file(LOG_FILE), "wb") as f:
            os.fsync(f.fileno())
        self.write_state(state)  # last: a state.json is what marks a session (see recover)

    def append_record(self, record):
        """C3: append one record to the log: half a line, then the rest, then fsync (two write points)."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        fd = os.open(self._file(LOG_FILE), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            half = len(line) // 2
            os.write(fd, line[:half])
            self.hook.write_point()  # a kill here leaves a torn line: recovery cuts it off
            os.write(fd, line[half:])
            os.fsync(fd)
            self.hook.write_point()  # the record is durable
        finally:
            os.close(fd)

    def write_state(self, state):
        """Replace state.json atomically (temporary file, fsync, rename, fsync the directory); skipped if unchanged."""
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        if text == self.written_state:
            return
        temporary = self._file(STATE_FILE + ".tmp")
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        self.hook.write_point()  # a kill here leaves the old state.json (and a stray .tmp, overwritten next time)
        os.replace(temporary, self._file(STATE_FILE))
        self.hook.write_point()  # the new state.json is in place
        self._sync_directory()
        self.hook.write_point()  # ... and durable
        self.written_state = text

    def recover(self):
        """Kill mode's re-attach: (state, log) as the directory holds them; (None, []) if it holds no session.

        The journal's last line may be torn (a kill inside `append_record`):
        it was never acknowledged, so it is cut off the file (a later append
        must not continue it) and the log is the lines before it.
        """
        state = None
        try:
            with open(self._file(STATE_FILE), encoding="utf-8") as f:
                state = json.load(f)
        except FileNotFoundError:
            return None, []
        self.written_state = json.dumps(state, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        log = []
        try:
            with open(self._file(LOG_FILE), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            data = b""
        complete = data.rfind(b"\n") + 1  # everything after the last newline is a torn line
        for line in data[:complete].splitlines():
            log.append(json.loads(line))
        if complete < len(data):
            with open(self._file(LOG_FILE), "r+b") as f:
                f.truncate(complete)
                os.fsync(f.fileno())
        return state, log
