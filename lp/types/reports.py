"""How each kind of problem is told to the user: one function per kind in lp/types/problems.py
(and lp/classdecls.py's class declaration problems), each answering the Diagnostic (title,
message, span, notes, hint). The golden files in tests/types/ill_typed/ pin the wording.
"""
from __future__ import annotations

from lp.classdecls import Problem, SUBCLASSABLE
from lp.diagnostics import Diagnostic, Note
from lp.types import problems as P
from lp.types.terms import COMPUTED, Namer, TCon, prune, show


def _subclassable() -> str:
    return " and ".join(f"`{n}`" for n in SUBCLASSABLE)


def _near(name):
    """The hint for a misspelt name, if a close one exists."""
    return f"did you mean `{name}`?" if name else None


def class_problem(p: Problem, near=None) -> Diagnostic:
    """A class declaration problem; `near` is a class name close to an unknown superclass."""
    d = p.decl
    if p.kind == "duplicate builtin":
        return Diagnostic("duplicate class", f"`{d.name}` is a builtin class; it cannot be declared again.",
                          d.span, hint=f"choose another name, like `My{d.name}`")
    if p.kind == "library class shape":
        return Diagnostic("duplicate class", f"`{d.name}` is the network library's error class "
                          f"`{p.other} subclass: #{d.name}`; a program may declare it again only in that shape "
                          "(then it is the library's class), not with another superclass or fields.", d.span,
                          hint=f"write `{p.other} subclass: #{d.name}.`, or choose another name, like `My{d.name}`")
    if p.kind == "duplicate class":
        return Diagnostic("duplicate class", f"The class `{d.name}` is declared twice.", d.span,
                          notes=(Note("It was first declared here:", p.other.span),))
    if p.kind == "unknown superclass":
        return Diagnostic("unknown class", f"`{d.name}` inherits from `{d.superclass}`, but there is no such "
                          "class.", d.span, hint=_near(near))
    if p.kind == "cannot subclass":
        return Diagnostic("cannot subclass", f"`{d.superclass}` is a builtin class that cannot be subclassed; "
                          f"only {_subclassable()} (and Error's builtin subclasses) can.", d.span)
    if p.kind == "inheritance cycle":
        return Diagnostic("inheritance cycle", f"`{d.name}` inherits from itself through `{p.other}`.", d.span)
    if p.kind == "duplicate field":
        return Diagnostic("duplicate field", f"`{d.name}` declares the field `{p.name}`, but it already inherits "
                          f"one with that name from `{p.other}`.", d.span)
    raise ValueError(p.kind)


def _equality_built_in(p: P.EqualityBuiltIn):
    return Diagnostic("equality is built in", f"`{p.selector}` is LP's structural equality (identity for `==`), "
                      "which every collection, receive table and dictionary relies on; a class cannot redefine it.",
                      p.span, hint="give your comparison a name of its own, e.g. `sameAs:`")


def _duplicate_method(p: P.DuplicateMethod):
    side = " class" if p.class_side else ""
    return Diagnostic("duplicate method", f"`{p.class_name}{side} >> {p.selector}` is defined twice.", p.span,
                      notes=(Note("The first definition is here:", p.first),))


def _spawn_arity(p: P.SpawnArity):
    return Diagnostic("wrong number of arguments", f"The body of `Actor spawn:` is a block of one argument, the "
                      f"new actor's own reference, but this block takes {p.given}.", p.span,
                      hint="write `Actor spawn: [:me | ...]`")


def _receive_needs_table(p: P.ReceiveNeedsTable):
    return Diagnostic("receive needs a table", f"`{p.selector}` takes a literal dispatch table, "
                      "`{ Class -> [:msg | ...]. #symbol -> [:m | ...] }`, so that each handler can be typed.",
                      p.span)


_UNRECEIVABLE = {
    "Reason": "an exit reason is a Symbol (`#normal`, `#killed`) or an Error: receive those",
    "Class": "a class is known to the checker only as a class; send its `name` instead",
}


def _unreceivable_key(p: P.UnreceivableKey):
    return Diagnostic("bad receive key", f"No message is an instance of `{p.class_name}` at run time, so this "
                      "entry would never match.", p.span, hint=_UNRECEIVABLE[p.class_name])


def _bad_receive_key(p: P.BadReceiveKey):
    return Diagnostic("bad receive key", "A capitalised receive key names a class (the entry matches its "
                      f"instances), but `{p.name}` is a variable here.", p.span,
                      hint="give the variable a lowercase name: its value is then the key, matching equal messages")


def _ask_without_reply(p: P.AskWithoutReply):
    name = p.user_class
    return Diagnostic("ask needs a reply field", f"`ask:` sends a message with a `reply` field, which it fills "
                      f"with the address the answer goes to, but `{p.what}` has no `reply` field.", p.span,
                      notes=(Note(f"`{p.what}` is declared here:", p.declared),) if p.declared else (),
                      hint=f"declare it with one: `Object subclass: #{name} fields: (reply)`" if name
                      else "to send without waiting for an answer, use `!`")


def _nil_reply(p: P.NilReply):
    name = p.class_name
    return Diagnostic("reply to a message without one", f"This sends a `{name}` whose `reply` is nil (it was "
                      f"built without one) with `!`, but the handler that receives it replies to it, which would "
                      "fail at run time.", p.span, notes=(Note(f"The `{p.entry_class}` entry is here:", p.entry),),
                      hint=f"send it with `ask:` (`(target ask: {name} new) await`), which fills `reply`, or "
                           f"give it an address: `{name} fields: {{ reply: Actor self }}`")


