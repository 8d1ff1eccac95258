/* jobs/compute.c: the compute family of the AIM7 job catalog. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "jobs/catalog.h"

/*
 * One op of each job here is the work of one reaim job of the same name:
 * the loop counts, the operations of one pass, the sizes of the data and
 * the starting values of reaim's add.c, mul.c, div.c, fun.c, int_fcns.c
 * and num_fcns.c (the values matter: they decide whether a division is by
 * 1 or a series meets denormals). An op's inner operations are what AIM9
 * counted for one job, in the unit it printed: 60000 "Thousand Integer
 * Additions" per add_int job. run() reports them as it goes, between 5
 * and 1000 times per op.
 */

#define STR_(x) #x
#define STR(x) STR_(x)

/* Every compute job but string_rtns and misc_rtns_1 stays in user space. */
static const struct job_syscall no_syscalls[] = { { NULL, 0, 0 } };

/*
 * The deviation of every floating-point job whose cost reaim's default
 * build changes: its -ffloat-store makes gcc store each floating-point
 * variable to memory and load it back. These jobs are built as LKP
 * builds AIM7 (gcc -O2, no such flag), and run at about that build's
 * rate.
 */
#define FLOAT_STORE "does reaim's arithmetic without the -ffloat-store " \
	"of reaim's default build, which on x86-64 changes no result but " \
	"stores every floating-point value and loads it back, which slows " \
	"reaim's job up to several times; LKP builds AIM7 without it"

/*
 * Makes v opaque: the compiler must assume the asm changed it, so it can
 * neither fold a chain of integer operations algebraically (x += y;
 * x += y into one lea) nor move work across this point.
 */
#define OPAQUE_INT(v) __asm__("" : "+r"(v))

/* IEEE floating point needs no such help: without -ffast-math the
 * compiler may not reassociate it, so every operation stays. */
#define OPAQUE_FP(v) do { } while (0)

/* The compiler must assume the memory p points to was changed here, so
 * that it cannot drop stores whose results nobody reads. */
#define CLOBBER(p) __asm__ __volatile__("" : : "r"(p) : "memory")

/* The callees of the fun_cal jobs are never inlined, and with noipa the
 * caller does not even know what they do, so every call really happens. */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define CALLEE __attribute__((noinline, noipa))
#endif
#endif
#ifndef CALLEE
#define CALLEE __attribute__((noinline))
#endif

/* A uniform double in [0, 1). */
static double rng_unit(uint64_t *s)
{
	return (double)(job_random(s) >> 11) * 0x1p-53;
}

static void sink_double(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	job_sink = bits;
}

/*
 * The arithmetic jobs (add_*, mul_*, div_*). A pass is 12 dependent
 * operations on three variables, x, a and b here, each result an operand
 * of a later one; the starting values keep them where they are, e.g. add
 * from (0, v, -v), mul from (1, v, 1 / v) or (v, 1, 1), div from
 * (1, 4, 0.25) or (v, 1, 1). They come from the state, so the compiler
 * does not know them. OPAQUE_INT after each operation keeps the
 * operations of a pass as written, whatever the compiler's flags.
 */
struct arith_state {
	double x, a, b;
	uint64_t *progress;
};

static int arith_init(const struct job_ctx *ctx, void **state, double x,
		      double a, double b)
{
	struct arith_state *st = JOB_STATE_NEW(ctx, struct arith_state);

	if (!st)
		return ENOMEM;
	st->x = x;
	st->a = a;
	st->b = b;
	*state = st;
	return 0;
}

/* One operation, then K (OPAQUE_INT or OPAQUE_FP) on its result. */
#define ARITH_OP(K, dst, op, src) do {					\
	dst op src;							\
	K(dst);								\
} while (0)

/* A pass: the operation op on twelve (dst, src) pairs, in order. */
#define ARITH_PASS(K, op, d1, s1, d2, s2, d3, s3, d4, s4, d5, s5,	\
		   d6, s6, d7, s7, d8, s8, d9, s9, d10, s10, d11, s11,	\
		   d12, s12) do {					\
	ARITH_OP(K, d1, op, s1);					\
	ARITH_OP(K, d2, op, s2);					\
	ARITH_OP(K, d3, op, s3);					\
	ARITH_OP(K, d4, op, s4);					\
	ARITH_OP(K, d5, op, s5);					\
	ARITH_OP(K, d6, op, s6);					\
	ARITH_OP(K, d7, op, s7);					\
	ARITH_OP(K, d8, op, s8);					\
	ARITH_OP(K, d9, op, s9);					\
	ARITH_OP(K, d10, op, s10);					\
	ARITH_OP(K, d11, op, s11);					\
	ARITH_OP(K, d12, op, s12);					\
} while (0)

/* add.c: the same pass for every type. mul.c makes it with *= for
 * floating point, and another for the integers, which all multiply by 1. */
#define XAB_PASS(K, op, x, a, b) ARITH_PASS(K, op,			\
	x, a,  a, b,  a, b,  b, x,  b, x,  x, a,			\
	x, a,  a, b,  a, b,  b, x,  b, x,  x, a)
#define ADD_PASS(K, x, a, b) XAB_PASS(K, +=, x, a, b)

/*
 * The integer add jobs' pass as reaim runs it: its default build (gcc -O)
 * makes each pair of additions of one value, y += z; y += z, one
 * y += 2 * z (a lea), so its add_int makes 7 dependent instructions of
 * a 12-addition pass, and users' add_int jobs/min from reaim and LKP
 * are of those 7. The values are the 12 additions' (integers wrap alike
 * either way), and the unit still counts 12 additions a pass, as AIM's.
 */
