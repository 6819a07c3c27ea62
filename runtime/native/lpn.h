/* lpn.h — the C core of native LP binaries: values, counts, errors, primitives.
 *
 * The contract is docs/native.md. Every LP value is two words {cls, bits};
 * heap objects start with lpn_obj. Functions consume their lpn_value
 * arguments and return owned results unless marked "borrows". A primitive
 * that fails calls lpn_raise*() and returns LPN_UNWIND_VALUE.
 */
#ifndef LPN_H
#define LPN_H

#include <stddef.h>
#include <stdint.h>

typedef struct lpn_value { uint64_t cls; uint64_t bits; } lpn_value;

enum {
    LPN_NIL = 0, LPN_BOOL = 1, LPN_INT = 2, LPN_FLOAT = 3, LPN_CHAR = 4, LPN_SYMBOL = 5,
    LPN_CLASS = 6,   /* a class as a value: bits = its class id */
    LPN_UNWIND = 7,  /* return status: an error or ^ is unwinding (never a value) */
    LPN_FIRST_HEAP = 16,
    LPN_STRING = 16, LPN_ARRAY = 17, LPN_DICT = 18, LPN_INTERVAL = 19, LPN_ASSOC = 20,
    LPN_MAYBE = 21, LPN_BLOCK = 22, LPN_HOME = 23,
    LPN_BYTES = 27,  /* ByteArray (net_bytes.c): immutable binary data */
    LPN_FIRST_INST = 32  /* instances (lpn_inst): Object, Error, ..., user classes */
};

typedef struct lpn_obj { int32_t rc; uint32_t cls; } lpn_obj;
/* The only reference, owned by this thread (so it may be reused in place). A relaxed atomic load:
   a shared count is changed by other threads meanwhile (value.c). */
static inline int lpn_is_unique(lpn_obj *o) { return __atomic_load_n(&o->rc, __ATOMIC_RELAXED) == 1; }
typedef struct lpn_str { lpn_obj h; uint64_t len; uint64_t nchars; char data[]; } lpn_str;
typedef struct lpn_arr { lpn_obj h; uint64_t len; lpn_value item[]; } lpn_arr;
typedef struct lpn_assoc { lpn_obj h; lpn_value key, value; } lpn_assoc;
typedef struct lpn_maybe { lpn_obj h; uint64_t present; lpn_value value; } lpn_maybe;
typedef struct lpn_interval { lpn_obj h; int64_t start, stop, step; } lpn_interval;
typedef struct lpn_inst { lpn_obj h; uint64_t nfields; lpn_value field[]; } lpn_inst;
typedef struct lpn_home { lpn_obj h; uint64_t alive; void *owner; /* the actor running the method */ } lpn_home;
typedef struct lpn_block {
    lpn_obj h;
    void *code;
    lpn_home *home;
    uint32_t arity, ncap;
    lpn_value cap[];
} lpn_block;
typedef struct lpn_bytes { lpn_obj h; uint64_t len; unsigned char data[]; } lpn_bytes;
typedef struct lpn_symbol { const char *name; uint64_t len; } lpn_symbol;

/* A foreign instance (an Actor, a Future, a Promise, a reply address: actors.c) is an lpn_inst
   whose nfields is LPN_FOREIGN: it has no LP fields, and its ops say how to free, print and
   compare it. */
#define LPN_FOREIGN UINT64_MAX
typedef struct lpn_foreign lpn_foreign;
typedef struct lpn_foreign_ops {
    void (*fin)(lpn_foreign *f);                        /* release what it holds (not the cell) */
    int (*print)(lpn_foreign *f, char *buf, size_t cap); /* its printString */
    uint64_t (*identity)(lpn_foreign *f);               /* `=` and hashing compare this */
    int in_place;   /* the cell is part of another allocation: its last drop runs fin, never free */
} lpn_foreign_ops;
struct lpn_foreign { lpn_obj h; uint64_t nfields; const lpn_foreign_ops *ops; };
static inline int lpn_is_foreign(const lpn_obj *o) {
    return o->cls >= LPN_FIRST_INST && ((const lpn_foreign *)o)->nfields == LPN_FOREIGN;
}

