"""Selectors a send names by Symbol besides its own: the method `Remote perform: #sel on: obj
withArguments: args` runs, and a reliable call's op and result handler (reliable_ops.py).

Shared by the checker's method graph (method_graph.py), its proxies (proxies.py) and the editor's
independent parts (lp/lsp/components.py), which count them as sends of what they name.
"""
from __future__ import annotations

from lp.syntax import ast as A
from lp.types.reliable_ops import named_selectors


def performed_selector(n):
    """The selector `Remote perform: #sel on: obj withArguments: args` names with a literal, else None."""
    if n.selector == "perform:on:withArguments:" and n.args and type(n.args[0]) is A.SymLit:
        return n.args[0].name
    return None


def selectors_named(n) -> list[str]:
    """Every selector send `n` names by a literal Symbol: the performed one, then a reliable call's."""
    performed = performed_selector(n)
    named = named_selectors(n)
    return named if performed is None else [performed, *named]
