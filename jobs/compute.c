/* jobs/compute.c: the compute family of the AIM7 job catalog. */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobs/catalog.h"

/*
 * How much work one op is. Each is sized so that one op takes roughly
 * 10 to 100 us on a current x86-64 core: long enough that the driver's
 * own cost per op is noise, short enough for fine-grained mixes.
 */
#define ARITH_OPS	20000	/* arithmetic operations per op */
#define FUN_CALLS	10000	/* function calls per op */
#define SIEVE_LIMIT	8192	/* the sieve finds the primes up to it */
#define NUM_LOOPS	128	/* passes of 8 numeric functions */
#define TRIG_LOOPS	128	/* passes of 7 trigonometric functions */
#define RAPH_ZEROS	200	/* square roots found by Newton's method */
#define SERIES_EVALS	200	/* Taylor series of exp() summed */
#define MATRIX_POINTS	512	/* points transformed by a 4x4 matrix */
#define LINEAR_N	32	/* unknowns of the linear system solved */
#define STRING_WORDS	8	/* words string_rtns combines */
#define STRING_ROUNDS	128	/* passes of 8 string functions */
#define SORT_INTS	1024	/* integers sorted per op */

#define STR_(x) #x
#define STR(x) STR_(x)

/* Every compute job but misc_rtns_1 stays in user space. */
static const struct job_syscall no_syscalls[] = { { NULL, 0 } };

/*
 * Makes v opaque: the compiler must assume the asm changed it, so it can
 * neither fold a chain of integer operations algebraically (ARITH_OPS
 * additions of a into one multiply) nor move work across this point.
 */
#define OPAQUE_INT(v) __asm__("" : "+r"(v))

/* IEEE floating point needs no such help: without -ffast-math the
 * compiler may not reassociate it, so every operation stays. */
#define OPAQUE_FP(v) do { } while (0)

/* The compiler must assume the memory p points to was changed here: the
 * string job uses it so that the compiler forgets what it knows about its
 * buffer and cannot merge two string calls into one. */
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

/* splitmix64: a small, good generator for the per-user inputs. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1p-53;
}

static void sink_double(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	job_sink = bits;
}

static void compute_fini(void *state)
{
	free(state);
}

/*
 * The arithmetic jobs (add_*, mul_*, div_*). One op is a chain of
 * ARITH_OPS dependent operations, two per pass: each result is an operand
 * of the next operation, so none can be skipped or run in parallel.
 * The operands come from the user's seed, so none is known at compile
 * time. The chains stay in range by construction:
 * - add and mul use the unsigned integer types, whose wraparound is
 *   defined (the instructions are those of the signed types). Multipliers
 *   are odd and x starts odd, so a product never collapses to zero; they
 *   are below 2^15 so that unsigned short, promoted to int, cannot
 *   overflow either (65535 * 32767 < INT_MAX).
 * - Floating point adds a, then b = 0.5 - a, and multiplies by a, then by
 *   b ~= 1 / a, so x neither overflows nor becomes denormal.
 * - div computes x = a / x with a == b, a and x positive and x <= a: the
 *   quotient is always between 1 and a, so there is no division by zero
 *   and no overflow (INT_MIN / -1); x swings between about x0 and a / x0.
 */
struct arith_ops {
	uint64_t x, a, b;
};

struct arith_fops {
	double x, a, b;
};

struct arith_state {
	struct arith_ops add, mul, div_short, div_int, div_long;
	struct arith_fops fadd, fmul, fdiv;
};

/* Division operands for a signed type whose maximum is max. */
static void arith_div_ops(struct arith_ops *ops, uint64_t *rng, uint64_t max)
{
	ops->a = max / 2 + 1 + rng_next(rng) % (max / 2);
	ops->b = ops->a;
	ops->x = 2 + rng_next(rng) % 254;
}