/* What the compiled program tells the C core about itself (emitted by lp.compiler). */
typedef struct lpn_site { const char *where; const char *excerpt; } lpn_site;
typedef struct lpn_program {
    uint64_t nclasses;
    const char *const *class_names;    /* by class id */
    const uint64_t *superclass;        /* by class id; UINT64_MAX for Object */
    const uint64_t *nfields;           /* by class id */
    const char *const *const *field_names; /* by class id: its fields, superclass's first */
    const lpn_site *sites;
    uint64_t error_class;              /* the id of Error */
    /* a user printString / displayString override for v's class: the String, or cls 0 when none */
    lpn_value (*print_hook)(lpn_value v, int display);
    const lpn_symbol *const *symbols;  /* the program's symbol literals, interned at start */
    uint64_t nsymbols;
    const uint8_t *user_class;         /* by class id: 1 for a class the program declares (not the library's) */
    /* `Remote perform:on:withArguments:` (remote.c): the selectors of the program's own methods and
       fields, sorted; for each, the class ids that answer it with one of them (UINT64_MAX ends the
       list); and the call of selector number i on obj with the items of the Array args (consumed) */
    const char *const *perform_names;
    const uint64_t *const *perform_classes;
    uint64_t nperform;
    lpn_value (*perform)(uint64_t i, lpn_value obj, lpn_value args);
    /* by class id * 2 + (1 on the class side): the public selectors it answers, NULL-ended, from which
       a "does not understand" report suggests the nearest (near.c; compiler/dnu_names.py) */
    const char *const *const *dnu_names;
} lpn_program;
extern const lpn_program lpn_prog;      /* generated */

#define LPN_UNWIND_VALUE ((lpn_value){LPN_UNWIND, 0})
#define LPN_NIL_VALUE ((lpn_value){LPN_NIL, 0})
static inline lpn_value lpn_int(int64_t n) { return (lpn_value){LPN_INT, (uint64_t)n}; }
static inline lpn_value lpn_bool(int b) { return (lpn_value){LPN_BOOL, (uint64_t)(b != 0)}; }
static inline int lpn_is_heap(lpn_value v) { return v.cls >= LPN_FIRST_HEAP; }
static inline lpn_obj *lpn_ptr(lpn_value v) { return (lpn_obj *)(uintptr_t)v.bits; }
static inline lpn_value lpn_ref(void *o) { return (lpn_value){((lpn_obj *)o)->cls, (uint64_t)(uintptr_t)o}; }
static inline double lpn_f(lpn_value v) { union { uint64_t u; double d; } x = {v.bits}; return x.d; }
static inline lpn_value lpn_float(double d) { union { double d; uint64_t u; } x = {d}; return (lpn_value){LPN_FLOAT, x.u}; }

/* ---- value.c: allocation and counts ---- */
void *lpn_alloc(uint32_t cls, size_t bytes);       /* rc 1; aborts with "out of memory" on failure */
void lpn_free(lpn_obj *o);                         /* drops the children, frees the cell */
void lpn_dup_obj(lpn_obj *o);                      /* out-of-line halves of dup/drop (heap only) */
void lpn_drop_obj(lpn_obj *o);
static inline void lpn_dup(lpn_value v) { if (lpn_is_heap(v)) lpn_dup_obj(lpn_ptr(v)); }
static inline void lpn_drop(lpn_value v) { if (lpn_is_heap(v)) lpn_drop_obj(lpn_ptr(v)); }
void lpn_share(lpn_value v);                       /* borrows: marks the graph shared (atomic counts) */
lpn_arr *lpn_arr_new(uint64_t len);                 /* items uninitialised: the caller fills them */
lpn_value lpn_assoc_new(lpn_value key, lpn_value value);
lpn_inst *lpn_inst_new(uint64_t cls, uint64_t nfields);     /* fields uninitialised: the caller fills them */
lpn_block *lpn_block_new(void *code, uint64_t arity, uint64_t ncap, lpn_home *home); /* consumes home */
lpn_home *lpn_home_new(void);
void lpn_home_end(lpn_home *h);                    /* the method returned: its blocks' ^ now raise; consumes */
lpn_inst *lpn_copy_instance(lpn_value v);          /* `with:`: a copy to update (v itself when unique) */
lpn_value lpn_with_named(lpn_value *a, const char *names, uint64_t n); /* `with:` by field names ("a b "), class unknown */
lpn_value lpn_new_instance(uint64_t cls);           /* `new`: every field nil (an Error's message: its class name) */
int lpn_is_kind_of(uint64_t cls, uint64_t ancestor);

