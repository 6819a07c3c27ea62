"""RuntimeView: the observer's primitives (docs/observer.md). `RuntimeView observing` is false
unless `lp run --observe` is on; the rest answer nothing useful then and cost nothing, so
library code (stdlib/supervision.lp) may report to the observer unconditionally behind it."""
from __future__ import annotations

from importlib import resources

from lp.interp.values import NONE, Maybe, Symbol
from lp.interp.registry import prim

ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          "/observer.js": ("observer.js", "text/javascript; charset=utf-8"),
          "/observer.css": ("observer.css", "text/css; charset=utf-8")}


@prim("RuntimeView", "observing", class_side=True)
def _observing(p, cls):
    return p.interp.observer is not None


@prim("RuntimeView", "host", class_side=True)
def _host(p, cls):
    watch = p.interp.observer
    return "127.0.0.1" if watch is None else watch.host


@prim("RuntimeView", "port", class_side=True)
def _port(p, cls):
    watch = p.interp.observer
    return 0 if watch is None else watch.port


@prim("RuntimeView", "hide", class_side=True)
def _hide(p, cls):
    watch = p.interp.observer
    if watch is not None:
        watch.hide(p.ctx.id)
        p.ctx.set_background()   # the observer's actors leave the program's domains as they are
    return None


@prim("RuntimeView", "announce:", class_side=True)
def _announce(p, cls, port):
    watch = p.interp.observer
    if watch is not None:
        p.interp.report(f"observing at http://{watch.host}:{port}/", always=True)
    return None


@prim("RuntimeView", "asset:", class_side=True)
def _asset(p, cls, path):
    found = ASSETS.get(path) if type(path) is str else None
    if found is None:
        return NONE
    return Maybe(True, resources.files("lp.observe").joinpath("page", found[0]).read_text("utf-8"))


@prim("RuntimeView", "contentTypeOf:", class_side=True)
def _content_type(p, cls, path):
    return ASSETS.get(path, ("", "text/plain; charset=utf-8"))[1]


@prim("RuntimeView", "pause", class_side=True)
def _pause(p, cls):
    watch = p.interp.observer
    return 250 if watch is None else watch.pause_ms()


@prim("RuntimeView", "snapshot:", class_side=True)
def _snapshot(p, cls, query):
    from lp.observe.view import snapshot
    watch = p.interp.observer
    if watch is None:
        return "{}"
    return snapshot(p.interp.runtime, watch, query if type(query) is str else "")


@prim("RuntimeView", "supervisor:event:child:detail:children:actors:restarts:", class_side=True)
def _supervisor(p, cls, name, kind, child, detail, ids, actors, restarts):
    watch = p.interp.observer
    if watch is not None:
        def text(v):
            return v.name if type(v) is Symbol else p.interp.print_string(v)
        children = [{"id": text(i), "actor": a, "restarts": r} for i, a, r in zip(ids, actors, restarts)]
        watch.supervisor(p.ctx.id, text(name), {"kind": text(kind), "child": text(child), "detail": detail},
                         children)
    return None
