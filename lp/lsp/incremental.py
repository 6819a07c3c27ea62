"""Re-checking only the part of a program an edit can affect.

After the first full check, each version's items are grouped into independent
components (components.py). An edit re-checks, together with the imports,
only the components that hold a new item or held a removed one; the other
items keep their diagnostics (moved with their item) and inferred types.
When the imports or the declarations (classes, their fields, the selectors
of methods) changed, or most of the program is affected, the whole program
is checked as `lp check` does.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from lp.diagnostics import Diagnostic, Note
from lp.lsp.components import Facts, components, facts_of, program_facts
from lp.syntax import ast as A
from lp.types import CheckResult, check_program

FULL_CHECK_SHARE = 0.5   # re-check everything when the affected items are more than this share


@dataclass
class _State:
    imports_key: tuple          # the imported modules and the main module's declarations
    items: tuple
    starts: list                 # the items' first lines when checked, in order
    component: dict              # id(item) -> its component's number in that version
    per_item: dict               # id(item) -> [Diagnostic] whose span starts in it
    other: list                  # diagnostics outside the main module
    types: dict


def _declarations(items) -> tuple:
    out = []
    for i in items:
        if isinstance(i, A.ClassDecl):
            out.append(("class", i.name, i.superclass, i.fields))
        elif isinstance(i, A.MethodDecl):
            out.append(("method", i.class_name, i.class_side, i.selector))
        elif isinstance(i, A.Import):
            out.append(("import", i.module))
    return tuple(sorted(out, key=repr))


def _order(d: Diagnostic, files: list[str]):
    """check_program's order: imported modules first, then by file, line and column; no span last."""
    s = d.span
    f = s.file if s is not None else ""
    rank = files.index(f) if f in files else len(files)
    return (rank, f, s.line, s.col) if s is not None else (rank, "", 0, 0)


class IncrementalChecker:
    def __init__(self, path: str):
        self.path = path
        self.state: _State | None = None
        self.facts: dict[int, tuple[object, Facts]] = {}
        self.last_was_full = True

    def check(self, program: A.Program, imports: list) -> CheckResult:
        items = program.items
        everything = [i for m in imports for i in m.items] + list(items)
        self.facts = {id(i): (i, self._facts(i)) for i in everything if not isinstance(i, A.Import)}
        facts = [self.facts[id(i)][1] if id(i) in self.facts else facts_of(i) for i in items]
        comps = components(facts, program_facts([m.items for m in imports] + [items],
                                                {k: v[1] for k, v in self.facts.items()}))
        prev = self.state
        key = (tuple(id(m) for m in imports), _declarations(items))
        dirty = self._dirty(items, comps, prev) if prev is not None and prev.imports_key == key else None
        if dirty is None or len(dirty) > FULL_CHECK_SHARE * len(items):
            result = check_program(program, imports)
            self.last_was_full = True
            self.state = self._remember(key, items, comps, result.diagnostics, [], result.types)
            return result
        part = tuple(items[i] for i in sorted(dirty))
        sub = check_program(A.Program(part, program.file, (), program.span), imports) if part else CheckResult()
        kept = [self._moved(d, prev) for i, item in enumerate(items) if i not in dirty
                for d in prev.per_item.get(id(item), ())]
        if not part:
            kept += prev.other
        types = dict(prev.types)
        now = {id(i) for i in items}
        for gone in (i for i in prev.items if id(i) not in now):
            for n in A.walk(gone):
                types.pop(id(n), None)
        types.update(sub.types)
        self.last_was_full = False
        self.state = self._remember(key, items, comps, sub.diagnostics, kept, types)
        files = [m.file for m in imports] + [program.file]
        return CheckResult(sorted(sub.diagnostics + kept, key=lambda d: _order(d, files)), types)

    def _facts(self, item) -> Facts:
        hit = self.facts.get(id(item))
        return hit[1] if hit is not None and hit[0] is item else facts_of(item)

    @staticmethod
    def _dirty(items, comps, prev: _State) -> set[int] | None:
        now = {id(i) for i in items}
        gone = {prev.component[id(i)] for i in prev.items if id(i) not in now}
        hit = set()
        for i, item in enumerate(items):
            old = prev.component.get(id(item))
            if old is None or old in gone:
                hit.add(comps[i])
        return {i for i in range(len(items)) if comps[i] in hit}

    def _remember(self, key, items, comps, diags, kept, types) -> _State:
        starts = [i.span.line for i in items]
        per_item: dict = {}
        other = []
        for d in list(diags) + kept:
            s = d.span
            if s is None or s.line <= 0 or s.file != self.path:
                other.append(d)
                continue
            k = max(0, bisect.bisect_right(starts, s.line) - 1)
            while k > 0 and (items[k].span.line, items[k].span.col) > (s.line, s.col):
                k -= 1
            per_item.setdefault(id(items[k]), []).append(d)
        return _State(key, items, starts, {id(i): c for i, c in zip(items, comps)}, per_item, other, types)

    def _moved(self, d: Diagnostic, prev: _State) -> Diagnostic:
        """`d` with its spans following their items, which may have moved up or down since."""
        def move(s):
            if s is None or s.line <= 0 or s.file != self.path:
                return s
            k = max(0, bisect.bisect_right(prev.starts, s.line) - 1)
            delta = prev.items[k].span.line - prev.starts[k]
            return A.Span(s.file, s.line + delta, s.col, s.end_line + delta, s.end_col) if delta else s
        notes = tuple(Note(n.message, move(n.span)) for n in d.notes)
        return replace(d, span=move(d.span), notes=notes)
