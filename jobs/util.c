/* jobs/util.c: small helpers every job family uses. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job.h"

volatile uint64_t job_sink;

int job_set_reason(const struct job_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx->reason || !ctx->reason_len)
		return 0;
	va_start(ap, fmt);
	vsnprintf(ctx->reason, ctx->reason_len, fmt, ap);
	va_end(ap);
	return 0;
}

/* Formats dir/<name>; returns 0, or ENAMETOOLONG when it does not fit. */
int job_path(char *buf, size_t len, const char *dir, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s/", dir);
	if (n < 0 || (size_t)n >= len)
		return ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - n)
		return ENAMETOOLONG;
	return 0;
}

int job_register_sysv(const struct job_ctx *ctx, enum job_sysv_kind kind,
		      int id)
{
	if (!ctx->sysv_ids)
		return 0;
	for (int i = 0; i < JOB_SYSV_MAX; i++) {
		if (ctx->sysv_ids[i])
			continue;
		ctx->sysv_kinds[i] = (uint8_t)kind;
		/* The id last: the driver reads kinds only for set ids. */
		__atomic_store_n(&ctx->sysv_ids[i], id + 1, __ATOMIC_RELEASE);
		return 0;
	}
	return ENOSPC;
}

void job_pending_sysv(const struct job_ctx *ctx, enum job_sysv_kind kind,
		      int32_t key)
{
	if (!ctx->sysv_pending_key)
		return;
	*ctx->sysv_pending_kind = (uint8_t)kind;
	/* The key last: the driver reads the kind only for a set key. */
	__atomic_store_n(ctx->sysv_pending_key, key, __ATOMIC_RELEASE);
}

void job_unregister_sysv(const struct job_ctx *ctx, int id)
{
	if (!ctx->sysv_ids)
		return;
	for (int i = 0; i < JOB_SYSV_MAX; i++) {
		if (ctx->sysv_ids[i] != id + 1)
			continue;
		__atomic_store_n(&ctx->sysv_ids[i], 0, __ATOMIC_RELEASE);
		return;
	}
}

void *job_state_new(const struct job_ctx *ctx, size_t size,
		    size_t progress_at)
{
	char *st = calloc(1, size);

	if (st)
		memcpy(st + progress_at, &ctx->progress, sizeof(ctx->progress));
	return st;
}

void job_fill_random(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	uint64_t x = seed | 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}