def _send_to_opaque_actor(p: P.SendToOpaqueActor):
    return Diagnostic("unknown protocol", f"This sends `{p.what}` to an actor whose protocol is not known: it came "
                      "from the `actor` field of a `Down` or `Exit`, which can be any actor.", p.span,
                      notes=(Note("The actor reference comes from here:", p.origin),) if p.origin.line > 0 else (),
                      hint="send to the reference you spawned or monitored instead; compare it with "
                           "`d actor = child` to find it")


def _not_accepted(p: P.NotAccepted):
    listing = ", ".join(f"`{x[:-len(COMPUTED)]}`{COMPUTED}" if x.endswith(COMPUTED) else f"`{x}`" for x in p.accepted)
    hint = _near(p.suggestion) or \
        f"add an entry `{p.key} -> [:msg | ...]` to a receive of that actor"
    return Diagnostic("message not understood by actor", f"This sends `{p.what}` to an actor that never receives "
                      f"it. That actor's receives accept: {listing}.", p.span,
                      notes=(Note("Its receive is here:", p.receive),) if p.receive else (), hint=hint)


def _never_receives(p: P.NeverReceives):
    return Diagnostic("message not understood by actor", f"This sends `{p.what}` to an actor that never receives "
                      "any message, so it would stay in the mailbox forever.", p.span,
                      notes=(Note("The actor is spawned here:", p.spawned),) if p.spawned else (),
                      hint="give the actor a `receive` for it")


def _receive_on_another_actor(p: P.ReceiveOnAnotherActor):
    notes = (Note("That actor is spawned here:", p.other),) if p.other.line > 0 else \
        (Note("That actor is the main program's."),)
    if p.reply:
        return Diagnostic("receive on another actor", "This receives from a reply address, the `reply` of a request "
                          "sent with `ask:`: the answer sent to it goes to the asker's future, and no actor running "
                          "this code has it as a mailbox.", p.span,
                          notes=(Note("The request is asked here:", p.other),),
                          hint="send the answer with `m reply ! value`; to receive, use `me` (or `Actor self`)")
    return Diagnostic("receive on another actor", "This receives from the mailbox of an actor that is not the one "
                      "running this code. Only an actor can take messages out of its own mailbox.", p.span, notes=notes,
                      hint="send the other actor a message instead, and receive on `me` (or `Actor self`)")


def named(m: P.MethodName) -> str:
    if m.owner is None:
        return f"the library's `{m.selector}`"
    return f"`{m.owner}{' class' if m.class_side else ''} >> {m.selector}`"


