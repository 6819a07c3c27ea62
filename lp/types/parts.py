"""The checker's parts, assembled in one visible place: the sends typed by rule (special.py) and the
actor sends and receives (actors.py), handed to `Checker(parts)` by check.py.

- `forms`: selector -> form(ck, node, scope, cx, discard), tried before the receiver is typed
  (they need the syntax: a literal record, dispatch table or spawn block); None means "not mine";
  `prefix_forms` the same for every selector with a prefix (`for:initial:` and its longer forms);
- `sends`: (builtin class, selector) -> fn(ck, receiver type, argument types, node, actor,
  argument nodes, discard), for a receiver of that class;
- `class_sends`: selector -> fn(ck, class name, argument types, node, actor, argument nodes,
  discard), for a class receiver;
- `proxy_send`: fn(ck, receiver type, selector, argument types, node, argument nodes) for a send to
  a `Remote` or `GrainRef` proxy (lp/types/proxies.py), None when the proxy answers it itself;
- `runtime_messages`: (class or "C class", selector) -> fn(ck, node, actor, argument nodes), noting
  what the run time does in the actor beyond the send's signature: a message it will deliver (Down
  after monitor:, Exit after trapExits:), the methods `Remote perform:` runs there;
- the typing that waits on a variable (constraints.py calls these when it fires): `numeric`
  (an operator's argument), `check_element` (what `sum`, `max`... need of elements), `with_fields`
  (`with:`), `check_reason` (`exit:`), `ask` (`ask:`), `error_class` (`on:do:`'s class),
  `grain_answer` (a call through a `GrainRef`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Parts:
    forms: dict = field(default_factory=dict)
    prefix_forms: list = field(default_factory=list)   # (selector prefix, form) for a family of selectors
    sends: dict = field(default_factory=dict)
    class_sends: dict = field(default_factory=dict)
    runtime_messages: dict = field(default_factory=dict)   # (class, selector) -> notes a message the run time will deliver
    numeric: Callable | None = None
    check_element: Callable | None = None
    with_fields: Callable | None = None
    check_reason: Callable | None = None
    ask: Callable | None = None
    error_class: Callable | None = None
    grain_answer: Callable | None = None   # a grain call's answer, which may be the new state
    proxy_send: Callable | None = None   # a send to a `Remote[C]` or `GrainRef[C]` (lp/types/proxies.py)


def assemble() -> Parts:
    from lp.types import actors, proxies, reliable_ops, special, sql_params
    parts = Parts()
    special.register(parts)
    actors.register(parts)
    proxies.register(parts)
    sql_params.register(parts)
    reliable_ops.register(parts)
    return parts
