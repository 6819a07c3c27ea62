"""The installation of the built-in classes (lp/classdecls.py's hierarchy) and of every primitive into them."""
from __future__ import annotations

import types

from lp.interp import net_values as NV
from lp.interp import values as V
from lp.interp.prims_storage import StorageHandle
from lp.classdecls import HIERARCHY
from lp.interp.code import Primitive
from lp.interp.registry import BLOCK_VALUE, PRIMITIVES

TYPES = {
    int: "Integer", float: "Float", bool: "Boolean", types.NoneType: "UndefinedObject", str: "String",
    V.Symbol: "Symbol", V.Char: "Character", tuple: "Array", V.Interval: "Interval", V.LPDict: "Dictionary", V.Maybe: "Maybe",
    V.Association: "Association", V.Record: "Record", V.Closure: "Block", V.ActorValue: "Actor",
    V.ReplyAddress: "Actor", V.Future: "Future", V.Promise: "Promise",
    bytes: "ByteArray", NV.Socket: "TCPSocket", NV.Listener: "TCPListener", NV.UDPSock: "UDPSocket", NV.WebSock: "WebSocket",
    V.GrainRefValue: "GrainRef", StorageHandle: "Storage",
}

BLOCK_SELECTORS = ("value", "value:", "value:value:", "value:value:value:", "value:value:value:value:")


def install_primitive_modules() -> None:
    """Import the primitive modules: each registers its primitives in lp.interp.registry on import."""
    from lp.interp import (actors, prims_bytes, prims_collections, prims_grain, prims_http,  # noqa: F401
                           prims_net, prims_numbers, prims_objects, prims_observe, prims_pool, prims_remote,
                           prims_storage, prims_text, prims_tls, prims_udp, prims_ws)


def install(interp) -> None:
    install_primitive_modules()
    for name, sup, fields in HIERARCHY:
        interp.add_class(V.LPClass(name, interp.classes[sup] if sup else None, fields, builtin=True))
    V.LPClass.root = interp.classes["Object"]
    for t, name in TYPES.items():
        interp.type_classes[t] = interp.classes[name]
    # a proxy's methods: Remote's and Object's, then any other selector is a call (prims_remote.py)
    from lp.interp import prims_remote
    interp.type_classes[NV.RemoteProxy] = prims_remote.RemoteClass("Remote", interp.classes["Remote"], (), builtin=True)
    for cls_name, sel, class_side, fn in PRIMITIVES:
        cls = interp.classes[cls_name]
        (cls.class_methods if class_side else cls.methods)[sel] = Primitive(fn, sel)
    for sel in BLOCK_SELECTORS:
        interp.classes["Block"].methods[sel] = BLOCK_VALUE