static int arith_init(const struct job_ctx *ctx, void **state)
{
	struct arith_state *st = malloc(sizeof(*st));
	uint64_t rng = ctx->seed;

	if (!st)
		return ENOMEM;
	st->add.x = rng_next(&rng);
	st->add.a = rng_next(&rng);
	st->add.b = rng_next(&rng);
	st->mul.x = rng_next(&rng) | 1;
	st->mul.a = (rng_next(&rng) & 0x7fff) | 1;
	st->mul.b = (rng_next(&rng) & 0x7fff) | 1;
	arith_div_ops(&st->div_short, &rng, SHRT_MAX);
	arith_div_ops(&st->div_int, &rng, INT_MAX);
	arith_div_ops(&st->div_long, &rng, LONG_MAX);
	st->fadd.x = 1.0 + rng_unit(&rng);
	st->fadd.a = 1.0 + rng_unit(&rng);
	st->fadd.b = 0.5 - st->fadd.a;
	st->fmul.x = 1.0 + rng_unit(&rng);
	st->fmul.a = 1.5 + rng_unit(&rng);
	st->fmul.b = 1.0 / st->fmul.a;
	st->fdiv.x = 1.0 + rng_unit(&rng);
	st->fdiv.a = 2.0 + rng_unit(&rng);
	st->fdiv.b = st->fdiv.a;
	*state = st;
	return 0;
}

/*
 * One arithmetic job: its run() and its row. T is the C type computed in,
 * OPAQUE how the chain is kept whole, ops the operand set in the state,
 * and step1/step2 the two operations of one pass, in terms of x, a, b.
 */
#define ARITH_JOB(kind, type, T, OPAQUE, ops, step1, step2, what)	\
static int kind##_##type##_run(void *state)				\
{									\
	const struct arith_state *st = state;				\
	T x = (T)st->ops.x, a = (T)st->ops.a, b = (T)st->ops.b;		\
									\
	for (unsigned int i = 0; i < ARITH_OPS / 2; i++) {		\
		x = (T)(step1);						\
		OPAQUE(x);						\
		x = (T)(step2);						\
		OPAQUE(x);						\
	}								\
	sink_double((double)x);						\
	return 0;							\
}									\
									\
const struct job job_##kind##_##type = {				\
	.name = #kind "_" #type,					\
	.family = "compute",						\
	.unit = "Thousand " what,					\
	.inner_ops = ARITH_OPS / 1000,					\
	.summary = "a chain of " STR(ARITH_OPS) " " #T " operations: "	\
		   "x = " #step1 ", x = " #step2 ", ...",		\
	.syscalls = no_syscalls,					\
	.init = arith_init,						\
	.run = kind##_##type##_run,					\
	.fini = compute_fini,						\
}

ARITH_JOB(add, short, unsigned short, OPAQUE_INT, add, x + a, x + b,
	  "Short Integer Additions");
ARITH_JOB(add, int, unsigned int, OPAQUE_INT, add, x + a, x + b,
	  "Integer Additions");
ARITH_JOB(add, long, unsigned long, OPAQUE_INT, add, x + a, x + b,
	  "Long Integer Additions");
ARITH_JOB(add, float, float, OPAQUE_FP, fadd, x + a, x + b,
	  "Single Precision Additions");
ARITH_JOB(add, double, double, OPAQUE_FP, fadd, x + a, x + b,
	  "Double Precision Additions");
ARITH_JOB(mul, short, unsigned short, OPAQUE_INT, mul, x * a, x * b,
	  "Short Integer Multiplies");
ARITH_JOB(mul, int, unsigned int, OPAQUE_INT, mul, x * a, x * b,
	  "Integer Multiplies");
ARITH_JOB(mul, long, unsigned long, OPAQUE_INT, mul, x * a, x * b,
	  "Long Integer Multiplies");
ARITH_JOB(mul, float, float, OPAQUE_FP, fmul, x * a, x * b,
	  "Single Precision Multiplies");
ARITH_JOB(mul, double, double, OPAQUE_FP, fmul, x * a, x * b,
	  "Double Precision Multiplies");
ARITH_JOB(div, short, short, OPAQUE_INT, div_short, a / x, b / x,
	  "Short Integer Divides");
ARITH_JOB(div, int, int, OPAQUE_INT, div_int, a / x, b / x,
	  "Integer Divides");
ARITH_JOB(div, long, long, OPAQUE_INT, div_long, a / x, b / x,
	  "Long Integer Divides");
ARITH_JOB(div, float, float, OPAQUE_FP, fdiv, a / x, b / x,
	  "Single Precision Divides");
ARITH_JOB(div, double, double, OPAQUE_FP, fdiv, a / x, b / x,
	  "Double Precision Divides");

/*
 * The inputs of the jobs that evaluate functions over a range of values:
 * the range starts at x0 and advances by step; y is a second operand (pow,
 * hypot, fmod), and the fun_cal jobs pass args. All come from the seed.
 */
struct range_state {
	double x0, step, y;
	unsigned long args[15];
};