/* ---- error.c: raising, unwinding, the uncaught report ---- */
enum { LPN_RAISING = 1, LPN_RETURNING = 2, LPN_EXITING = 3 /* `Actor exit:`: error holds the reason */,
       LPN_SIGNALLED = 4 /* an exit signal ends the actor where it stands: frames drop what they own, no
                            ensure: / ifCurtailed: block runs, nothing catches it; error holds the reason
                            of a signal sent to itself, nil when another actor killed it */ };
typedef struct lpn_ctx {
    int kind;
    lpn_value error;          /* RAISING */
    lpn_home *target;         /* RETURNING */
    lpn_value result;         /* RETURNING */
    struct { const char *fn; uint32_t site; } *trace;
    uint32_t ntrace, captrace;
    uint64_t caught;          /* the last error lpn_catch answered (its bits, only compared) */
    int64_t caught_site;      /* the site it was raised at, -1 when unknown */
} lpn_ctx;
/* The running actor's nested non-tail LP calls and the reductions it spent in this turn (method
   and block entries, loop back-edges), per domain thread; actors.c saves and restores both with
   lpn_cx around every switch. Two words, not one: a frame's epilogue stores the depth its prologue
   read, with no load, and only the reduction count is read and written at every entry
   (docs/native.md "Depth"). */
extern __thread uint64_t lpn_depth;
extern __thread uint64_t lpn_reductions;
extern int64_t lpn_depth_limit;   /* --stack-limit, at most LPN_MAX_STACK_LIMIT */
#define LPN_MAX_STACK_LIMIT 1000000000
/* the lowest stack address an LP prologue may start at (0: no check): set from the fiber's stack at
   its start (and from the deep stack while on it), saved and restored with lpn_depth; a prologue
   below it goes on on the deep stack or answers the stack overflow error (compiler/deep.py) */
extern __thread uint64_t lpn_stack_floor;
enum { LPN_ACTOR_STACK_KIB = 256, LPN_STACK_MARGIN_KIB = 64 /* left to C code below the last LP frame */ };
void lpn_stack_floor_set(size_t stack_bytes);   /* the running fiber has this much stack above here */
/* Deep stacks (actors.c): a spawned actor whose 256 KiB stack is full goes on on a stack as large as
   the main actor's (lpn_stack_bytes). lpn_stack_grow: 1 when the running actor can (a spawned actor
   not on it yet, which is then reserved); lpn_deep_call(fn, arg) then runs fn(arg) there.
   lpn_deep does both, or answers 0. C code that recurses checks lpn_stack_low at each level. */
int lpn_stack_grow(void);
void lpn_deep_call(void (*fn)(void *), void *arg);
int lpn_deep(void (*fn)(void *), void *arg);
int lpn_stack_large(void);   /* the main actor's stack, or a spawned actor's deep one */
size_t lpn_stack_bytes(void);
static inline int lpn_stack_low(void) { return (uint64_t)(uintptr_t)__builtin_frame_address(0) < lpn_stack_floor; }
extern __thread lpn_ctx lpn_cx;   /* the running actor's unwinding context */
int lpn_output_allowed(void);   /* actors.c: false for actors still running after the main actor ended */
lpn_value lpn_raise(const char *fmt, ...);          /* an Error with this message */
lpn_value lpn_raise_value(lpn_value err);           /* consumes err (an Error instance) */
lpn_value lpn_signalled(lpn_value reason);          /* ends the actor by an exit signal (LPN_SIGNALLED) */
lpn_value lpn_raise_new(uint64_t cls, lpn_value msg); /* `Cls raise: msg`; consumes msg */
lpn_value lpn_raise_expects(const char *sel, const char *what, lpn_value v); /* `#sel expects what, not <v described>`; consumes v */
lpn_value lpn_dynamic_mismatch(lpn_value v, const char *expected); /* `<v described> (a Dynamic value) is used where <expected> is expected`; consumes v */
lpn_value lpn_dynamic_items(lpn_value v, const uint64_t *ids, uint64_t n, const char *expected); /* borrows v, an Array: nil, or raises for an item of another class */
lpn_value lpn_stack_overflow(void);
lpn_value lpn_error_new(uint64_t cls, lpn_value msg); /* `Cls new: msg` (not raised); consumes msg */
lpn_value lpn_lib_op(lpn_value v, lpn_value a, lpn_value b, int op); /* lib.c: the smaller library selectors by code; op last: three values fill the six argument registers (x86-64 never splits a struct between registers and stack) */
void lpn_trace_push(const char *fn, uint32_t site);  /* the unwinding passes this frame */
/* The frame a send through a dispatch stub was made from when it was a tail call (the caller's frame
   is gone when the stub runs), NULL after a plain call, which records its own frame: set by the
   sender before every stub call; the stub records it when the send itself fails (not understood, or
   a primitive that calls no block raises), as `lp run` reports such an error in the sender's frame. */
