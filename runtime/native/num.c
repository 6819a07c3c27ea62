/* num.c — Integer and Float arithmetic that is not inlined: overflow and division errors, mixed operands. */
#include <math.h>
#include <stdio.h>

#include "lpn.h"

static lpn_value text(lpn_value v) { return lpn_print_string(v); }
#define S(v) (((lpn_str *)lpn_ptr(v))->data)

static const char *opname(int op) {
    switch (op) {
    case '+': return "+"; case '-': return "-"; case '*': return "*"; case '/': return "/";
    case 'd': return "//"; case 'm': return "\\\\"; case 'r': return "rem:";
    }
    return "?";
}

lpn_value lpn_int_overflow(const char *op, int64_t a, int64_t b) {
    return lpn_raise("integer overflow: %lld %s %lld does not fit in 64 bits", (long long)a, op, (long long)b);
}

lpn_value lpn_int_floordiv(int64_t a, int64_t b) {
    if (b == 0) return lpn_raise("division by zero");
    if (a == INT64_MIN && b == -1) return lpn_int_overflow("//", a, b);
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return lpn_int(q);
}

lpn_value lpn_int_mod(int64_t a, int64_t b) {
    if (b == 0) return lpn_raise("division by zero");
    if (b == -1) return lpn_int(0);
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return lpn_int(r);
}

lpn_value lpn_int_rem(int64_t a, int64_t b) {
    if (b == 0) return lpn_raise("division by zero");
    if (b == -1) return lpn_int(0);
    return lpn_int(a % b);
}

lpn_value lpn_int_quo(int64_t a, int64_t b) {
    if (b == 0) return lpn_raise("division by zero");
    if (a == INT64_MIN && b == -1) return lpn_int_overflow("quo:", a, b);
    return lpn_int(a / b);
}

static int is_num(lpn_value v) { return v.cls == LPN_INT || v.cls == LPN_FLOAT; }
static double as_d(lpn_value v) { return v.cls == LPN_INT ? (double)(int64_t)v.bits : lpn_f(v); }

/* An Integer against a Float by exact value, as the interpreter (Python) compares them: -1, 0, 1,
   or 2 when f is NaN. Rounding i to a double is monotonic, so a strict answer on doubles is
   exact; only when they round equal is f integral and compared as an int64. */
int lpn_cmp_int_float(int64_t i, double f) {
    if (isnan(f)) return 2;
    double d = (double)i;
    if (d != f) return d < f ? -1 : 1;
    if (f >= 9223372036854775808.0) return -1;   /* 2^63: above every int64 */
    int64_t t = (int64_t)f;
    return i < t ? -1 : i > t;
}

/* a <op> b on two numbers, at least one a Float. */
static int float_compare(int op, lpn_value a, lpn_value b) {
    int c;
    if (a.cls == LPN_INT) {
        c = lpn_cmp_int_float((int64_t)a.bits, lpn_f(b));
    } else if (b.cls == LPN_INT) {
        c = lpn_cmp_int_float((int64_t)b.bits, lpn_f(a));
        if (c != 2) c = -c;
    } else {
        double x = lpn_f(a), y = lpn_f(b);
        c = isnan(x) || isnan(y) ? 2 : (x > y) - (x < y);
    }
    switch (op) {
    case '<': return c == -1;
    case '>': return c == 1;
    case 'l': return c == -1 || c == 0;
    case 'g': return c == 1 || c == 0;
    case '=': return c == 0;
    }
    return 0;
}

int lpn_num_equal(lpn_value a, lpn_value b) { return float_compare('=', a, b); }

static lpn_value not_number(int op, lpn_value b) { return lpn_raise_expects(opname(op), "a number", b); }

static lpn_value float_result(double r, lpn_value a, int op, lpn_value b) {
    if (isinf(r) && !isinf(as_d(a)) && !isinf(as_d(b))) {
        lpn_value ta = text(a), tb = text(b);
        lpn_value e = lpn_raise("float overflow: %s %s %s is too large", S(ta), opname(op), S(tb));
        lpn_drop(ta);
        lpn_drop(tb);
        return e;
    }
    return lpn_float(r);
}