/* Allocates a range_state whose range is [lo, lo + spread) + i * step. */
static int range_init(const struct job_ctx *ctx, void **state, double lo,
		      double spread, double step)
{
	struct range_state *st = malloc(sizeof(*st));
	uint64_t rng = ctx->seed;

	if (!st)
		return ENOMEM;
	st->x0 = lo + spread * rng_unit(&rng);
	st->step = step;
	st->y = 1.25 + rng_unit(&rng);
	for (int i = 0; i < 15; i++)
		st->args[i] = rng_next(&rng);
	*state = st;
	return 0;
}

/* fun_cal*: calls of functions with 0, 1, 2 and 15 arguments. Each
 * result is used: summed, or passed to the next call as its argument. */
static CALLEE unsigned long call0(void)
{
	return 1;
}

static CALLEE unsigned long call1(unsigned long a)
{
	return a + 1;
}

static CALLEE unsigned long call2(unsigned long a, unsigned long b)
{
	return a + b;
}

static CALLEE unsigned long call15(unsigned long a1, unsigned long a2,
				   unsigned long a3, unsigned long a4,
				   unsigned long a5, unsigned long a6,
				   unsigned long a7, unsigned long a8,
				   unsigned long a9, unsigned long a10,
				   unsigned long a11, unsigned long a12,
				   unsigned long a13, unsigned long a14,
				   unsigned long a15)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 +
	       a12 + a13 + a14 + a15;
}

static int fun_cal_init(const struct job_ctx *ctx, void **state)
{
	return range_init(ctx, state, 0.0, 0.0, 0.0);
}

static int fun_cal_run(void *state)
{
	unsigned long n = 0;

	(void)state;
	for (unsigned int i = 0; i < FUN_CALLS; i++)
		n += call0();
	job_sink = n;
	return 0;
}

static int fun_cal1_run(void *state)
{
	const struct range_state *st = state;
	unsigned long x = st->args[0];

	for (unsigned int i = 0; i < FUN_CALLS; i++)
		x = call1(x);
	job_sink = x;
	return 0;
}

static int fun_cal2_run(void *state)
{
	const struct range_state *st = state;
	unsigned long x = st->args[0], y = st->args[1];

	for (unsigned int i = 0; i < FUN_CALLS; i++)
		x = call2(x, y);
	job_sink = x;
	return 0;
}

static int fun_cal15_run(void *state)
{
	const struct range_state *st = state;
	const unsigned long *v = st->args;
	unsigned long x = v[0];

	for (unsigned int i = 0; i < FUN_CALLS; i++)
		x = call15(x, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8],
			   v[9], v[10], v[11], v[12], v[13], v[14]);
	job_sink = x;
	return 0;
}

/* sieve: the sieve of Eratosthenes up to SIEVE_LIMIT (1028 primes). */
struct sieve_state {
	unsigned int limit;
	unsigned char composite[SIEVE_LIMIT + 1];
};

static int sieve_init(const struct job_ctx *ctx, void **state)
{
	struct sieve_state *st = malloc(sizeof(*st));

	(void)ctx;
	if (!st)
		return ENOMEM;
	st->limit = SIEVE_LIMIT;
	*state = st;
	return 0;
}

static int sieve_run(void *state)
{
	struct sieve_state *st = state;
	unsigned int n = st->limit, primes = 0;

	memset(st->composite, 0, n + 1);
	for (unsigned int i = 2; i <= n; i++) {
		if (st->composite[i])
			continue;
		primes++;
		for (unsigned int j = i * i; j <= n; j += i)
			st->composite[j] = 1;
	}
	job_sink = primes;
	return 0;
}

/* num_rtns_1: eight libm functions at NUM_LOOPS points of [1, 5). */
static int num_rtns_init(const struct job_ctx *ctx, void **state)
{
	return range_init(ctx, state, 1.0, 0.01, 4.0 / NUM_LOOPS);
}

static int num_rtns_run(void *state)
{
	const struct range_state *st = state;
	double acc = 0.0;

	for (unsigned int i = 0; i < NUM_LOOPS; i++) {
		double x = st->x0 + i * st->step;

		acc += sqrt(x) + cbrt(x) + exp(x) + log(x) + log10(x) +
		       pow(x, st->y) + hypot(x, st->y) + fmod(x, st->y);
	}
	sink_double(acc);
	return 0;
}