def ordinal(i: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(i, f"{i}th")


# What a type mismatch found by infer.py is about: kind -> fn(*data) -> (subject, need, note text, hint).
# The subject is what was found ("The 2nd argument of `at:put:`"), the need who wanted what.
CLASH_SUBJECTS = {
    "use": lambda: ("This expression", "the way its value is used needs", None, None),
    "method body": lambda: ("This method's body", "its `^` returns need", None, None),
    "return": lambda: ("This returned value", "the method's other answers need", None, None),
    "library override": lambda method, sel, i, last: (
        f"{named(method)} redefines a library method, and its {'answer' if last else ordinal(i) + ' argument'}",
        f"the library's `{sel}` has", None, None),
    "override": lambda method, whose, i, last: (
        f"{named(method)} overrides {named(whose)}, so what it {'answers' if last else f'takes as its {ordinal(i)} argument'}",
        f"the overridden method {'answers' if last else f'takes as its {ordinal(i)} argument'}",
        "The overridden method is here:", None),
    "element": lambda: ("This element", "arrays hold one type of element, and the first one is",
                        "The first element is here:",
                        "an Array is homogeneous; to mix kinds of value, make them instances of one class"),
    "method argument": lambda i, m: (f"The {ordinal(i)} argument of `{m.selector}`", f"{named(m)} needs",
                                     f"{named(m)} is defined here:", None),
    "branch": lambda sel: (f"The branches of this `{sel}` answer different types: this one", "the first branch answers",
                           "The first branch is here:", "when the value is used, every branch must answer the same type"),
    "argument": lambda i, one, sel, recv: (f"The argument of `{sel}`" if one else f"The {ordinal(i)} argument of `{sel}`",
                                           f"`{sel}` on `{recv}` needs", None, None),
    # sends typed by rule (special.py, actors.py)
    "rule receiver": lambda sel: (f"The receiver of `{sel}`", f"`{sel}` needs", None, None),
    "rule argument": lambda sel: (f"The argument of `{sel}`", f"`{sel}` needs", None, None),
    "block argument": lambda sel: (f"An argument of `{sel}`", "the block needs", None, None),
    "error handler": lambda: ("The handler of `on:do:`", "`on:do:` needs", None, None),
    "caught error": lambda: ("What this `on:do:` catches", "its handler takes", "The class caught comes from here:",
                             None),
    "grain state": lambda cname: ("This call answers an instance of the grain's class, which becomes the grain's new "
                                  "state: the answer", "the grain's state is", None,
                                  f"a grain's state keeps its type: a method of `{cname}` called through a grain "
                                  "answers a state of the same type, or a value of another class"),
    "sql parameter": lambda sel: ("This SQL parameter", f"`{sel}` needs", None,
                                  "a SQL parameter is nil, an Integer, a Float, a String or a ByteArray"),
    "reliable handler": lambda role, sel: (f"What the {role} `{sel}` answers", "a reliable call needs", None,
                                           "an op or result handler answers a Step (`Step none` and its sends)"),
    "field value": lambda name, cname: (f"The value of the field `{name}`", f"`{cname}`'s field `{name}` holds", None,
                                        "each field has one type, fixed by every place that builds or reads it"),
    "new field value": lambda name, cname: (f"The new value of the field `{name}`",
                                            f"`{cname}`'s field `{name}` holds", None, None),
    # receives and replies (actors.py)
    "handler": lambda: ("This handler", "a receive entry needs", None, None),
    "handler answer": lambda: (
        "This handler answers a different type from the first one: it", "the first handler answers",
        "The first handler is here:", "the value of a receive is its handler's value, so when it is used all "
        "handlers (and the timeout block) must answer the same type"),
    "timeout": lambda: ("The timeout", "`after:` needs milliseconds, an", None, None),
    "timeout answer": lambda: ("The timeout block answers a different type from the handlers: it",
                               "the handlers answer", None,
                               "the timeout block and every handler must answer the same type"),
    "timeout block": lambda: ("The timeout block", "`do:` needs", None, None),
    "reply": lambda: ("This reply", "the other replies sent to the same `reply` field are",
                      "The answers to this `ask:` arrive at that address:",
                      "every answer sent to one request's `reply` arrives at the future of its `ask:`, which has one "
                      "type; answer with one type (wrap several kinds in one class)"),
    "plain receive": lambda plain: (
        "This message", "the actor takes its messages with a plain `receive`, and the other messages sent to it are",
        "The plain receive is here:" if plain else "The answers to this `ask:` arrive at that address:",
        "a plain `receive` answers any message, so everything sent to that actor must have one type; use "
        "`receive: { ... }` to take several classes of message"),
    "entry": lambda tag: ("This message", f"the `{tag}` entry that receives it takes", f"The `{tag}` entry is here:",
                          "every message one entry receives must have the type its handler uses"),
    # fields as methods (overrides.py)
    "field reader": lambda name, cname, whose: (
        f"The field `{name}` of `{cname}` is read by the method `{name}`, which overrides {named(whose)}, so what it "
        "holds", f"{named(whose)} answers", "The overridden method is here:", "a field is a method answering its value; name it "
        "differently"),
    "field reader override": lambda method, name, owner: (
        f"{named(method)} overrides the reader of the field `{name}` of `{owner}`, so what it answers", "the field holds",
        "The field is declared here:", None),
}


def _mismatch(p: P.Mismatch):
    subject, need, note_text, hint = CLASH_SUBJECTS[p.about](*p.data)
    notes = (Note(note_text, p.note),) if p.note is not None else ()
    return mismatch(p.clash, p.span, subject, need, p.expected, p.actual, notes, hint, p.title)


def encloses(outer, inner) -> bool:
    if inner is None or outer.file != inner.file:
        return False
    return (outer.line, outer.col) <= (inner.line, inner.col) and \
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)


def mismatch(clash, span, subject, need, whole_expected=None, whole_actual=None, notes=(), hint=None,
             title="type mismatch") -> Diagnostic:
    """A unification clash: what was found (`subject`, the whole type and the clashing part), who needed
    what (`need`), and a note at the expression that forced the expectation; or an infinite type."""
    namer = Namer()
    e, a = prune(clash.expected), prune(clash.actual)
    if clash.kind == "occurs":
        msg = (f"{subject} would need a type that contains itself: `{show(e, namer)}` "
               f"and `{show(a, namer)}` can only be equal if the type is infinite.")
        return Diagnostic("infinite type", msg, span, notes=tuple(notes), hint=hint)
    we = show(whole_expected, namer) if whole_expected is not None else None
    wa = show(whole_actual, namer) if whole_actual is not None else None
    le, la = show(e, namer), show(a, namer)
    if we is not None and wa is not None and (we, wa) != (le, la):
        msg = f"{subject} is `{wa}`, but {need} `{we}`."
        if clash.kind == "arity":
            msg += f" A block taking {len(a.args) - 1} argument{'s' if len(a.args) != 2 else ''} " \
                   f"is not one taking {len(e.args) - 1}."
        elif le != la:
            msg += f" `{la}` is not `{le}`."
    else:
        msg = f"{subject} is `{la}`, but {need} `{le}`."
        if clash.kind == "arity":
            msg += f" A block taking {len(a.args) - 1} argument{'s' if len(a.args) != 2 else ''} " \
                   f"is not one taking {len(e.args) - 1}."
    notes = list(notes)
    why = e.why if isinstance(e, TCon) else None
    if why is not None and why.line > 0 and not encloses(why, span):
        notes.append(Note(f"`{le}` is expected because of this:", why))
    if hint is None and {le, la} in ({"Number", "Integer"}, {"Number", "Float"}):
        hint = "a `Number` is not an `Integer` or a `Float`: `asNumber` makes one of those a `Number`, " \
               "`asInteger` or `asFloat` the other way"
    return Diagnostic(title, msg, span, notes=tuple(notes), hint=hint)


# ---- declarations, statements and names -------------------------------------------------------------

def _narrower_override(p: P.NarrowerOverride):
    nth = f"{ordinal(p.nth)} argument"
    extra = f"only takes `{p.only}` as its {nth}" if p.only is not None else \
        f"sends its {nth} " + ", ".join(f"`{s}`" for s in p.sends) if p.sends else f"needs more of its {nth}"
    return Diagnostic("incompatible override", f"{named(p.method)} {extra}, but {named(p.whose)} takes more than that, and a "
                      "send typed against it can reach this override.", p.span,
                      notes=(Note("The overridden method is here:", p.overridden),) if p.overridden else (),
                      hint="an override must accept every argument the method it overrides accepts")