typedef struct lpn_frame { const char *fn; uint32_t site; } lpn_frame;
extern __thread const lpn_frame *lpn_tail_frame;
void lpn_trace_frame(const lpn_frame *f);             /* lpn_trace_push of f, if not NULL */
lpn_value lpn_catch(uint64_t filter_cls);           /* the error being raised if it is a filter_cls, else UNWIND */
lpn_value lpn_raise_site_of(lpn_value err);         /* `Error raiseSiteOf:`: file:line:col if err is the last caught; borrows */
typedef struct lpn_saved lpn_saved;
lpn_saved *lpn_unwind_save(void);                   /* set aside the unwinding while a cleanup runs; NULL: no
                                                       cleanup runs (LPN_SIGNALLED), the unwinding goes on */
lpn_value lpn_unwind_restore(lpn_saved *s);         /* resume it (a cleanup's own raise replaces it) */
void lpn_unwind_discard(lpn_saved *s);
lpn_value lpn_nlr(lpn_value home, lpn_value v);     /* `^v` in a block; consumes both */
lpn_value lpn_nlr_take(lpn_home *home);             /* the ^ value if the unwinding returns to home, else UNWIND */
void lpn_report_uncaught(void);
lpn_value lpn_dnu(lpn_value recv, const char *selector); /* "X does not understand #sel"; consumes recv */
const char *lpn_near_selector(const char *selector, const char *const *names);  /* near.c: "did you mean" */
lpn_value lpn_unsupported(lpn_value recv, const char *selector);

/* ---- num.c ---- */
lpn_value lpn_int_overflow(const char *op, int64_t a, int64_t b);
lpn_value lpn_int_floordiv(int64_t a, int64_t b);
lpn_value lpn_int_mod(int64_t a, int64_t b);
lpn_value lpn_int_rem(int64_t a, int64_t b);
lpn_value lpn_int_quo(int64_t a, int64_t b);
lpn_value lpn_num_arith(int op, lpn_value a, lpn_value b); /* + - * / // \\ on any numbers; op is the char */
lpn_value lpn_num_compare(int op, lpn_value a, lpn_value b); /* '<' '>' 'l' (<=) 'g' (>=) */
int lpn_cmp_int_float(int64_t i, double f);   /* exact: -1, 0, 1, or 2 when f is NaN */
int lpn_num_equal(lpn_value a, lpn_value b);   /* two numbers, at least one a Float, by exact value */
lpn_value lpn_num_unary(int op, lpn_value a);       /* 'a' abs 'n' negated 'f' asFloat 's' sqrt 'q' squared */

/* ---- string.c ---- */
lpn_value lpn_str_new(const char *bytes, uint64_t len);
lpn_value lpn_str_concat(lpn_value a, lpn_value b);
lpn_value lpn_str_size(lpn_value s);
lpn_value lpn_symbol_value(const lpn_symbol *s);

/* ---- array.c ---- */
lpn_value lpn_arr_at(lpn_value a, lpn_value i);
lpn_value lpn_arr_at_put(lpn_value a, lpn_value i, lpn_value v);
lpn_value lpn_arr_size(lpn_value a);
lpn_value lpn_arr_with(lpn_value a, lpn_value v);
lpn_value lpn_arr_concat(lpn_value a, lpn_value b);
lpn_value lpn_arr_end(lpn_value a, int last);
lpn_value lpn_arr_index_of(lpn_value a, lpn_value v);
lpn_value lpn_arr_reversed(lpn_value a);
lpn_value lpn_arr_copy(lpn_value a, lpn_value from, lpn_value to, int check); /* copyFrom:to: (check 1), ranges */
lpn_value lpn_arr_new_with_all(lpn_value n, lpn_value v);
lpn_value lpn_take(lpn_value a, lpn_value n, int last);  /* first: / last: of an Array or String */
lpn_value lpn_arr_fold(int op, lpn_value a, lpn_value v);   /* 'o' occurrencesOf: 's' sum */
lpn_value lpn_interval_new(int64_t start, lpn_value stop, lpn_value step, const char *sel);
__int128 lpn_interval_size(const lpn_interval *v); /* up to 2^64 */
#define LPN_MAX_SIZE (1 << 28)   /* the most elements a primitive builds one collection of (lp run's MAX_SIZE) */
lpn_value lpn_interval_op(int op, lpn_value iv, lpn_value arg); /* s size e isEmpty n notEmpty f first l last a at: i includes: A asArray */
/* unicode.c: a code point's classes as Python's str methods see them (LPN_UNI_* bits), and its
   full upper or lower case mapping (1 to 3 code points in out; the count is answered) */