#define ADD_PAIRED_PASS(K, x, a, b) do {				\
	ARITH_OP(K, x, +=, a);						\
	ARITH_OP(K, a, +=, 2 * b);					\
	ARITH_OP(K, b, +=, 2 * x);					\
	ARITH_OP(K, x, +=, 2 * a);					\
	ARITH_OP(K, a, +=, 2 * b);					\
	ARITH_OP(K, b, +=, 2 * x);					\
	ARITH_OP(K, x, +=, a);						\
} while (0)
/* What the summary of an ADD_PAIRED_PASS job calls its operations. */
#define PAIRED_ADDITIONS "additions (each two of one value made one, as " \
	"reaim's gcc -O build makes them)"
#define MUL_FP_PASS(K, x, a, b) XAB_PASS(K, *=, x, a, b)
#define MUL_INT_PASS(K, x, a, b) ARITH_PASS(K, *=,			\
	x, a,  a, b,  a, b,  b, a,  b, a,  x, b,			\
	x, a,  a, b,  a, b,  b, a,  b, a,  x, b)

/* div.c: the same split. */
#define DIV_FP_PASS(K, x, a, b) ARITH_PASS(K, /=,			\
	x, a,  b, x,  a, b,  b, a,  x, b,  b, x,			\
	x, a,  b, x,  a, b,  b, a,  x, b,  b, x)
#define DIV_INT_PASS(K, x, a, b) ARITH_PASS(K, /=,			\
	x, a,  x, b,  a, b,  b, a,  x, a,  x, b,			\
	a, b,  b, a,  x, a,  x, b,  a, b,  b, a)

#define ARITH_OPS_PER_PASS 12

/*
 * The row of a compute job that makes no syscalls: what its inner op is
 * (`what`, as AIM9 printed it), how many one op makes, its summary and
 * deviation (or NULL), its init() and run().
 */
#define COMPUTE_JOB(id, what, inner, about, dev, init_fn, run_fn)	\
const struct job job_##id = {						\
	.name = #id,							\
	.family = "compute",						\
	.units = JOB_UNITS_AIM7,					\
	.unit = what,							\
	.inner_ops = inner,						\
	.summary = about,						\
	.syscalls = no_syscalls,					\
	.deviation = dev,						\
	.init = init_fn,						\
	.run = run_fn,							\
	.fini = free,							\
}

/*
 * One arithmetic job: its init(), run() and row. T is the C type computed
 * in, PASS and K the pass and how its results are kept, (x0, a0, b0) the
 * starting values, passes reaim's loop count; run() reports progress
 * every chunk passes, which must be whole thousands of operations. dev
 * is the row's deviation, or NULL.
 */

#define ARITH_JOB(id, T, PASS, K, x0, a0, b0, passes, chunk, ops, what, \
		  dev)							\
static int id##_init(const struct job_ctx *ctx, void **state)	\
{									\
	return arith_init(ctx, state, x0, a0, b0);			\
}									\
									\
static int id##_run(void *state)					\
{									\
	const struct arith_state *st = state;				\
	T x = (T)st->x, a = (T)st->a, b = (T)st->b;			\
									\
	for (unsigned long n = 0; n < (passes) / (chunk); n++) {	\
		for (unsigned int i = 0; i < (chunk); i++)		\
			PASS(K, x, a, b);				\
		job_progress(st->progress,				\
			     (chunk) * ARITH_OPS_PER_PASS / 1000);	\
	}								\
	sink_double((double)x + (double)a + (double)b);			\
	return 0;							\
}									\
									\