def _override_less_general(p: P.OverrideLessGeneral):
    return Diagnostic("override less general", f"{named(p.method)} overrides {named(p.whose)}, whose type is `{p.theirs}`, but its "
                      f"own type is only `{p.mine}`. A send typed against the overridden method can reach this "
                      "override and get an answer of a type it did not expect.", p.span,
                      notes=(Note("The overridden method is here:", p.overridden),) if p.overridden else (),
                      hint=f"{named(p.whose)} answers any type (it never answers, e.g. it only raises): give it a default "
                           "answer of the type its overrides answer" if p.answers_anything else
                           "an override must work for every type the method it overrides works for; "
                           "give it another selector if it is more specific")


def _field_overrides_primitive(p: P.FieldOverridesPrimitive):
    f = p.field
    return Diagnostic("field overrides a method", f"`{p.class_name}` declares the field `{f}`, but `{f}` is a selector "
                      f"every `{p.owner}` understands, and a field would replace it.", p.span,
                      hint=f"name the field differently, e.g. `my{f[0].upper() + f[1:]}`")


def _field_less_general(p: P.FieldLessGeneral):
    return Diagnostic("override less general", f"The field `{p.field}` of `{p.class_name}` is read by the method "
                      f"`{p.field}`, which overrides {named(p.whose)}, whose type is `{p.theirs}`; a field holds one type per "
                      "program, so it is not that general.", p.span,
                      notes=(Note("The overridden method is here:", p.overridden),) if p.overridden else (),
                      hint="a field is a method answering its value; name it differently")


def _field_reader_less_general(p: P.FieldReaderLessGeneral):
    return Diagnostic("override less general", f"{named(p.method)} overrides the reader of the field `{p.field}` of "
                      f"`{p.owner}`, whose type is each instance's own (a type parameter), but it answers "
                      + (f"`{p.answer}`" if p.answer else "a value of one type for the whole program (another field's, say)")
                      + " whatever the instance holds.", p.span,
                      notes=(Note("The field is declared here:", p.declared),) if p.declared else (),
                      hint="a field is a method answering its value; name the method differently")


def _field_reader_with_arguments(p: P.FieldReaderWithArguments):
    return Diagnostic("incompatible override", f"{named(p.method)} has the name of the field `{p.field}` of `{p.owner}` plus "
                      "arguments; the field's reader takes none.", p.span)


def _built_in_selector(p: P.BuiltInSelector):
    sel, c = p.selector, p.class_name
    if p.kind == "class":
        msg = f"`{c} class >> {sel}` would redefine `{sel}`, which every class understands and which the checker " \
              "types by a rule of its own."
    elif p.kind == "with":
        msg = "`with:` is the built-in copy of an instance with some fields replaced (`p with: { x: 3 }`), which " \
              f"the checker types by a rule of its own; `{c} >> with:` would replace it for instances with fields."
    elif p.kind == "primitive":
        msg = f"`{sel}` is a primitive of `{c}` that the compiler and the checker rely on; `{c} >> {sel}` cannot " \
              "redefine it."
    else:
        msg = f"`{sel}` is part of the `Reason` protocol, and an actor's exit reason is a Symbol or an Error at run " \
              f"time: `{c} >> {sel}` would change what every reason answers."
    return Diagnostic("built-in selector", msg, p.span, hint="give your method a selector of its own")


def _object_method_over_primitive(p: P.ObjectMethodOverPrimitive):
    who = f"`{p.owner}`, whose" if p.owner else "every class, whose"
    return Diagnostic("built-in selector", f"`Object >> {p.selector}` is inherited by {who} own `{p.selector}` is a "
                      "primitive typed by a rule of its own, so a send typed against "
                      f"`Object >> {p.selector}` could reach it.", p.span, hint="give your method a selector of its own")


def _object_method_over_library(p: P.ObjectMethodOverLibrary):
    sel = p.selector
    every = f"every `{p.owner}`" if p.instances else f"`{p.owner}`" if p.owner else "every class"
    whose = f"`{p.owner}`'s" if p.owner else "a class's"
    return Diagnostic("incompatible override", f"`Object >> {sel}` has the type `{p.mine}`, but {every} inherits it "
                      f"and overrides it with the library's `{sel}`, of type `{p.library}`: a send typed against "
                      f"`Object >> {sel}` can reach {whose} and get an answer of a type it did not expect.", p.span,
                      hint="give your method a selector of its own, or the library method's type")


def _runtime_message_to_plain_receive(p: P.RuntimeMessageToPlainReceive):
    m = p.message
    return Diagnostic("runtime message to a plain receive", f"After `{p.selector}`, the run time delivers `{m}` "
                      f"messages to this actor, and it takes its messages with a plain `receive`, which answers "
                      f"`{p.plain}` here: a plain `receive` could answer {'an' if m[0] in 'AEIOU' else 'a'} `{m}`.",
                      p.span, notes=(Note("The plain receive is here:", p.receive),),
                      hint=f"use `receive: {{ ... }}` with an entry `{m} -> [:d | ...]` next to the others")