/*
 * trig_rtns: seven trigonometric functions at TRIG_LOOPS points of
 * [-1.4, 1.45), clear of the poles of tan. cos gets another argument than
 * sin, so that the compiler cannot merge the two into one sincos().
 */
static int trig_rtns_init(const struct job_ctx *ctx, void **state)
{
	return range_init(ctx, state, -1.4, 0.05, 2.8 / TRIG_LOOPS);
}

static int trig_rtns_run(void *state)
{
	const struct range_state *st = state;
	double acc = 0.0;

	for (unsigned int i = 0; i < TRIG_LOOPS; i++) {
		double x = st->x0 + i * st->step;
		double s = sin(x), c = cos(0.75 * x), t = tan(x);

		acc += s + c + t + asin(s) + acos(c) + atan(t) + atan2(s, c);
	}
	sink_double(acc);
	return 0;
}

/*
 * new_raph: the square roots of RAPH_ZEROS numbers up to 10^6, each the
 * zero of x^2 - a found by Newton-Raphson from x = a. From there the
 * iterates fall monotonically towards sqrt(a), never reaching zero, so the
 * first step that does not fall means convergence.
 */
static int new_raph_init(const struct job_ctx *ctx, void **state)
{
	return range_init(ctx, state, 2.0, 1.0, 1e6 / RAPH_ZEROS);
}

static int new_raph_run(void *state)
{
	const struct range_state *st = state;
	double acc = 0.0;

	for (unsigned int i = 0; i < RAPH_ZEROS; i++) {
		double a = st->x0 + i * st->step, x = a, next;

		for (int iter = 0; iter < 64; iter++) {
			next = 0.5 * (x + a / x);
			if (next >= x)
				break;
			x = next;
		}
		acc += x;
	}
	sink_double(acc);
	return 0;
}

/* series_1: the Taylor series of exp(x) for x in [0, 2], summed until the
 * next term no longer changes the sum. */
static int series_init(const struct job_ctx *ctx, void **state)
{
	return range_init(ctx, state, 0.0, 0.01, 2.0 / SERIES_EVALS);
}

static int series_run(void *state)
{
	const struct range_state *st = state;
	double acc = 0.0;

	for (unsigned int i = 0; i < SERIES_EVALS; i++) {
		double x = st->x0 + i * st->step, term = 1.0, sum = 1.0;

		for (unsigned int k = 1; k < 64 && term > sum * DBL_EPSILON;
		     k++) {
			term *= x / k;
			sum += term;
		}
		acc += sum;
	}
	sink_double(acc);
	return 0;
}

/*
 * matrix_rtns: AIM9 counted point transformations. One op transforms
 * MATRIX_POINTS homogeneous points in place by a 4x4 matrix, a rotation
 * from the seed; a rotation keeps the points' size, so they never drift
 * towards overflow or zero however many ops run.
 */
struct matrix_state {
	double m[4][4];
	double pts[MATRIX_POINTS][4];
};

static int matrix_init(const struct job_ctx *ctx, void **state)
{
	struct matrix_state *st = calloc(1, sizeof(*st));
	uint64_t rng = ctx->seed;
	double a, b;

	if (!st)
		return ENOMEM;
	/* A rotation by a about z, then by b about x. */
	a = 2.0 * M_PI * rng_unit(&rng);
	b = 2.0 * M_PI * rng_unit(&rng);
	st->m[0][0] = cos(a);
	st->m[0][1] = -sin(a);
	st->m[1][0] = cos(b) * sin(a);
	st->m[1][1] = cos(b) * cos(a);
	st->m[1][2] = -sin(b);
	st->m[2][0] = sin(b) * sin(a);
	st->m[2][1] = sin(b) * cos(a);
	st->m[2][2] = cos(b);
	st->m[3][3] = 1.0;
	for (int p = 0; p < MATRIX_POINTS; p++) {
		for (int k = 0; k < 3; k++)
			st->pts[p][k] = 2.0 * rng_unit(&rng) - 1.0;
		st->pts[p][3] = 1.0;
	}
	*state = st;
	return 0;
}

static int matrix_run(void *state)
{
	struct matrix_state *st = state;
	double m[4][4], out[4];

	memcpy(m, st->m, sizeof(m));
	for (int p = 0; p < MATRIX_POINTS; p++) {
		double *v = st->pts[p];

		for (int r = 0; r < 4; r++)
			out[r] = m[r][0] * v[0] + m[r][1] * v[1] +
				 m[r][2] * v[2] + m[r][3] * v[3];
		memcpy(v, out, sizeof(out));
	}
	sink_double(st->pts[0][0]);
	return 0;
}

