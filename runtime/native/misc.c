/* misc.c — Maybe, Log, class queries and the smaller Integer / Float primitives. */
#include <math.h>
#include <stdio.h>

#include "lpn.h"

typedef lpn_maybe maybe;

lpn_value lpn_maybe_new(int present, lpn_value v) {
    maybe *m = lpn_alloc(LPN_MAYBE, sizeof(maybe));
    m->present = (uint64_t)present;
    m->value = present ? v : LPN_NIL_VALUE;
    return lpn_ref(m);
}

/* 'v' value, 'o' valueOr: arg, 's' isSome/isPresent, 'n' isNone; consumes m and arg. */
lpn_value lpn_maybe_op(int op, lpn_value mv, lpn_value arg) {
    maybe *m = (maybe *)lpn_ptr(mv);
    lpn_value r;
    switch (op) {
    case 'v':
        if (!m->present) { r = lpn_raise("#value of Maybe none"); break; }
        r = m->value; lpn_dup(r); break;
    case 'o':
        if (m->present) { r = m->value; lpn_dup(r); } else { r = arg; lpn_dup(arg); }
        break;
    case 's': r = lpn_bool(m->present != 0); break;
    case 'n': r = lpn_bool(m->present == 0); break;
    default: r = lpn_raise("unknown Maybe operation");
    }
    lpn_drop(mv);
    lpn_drop(arg);
    return r;
}

lpn_value lpn_log(const char *level, lpn_value text) {
    lpn_flush();
    if (text.cls == LPN_STRING) fprintf(stderr, "%s: %s\n", level, ((lpn_str *)lpn_ptr(text))->data);
    fflush(stderr);
    lpn_drop(text);
    return LPN_NIL_VALUE;
}

/* 'c' class, 'k' isKindOf: arg, 'S' isString, 'N' isNumber, 'Y' isSymbol; consumes v and arg. */
lpn_value lpn_object_op(int op, lpn_value v, lpn_value arg) {
    lpn_value r;
    switch (op) {
    case 'c': r = v.cls == LPN_CLASS ? v : (lpn_value){LPN_CLASS, v.cls}; break;
    case 'k': /* a class value's class is itself, as in the interpreter (`P class` is P) */
        r = lpn_bool(arg.cls == LPN_CLASS && lpn_is_kind_of(v.cls == LPN_CLASS ? v.bits : v.cls, arg.bits));
        break;
    case 'S': r = lpn_bool(v.cls == LPN_STRING); break;
    case 'N': r = lpn_bool(v.cls == LPN_INT || v.cls == LPN_FLOAT); break;
    case 'Y': r = lpn_bool(v.cls == LPN_SYMBOL); break;
    default: r = lpn_raise("unknown Object operation");
    }
    lpn_drop(v);
    lpn_drop(arg);
    return r;
}

static lpn_value not_integer(const char *sel, lpn_value b) { return lpn_raise_expects(sel, "an Integer", b); }

/* Integer ops with an argument: '&' bitAnd: '|' bitOr: '^' bitXor: 'g' gcd: 'p' raisedTo: (Integer power). */
lpn_value lpn_int_op(int op, int64_t a, lpn_value b) {
    static const char *names[128] = {['&'] = "bitAnd:", ['|'] = "bitOr:", ['^'] = "bitXor:", ['g'] = "gcd:"};
    if (b.cls != LPN_INT) {
        lpn_value e = not_integer(op < 128 && names[op] ? names[op] : "?", b);
        lpn_drop(b);
        return e;
    }
    int64_t y = (int64_t)b.bits;
    switch (op) {
    case '&': return lpn_int(a & y);
    case '|': return lpn_int(a | y);
    case '^': return lpn_int(a ^ y);
    case 'g': {
        uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, z = y < 0 ? -(uint64_t)y : (uint64_t)y;
        while (z) { uint64_t t = x % z; x = z; z = t; }
        if (x > (uint64_t)INT64_MAX) return lpn_int_overflow("gcd:", a, y);
        return lpn_int((int64_t)x);
    }
    }
    return lpn_raise("unknown Integer operation");
}