def _inherited_constructor(p: P.InheritedConstructor):
    sel, cname, sub = p.selector, p.class_name, p.sub
    notes = (Note(f"`{sub}` is declared here:", p.declared),) if p.declared is not None else ()
    what = f"has fields of its own ({', '.join(p.sub_fields)}) that this would leave unset" if p.sub_fields \
        else f"defines its own `{sub} class >> {sel}`, which would run instead of the built-in `{sel}` this " \
             "send is typed by"
    if p.receiver is not None:
        return Diagnostic("inherited constructor", f"`{p.receiver} {sel}` in a class-side method of `{cname}` builds "
                          f"an instance of the class that receives the method, and `{sub}` inherits it but {what}.",
                          p.span, notes=notes,
                          hint=f"name the class (`{cname} {sel}{' ...' if sel.endswith(':') else ''}`), or give "
                               f"`{sub}` its own class-side method with another selector")
    return Diagnostic("inherited constructor", f"This sends `{sel}` to a class typed `{cname} class` that may be a "
                      f"subclass of `{cname}` at run time (it can come from a class-side `self`), and `{sub}` {what}.",
                      p.span, notes=notes, hint=f"send `{sel}` to the class by name (`{cname} {sel}`)")


def _internal_error(p: P.InternalError):
    message = {"program": f"The type checker failed ({p.detail}). This is a bug in LP.",
               "code": f"The type checker failed on this code ({p.detail}). This is a bug in LP.",
               "nesting": "This expression is nested too deeply for the checker.",
               "node": f"The checker does not know `{p.detail}` nodes."}[p.what]
    return Diagnostic("internal checker error", message, p.span)


def _return_outside_method(p: P.ReturnOutsideMethod):
    if p.in_actor:
        return Diagnostic("return outside a method", "`^` returns from a method, but this one is inside an "
                          "actor's body, which runs on its own: there is no method to return from.", p.span,
                          hint="let the actor's body end instead, or use `Actor exit: #normal`")
    return Diagnostic("return outside a method", "`^` returns from a method, but this statement is not inside "
                      "one.", p.span, hint="at the top level, just write the expression")


def _mixed_array(p: P.MixedArray):
    listing = ", ".join(f"`{k}`" for k in p.kinds)
    return Diagnostic("type mismatch", f"This array's elements are of {len(p.kinds)} different types ({listing}), "
                      "but an array holds one type of element.", p.span,
                      notes=(Note(f"The first element that is not `{p.kinds[0]}` is here:", p.first_other),),
                      hint="an Array is homogeneous; to mix kinds of value, make them instances of one class")


def _self_outside_method(p: P.SelfOutsideMethod):
    if p.name == "super":
        return Diagnostic("super outside a method", "`super` only means something inside a method, where it is the "
                          "receiver with its selectors looked up from the method's superclass.", p.span)
    return Diagnostic("self outside a method", "`self` only means something inside a method, where it is the "
                      "receiver.", p.span)


def _remote_unknown_class(p: P.RemoteUnknownClass):
    if p.builtin:
        return Diagnostic("unknown class", f"`{p.name}` is a builtin class: a Remote proxy stands for an object of "
                          "a class the program declares.", p.span)
    return Diagnostic("unknown class", f"There is no class named `{p.name}` for this Remote proxy.", p.span,
                      hint=_near(p.near and "#" + p.near) or
                      "declare the class (its methods type the proxy's sends), or pass a non-literal class name "
                      "for an untyped (Dynamic) proxy")


def _unknown_variable(p: P.UnknownVariable):
    hint = _near(p.near) or \
        "variables are introduced with `name := value` before they are used"
    if p.field_of is not None:
        hint = f"`{p.name}` is a field of `{p.field_of}`: read it with `self {p.name}`"
    return Diagnostic("unknown variable", f"There is no variable named `{p.name}` here.", p.span, hint=hint)


def _receiver_clash(p: P.ReceiverClash):
    notes = (Note(f"`{p.owner} >> {p.selector}` is defined here:", p.defined),)
    if p.owner == "Object":
        return Diagnostic("type mismatch", f"`{p.owner} >> {p.selector}` sends `self` selectors that only "
                          f"`{p.needs}` understands, so it cannot run on this `{p.got}`.", p.span, notes=notes,
                          hint=f"define `{p.selector}` on the classes it is meant for instead of on `Object`")
    return Diagnostic("type mismatch", f"`{p.owner} >> {p.selector}` only works on `{p.needs}`, but this receiver "
                      f"is `{p.got}`.", p.span, notes=notes)


def _not_understood(p: P.NotUnderstood):
    notes = (Note(f"It is `{p.because[0]}` because of this:", p.because[1]),) if p.because else ()
    hint = _near(p.near)
    if p.instance_side:
        hint = f"`{p.selector}` is understood by instances of `{p.instance_side}`, not by the class itself"
    elif p.class_side == "Class":
        hint = f"`x class` answers a class known only as a class (an instance of a subclass answers its own " \
               f"class), so it takes only what every class understands; send `{p.selector}` to the class by name"
    elif p.class_side:
        hint = f"`{p.selector}` is a class-side method: send it to `{p.class_side}` itself"
    elif p.receiver == "Number" and p.side == "instance" and not hint:
        hint = "a `Number` is an Integer or a Float, known only at run time: it takes what both understand; " \
               "`asInteger` or `asFloat` makes it one of them"
    what = {"instance": f"`{p.receiver}`", "class": f"The class `{p.receiver}` (the class itself, not an instance)"
            }.get(p.side) or f"The {p.side} `{p.receiver}` (`{p.proxy}`)"
    return Diagnostic("unknown selector", f"{what} does not understand `{p.selector}`.", p.span, notes=notes,
                      hint=hint)