enum { LPN_UNI_ALPHA = 1, LPN_UNI_DIGIT = 2, LPN_UNI_SPACE = 4, LPN_UNI_UPPER = 8, LPN_UNI_LOWER = 16,
       LPN_UNI_CASED = 32, LPN_UNI_IGNORABLE = 64, LPN_UNI_LINEBREAK = 128 };
int lpn_uni_props(uint64_t c);
int lpn_uni_case(uint64_t c, int upper, uint32_t out[3]);

/* ---- dict.c: the persistent, insertion-ordered Dictionary ---- */
enum { LPN_DNODE = 24, LPN_DLEAF = 25, LPN_DCOLL = 26 };   /* its private cells */
uint64_t lpn_hash(lpn_value v);                     /* borrows; consistent with lpn_equal_b */
lpn_value lpn_dict_new(void);
lpn_value lpn_dict_at_put(lpn_value d, lpn_value k, lpn_value v); /* in place when d is unique */
lpn_value lpn_dict_at(lpn_value d, lpn_value k);
lpn_value lpn_dict_lookup(lpn_value d, lpn_value k); /* {LPN_UNWIND, 1} when absent, nothing raised */
lpn_value lpn_dict_includes_key(lpn_value d, lpn_value k);
lpn_value lpn_dict_remove(lpn_value d, lpn_value k);
lpn_value lpn_dict_size(lpn_value d);
lpn_value lpn_dict_list(int what, lpn_value d);     /* 'k' keys 'v' values 'a' associations, insertion order */
void lpn_dict_children(lpn_obj *o, void (*each)(lpn_value, void *), void *ud); /* borrows */
int lpn_dict_equal(lpn_value a, lpn_value b);       /* borrows */

/* ---- text.c ---- */
const lpn_symbol *lpn_intern(const char *name, uint64_t len);  /* the one symbol of that name */
lpn_value lpn_text_op(int op, lpn_value s, lpn_value arg);   /* String, Symbol, Character ops by code */
lpn_value lpn_str_copy(lpn_value s, lpn_value from, lpn_value to);
lpn_value lpn_int_as_char(int64_t v);

/* ---- misc.c ---- */
lpn_value lpn_maybe_new(int present, lpn_value v);   /* Maybe some: v / Maybe none */
lpn_value lpn_maybe_op(int op, lpn_value m, lpn_value arg);
lpn_value lpn_log(const char *level, lpn_value text); /* `level: text` on stderr */
lpn_value lpn_object_op(int op, lpn_value v, lpn_value arg);
/* responds.c: own[2 * class id + side] lists the selectors that class defines (" a b: "); consumes v and sel */
lpn_value lpn_responds_to(lpn_value v, lpn_value sel, const char *const *own, uint64_t object_id);
lpn_value lpn_int_op(int op, int64_t a, lpn_value b);
lpn_value lpn_float_op(int op, lpn_value v);
lpn_value lpn_raised_to(lpn_value a, lpn_value b);
lpn_value lpn_print_base(int64_t a, lpn_value base);
lpn_value lpn_block_check(lpn_value v, const char *sel); /* borrows: nil, or raises "#sel expects a Block" */

/* ---- equal.c ---- */
int lpn_equal_b(lpn_value a, lpn_value b);          /* borrows: structural equality */
lpn_value lpn_equal(lpn_value a, lpn_value b);
lpn_value lpn_identical(lpn_value a, lpn_value b);

/* ---- print.c ---- */
lpn_value lpn_print_string(lpn_value v);            /* the built-in printString, as a String */
lpn_value lpn_display_string(lpn_value v);
lpn_value lpn_json_encode(lpn_value v);             /* JSON encode: as lp run writes it */
lpn_value lpn_json_decode(lpn_value s);             /* json.c: JSON decode: as lp run reads it */
/* The one JSON form of LP values (docs/network.md "Values on the wire", docs/grains.md "The stored
   form"): JSON encode:'s plain JSON, Remote's tagged JSON, or a grain state's exact one. */
