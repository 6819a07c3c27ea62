"""What the interpreter tells the observer while it runs: where each live actor was spawned,
which actors are the observer's own (hidden), the latest unobserved deaths and what each
supervisor last reported. Only kept when `--observe` is on (interp.observer is None otherwise),
so a program run without it pays one test of None per spawn and end. An actor is registered
before the runtime starts it (lp/interp/actors.py), so it never ends unregistered; registering
and ending are single dict and set operations (atomic under the GIL), which take no lock."""
from __future__ import annotations

import threading
import time
from collections import deque

DEATHS_KEPT = 50
EVENTS_KEPT = 20


class Watch:
    def __init__(self, host: str, port: int = 0):
        self.host, self.port = host, port
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.sites: dict[int, str] = {}          # live actor id -> spawn site ("file:line" or "main")
        self.code_sites: dict = {}               # block (Code) -> its spawn site
        self.hidden: set[int] = set()            # the observer's own actors
        self.deaths: deque = deque(maxlen=DEATHS_KEPT)
        self.supervisors: dict[int, dict] = {}   # supervisor actor id -> its last report
        self.cost_ms = 0.0       # what the last tick took to build (view.snapshot)
        self.class_name = lambda value: type(value).__name__   # the interpreter's, set by start.observe

    def pause_ms(self) -> int:
        """The wait before the next tick: 250 ms, longer when ticks are expensive, so the
        observer takes about 5% of one domain at most (ticks at least every 10 s)."""
        return max(250, min(10_000, int(self.cost_ms * 20)))

    def now_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)

    def site_of(self, code) -> str:
        """The spawn site of a block ("file:line"), formatted once per block."""
        site = self.code_sites.get(code)
        if site is None:
            site = self.code_sites[code] = f"{code.span.file}:{code.span.line}" if code.span else ""
        return site

    def spawned(self, actor_id: int, site: str, parent_id: int | None) -> None:
        """Called by the spawner before the runtime starts the actor."""
        if parent_id in self.hidden:
            self.hidden.add(actor_id)
        self.sites[actor_id] = site

    def ended(self, actor_id: int) -> None:
        self.sites.pop(actor_id, None)
        self.hidden.discard(actor_id)
        self.supervisors.pop(actor_id, None)

    def hide(self, actor_id: int) -> None:
        with self.lock:
            self.hidden.add(actor_id)

    def died(self, actor_id: int, reason: str, where: str) -> None:
        with self.lock:
            if actor_id in self.hidden:
                return
            self.deaths.append({"id": actor_id, "site": self.sites.get(actor_id, ""), "reason": reason,
                                "where": where, "t": self.now_ms()})

    def supervisor(self, actor_id: int, name: str, event: dict, children: list[dict]) -> None:
        with self.lock:
            entry = self.supervisors.setdefault(actor_id, {"actor": actor_id, "name": name, "events": deque(
                maxlen=EVENTS_KEPT), "restarts": 0})
            entry["children"] = children
            entry["restarts"] = sum(c["restarts"] for c in children)
            event["t"] = self.now_ms()
            entry["events"].append(event)
