/* error.c — raising LP errors, the unwinding state (errors and ^), and the uncaught-error report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lprt.h"
#include "lpn.h"

__thread lpn_ctx lpn_cx;
__thread uint64_t lpn_depth = 0;
__thread uint64_t lpn_reductions = 0;
__thread uint64_t lpn_stack_floor = 0;
int64_t lpn_depth_limit = 200000;

static lpn_value error_instance(uint64_t cls, lpn_value msg) {
    uint64_t n = lpn_prog.nfields[cls];
    lpn_inst *e = lpn_inst_new(cls, n);
    e->field[0] = msg;
    for (uint64_t i = 1; i < n; i++) e->field[i] = LPN_NIL_VALUE;
    return lpn_ref(e);
}

lpn_value lpn_error_new(uint64_t cls, lpn_value msg) { return error_instance(cls, msg); }

static int holds_error(int kind) { return kind == LPN_RAISING || kind == LPN_EXITING || kind == LPN_SIGNALLED; }

static void clear(void) {
    if (holds_error(lpn_cx.kind)) lpn_drop(lpn_cx.error);
    if (lpn_cx.kind == LPN_RETURNING) {
        lpn_drop(lpn_cx.result);
        lpn_drop(lpn_ref(lpn_cx.target));
    }
    lpn_cx.kind = 0;
    lpn_cx.ntrace = 0;
}

/* The running actor ends by an exit signal (LPN_SIGNALLED); consumes reason. */
lpn_value lpn_signalled(lpn_value reason) {
    clear();
    lpn_cx.kind = LPN_SIGNALLED;
    lpn_cx.error = reason;
    return LPN_UNWIND_VALUE;
}

lpn_value lpn_raise_value(lpn_value err) {
    clear();
    lpn_cx.kind = LPN_RAISING;
    lpn_cx.error = err;
    return LPN_UNWIND_VALUE;
}

lpn_value lpn_raise(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    return lpn_raise_value(error_instance(lpn_prog.error_class, lpn_str_new(buf, (uint64_t)n)));
}

lpn_value lpn_raise_new(uint64_t cls, lpn_value msg) {
    return lpn_raise_value(error_instance(cls, msg));
}