/*
 * array_rtns: AIM9 counted linear systems solved. One op solves one
 * LINEAR_N x LINEAR_N system by Gaussian elimination with partial pivoting
 * and back substitution, on a fresh copy of the system. The matrix is
 * strictly diagonally dominant, hence never singular: a zero pivot cannot
 * happen, and is only checked for as a guard.
 */
struct linear_state {
	double sys[LINEAR_N][LINEAR_N + 1];	/* [A | b] as made at init */
	double work[LINEAR_N][LINEAR_N + 1];
};

static int linear_init(const struct job_ctx *ctx, void **state)
{
	struct linear_state *st = malloc(sizeof(*st));
	uint64_t rng = ctx->seed;

	if (!st)
		return ENOMEM;
	for (int i = 0; i < LINEAR_N; i++) {
		for (int j = 0; j <= LINEAR_N; j++)
			st->sys[i][j] = 2.0 * rng_unit(&rng) - 1.0;
		/* Off the diagonal a row sums to less than LINEAR_N - 1. */
		st->sys[i][i] = LINEAR_N + rng_unit(&rng);
	}
	*state = st;
	return 0;
}

static int linear_run(void *state)
{
	struct linear_state *st = state;
	double *row[LINEAR_N], *tmp, x[LINEAR_N], f, sum = 0.0;
	int i, j, k, piv;

	memcpy(st->work, st->sys, sizeof(st->work));
	for (i = 0; i < LINEAR_N; i++)
		row[i] = st->work[i];
	for (k = 0; k < LINEAR_N; k++) {
		piv = k;
		for (i = k + 1; i < LINEAR_N; i++)
			if (fabs(row[i][k]) > fabs(row[piv][k]))
				piv = i;
		if (row[piv][k] == 0.0)
			return EDOM;
		tmp = row[k];
		row[k] = row[piv];
		row[piv] = tmp;
		for (i = k + 1; i < LINEAR_N; i++) {
			f = row[i][k] / row[k][k];
			for (j = k; j <= LINEAR_N; j++)
				row[i][j] -= f * row[k][j];
		}
	}
	for (i = LINEAR_N - 1; i >= 0; i--) {
		f = row[i][LINEAR_N];
		for (j = i + 1; j < LINEAR_N; j++)
			f -= row[i][j] * x[j];
		x[i] = f / row[i][i];
		sum += x[i];
	}
	sink_double(sum);
	return 0;
}

/*
 * string_rtns: STRING_ROUNDS passes of eight string functions (strcpy,
 * strcat, strlen, strcmp, strncmp, strchr, strrchr, strstr) over short
 * words made at init.
 */
struct string_state {
	char words[STRING_WORDS][16];
};

static int string_init(const struct job_ctx *ctx, void **state)
{
	struct string_state *st = calloc(1, sizeof(*st));
	uint64_t rng = ctx->seed;

	if (!st)
		return ENOMEM;
	for (int w = 0; w < STRING_WORDS; w++) {
		int len = 3 + (int)(rng_next(&rng) % 10);

		for (int c = 0; c < len; c++)
			st->words[w][c] = (char)('a' + rng_next(&rng) % 26);
	}
	*state = st;
	return 0;
}

static int string_run(void *state)
{
	const struct string_state *st = state;
	char buf[64];
	uint64_t n = 0;

	for (unsigned int r = 0; r < STRING_ROUNDS; r++) {
		const char *w1 = st->words[r % STRING_WORDS];
		const char *w2 = st->words[(r * 3 + 1) % STRING_WORDS];
		int c = w2[0];

		strcpy(buf, w1);
		CLOBBER(buf);
		strcat(buf, w2);
		CLOBBER(buf);
		n += strlen(buf);
		CLOBBER(buf);
		n += strcmp(buf, w2) > 0;
		n += strncmp(buf, w1, 4) == 0;
		/* c is in buf, from w2: neither search returns NULL. */
		n += (uint64_t)(strchr(buf, c) - buf);
		n += (uint64_t)(strrchr(buf, c) - buf);
		n += strstr(buf, w2) != NULL;
		CLOBBER(buf);
	}
	job_sink = n;
	return 0;
}

