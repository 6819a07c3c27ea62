"""What the interpreter tells the observer while it runs: where each live actor was spawned,
which actors are the observer's own (hidden), the latest unobserved deaths and what each
supervisor last reported. Only kept when `--observe` is on (interp.observer is None otherwise),
so a program run without it pays one test of None per spawn and end."""
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
        self.hidden: set[int] = set()            # the observer's own actors
        self.early: set[int] = set()             # actors that ended before their spawner registered them
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

    def spawned(self, actor_id: int, site: str, parent_id: int | None) -> None:
        """Called by the spawner after the runtime has started the actor, which may already have
        run on another domain, died and ended: then only its deaths are given the site."""
        with self.lock:
            if actor_id in self.early:
                self.early.discard(actor_id)
                mine = [d for d in self.deaths if d["id"] == actor_id]
                for death in mine:
                    if parent_id in self.hidden:
                        self.deaths.remove(death)
                    elif not death["site"]:
                        death["site"] = site
                return
            self.sites[actor_id] = site
            if parent_id in self.hidden:
                self.hidden.add(actor_id)

    def ended(self, actor_id: int) -> None:
        with self.lock:
            if self.sites.pop(actor_id, None) is None:
                self.early.add(actor_id)
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