enum { LPN_JSON_PLAIN = 0, LPN_JSON_TAGGED = 1, LPN_JSON_EXACT = 2 };
lpn_value lpn_json_encode_as(lpn_value v, int mode);
/* json.c: s (a String, consumed) parsed: 0 with *out, or -1 with the failure's text in err,
   worded as Python's exception (python) or as JSON decode: words it */
int lpn_json_parse(lpn_value s, lpn_value *out, char *err, size_t cap, int python);
lpn_value lpn_json_untag(lpn_value v, int exact);   /* decoded JSON data as the values it tags; consumes v */
/* the same on the wire, a malformed tagged value raised by bad(its message) */
lpn_value lpn_json_untag_or(lpn_value v, lpn_value (*bad)(const char *text));
lpn_value lpn_describe(lpn_value v);              /* `the Integer 3`, `nil`, `a Point` (error messages); consumes v */
lpn_value lpn_transcript(lpn_value s, int newline); /* Transcript show: / showLine: ; answers nil */
void lpn_flush(void);
void lpn_flush_pending(void);                       /* flush stdout if it holds output: before an actor waits */

/* ---- actors.c (the generated code calls the rest of it through lp.compiler.actors) ---- */
/* Deterministic mode for a run (lprt_config's fields of the same names; all 0: off). */
typedef struct {
    int deterministic, faults, fault_rate;
    uint64_t seed, max_faults;
} lpn_sim;
int lpn_run_program(lpn_value (*main_fn)(void), int domains, int quiet, size_t main_stack,
                    const lpn_sim *sim); /* the exit status */
/* monitors.c: an actor's monitors, by the id of the actor watched (ids start at 1) */
typedef struct { struct { uint64_t id, ref; } *e; size_t n, cap; } lpn_monitors;
void lpn_monitors_put(lpn_monitors *m, uint64_t id, uint64_t ref);          /* replaces id's ref */
uint64_t lpn_monitors_take(lpn_monitors *m, uint64_t id, uint64_t ref);     /* removes id's entry (only
                                                       if its ref is `ref`, unless 0); answers its ref, or 0 */
void lpn_monitors_free(lpn_monitors *m);
int64_t lpn_preempt(void);                          /* the turn's reductions are spent: yield; 1: the actor was
                                                       killed meanwhile and unwinds (LPN_SIGNALLED) */

/* ---- actors.c, for waits made elsewhere (the network primitives) ---- */
struct lprt_actor;
struct lprt_actor *lpn_wait_begin(void);            /* the running actor, its per-thread state saved */
int lpn_wait_end(void);   /* restores it after the fiber resumed; nonzero: killed meanwhile (unwinding set) */
int64_t lpn_deadline_of(lpn_value ms, const char *what, int *bad); /* borrows ms; raises when not a number */
extern void (*lpn_abandoned_hook)(uint64_t actor_id); /* an actor ended without unwinding (killed) */
/* The durable grain the running actor owns (storage.c): NULL when none; setting one frees the one
   before, and free_fn(grain) runs when the actor ends. */
void *lpn_actor_grain(void);
void lpn_actor_set_grain(void *grain, void (*free_fn)(void *));

/* ---- observe.c: `--observe` (docs/observer.md); actors.c tells it what it keeps ---- */
extern int lpn_observing;                           /* the binary serves the observer */
typedef struct { uint64_t id; int32_t site; int hidden; } lpn_observed;   /* site -2: main */
size_t lpn_observe_actors(lpn_observed *out, size_t cap); /* actors.c: the live actors (count) */
void lpn_observe_hide_self(void);
const char *lpn_observe_message_class(void *msg);   /* under the actor's lock (lprt_mbox_peek_names) */
/* runtime/snapshot.c: lprt_mbox_peek naming each user message while the actor's lock keeps it
   alive: names[i] is name_of(value), NULL for the others (native only: not in lprt.h's cdef). */
int lprt_mbox_peek_names(struct lprt *rt, uint64_t id, int *kinds, const char **names, int cap,
                         const char *(*name_of)(void *value));
void lpn_observe_death(uint64_t id, int32_t spawn_site, const char *why, const char *where);
void lpn_observe_ended(uint64_t id);
int lpn_observe_setup(const char *prog, const char *address); /* main.c: --observe [HOST:]PORT; 0 or exit status */

/* ---- net_bytes.c ---- */
lpn_value lpn_bytes_new(const void *data, uint64_t len);
int lpn_utf8_valid(const char *p, uint64_t n);      /* strict, as Python's decoder */

/* ---- instances ---- */
lpn_value lpn_field_missing(uint64_t cls, const char *name);

#endif