lpn_value lpn_raise_expects(const char *sel, const char *what, lpn_value v) {
    lpn_value d = lpn_describe(v);
    lpn_value e = lpn_raise("#%s expects %s, not %s", sel, what, ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    return e;
}

/* A Dynamic value reaching a place the checker typed with a known class is checked there
   (docs/native.md "Dynamic values"): `the String 's' (a Dynamic value) is used where an
   Integer is expected`. Consumes v. */
lpn_value lpn_dynamic_mismatch(lpn_value v, const char *expected) {
    lpn_value d = lpn_describe(v);
    lpn_value e = lpn_raise("%s (a Dynamic value) is used where %s is expected", ((lpn_str *)lpn_ptr(d))->data,
                            expected);
    lpn_drop(d);
    return e;
}

/* Each item of the Array v (borrowed) has one of the n class ids: answers nil, or raises as
   lpn_dynamic_mismatch for the first item that has not. */
lpn_value lpn_dynamic_items(lpn_value v, const uint64_t *ids, uint64_t n, const char *expected) {
    lpn_arr *a = (lpn_arr *)lpn_ptr(v);
    for (uint64_t k = 0; k < a->len; k++) {
        uint64_t i = 0;
        while (i < n && ids[i] != a->item[k].cls) i++;
        if (i == n) {
            lpn_dup(a->item[k]);
            return lpn_dynamic_mismatch(a->item[k], expected);
        }
    }
    return LPN_NIL_VALUE;
}

lpn_value lpn_stack_overflow(void) {
    int64_t depth = (int64_t)lpn_depth;
    if (depth <= lpn_depth_limit && !lpn_stack_large())   /* a deep stack could not be mapped */
        return lpn_raise("stack overflow: this actor's stack is full after %lld nested calls (%d KiB: no memory "
                         "for a larger one)", (long long)depth, LPN_ACTOR_STACK_KIB);
    if (depth <= lpn_depth_limit)   /* the prologue found the stack full first: frames of more than 512 bytes */
        return lpn_raise("stack overflow: this actor's stack is full after %lld nested calls (%zu MiB)",
                         (long long)depth, lpn_stack_bytes() >> 20);
    return lpn_raise("stack overflow: more than %lld nested calls (raise the limit with --stack-limit)",
                     (long long)lpn_depth_limit);
}

__thread const lpn_frame *lpn_tail_frame;

void lpn_trace_frame(const lpn_frame *f) {
    if (f != NULL) lpn_trace_push(f->fn, f->site);
}

void lpn_trace_push(const char *fn, uint32_t site) {
    if (lpn_cx.kind != LPN_RAISING) return;
    if (lpn_cx.ntrace == lpn_cx.captrace) {
        lpn_cx.captrace = lpn_cx.captrace ? lpn_cx.captrace * 2 : 16;
        lpn_cx.trace = realloc(lpn_cx.trace, lpn_cx.captrace * sizeof *lpn_cx.trace);
        if (!lpn_cx.trace) abort();
    }
    lpn_cx.trace[lpn_cx.ntrace].fn = fn;
    lpn_cx.trace[lpn_cx.ntrace].site = site;
    lpn_cx.ntrace++;
}

lpn_value lpn_catch(uint64_t filter_cls) {
    if (lpn_cx.kind != LPN_RAISING || !lpn_is_kind_of(lpn_cx.error.cls, filter_cls)) return LPN_UNWIND_VALUE;
    lpn_value e = lpn_cx.error;
    lpn_cx.kind = 0;
    lpn_cx.caught = e.bits;
    lpn_cx.caught_site = lpn_cx.ntrace ? (int64_t)lpn_cx.trace[0].site : -1;
    lpn_cx.ntrace = 0;
    return e;
}

/* The raise site of an error a handler holds: known for the one caught last in this actor (which the
   handler's error still alive keeps from being another object at the same address). */
lpn_value lpn_raise_site_of(lpn_value err) {
    const char *where = "";
    if (lpn_is_heap(err) && err.bits == lpn_cx.caught && lpn_cx.caught_site >= 0)
        where = lpn_prog.sites[lpn_cx.caught_site].where;
    return lpn_str_new(where, strlen(where));
}

struct lpn_saved {
    int kind;
    lpn_value error, result;
    lpn_home *target;
    void *trace;
    uint32_t ntrace, captrace;
};

lpn_saved *lpn_unwind_save(void) {
    if (lpn_cx.kind == LPN_SIGNALLED) return NULL;
    lpn_saved *s = malloc(sizeof *s);
    if (!s) abort();
    s->kind = lpn_cx.kind;
    s->error = lpn_cx.error;
    s->result = lpn_cx.result;
    s->target = lpn_cx.target;
    s->trace = lpn_cx.trace;
    s->ntrace = lpn_cx.ntrace;
    s->captrace = lpn_cx.captrace;
    lpn_cx.kind = 0;
    lpn_cx.trace = NULL;
    lpn_cx.ntrace = lpn_cx.captrace = 0;
    return s;
}

void lpn_unwind_discard(lpn_saved *s) {
    if (holds_error(s->kind)) lpn_drop(s->error);
    if (s->kind == LPN_RETURNING) {
        lpn_drop(s->result);
        lpn_drop(lpn_ref(s->target));
    }
    free(s->trace);
    free(s);
}

lpn_value lpn_unwind_restore(lpn_saved *s) {
    if (lpn_cx.kind) {   /* the cleanup raised: its error wins */
        lpn_unwind_discard(s);
        return LPN_UNWIND_VALUE;
    }
    free(lpn_cx.trace);
    lpn_cx.kind = s->kind;
    lpn_cx.error = s->error;
    lpn_cx.result = s->result;
    lpn_cx.target = s->target;
    lpn_cx.trace = s->trace;
    lpn_cx.ntrace = s->ntrace;
    lpn_cx.captrace = s->captrace;
    free(s);
    return LPN_UNWIND_VALUE;
}

lpn_value lpn_nlr(lpn_value home, lpn_value v) {
    lpn_home *h = (lpn_home *)lpn_ptr(home);
    if (h->owner != lprt_self()) {
        lpn_drop(home);
        lpn_drop(v);
        return lpn_raise("`^` in a block run by another actor: it can only return from a method of the actor "
                         "that created the block");
    }
    if (!h->alive) {
        lpn_drop(home);
        lpn_drop(v);
        return lpn_raise("`^` returns from a method that has already returned");
    }
    clear();
    lpn_cx.kind = LPN_RETURNING;
    lpn_cx.target = h;
    lpn_cx.result = v;
    return LPN_UNWIND_VALUE;
}

lpn_value lpn_nlr_take(lpn_home *home) {
    if (lpn_cx.kind != LPN_RETURNING || lpn_cx.target != home) return LPN_UNWIND_VALUE;
    lpn_value v = lpn_cx.result;
    lpn_drop(lpn_ref(lpn_cx.target));
    lpn_cx.kind = 0;
    return v;
}

static const char *class_name(uint64_t cls) {
    return cls < lpn_prog.nclasses && lpn_prog.class_names[cls] ? lpn_prog.class_names[cls] : "Object";
}

/* Runs of the same frame collapse; very long stacks are cut in the middle (lp/interp/interp.py). */
enum { TRACE_HEAD = 12, TRACE_TAIL = 4 };

void lpn_report_uncaught(void) {
    lpn_flush();
    if (lpn_cx.kind == LPN_RETURNING) {
        fputs("Error: `^` returns from a method that has already returned\n", stderr);
        return;
    }
    lpn_value err = lpn_cx.error;
    const char *name = class_name(err.cls);
    lpn_value msgv = err.cls >= LPN_FIRST_INST ? ((lpn_inst *)lpn_ptr(err))->field[0] : LPN_NIL_VALUE;
    lpn_value shown;
    if (msgv.cls == LPN_STRING) {
        lpn_dup(msgv);
        shown = msgv;
    } else {
        lpn_dup(msgv);
        shown = lpn_print_string(msgv);
    }
    const char *msg = shown.cls == LPN_STRING ? ((lpn_str *)lpn_ptr(shown))->data : "";
    uint32_t n = lpn_cx.ntrace;
    if (n == 0) {
        fprintf(stderr, "%s: %s\n", name, msg);
        lpn_drop(shown);
        return;
    }
    /* the innermost frame in the program's own files (lp/interp/interp.py headline_span) */
    const lpn_site *top = &lpn_prog.sites[lpn_cx.trace[0].site];
    for (uint32_t i = 0; i < n; i++) {
        const lpn_site *s = &lpn_prog.sites[lpn_cx.trace[i].site];
        if (strncmp(s->where, "stdlib/", 7) != 0) { top = s; break; }
    }
    fprintf(stderr, "%s: %s: %s\n", top->where, name, msg);
    fputs(top->excerpt, stderr);
    fputs("LP call stack (most recent call first):\n", stderr);
    /* collapse runs */
    uint32_t nruns = 0;
    uint32_t *start = malloc(n * sizeof *start), *count = malloc(n * sizeof *count);
    for (uint32_t i = 0; i < n; i++) {
        if (nruns && lpn_cx.trace[start[nruns - 1]].site == lpn_cx.trace[i].site &&
            strcmp(lpn_cx.trace[start[nruns - 1]].fn, lpn_cx.trace[i].fn) == 0) {
            count[nruns - 1]++;
        } else {
            start[nruns] = i;
            count[nruns] = 1;
            nruns++;
        }
    }
    for (uint32_t r = 0; r < nruns; r++) {
        if (nruns > TRACE_HEAD + TRACE_TAIL && r == TRACE_HEAD) {
            fprintf(stderr, "  ... %u more ...\n", nruns - TRACE_HEAD - TRACE_TAIL);
            r = nruns - TRACE_TAIL;
        }
        const char *fn = lpn_cx.trace[start[r]].fn;
        fprintf(stderr, "  %s  (%s)", fn, lpn_prog.sites[lpn_cx.trace[start[r]].site].where);
        if (count[r] > 1) fprintf(stderr, "  [%u times]", count[r]);
        fputc('\n', stderr);
    }
    free(start);
    free(count);
    lpn_drop(shown);
}

lpn_value lpn_dnu(lpn_value recv, const char *selector) {
    char what[128];
    uint64_t row = recv.cls == LPN_CLASS ? recv.bits * 2 + 1 : recv.cls * 2;
    const char *near = row < lpn_prog.nclasses * 2 ? lpn_near_selector(selector, lpn_prog.dnu_names[row]) : NULL;
    lpn_value d = lpn_describe(recv);
    snprintf(what, sizeof what, "%s", ((lpn_str *)lpn_ptr(d))->data);
    lpn_drop(d);
    if (near != NULL) return lpn_raise("%s does not understand #%s (did you mean #%s?)", what, selector, near);
    return lpn_raise("%s does not understand #%s", what, selector);
}

lpn_value lpn_unsupported(lpn_value recv, const char *selector) {
    uint64_t cls = recv.cls == LPN_CLASS ? recv.bits : recv.cls;
    lpn_drop(recv);
    return lpn_raise("the native compiler does not support #%s on %s%s yet", selector, class_name(cls),
                     recv.cls == LPN_CLASS ? " class" : "");
}