# ---- sends typed by rule ------------------------------------------------------------------------------

def _not_a_number(p: P.NotANumber):
    return Diagnostic("type mismatch", f"The argument of `{p.op}` is `{p.arg}`, but `{p.op}` on `{p.receiver}` "
                      "needs a number (`Integer` or `Float`).", p.span,
                      notes=(Note(f"It is `{p.arg}` because of this:", p.because),) if p.because else (),
                      hint="use `printString` to turn a number into a String, or `asInteger` for the reverse"
                      if p.string_plus else None)


def _on_do_needs_error_class(p: P.OnDoNeedsErrorClass):
    return Diagnostic("type mismatch", f"The first argument of `on:do:` must be an error class, like `Error` or a "
                      f"subclass of it, but this is `{p.found}`.", p.span,
                      notes=(Note(f"It is `{p.found}` because of this:", p.because),) if p.because else ())


def _served_as_another_class(p: P.ServedAsAnotherClass):
    if p.grain:
        msg = (f"This initial state is `{p.found}`, but the grain class is `{p.named}`, and a grain of `{p.named}` "
               f"is reached as one (`Remote at:for: #{p.named}`).")
        hint = f"start the grain with an instance of `{p.named}` (or of a subclass), or name the state's own class"
    else:
        msg = (f"This object is `{p.found}`, but it is registered as `#{p.named}`, and "
               f"`Remote at:for: #{p.named}` proxies type its answers as `{p.named}`'s.")
        hint = f"register an instance of `{p.named}` (or of a subclass), or name its own class"
    return Diagnostic("type mismatch", msg, p.span,
                      notes=(Note(f"It is `{p.found}` because of this:", p.because),) if p.because else (), hint=hint)


def _on_do_handler_class(p: P.OnDoHandlerClass):
    what = f"every `{p.caught}`, but its handler takes only `{p.takes}`, one kind of `{p.caught}`" if p.narrower \
        else f"`{p.caught}`, but its handler takes `{p.takes}`"
    return Diagnostic("type mismatch", f"This `on:do:` catches {what}.", p.span,
                      notes=(Note(f"The class caught is `{p.caught}` because of this:", p.because),) if p.because
                      else (),
                      hint=f"catch `{p.takes}` itself, or use in the handler only what every `{p.caught}` "
                      "understands")


def _mixed_numbers(p: P.MixedNumbers):
    return Diagnostic("type mismatch", f"The argument of `{p.op}` is `{p.arg}`, but `{p.op}` on `{p.receiver}` "
                      f"answers one of the two numbers unchanged, so both must be `{p.receiver}`.", p.span,
                      hint="convert one side first: `asFloat` or `rounded`")


ELEMENT_HINTS = {
    "sum": "an empty Array sums to the Integer 0; for Floats write `inject: 0.0 into: [:total :x | total + x]`",
    "max": "`max` compares the elements with `max:`, which only numbers understand",
    "min": "`min` compares the elements with `min:`, which only numbers understand",
    "asSortedArray": "to order other elements, pass the order: `sort: [:a :b | ...]`",
}


def _element_need(p: P.ElementNeed):
    quoted = [f"`{a}`" for a in p.allowed]
    names = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return Diagnostic("type mismatch", f"`{p.selector}` needs an Array of {names}, but this Array holds "
                      f"`{p.elements}`.", p.span, hint=ELEMENT_HINTS.get(p.selector))


def _block_arity(p: P.BlockArity):
    s = "s" if p.takes != 1 else ""
    value = "value" if p.takes == 0 else "value:" * p.takes
    return Diagnostic("wrong number of arguments", f"This block takes {p.takes} argument{s}, but `{p.selector}` "
                      f"passes {p.passed}.", p.span, hint=f"a block of {p.takes} argument{s} is run with `{value}`")


def _not_made_with_new(p: P.NotMadeWithNew):
    return Diagnostic("cannot instantiate", f"`{p.class_name}` instances are not made with `new`.", p.span,
                      hint={"Error": "raise an error with `Error raise: 'text'`, or build one with "
                                     "`Error fields: { message: 'text' }`"}.get(p.class_name))


def _declared(name, span):
    return (Note(f"`{name}` is declared here:", span),) if span else ()