_Static_assert((passes) % (chunk) == 0 &&				\
	       (chunk) * ARITH_OPS_PER_PASS % 1000 == 0,		\
	       #id ": progress in whole thousands of operations");	\
									\
COMPUTE_JOB(id, "Thousand " what, (passes) * ARITH_OPS_PER_PASS / 1000,	\
	    STR(passes) " passes of 12 dependent " #T " " ops " from "	\
	    #x0 ", " #a0 ", " #b0, dev, id##_init, id##_run)

ARITH_JOB(add_short, short, ADD_PAIRED_PASS, OPAQUE_INT, 0, 3, -3, 2000000,
	  5000, PAIRED_ADDITIONS, "Short Integer Additions", NULL);
ARITH_JOB(add_int, int, ADD_PAIRED_PASS, OPAQUE_INT, 0, 3, -3, 5000000,
	  5000, PAIRED_ADDITIONS, "Integer Additions", NULL);
ARITH_JOB(add_long, long, ADD_PAIRED_PASS, OPAQUE_INT, 0, 3, -3, 5000000,
	  5000, PAIRED_ADDITIONS, "Long Integer Additions", NULL);
ARITH_JOB(add_float, float, ADD_PASS, OPAQUE_FP, 0, 3.5, -3.5, 1000000,
	  5000, "additions", "Single Precision Additions", FLOAT_STORE);
ARITH_JOB(add_double, double, ADD_PASS, OPAQUE_FP, 0, 3.14159, -3.14159,
	  1500000, 5000, "additions", "Double Precision Additions",
	  FLOAT_STORE);
ARITH_JOB(mul_short, short, MUL_INT_PASS, OPAQUE_INT, 1234, 1, 1, 25000,
	  250, "multiplies", "Short Integer Multiplies", NULL);
ARITH_JOB(mul_int, int, MUL_INT_PASS, OPAQUE_INT, 12345678, 1, 1, 20000,
	  250, "multiplies", "Integer Multiplies", NULL);
ARITH_JOB(mul_long, long, MUL_INT_PASS, OPAQUE_INT, 12345678, 1, 1, 20000,
	  250, "multiplies", "Long Integer Multiplies", NULL);
ARITH_JOB(mul_float, float, MUL_FP_PASS, OPAQUE_FP, 1, 4, 0.25, 1000000,
	  5000, "multiplies", "Single Precision Multiplies", FLOAT_STORE);
/* reaim prints 1 / 3.14159 with %g: 0.31831, not quite the inverse. */
ARITH_JOB(mul_double, double, MUL_FP_PASS, OPAQUE_FP, 1, 3.14159, 0.31831,
	  1000000, 5000, "multiplies", "Double Precision Multiplies",
	  FLOAT_STORE);
ARITH_JOB(div_short, short, DIV_INT_PASS, OPAQUE_INT, 1234, 1, 1, 75000,
	  250, "divides", "Short Integer Divides", NULL);
ARITH_JOB(div_int, int, DIV_INT_PASS, OPAQUE_INT, 1234578, 1, 1, 75000,
	  250, "divides", "Integer Divides", NULL);
ARITH_JOB(div_long, long, DIV_INT_PASS, OPAQUE_INT, 1234578, 1, 1, 75000,
	  250, "divides", "Long Integer Divides", NULL);
ARITH_JOB(div_float, float, DIV_FP_PASS, OPAQUE_FP, 1, 4, 0.25, 250000,
	  250, "divides", "Single Precision Divides", FLOAT_STORE);
ARITH_JOB(div_double, double, DIV_FP_PASS, OPAQUE_FP, 1, 4, 0.25, 250000,
	  250, "divides", "Double Precision Divides", FLOAT_STORE);

/*
 * fun_cal*: 512000 calls per op, through function pointers the compiler
 * cannot see through, as in reaim's fun.c: 1000 rounds of 32 x 16 calls
 * (fun_cal15: 1000 rounds of 512). Each callee adds to the caller's count
 * through pointers, as AIM's fcal* do; the pointers are thread-local so
 * that the users of threads mode keep apart. The callers sum what the
 * calls return, which AIM's drop: that also spaces out the 16 call sites,
 * whose time per call, packed densely, depends on the loop's alignment.
 */
#define FUN_ROUNDS		1000
#define FUN_CALLS_PER_ROUND	512

static __thread long *fun_count;
static __thread const int *fun_step;
static const int fun_one = 1;

static CALLEE int fun_call0(void)
{
	return (int)(*fun_count += *fun_step);
}

static CALLEE int fun_call1(int n)
{
	return (int)(*fun_count += n);
}

static CALLEE int fun_call2(int n, int i)
{
	return (int)(*fun_count += n + i);
}

static CALLEE int fun_call15(int i1, int i2, int i3, int i4, int i5, int i6,
			     int i7, int i8, int i9, int i10, int i11,
			     int i12, int i13, int i14, int i15)
{
	(void)i1, (void)i2, (void)i3, (void)i4, (void)i5, (void)i6;
	(void)i7, (void)i9, (void)i10, (void)i11, (void)i12, (void)i13;
	(void)i14;
	return (int)(*fun_count += i8 + i15);
}

struct fun_state {
	int (*call0)(void);
	int (*call1)(int);
	int (*call2)(int, int);
	int (*call15)(int, int, int, int, int, int, int, int, int, int, int,
		      int, int, int, int);
	uint64_t *progress;
};

/* init() runs in the user's own thread, which then runs the ops. */
static int fun_cal_init(const struct job_ctx *ctx, void **state)
{
	struct fun_state *st = JOB_STATE_NEW(ctx, struct fun_state);

	if (!st)
		return ENOMEM;
	st->call0 = fun_call0;
	st->call1 = fun_call1;
	st->call2 = fun_call2;
	st->call15 = fun_call15;
	fun_step = &fun_one;
	*state = st;
	return 0;
}

#define REPEAT4(s)	do { s; s; s; s; } while (0)
#define REPEAT16(s)	do { REPEAT4(s); REPEAT4(s); REPEAT4(s); REPEAT4(s); } \
			while (0)

#define FUN_SUMMED "sums what the calls return, which reaim drops: one " \
	"add per call, which keeps the cost of a call from varying with " \
	"the alignment of densely packed call sites"

/*
 * One fun_cal job: its run() and row. A round is ROUND: the round's calls
 * of `call`, the state's callee, each adding what it returns to sum; the
 * round counter is n. args says what the callee takes, in words.
 */
#define FUN_CAL_JOB(id, callee, args, ROUND)				\
static int id##_run(void *state)					\
{									\
	const struct fun_state *st = state;				\
	__typeof__(st->callee) call = st->callee;			\
	long count = 0, sum = 0;					\
									\
	fun_count = &count;						\
	for (int n = FUN_ROUNDS; n--;) {				\
		ROUND;							\
		job_progress(st->progress, FUN_CALLS_PER_ROUND);	\
	}								\
	job_sink = (uint64_t)(count + sum);				\
	return 0;							\
}									\
									\
COMPUTE_JOB(id, "Function Calls (" args ")",				\
	    FUN_ROUNDS * FUN_CALLS_PER_ROUND,				\
	    "512000 calls through a pointer of a function with " args,	\
	    FUN_SUMMED, fun_cal_init, id##_run)

FUN_CAL_JOB(fun_cal, call0, "no arguments",
	    for (int i = FUN_CALLS_PER_ROUND / 16; i--;)
		    REPEAT16(sum += call()));
FUN_CAL_JOB(fun_cal1, call1, "1 argument",
	    for (int i = FUN_CALLS_PER_ROUND / 16; i--;)
		    REPEAT16(sum += call(n)));
FUN_CAL_JOB(fun_cal2, call2, "2 arguments",
	    for (int i = FUN_CALLS_PER_ROUND / 16; i--;)
		    REPEAT16(sum += call(n, i)));
FUN_CAL_JOB(fun_cal15, call15, "15 arguments",
	    for (int i = FUN_CALLS_PER_ROUND; i--;)
		    sum += call(i, i, i, i, i, i, i, i, i, i, i, i, i, i, i));

/*
 * sieve: int_fcns.c sieves the numbers below 10^6 five times over, each
 * time crossing off every multiple (from 2n) of every n still standing;
 * 0 and 1 are never crossed off, so 78500 entries stand at the end. The
 * table stays allocated between ops, where reaim mallocs it per job:
 * glibc serves that from its heap after the first job anyway.
 */
#define SIEVE_SIZE	1000000
#define SIEVE_PASSES	5
#define SIEVE_STANDING	78500	/* the 78498 primes, 0 and 1 */

struct sieve_state {
	uint64_t *progress;
	unsigned char table[SIEVE_SIZE];
};

static int sieve_init(const struct job_ctx *ctx, void **state)
{
	*state = JOB_STATE_NEW(ctx, struct sieve_state);
	return *state ? 0 : ENOMEM;
}

static int sieve_run(void *state)
{
	struct sieve_state *st = state;
	unsigned char *t = st->table;
	unsigned int standing = 0;

	for (int pass = 0; pass < SIEVE_PASSES; pass++) {
		memset(t, 1, SIEVE_SIZE);
		for (int n = 2; n < SIEVE_SIZE; n++) {
			if (!t[n])
				continue;
			for (int i = n + n; i < SIEVE_SIZE; i += n)
				t[i] = 0;
		}
		CLOBBER(t);
		job_progress(st->progress, 1);
	}
	for (int n = 0; n < SIEVE_SIZE; n++)
		standing += t[n];
	job_sink = standing;
	return standing == SIEVE_STANDING ? 0 : EDOM;
}

/*
 * The arguments of num_rtns_1 and trig_rtns: num_fcns.c draws them in
 * turn from 10000 values, uniform in [-10, 10] but every 100th the
 * smallest positive double, "troublesome to some machines". The uniform
 * ones come from the user's seed here, from rand() in reaim.
 */
#define ARG_VALUES	10000

struct arg_state {
	uint64_t *progress;
	unsigned int next;
	struct random_data rand;	/* num_rtns_1's srand() and rand() */
	char rand_state[128];		/* glibc's TYPE_3, as rand()'s own */
	double v[ARG_VALUES];
};

static int arg_init(const struct job_ctx *ctx, void **state)
{
	struct arg_state *st = JOB_STATE_NEW(ctx, struct arg_state);
	uint64_t rng = ctx->seed;

	if (!st)
		return ENOMEM;
	for (int i = 0; i < ARG_VALUES; i++)
		st->v[i] = i % 100 ? 20.0 * rng_unit(&rng) - 10.0 :
				     DBL_TRUE_MIN;
	if (initstate_r(1, st->rand_state, sizeof(st->rand_state),
			&st->rand)) {
		free(st);
		return EINVAL;
	}
	*state = st;
	return 0;
}

/* The next argument; a function, so that two in one expression are
 * sequenced. POS is in [0.0001, 20], NEG in [-20, -0.0001]. */
static double arg_next(struct arg_state *st)
{
	return st->v[st->next++ % ARG_VALUES];
}

#define ARG(st)	arg_next(st)
#define POS(st)	(arg_next(st) + 10.0001)
#define NEG(st)	(arg_next(st) - 10.0001)

/*
 * num_rtns_1: 100 passes of floor, exp, ceil, log10, modf, log, frexp,
 * ldexp, fmod, fabs, sqrt and pow, then srand() with the exponent frexp
 * found and one rand(). srand() is most of the work: glibc's seeds 31
 * words and then discards 310 numbers. A user's own random_data, for
 * glibc's algorithm without its lock, shared by the users of threads mode.
 */
#define NUM_PASSES	100

static int num_rtns_run(void *state)
{
	struct arg_state *st = state;
	double acc = 0.0, ipart;
	int32_t r;
	int e;

	for (int n = 0; n < NUM_PASSES; n++) {
		acc += floor(exp(ARG(st))) + ceil(log10(POS(st)));
		acc += modf(log(POS(st)), &ipart) + frexp(NEG(st), &e);
		acc += ldexp(ARG(st), abs(-e)) +
		       fabs(fmod(ARG(st) * 5, POS(st)));
		acc += sqrt(pow(POS(st), ARG(st)));
		srandom_r((unsigned int)e, &st->rand);
		random_r(&st->rand, &r);
		acc += (double)labs((long)(-r + n));
		job_progress(st->progress, 1);
	}
	sink_double(acc + ipart);
	return 0;
}

/*
 * trig_rtns: 10000 passes of acos(cos(asin(sin(x)))), tanh(atan(tan(y)))
 * and atan2(sinh(z), cosh(w)): 11 functions of 4 arguments.
 */
#define TRIG_PASSES	10000
#define TRIG_CHUNK	100	/* passes per progress report */

static int trig_rtns_run(void *state)
{
	struct arg_state *st = state;
	double acc = 0.0;

	for (int n = 0; n < TRIG_PASSES / TRIG_CHUNK; n++) {
		for (int i = 0; i < TRIG_CHUNK; i++) {
			acc += acos(cos(asin(sin(ARG(st)))));
			acc += tanh(atan(tan(ARG(st))));
			acc += atan2(sinh(ARG(st)), cosh(ARG(st)));
		}
		job_progress(st->progress, TRIG_CHUNK);
	}
	sink_double(acc);
	return 0;
}

/*
 * new_raph: the zeros of f(x) = 1000 sin(x) cos(x) that Newton-Raphson
 * finds from x = 0, 0.05, ..., 9.95, each to 1e-12 within 100 tries. The
 * starts are the same for every op; the step comes from the state so that
 * the compiler does not know them.
 */
#define RAPH_ZEROS	200
#define RAPH_TRIES	100

struct raph_state {
	uint64_t *progress;
	double step;
};

static int raph_init(const struct job_ctx *ctx, void **state)
{
	struct raph_state *st = JOB_STATE_NEW(ctx, struct raph_state);

	if (!st)
		return ENOMEM;
	st->step = 0.05;
	*state = st;
	return 0;
}

static double raph_f(double x)
{
	return 1000.0 * sin(x) * cos(x);
}

static double raph_slope(double x)
{
	double c = cos(x), s = sin(x);

	return -(s * s * 1000.0) + c * c * 1000.0;
}

static int raph_run(void *state)
{
	const struct raph_state *st = state;
	double acc = 0.0;

	for (int n = 0; n < RAPH_ZEROS; n++) {
		double p0 = st->step * (double)n, p = p0;
		int tries;

		for (tries = 1; tries < RAPH_TRIES; tries++) {
			p = p0 - raph_f(p0) / raph_slope(p0);
			if (fabs(p - p0) < 1e-12)
				break;
			p0 = p;
		}
		if (tries >= RAPH_TRIES)
			return EDOM;
		acc += p;
		job_progress(st->progress, 1);
	}
	sink_double(acc);
	return 0;
}

/*
 * The inputs of series_1 and matrix_rtns: num_fcns.c draws them in turn
 * from 500 values, 0, 1, the smallest positive double, then each half the
 * difference of the two before it, from 0.5 down to about 1e-150.
 */
#define SMALL_VALUES	500

struct small_state {
	uint64_t *progress;
	unsigned int next;
	double v[SMALL_VALUES];
};

static int small_init(const struct job_ctx *ctx, void **state)
{
	struct small_state *st = JOB_STATE_NEW(ctx, struct small_state);

	if (!st)
		return ENOMEM;
	st->v[0] = 0.0;
	st->v[1] = 1.0;
	st->v[2] = DBL_TRUE_MIN;
	for (int i = 3; i < SMALL_VALUES; i++)
		st->v[i] = fabs(st->v[i - 2] - st->v[i - 1]) / 2.0;
	*state = st;
	return 0;
}

static double small_next(struct small_state *st)
{
	return st->v[st->next++ % SMALL_VALUES];
}

/*
 * series_1: 100 sines summed from their Taylor series until a term no
 * longer changes the sum, each checked against sin(). The powers of the
 * small inputs become denormal, as AIM meant them to.
 */
#define SERIES_EVALS	100

static int series_run(void *state)
{
	struct small_state *st = state;
	double acc = 0.0;

	for (int n = 0; n < SERIES_EVALS; n++) {
		double x = small_next(st), power = x, x2 = x * x;
		double old = 100.0, sine = 0.0, fact = 1.0, i = 1.0;

		while (sine != old) {
			old = sine;
			sine += power / fact;
			fact *= (i + 1) * (i + 2);
			i += 2;
			power *= -x2;
		}
		if (fabs(sine - sin(x)) > 0.0001)
			return EDOM;
		acc += sine;
		job_progress(st->progress, 1);
	}
	sink_double(acc);
	return 0;
}

/*
 * matrix_rtns: 100 points, each a fresh 4-vector multiplied by a fresh
 * 4x4 matrix, then scaled to screen coordinates (1280 x 1024 x 8192).
 */
#define MATRIX_POINTS	100

static int matrix_run(void *state)
{
	struct small_state *st = state;
	double prod = 0.0, out = 0.0;

	for (int n = 0; n < MATRIX_POINTS; n++) {
		double v[4], m[4][4], r[4];
		int sx, sy, sz;

		for (int i = 0; i < 4; i++)
			v[i] = small_next(st);
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				m[i][j] = small_next(st);
		for (int i = 0; i < 4; i++) {
			r[i] = 0.0;
			for (int j = 0; j < 4; j++)
				r[i] += v[j] * m[i][j];
		}
		sx = (int)(r[0] * 1280.0);
		sy = (int)(r[1] * 1024.0);
		sz = (int)(r[2] * 8192.0);
		prod += r[0] * r[1] * r[2];
		out = sx + sy + sz + prod;
		job_progress(st->progress, 1);
	}
	sink_double(out);
	return 0;
}

/*
 * array_rtns: 20 linear systems of 5, 10, ..., 100 equations, solved by
 * Gauss-Jordan elimination without pivoting, each solution checked by
 * putting it back into the system. The coefficients, row by row, follow
 * v = 1.00001 v + 1 from v = 1; each system is stored in [high][high + 1]
 * at the start of a 100 x 101 array, which is zeroed and saved whole, as
 * reaim does.
 */
#define ARRAY_SYSTEMS	20
#define ARRAY_HIGH_MAX	100
#define ARRAY_SIZE	(ARRAY_HIGH_MAX * (ARRAY_HIGH_MAX + 1))

struct array_state {
	uint64_t *progress;
	double a[ARRAY_SIZE];
	double orig[ARRAY_SIZE];
	double x[ARRAY_HIGH_MAX];
};

static int array_init(const struct job_ctx *ctx, void **state)
{
	*state = JOB_STATE_NEW(ctx, struct array_state);
	return *state ? 0 : ENOMEM;
}

/* Entry (row, col) of a system with w columns: a[col + w * row]. */
static int array_solve(double *a, double *x, int w, int h)
{
	double t;

	for (int i = 0; i < h; i++) {
		t = a[i + w * i];
		if (t == 0.0)
			return 0;
		for (int j = i; j < w; j++)
			a[j + w * i] = a[j + w * i] / t;
		for (int j = i + 1; j < h; j++) {
			t = a[i + w * j];
			for (int k = 0; k < w; k++)
				a[k + w * j] = a[k + w * j] - t * a[k + w * i];
		}
	}
	for (int i = h - 1; i > 0; i--) {
		for (int j = i - 1; j >= 0; j--) {
			t = a[i + w * j];
			for (int k = 0; k < w; k++)
				a[k + w * j] = a[k + w * j] - t * a[k + w * i];
		}
	}
	for (int i = 0; i < h; i++)
		x[i] = a[w - 1 + w * i];
	return 1;
}

static int array_check(const double *a, const double *x, int w, int h)
{
	for (int i = 0; i < h; i++) {
		double t = 0.0;

		for (int j = 0; j < h; j++)
			t += a[j + w * i] * x[j];
		if (fabs(a[w - 1 + w * i] - t) > 0.5)
			return 0;
	}
	return 1;
}

static int array_run(void *state)
{
	struct array_state *st = state;
	double v = 1.0;
	int high = 5;

	memset(st->a, 0, sizeof(st->a));
	memset(st->orig, 0, sizeof(st->orig));
	for (int n = 0; n < ARRAY_SYSTEMS; n++, high += 5) {
		int wide;

		if (high > ARRAY_HIGH_MAX)
			high = 5;
		wide = high + 1;
		for (int j = 0; j < high; j++) {
			for (int k = 0; k < wide; k++) {
				st->a[k + wide * j] = v;
				v = v * 1.00001 + 1.0;
				if (v > 1e20)
					v -= 1e19;
			}
		}
		memcpy(st->orig, st->a, sizeof(st->orig));
		if (!array_solve(st->a, st->x, wide, high) ||
		    !array_check(st->orig, st->x, wide, high))
			return EDOM;
		job_progress(st->progress, 1);
	}
	sink_double(st->x[0]);
	return 0;
}

/*
 * string_rtns: 100 passes of: a number through sprintf, atof, strtod,
 * atol, atoi and strtol; 11 ctype tests on each of 1023 bytes of a 1 KiB
 * buffer; strcat and then strncat of an 18-byte string until the buffer
 * is full, each checked with strcmp or strncmp; ctime() of a time one
 * second later each pass, then strcoll, strcspn, strpbrk, strrchr, strspn
 * and strstr. ctime() makes the one syscall: glibc's tzset() stats
 * /etc/localtime on every call when TZ is unset. tzset() and the
 * reentrant localtime_r() and asctime_r() are ctime() without its static
 * buffer, which the users of threads mode would share.
 */
#define STRING_PASSES	100

struct string_state {
	uint64_t *progress;
	char buf[1024];
	char cat[32];
	char time[32];
};

static int string_init(const struct job_ctx *ctx, void **state)
{
	*state = JOB_STATE_NEW(ctx, struct string_state);
	return *state ? 0 : ENOMEM;
}

/* Runs the 11 tests on each byte but the last; returns how many held. */
static int string_classify(char *buf, size_t len)
{
	int n = 0;

	for (unsigned char *p = (unsigned char *)buf;
	     p != (unsigned char *)buf + len - 1; p++) {
		n += isalnum(*p) != 0;
		n += isalpha(*p) != 0;
		n += iscntrl(*p) != 0;
		n += isdigit(*p) != 0;
		n += isgraph(*p) != 0;
		if (islower(*p)) {
			n++;
			*p = (unsigned char)toupper(*p);
			*p = (unsigned char)tolower(*p);
		}
		n += isprint(*p) != 0;
		n += ispunct(*p) != 0;
		n += isspace(*p) != 0;
		if (isupper(*p)) {
			n++;
			*p = (unsigned char)tolower(*p);
			*p = (unsigned char)toupper(*p);
		}
		n += isxdigit(*p) != 0;
	}
	return n;
}

static int string_run(void *state)
{
	struct string_state *st = state;
	char *buf = st->buf, *cat = st->cat, *end;
	size_t size = sizeof(st->buf);
	long l1, l2 = 0, l3 = 0;
	double d2, d3 = 0.0;
	int n1 = 0, n2 = 0;
	struct tm tm;
	time_t t;

	memset(buf, 0, size);
	time(&t);
	for (int n = 0; n < STRING_PASSES; n++) {
		snprintf(buf, size, "%g", (double)n1 / 1000.0);
		d2 = atof(buf);
		d3 += strtod(buf, &end);
		l1 = (long)(1000 * d2);
		snprintf(buf, size, "%ld", l1);
		l2 += atol(buf);
		n1 = atoi(buf);
		l3 += strtol(buf, &end, 10);

		snprintf(buf, size, " \t\n\r\b0123456789 abcde fghij klmno "
			 "pqrst uvwxy z ABCDE FGHIJ KLMNO PQRST UVWXY Z "
			 ".,;:!@#$%%^&*()_-+=|\\\"'`[]}{");
		n1 += string_classify(buf, size);

		snprintf(cat, sizeof(st->cat), "What is your name?");
		n2 = (int)strlen(cat);
		snprintf(buf, size, "%s", cat);
		if (strcmp(buf, cat) == 0)
			n2++;
		while (size - strlen(buf) > strlen(cat)) {
			strcat(buf, cat);
			if (strcmp(buf, cat) == 0)
				n2++;
		}
		strcpy(buf, cat);
		while (size - strlen(buf) > strlen(cat)) {
			strncat(buf, cat, 10);
			if (strncmp(buf, cat, 10) == 0)
				n2++;
		}

		tzset();
		if (!localtime_r(&t, &tm) || !asctime_r(&tm, st->time))
			return EOVERFLOW;
		t++;
		memcpy(buf, st->time, strlen(st->time));
		n1 += strcoll(buf, cat) == 0;
		n1 += strcspn(buf, "jfamsond") > 4;
		n1 += strpbrk(buf, " ;\n") == NULL;
		n1 += strrchr(buf, '\n') == NULL;
		n1 += strspn(buf, "abcdefghijklmnopqrstuvwxyz") > 5;
		n1 += strstr(buf, buf) != buf;
		if (n2 > 100) {
			n2 = 0;
			n1++;
		}
		job_progress(st->progress, 1);
	}
	job_sink = (uint64_t)n1 + (uint64_t)n2 + (uint64_t)(l2 + l3) +
		   (uint64_t)d3;
	return 0;
}

/*
 * sort_rtns_1: twice (reaim's loop to 10 in steps of 5, each step 5
 * "Sort Operations"): qsort() 10000 ints ascending, descending and
 * ascending again, then bsearch() 0, 10, ..., 19990, half of them absent.
 * The table starts ascending and every op leaves it so.
 */
#define SORT_SIZE	10000
#define SORT_PASSES	2

struct sort_state {
	uint64_t *progress;
	int table[SORT_SIZE];
};

static int sort_init(const struct job_ctx *ctx, void **state)
{
	struct sort_state *st = JOB_STATE_NEW(ctx, struct sort_state);

	if (!st)
		return ENOMEM;
	for (int i = 0; i < SORT_SIZE; i++)
		st->table[i] = i;
	*state = st;
	return 0;
}

/* The table's values are below 10^4: a difference cannot overflow. */
static int sort_ascending(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int sort_descending(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

static int sort_run(void *state)
{
	struct sort_state *st = state;
	int *t = st->table, missing = 0;

	for (int pass = 0; pass < SORT_PASSES; pass++) {
		qsort(t, SORT_SIZE, sizeof(t[0]), sort_ascending);
		job_progress(st->progress, 1);
		qsort(t, SORT_SIZE, sizeof(t[0]), sort_descending);
		job_progress(st->progress, 1);
		qsort(t, SORT_SIZE, sizeof(t[0]), sort_ascending);
		job_progress(st->progress, 1);
		for (int i = 0; i < SORT_SIZE * 2; i += 10)
			if (!bsearch(&i, t, SORT_SIZE, sizeof(t[0]),
				     sort_ascending))
				missing++;
		job_progress(st->progress, 2);
	}
	job_sink = (uint64_t)missing;
	return 0;
}

/*
 * misc_rtns_1: 10 passes of cfgetispeed, cfgetospeed, clock, ctermid,
 * getcwd, getuid, geteuid, getgid, getegid, getenv("PATH"), getgroups,
 * getpid, getpgrp, getppid, getpwnam("root"), getpwuid, getgrgid, times,
 * isatty, ttyname and uname. Each NSS lookup stats /etc/nsswitch.conf,
 * then opens, fstats, reads, rewinds and closes /etc/passwd or /etc/group.
 * reaim asks isatty() and ttyname() about its stdin, which was no tty: a
 * TCGETS ioctl that fails with ENOTTY. The job asks about a file of its
 * own, so that a terminal on aimsweep's stdin changes nothing. The _r
 * forms of the lookups are the same work without static buffers.
 */
#define MISC_PASSES	10
/* A pass is long beside the window's edges at many users, so it reports
 * its parts, by their share of its 36 syscalls: the 13 before the name
 * lookups, the lookups' 18, and the last 5. */
#define MISC_TICKS_IDS		(JOB_PROGRESS_TICKS * 13 / 36)
#define MISC_TICKS_LOOKUPS	(JOB_PROGRESS_TICKS * 18 / 36)

struct misc_state {
	uint64_t *progress;
	int fd;				/* an unlinked regular file */
	int ngroups_max;
	gid_t *groups;			/* [ngroups_max] */
	struct termios term;
	char cwd[PATH_MAX];
	char ctty[L_ctermid];
	char tty[64];
	char nss[16384];		/* getpw*_r and getgrgid_r strings */
};

static void misc_fini(void *state)
{
	struct misc_state *st = state;

	if (st->fd >= 0)
		close(st->fd);
	free(st->groups);
	free(st);
}

static int misc_init(const struct job_ctx *ctx, void **state)
{
	struct misc_state *st = JOB_STATE_NEW(ctx, struct misc_state);
	char path[PATH_MAX];
	long max = sysconf(_SC_NGROUPS_MAX);
	int err;

	if (!st)
		return ENOMEM;
	st->fd = -1;
	st->ngroups_max = max > 0 && max <= INT_MAX ? (int)max : NGROUPS_MAX;
	st->groups = calloc((size_t)st->ngroups_max, sizeof(gid_t));
	if (!st->groups) {
		err = ENOMEM;
		goto fail;
	}
	err = job_path(path, sizeof(path), ctx->dir, "misc_rtns_1.%u",
		       ctx->user);
	if (err)
		goto fail;
	st->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (st->fd < 0) {
		err = errno;
		job_set_reason(ctx, "cannot create %s: %s", path,
			       strerror(err));
		goto fail;
	}
	/* The descriptor is all the job needs: nothing is left behind. */
	if (unlink(path)) {
		err = errno;
		goto fail;
	}
	*state = st;
	return 0;
fail:
	misc_fini(st);
	return err;
}

/* The NSS lookups; a name this system lacks is no failure of the job. */
static uint64_t misc_lookup(struct misc_state *st, uid_t uid, gid_t gid)
{
	struct passwd pw, *pwp;
	struct group gr, *grp;
	uint64_t n = 0;

	if (!getpwnam_r("root", &pw, st->nss, sizeof(st->nss), &pwp) && pwp)
		n += (unsigned char)pwp->pw_name[0];
	if (!getpwuid_r(uid, &pw, st->nss, sizeof(st->nss), &pwp) && pwp)
		n += (unsigned char)pwp->pw_name[0];
	if (!getgrgid_r(gid, &gr, st->nss, sizeof(st->nss), &grp) && grp)
		n += (unsigned char)grp->gr_name[0];
	return n;
}

static int misc_run(void *state)
{
	struct misc_state *st = state;
	struct utsname name;
	struct tms tms;
	uint64_t n = 0;
	const char *env;
	int groups;
	uid_t uid;
	gid_t gid;

	for (int pass = 0; pass < MISC_PASSES; pass++) {
		n += cfgetispeed(&st->term) + cfgetospeed(&st->term);
		n += (uint64_t)clock();
		n += (unsigned char)ctermid(st->ctty)[0];
		if (!getcwd(st->cwd, sizeof(st->cwd)))
			return errno;
		uid = getuid();
		gid = getgid();
		n += uid + geteuid() + gid + getegid();
		env = getenv("PATH");
		n += env ? (unsigned char)env[0] : 0;
		groups = getgroups(st->ngroups_max, st->groups);
		if (groups < 0)
			return errno;
		n += (uint64_t)groups;
		n += (uint64_t)getpid() + (uint64_t)getpgrp() +
		     (uint64_t)getppid();
		job_progress_ticks(st->progress, MISC_TICKS_IDS);
		n += misc_lookup(st, uid, gid);
		job_progress_ticks(st->progress, MISC_TICKS_LOOKUPS);
		if (times(&tms) == (clock_t)-1)
			return errno;
		n += (uint64_t)tms.tms_utime;
		n += isatty(st->fd);
		n += ttyname_r(st->fd, st->tty, sizeof(st->tty)) == 0;
		if (uname(&name))
			return errno;
		n += (unsigned char)name.sysname[0];
		job_progress_ticks(st->progress, JOB_PROGRESS_TICKS -
					 MISC_TICKS_IDS - MISC_TICKS_LOOKUPS);
	}
	job_sink = n;
	return 0;
}

/* The rows of the jobs above but the arithmetic and fun_cal ones, which
 * their macros make; string_rtns and misc_rtns_1 make syscalls, and have
 * rows of their own. */
COMPUTE_JOB(sieve, "Integer Sieves", SIEVE_PASSES,
	    "5 sieves of Eratosthenes over the numbers below 1000000", NULL,
	    sieve_init, sieve_run);
COMPUTE_JOB(num_rtns_1, "Numeric Functions", NUM_PASSES,
	    "100 passes of exp, log, log10, pow, sqrt, fmod, frexp, ldexp, "
	    "modf, floor, ceil, srand and rand", NULL, arg_init, num_rtns_run);
COMPUTE_JOB(new_raph, "Zeros Found", RAPH_ZEROS,
	    "200 zeros of 1000 sin(x) cos(x) by Newton-Raphson", FLOAT_STORE,
	    raph_init, raph_run);
COMPUTE_JOB(trig_rtns, "Trigonometric Functions", TRIG_PASSES,
	    "10000 passes of sin, asin, cos, acos, tan, atan, tanh, sinh, "
	    "cosh and atan2", NULL, arg_init, trig_rtns_run);
COMPUTE_JOB(series_1, "Series Evaluations", SERIES_EVALS,
	    "100 sines summed from their Taylor series to convergence",
	    FLOAT_STORE, small_init, series_run);
COMPUTE_JOB(matrix_rtns, "Point Transformations", MATRIX_POINTS,
	    "100 points transformed by a 4x4 matrix to screen coordinates",
	    FLOAT_STORE, small_init, matrix_run);
COMPUTE_JOB(array_rtns, "Linear Systems Solved", ARRAY_SYSTEMS,
	    "20 linear systems of 5 to 100 equations solved by Gauss-Jordan "
	    "elimination", FLOAT_STORE, array_init, array_run);
COMPUTE_JOB(sort_rtns_1, "Sort Operations", SORT_PASSES * 5,
	    "6 qsorts of 10000 ints and 4000 bsearches", NULL, sort_init,
	    sort_run);

const struct job job_string_rtns = {
	.name = "string_rtns",
	.family = "compute",
	.units = JOB_UNITS_AIM7,
	.unit = "String Manipulations",
	.inner_ops = STRING_PASSES,
	.summary = "100 passes of number conversions, ctype over 1 KiB, "
		   "strcat to 1 KiB, ctime and 6 searches",
	.syscalls = (const struct job_syscall[]){
		{ "newfstatat", 0, 1 }, { NULL, 0, 0 } },
	.init = string_init,
	.run = string_run,
	.fini = free,
};

const struct job job_misc_rtns_1 = {
	.name = "misc_rtns_1",
	.family = "compute",
	.units = JOB_UNITS_AIM7,
	.uses_dir = true,
	.unit = "Auxiliary Loops",
	.inner_ops = MISC_PASSES,
	.summary = "10 passes of getcwd, getgroups, getpwnam, getpwuid, "
		   "getgrgid, times, uname, isatty and 9 more",
	.syscalls = (const struct job_syscall[]){
		{ "newfstatat", 0, 6 }, { "openat", 0, 3 }, { "read", 0, 3 },
		{ "lseek", 0, 3 }, { "close", 0, 3 }, { "ioctl", 0, 2 },
		{ "clock_gettime", 0, 1 }, { "getcwd", 0, 1 },
		{ "getuid", 0, 1 }, { "geteuid", 0, 1 }, { "getgid", 0, 1 },
		{ "getegid", 0, 1 }, { "getgroups", 0, 1 },
		{ "getpid", 0, 1 }, { "getpgrp", 0, 1 }, { "getppid", 0, 1 },
		{ "times", 0, 1 }, { "uname", 0, 1 }, { NULL, 0, 0 } },
	.deviation = "asks isatty() and ttyname() about an unlinked file of "
		     "its own, not stdin, so that aimsweep's terminal does not "
		     "change the work",
	.init = misc_init,
	.run = misc_run,
	.fini = misc_fini,
};