/* sort_rtns_1: qsort() of SORT_INTS integers, shuffled again before each
 * op with the user's generator. */
struct sort_state {
	uint64_t rng;
	int v[SORT_INTS];
};

static int sort_init(const struct job_ctx *ctx, void **state)
{
	struct sort_state *st = malloc(sizeof(*st));

	if (!st)
		return ENOMEM;
	st->rng = ctx->seed;
	for (int i = 0; i < SORT_INTS; i++)
		st->v[i] = (int)(rng_next(&st->rng) >> 33);
	*state = st;
	return 0;
}

/* Fisher-Yates: every order equally likely. */
static int sort_prepare(void *state)
{
	struct sort_state *st = state;
	int tmp;

	for (uint32_t i = SORT_INTS - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(((rng_next(&st->rng) >> 32) *
					 (uint64_t)(i + 1)) >> 32);

		tmp = st->v[i];
		st->v[i] = st->v[j];
		st->v[j] = tmp;
	}
	return 0;
}

static int int_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int sort_run(void *state)
{
	struct sort_state *st = state;

	qsort(st->v, SORT_INTS, sizeof(st->v[0]), int_compare);
	job_sink = (uint64_t)st->v[SORT_INTS / 2];
	return 0;
}

/*
 * misc_rtns_1: one loop of cheap system calls that read process
 * attributes. umask() has no read-only form, so each op sets the mask the
 * process already has; that is read at init from /proc, because reading
 * it with umask() itself would briefly change it for the other users in
 * threads mode. time() is in the list too, but glibc serves it from the
 * vDSO on x86-64: it is no syscall there.
 */
struct misc_state {
	mode_t mask;
};

static int misc_read_umask(mode_t *mask)
{
	char line[128];
	unsigned int m;
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &m) == 1)
			found = 1;
	fclose(f);
	if (found)
		*mask = (mode_t)m;
	return found;
}

static int misc_init(const struct job_ctx *ctx, void **state)
{
	struct misc_state *st = malloc(sizeof(*st));

	(void)ctx;
	if (!st)
		return ENOMEM;
	if (!misc_read_umask(&st->mask)) {
		/* A kernel before 4.7 has no Umask line. */
		st->mask = umask(022);
		umask(st->mask);
	}
	*state = st;
	return 0;
}

static int misc_run(void *state)
{
	const struct misc_state *st = state;
	uint64_t n;

	n = (uint64_t)getuid() + geteuid() + getgid() + getegid();
	n += (uint64_t)getpid() + (uint64_t)getppid();
	n += umask(st->mask);
	n += (uint64_t)time(NULL);
	job_sink = n;
	return 0;
}

/* The rows of the jobs above that are not arithmetic. */
const struct job job_fun_cal = {
	.name = "fun_cal",
	.family = "compute",
	.unit = "Function Calls (no arguments)",
	.inner_ops = FUN_CALLS,
	.summary = STR(FUN_CALLS) " calls of a function with no arguments",
	.syscalls = no_syscalls,
	.init = fun_cal_init,
	.run = fun_cal_run,
	.fini = compute_fini,
};

const struct job job_fun_cal1 = {
	.name = "fun_cal1",
	.family = "compute",
	.unit = "Function Calls (1 argument)",
	.inner_ops = FUN_CALLS,
	.summary = STR(FUN_CALLS) " calls of a function with 1 argument",
	.syscalls = no_syscalls,
	.init = fun_cal_init,
	.run = fun_cal1_run,
	.fini = compute_fini,
};

const struct job job_fun_cal2 = {
	.name = "fun_cal2",
	.family = "compute",
	.unit = "Function Calls (2 arguments)",
	.inner_ops = FUN_CALLS,
	.summary = STR(FUN_CALLS) " calls of a function with 2 arguments",
	.syscalls = no_syscalls,
	.init = fun_cal_init,
	.run = fun_cal2_run,
	.fini = compute_fini,
};

const struct job job_fun_cal15 = {
	.name = "fun_cal15",
	.family = "compute",
	.unit = "Function Calls (15 arguments)",
	.inner_ops = FUN_CALLS,
	.summary = STR(FUN_CALLS) " calls of a function with 15 arguments",
	.syscalls = no_syscalls,
	.init = fun_cal_init,
	.run = fun_cal15_run,
	.fini = compute_fini,
};