def _placeholder(i: int) -> str:
    """a, b, ... z, then a2, b2, ...: names standing for values in an example."""
    return chr(ord('a') + i % 26) + (str(i // 26 + 1) if i >= 26 else "")


def _new_needs_fields(p: P.NewNeedsFields):
    listing = " ".join(p.fields)
    example = ". ".join(f"{f}: {_placeholder(i)}" for i, f in enumerate(f for f in p.fields if f != "reply"))
    return Diagnostic("missing fields", f"`{p.class_name}` has fields ({listing}), so `new` cannot build one: "
                      "every field needs a value.", p.span, notes=_declared(p.class_name, p.declared),
                      hint=f"write `{p.class_name} fields: {{ {example} }}`")


def _error_fields_by_text(p: P.ErrorFieldsByText):
    example = "message: 'text'. " + ". ".join(f"{f}: ..." for f in p.own)
    return Diagnostic("missing fields", f"`{p.class_name}` has fields ({' '.join(p.own)}) besides `message`, so "
                      f"`{p.selector}` cannot build one: every field needs a value.", p.span,
                      notes=_declared(p.class_name, p.declared),
                      hint=f"build it with every field and raise it: `({p.class_name} fields: {{ {example} }}) raise`")


def _with_needs_record(p: P.WithNeedsRecord):
    return Diagnostic("with needs a record", f"`with:` copies a `{p.class_name}` with the fields a record literal "
                      "names replaced, like `p with: { name: value }`, but its argument is not a record literal.",
                      p.span, hint="`{}` is an empty Array: to copy without a change, use the instance itself" if p.empty else None)


def _unknown_field(p: P.UnknownField):
    return Diagnostic("unknown field", f"`{p.class_name}` has no field named `{p.name}`. Its fields are: "
                      f"{', '.join(p.fields) if p.fields else '(none)'}.", p.span,
                      notes=_declared(p.class_name, p.declared), hint=_near(p.near))


def _missing_fields(p: P.MissingFields):
    s = "s" if len(p.missing) > 1 else ""
    return Diagnostic("missing fields", f"This `{p.class_name}` is built without the field{s} "
                      f"{', '.join('`' + m + '`' for m in p.missing)}: every field must be given a value"
                      + (" (except `reply`, which `ask:` fills)." if p.has_reply else "."), p.span,
                      notes=_declared(p.class_name, p.declared))


def _with_without_fields(p: P.WithWithoutFields):
    return Diagnostic("type mismatch", f"`with:` copies an instance with some fields replaced, but this is "
                      f"`{p.what}`, which has no fields.", p.span)


def _bad_reason_symbol(p: P.BadReasonSymbol):
    return Diagnostic("bad exit reason", f"`#{p.name}` is not an exit reason: a reason is `#normal`, `#killed`, "
                      "or an Error.", p.span, hint="to end with an error, pass one: `Error fields: { message: '...' }`")


# ---- traps ----------------------------------------------------------------------------------------------

REBIND_HINT = ("to add up values, use `inject:into:` (`sum := xs inject: 0 into: [:s :x | s + x]`); to loop "
               "with changing state, pass it as an argument (`Loop class >> count: i = i < 3 ifTrue: "
               "[Loop count: i + 1] ifFalse: [i]`)")


def _rebinding_in_block(p: P.RebindingInBlock):
    n = p.name
    return Diagnostic("rebinding in a block", f"`{n}` is bound outside this block, and bindings are immutable: "
                      f"`{n} := ...` here makes a new `{n}` that only this run of the block sees, so the outer "
                      f"`{n}` never changes.", p.span,
                      notes=(Note(f"The outer `{n}` is bound here:", p.outer),) if p.outer else (), hint=REBIND_HINT)


# how to keep the answer of each selector whose unused result is warned about (traps.py)
_UNUSED_EXAMPLES = {"at:put:": "d2 := d at: k put: v.", "removeKey:": "d2 := d removeKey: k.",
                    "copyWith:": "a2 := a copyWith: x.", ",": "s2 := s , t.", "with:": "p2 := p with: { x: 3 }."}


def _unused_result(p: P.UnusedResult):
    sel = p.selector
    what = "a new Dictionary" if sel in ("at:put:", "removeKey:") else "a new value"
    if p.in_cascade:
        msg = (f"`{sel}` answers {what} and changes nothing, but in a cascade every message goes to the first "
               "receiver, so this answer is thrown away.")
        hint = "chain the sends instead: `((d at: 1 put: 'a') at: 2 put: 'b')`, and bind the result"
    else:
        msg = f"`{sel}` answers {what} and changes nothing, but this statement throws that answer away."
        hint = f"bind the answer and use it: `{_UNUSED_EXAMPLES.get(sel, 'x2 := x ' + sel + ' y.')}`"
    return Diagnostic("warning: unused result", msg, p.span, severity="warning", hint=hint)


def _not_a_tail_call(p: P.NotATailCall):
    msg = (f"`{p.form}` answers nil whichever way it goes, so this call of `{p.method}` is not a tail call: each "
           "round keeps a frame, and a long-running loop ends in a stack overflow.")
    hint = f"give the form its other branch, `... {p.form} [...] {_OTHER_ARM[p.form]} [nil]`, to make the call a tail call"
    return Diagnostic("warning: not a tail call", msg, p.span, severity="warning", hint=hint)


_OTHER_ARM = {"ifTrue:": "ifFalse:", "ifFalse:": "ifTrue:", "ifNotNil:": "ifNil:", "ifPresent:": "ifAbsent:"}


# Kinds told in one sentence: kind -> (title, message, hint), the message and hint formatted with the
# problem's fields; a kind with a `near` field gets "did you mean" when there is a near name.
ONE_SENTENCE = {
    P.MethodOnUnknownClass: ("unknown class", "This method is defined on `{class_name}`, but there is no such class.",
                             None),
    P.UnknownKeyClass: ("unknown class", "This receive entry matches instances of `{class_name}`, but there is no "
                        "such class.", None),
    P.UnknownName: ("unknown class", "There is no class or variable named `{name}`.", None),
    P.NoSuperclass: ("no superclass", "`{class_name}` has no superclass for `super` to refer to.", None),
    P.ValueNotUnderstood: ("unknown selector", "This value does not understand `{selector}`.", None),
    P.NoClassUnderstands: ("unknown selector", "No class understands `{selector}`.", None),
    P.HandlerArity: ("wrong number of arguments", "A receive handler takes the message as its one argument (or "
                     "none), but this block takes {given}.", None),
    P.InternalSelector: ("internal selector", "`{class_name} {selector}` is internal to {module}: {why}.",
                         "{instead}"),
    P.NoFieldsToBuild: ("cannot instantiate", "`{class_name}` has no fields, so it cannot be built with `fields:`.",
                        None),
    P.FieldsNeedsRecord: ("fields needs a record", "`fields:` takes a record literal naming every field, like "
                          "`{class_name} fields: {{ name: value }}`.", None),
    P.RecordOutOfPlace: ("record out of place", "A record literal `{{ name: value }}` only builds instances: it is "
                         "the argument of `fields:` or `with:`.",
                         "write `Point fields: {{ x: 1. y: 2 }}` or `p with: {{ x: 3 }}`"),
    P.BadReasonType: ("bad exit reason", "An exit reason is `#normal`, `#killed`, or an Error, but this is `{what}`.",
                      None),
    P.RemoteNeedsModule: ("missing import", "A Remote proxy's calls are made by the Remote module.",
                          "add `Import module: #Remote.`"),
    P.ReliableUnknownMethod: ("unknown op", "`{class_name}` has no {role} `{selector}`: it names a one-argument "
                              "method of that class.", None),
    P.ReliableKernelMethod: ("kernel method", "`{selector}` is a method of the reliable kernel (ReliableHandler's, "
                             "or named `kernel...`), which is no {role}.", None),
    P.ReliableUnknownClass: ("unknown class", "This address names `{class_name}`, which is no reliable grain class "
                             "(a subclass of ReliableHandler) of the program.", None),
    P.ReliableBadAddress: ("bad address", "This address has no `/`: a reliable grain's address is `Class/id`.",
                           None),
    P.ReliableNotLiteral: ("op not literal", "A reliable call's {role} is a literal Symbol (`#take:`), so that the "
                           "checker finds and types its method.", None),
    P.SendThroughProxy: ("send to a proxied call's actor", "This message goes to the actor running a method "
                         "called through a {side} reference, which is an actor of the library (a grain's owner, a "
                         "Remote server's handler): it never receives the program's messages.",
                         "send to an actor of your own, or answer the value from the method"),
    P.ReceiveThroughProxy: ("receive in a proxied call", "This receive is in a method called through a {side} "
                            "reference, which runs in an actor of the library (a grain's owner, a Remote server's "
                            "handler) whose mailbox holds the library's own messages: the method cannot take "
                            "messages.",
                            "receive in an actor of your own and call it from the method with `ask:`"),
}


def _one_sentence(p):
    title, message, hint = ONE_SENTENCE[type(p)]
    fields = vars(p)
    return Diagnostic(title, message.format(**fields), p.span,
                      hint=hint.format(**fields) if hint else _near(getattr(p, "near", None)))


RENDER = {
    P.DuplicateMethod: _duplicate_method, P.SpawnArity: _spawn_arity, P.ReceiveNeedsTable: _receive_needs_table,
    P.UnreceivableKey: _unreceivable_key, P.BadReceiveKey: _bad_receive_key, P.AskWithoutReply: _ask_without_reply,
    P.NilReply: _nil_reply, P.SendToOpaqueActor: _send_to_opaque_actor, P.NotAccepted: _not_accepted,
    P.NeverReceives: _never_receives, P.ReceiveOnAnotherActor: _receive_on_another_actor,
    P.NarrowerOverride: _narrower_override, P.InheritedConstructor: _inherited_constructor, P.Mismatch: _mismatch,
    P.OverrideLessGeneral: _override_less_general, P.FieldOverridesPrimitive: _field_overrides_primitive,
    P.FieldLessGeneral: _field_less_general, P.FieldReaderWithArguments: _field_reader_with_arguments,
    P.FieldReaderLessGeneral: _field_reader_less_general,
    P.BuiltInSelector: _built_in_selector, P.ObjectMethodOverPrimitive: _object_method_over_primitive,
    P.ObjectMethodOverLibrary: _object_method_over_library,
    P.RuntimeMessageToPlainReceive: _runtime_message_to_plain_receive, P.InternalError: _internal_error,
    P.ReturnOutsideMethod: _return_outside_method, P.MixedArray: _mixed_array,
    P.EqualityBuiltIn: _equality_built_in, P.SelfOutsideMethod: _self_outside_method,
    P.RemoteUnknownClass: _remote_unknown_class, P.UnknownVariable: _unknown_variable,
    P.ReceiverClash: _receiver_clash, P.NotUnderstood: _not_understood, P.NotANumber: _not_a_number,
    P.MixedNumbers: _mixed_numbers, P.OnDoNeedsErrorClass: _on_do_needs_error_class, P.OnDoHandlerClass: _on_do_handler_class,
    P.ServedAsAnotherClass: _served_as_another_class, P.ElementNeed: _element_need, P.BlockArity: _block_arity,
    P.NotMadeWithNew: _not_made_with_new, P.NewNeedsFields: _new_needs_fields,
    P.ErrorFieldsByText: _error_fields_by_text, P.WithNeedsRecord: _with_needs_record,
    P.UnknownField: _unknown_field, P.MissingFields: _missing_fields, P.WithWithoutFields: _with_without_fields,
    P.BadReasonSymbol: _bad_reason_symbol, P.RebindingInBlock: _rebinding_in_block, P.UnusedResult: _unused_result, P.NotATailCall: _not_a_tail_call,
} | {kind: _one_sentence for kind in ONE_SENTENCE}


def render(problem) -> Diagnostic:
    return RENDER[type(problem)](problem)