lpn_value lpn_num_arith(int op, lpn_value a, lpn_value b) {
    if (!is_num(b)) return not_number(op, b);
    if (a.cls == LPN_INT && b.cls == LPN_INT) {
        int64_t x = (int64_t)a.bits, y = (int64_t)b.bits, r;
        switch (op) {
        case '+': if (__builtin_add_overflow(x, y, &r)) return lpn_int_overflow("+", x, y); return lpn_int(r);
        case '-': if (__builtin_sub_overflow(x, y, &r)) return lpn_int_overflow("-", x, y); return lpn_int(r);
        case '*': if (__builtin_mul_overflow(x, y, &r)) return lpn_int_overflow("*", x, y); return lpn_int(r);
        case '/': if (y == 0) return lpn_raise("division by zero"); return float_result((double)x / (double)y, a, op, b);
        case 'd': return lpn_int_floordiv(x, y);
        case 'm': return lpn_int_mod(x, y);
        case 'r': return lpn_int_rem(x, y);
        }
    }
    double x = as_d(a), y = as_d(b);
    switch (op) {
    case '+': return float_result(x + y, a, op, b);
    case '-': return float_result(x - y, a, op, b);
    case '*': return float_result(x * y, a, op, b);
    case '/': if (y == 0) return lpn_raise("division by zero"); return float_result(x / y, a, op, b);
    case 'd': if (y == 0) return lpn_raise("division by zero"); return float_result(floor(x / y), a, op, b);
    case 'm': {
        if (y == 0) return lpn_raise("division by zero");
        double r = fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        else if (r == 0) r = copysign(0.0, y);
        return lpn_float(r);
    }
    case 'r': if (y == 0) return lpn_raise("division by zero"); return lpn_float(isinf(x) ? NAN : fmod(x, y));
    }
    return lpn_raise("unknown arithmetic operator");
}

lpn_value lpn_num_compare(int op, lpn_value a, lpn_value b) {
    if (!is_num(b)) return not_number(op == 'l' ? '<' : op == 'g' ? '>' : op, b);
    if (a.cls == LPN_INT && b.cls == LPN_INT) {
        int64_t x = (int64_t)a.bits, y = (int64_t)b.bits;
        switch (op) { case '<': return lpn_bool(x < y); case '>': return lpn_bool(x > y);
                      case 'l': return lpn_bool(x <= y); case 'g': return lpn_bool(x >= y); }
    }
    return lpn_bool(float_compare(op, a, b));
}

lpn_value lpn_num_unary(int op, lpn_value a) {
    if (a.cls == LPN_INT) {
        int64_t x = (int64_t)a.bits;
        switch (op) {
        case 'a': if (x == INT64_MIN) return lpn_raise("integer overflow: abs of %lld does not fit in 64 bits", (long long)x);
                  return lpn_int(x < 0 ? -x : x);
        case 'n': if (x == INT64_MIN) return lpn_int_overflow("-", 0, x);
                  return lpn_int(-x);
        case 'f': return lpn_float((double)x);
        case 'q': { int64_t r; if (__builtin_mul_overflow(x, x, &r)) return lpn_int_overflow("*", x, x); return lpn_int(r); }
        case 's': if (x < 0) return lpn_raise("the square root of %lld is not a real number", (long long)x);
                  return lpn_float(sqrt((double)x));
        case 'i': return a;
        case 'z': return lpn_bool(x == 0);
        }
    }
    double x = lpn_f(a);
    switch (op) {
    case 'a': return lpn_float(fabs(x));
    case 'n': return lpn_float(-x);
    case 'f': return a;
    case 'q': return lpn_float(x * x);
    case 's': if (x < 0) { lpn_value t = text(a); lpn_value e = lpn_raise("the square root of %s is not a real number", S(t)); lpn_drop(t); return e; }
              return lpn_float(sqrt(x));
    case 'i': return lpn_float_op('t', a);
    case 'z': return lpn_bool(x == 0.0);
    }
    return lpn_raise("unknown numeric operation");
}