/* Float → Integer: 't' truncated 'r' rounded 'f' floor 'c' ceiling; 'n' isNaN. */
lpn_value lpn_float_op(int op, lpn_value v) {
    if (v.cls == LPN_INT) return op == 'n' ? lpn_bool(0) : v;
    double d = lpn_f(v);
    if (op == 'n') return lpn_bool(isnan(d));
    if (isnan(d) || isinf(d)) {
        lpn_value t = lpn_print_string(v);
        lpn_value e = lpn_raise("%s has no integer value", ((lpn_str *)lpn_ptr(t))->data);
        lpn_drop(t);
        return e;
    }
    /* rounded: half up, computed exactly (d - floor(d) is exact; d + 0.5 is not) */
    double r = op == 't' ? trunc(d) : op == 'r' ? (d - floor(d) >= 0.5 ? floor(d) + 1 : floor(d)) : op == 'f' ? floor(d) : ceil(d);
    if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) {
        lpn_value t = lpn_print_string(v);
        lpn_value e = lpn_raise("integer overflow: %s as Integer does not fit in 64 bits", ((lpn_str *)lpn_ptr(t))->data);
        lpn_drop(t);
        return e;
    }
    return lpn_int((int64_t)r);
}

/* raisedTo: as in lp run: Integer powers exact (overflow is an error), others through pow. */
lpn_value lpn_raised_to(lpn_value a, lpn_value b) {
    if (b.cls != LPN_INT && b.cls != LPN_FLOAT) return lpn_raise_expects("raisedTo:", "a number", b);
    if (a.cls == LPN_INT && b.cls == LPN_INT) {
        int64_t x = (int64_t)a.bits, y = (int64_t)b.bits;
        if (y < 0)
            return lpn_raise("%lld raisedTo: %lld: an Integer power needs an exponent >= 0 (use asFloat for a fraction)",
                             (long long)x, (long long)y);
        if (y == 0) return lpn_int(1);
        if (x == 0 || x == 1) return lpn_int(x);
        if (x == -1) return lpn_int(y % 2 == 0 ? 1 : -1);
        int64_t r = 1;
        for (int64_t k = 0; k < y; k++)
            if (__builtin_mul_overflow(r, x, &r)) return lpn_int_overflow("raisedTo:", x, y);
        return lpn_int(r);
    }
    double x = a.cls == LPN_INT ? (double)(int64_t)a.bits : lpn_f(a);
    double y = b.cls == LPN_INT ? (double)(int64_t)b.bits : lpn_f(b);
    lpn_value ta = lpn_print_string(a), tb = lpn_print_string(b);
    const char *sa = ((lpn_str *)lpn_ptr(ta))->data, *sb = ((lpn_str *)lpn_ptr(tb))->data;
    lpn_value r;
    if (x < 0 && y != floor(y)) r = lpn_raise("%s raisedTo: %s is not a real number", sa, sb);
    else if (x == 0 && y < 0) r = lpn_raise("division by zero");
    else {
        double p = pow(x, y);
        if (isinf(p) && !isinf(x) && !isinf(y)) r = lpn_raise("float overflow: %s raisedTo: %s is too large", sa, sb);
        else r = lpn_float(p);
    }
    lpn_drop(ta);
    lpn_drop(tb);
    return r;
}

lpn_value lpn_print_base(int64_t a, lpn_value base) {
    if (base.cls != LPN_INT || (int64_t)base.bits < 2 || (int64_t)base.bits > 36) {
        lpn_value d = lpn_describe(base);
        lpn_value e = lpn_raise("printString: expects a base from 2 to 36, not %s", ((lpn_str *)lpn_ptr(d))->data);
        lpn_drop(d);
        return e;
    }
    uint64_t b = base.bits, n = a < 0 ? -(uint64_t)a : (uint64_t)a;
    char buf[72];
    int i = 71;
    buf[i] = 0;
    do { buf[--i] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % b]; n /= b; } while (n);
    if (a < 0) buf[--i] = '-';
    return lpn_str_new(buf + i, (uint64_t)(71 - i));
}

/* ifNil: and friends with a branch held in a variable: the interpreter's check (borrows v). */
lpn_value lpn_block_check(lpn_value v, const char *sel) {
    if (v.cls == LPN_BLOCK) return LPN_NIL_VALUE;
    lpn_dup(v);
    return lpn_raise_expects(sel, "a Block", v);
}