const struct job job_sieve = {
	.name = "sieve",
	.family = "compute",
	.unit = "Integer Sieves",
	.inner_ops = 1,
	.summary = "the sieve of Eratosthenes up to " STR(SIEVE_LIMIT),
	.syscalls = no_syscalls,
	.init = sieve_init,
	.run = sieve_run,
	.fini = compute_fini,
};

const struct job job_num_rtns_1 = {
	.name = "num_rtns_1",
	.family = "compute",
	.unit = "Numeric Functions",
	.inner_ops = NUM_LOOPS * 8,
	.summary = "sqrt, cbrt, exp, log, log10, pow, hypot, fmod at "
		   STR(NUM_LOOPS) " points",
	.syscalls = no_syscalls,
	.init = num_rtns_init,
	.run = num_rtns_run,
	.fini = compute_fini,
};

const struct job job_new_raph = {
	.name = "new_raph",
	.family = "compute",
	.unit = "Zeros Found",
	.inner_ops = RAPH_ZEROS,
	.summary = STR(RAPH_ZEROS) " square roots by Newton-Raphson iteration",
	.syscalls = no_syscalls,
	.init = new_raph_init,
	.run = new_raph_run,
	.fini = compute_fini,
};

const struct job job_trig_rtns = {
	.name = "trig_rtns",
	.family = "compute",
	.unit = "Trigonometric Functions",
	.inner_ops = TRIG_LOOPS * 7,
	.summary = "sin, cos, tan, asin, acos, atan, atan2 at "
		   STR(TRIG_LOOPS) " points",
	.syscalls = no_syscalls,
	.init = trig_rtns_init,
	.run = trig_rtns_run,
	.fini = compute_fini,
};

const struct job job_series_1 = {
	.name = "series_1",
	.family = "compute",
	.unit = "Series Evaluations",
	.inner_ops = SERIES_EVALS,
	.summary = STR(SERIES_EVALS) " Taylor series of exp(x) to convergence",
	.syscalls = no_syscalls,
	.init = series_init,
	.run = series_run,
	.fini = compute_fini,
};

const struct job job_matrix_rtns = {
	.name = "matrix_rtns",
	.family = "compute",
	.unit = "Point Transformations",
	.inner_ops = MATRIX_POINTS,
	.summary = "transform " STR(MATRIX_POINTS)
		   " homogeneous points by a 4x4 matrix",
	.syscalls = no_syscalls,
	.init = matrix_init,
	.run = matrix_run,
	.fini = compute_fini,
};

const struct job job_array_rtns = {
	.name = "array_rtns",
	.family = "compute",
	.unit = "Linear Systems Solved",
	.inner_ops = 1,
	.summary = "solve a " STR(LINEAR_N) "x" STR(LINEAR_N)
		   " linear system by Gaussian elimination",
	.syscalls = no_syscalls,
	.init = linear_init,
	.run = linear_run,
	.fini = compute_fini,
};

const struct job job_string_rtns = {
	.name = "string_rtns",
	.family = "compute",
	.unit = "String Manipulations",
	.inner_ops = STRING_ROUNDS * 8,
	.summary = STR(STRING_ROUNDS) " rounds of strcpy, strcat, strlen, "
		   "strcmp, strncmp, strchr, strrchr, strstr",
	.syscalls = no_syscalls,
	.init = string_init,
	.run = string_run,
	.fini = compute_fini,
};

const struct job job_sort_rtns_1 = {
	.name = "sort_rtns_1",
	.family = "compute",
	.unit = "Sort Operations",
	.inner_ops = 1,
	.summary = "qsort() " STR(SORT_INTS) " shuffled integers",
	.syscalls = no_syscalls,
	.setup = "shuffles the integers (Fisher-Yates)",
	.init = sort_init,
	.prepare = sort_prepare,
	.run = sort_run,
	.fini = compute_fini,
};

const struct job job_misc_rtns_1 = {
	.name = "misc_rtns_1",
	.family = "compute",
	.unit = "Auxiliary Loops",
	.inner_ops = 1,
	.summary = "getuid, geteuid, getgid, getegid, getpid, getppid, "
		   "umask, time (vDSO)",
	.syscalls = (const struct job_syscall[]){
		{ "getuid", 1 }, { "geteuid", 1 }, { "getgid", 1 },
		{ "getegid", 1 }, { "getpid", 1 }, { "getppid", 1 },
		{ "umask", 1 }, { NULL, 0 } },
	.init = misc_init,
	.run = misc_run,
	.fini = compute_fini,
};
