/* driver/capture/ksyms.c: kernel addresses to names, from /proc/kallsyms. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/ksyms.h"

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Of aliases, a global name before a local one, then by name, so
	 * that the choice does not depend on the file's order. */
	if (isupper((unsigned char)x->type) != isupper((unsigned char)y->type))
		return isupper((unsigned char)x->type) ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int add_sym(struct ksyms *ks, size_t *cap, uint64_t addr, char type,
		   const char *name)
{
	struct ksym *grown;

	if (ks->n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		grown = realloc(ks->syms, *cap * sizeof(*grown));
		if (!grown)
			return -1;
		ks->syms = grown;
	}
	ks->syms[ks->n].name = strdup(name);
	if (!ks->syms[ks->n].name)
		return -1;
	ks->syms[ks->n].addr = addr;
	ks->syms[ks->n].type = type;
	ks->n++;
	return 0;
}

/* The bounds of the lock and scheduler text, by their markers' names. */
static void note_marker(struct ksyms *ks, uint64_t addr, const char *name)
{
	static const struct {
		const char *name;
		size_t field, end;
	} markers[] = {
		{ "__lock_text_start", 0, 0 }, { "__lock_text_end", 0, 1 },
		{ "__sched_text_start", 1, 0 }, { "__sched_text_end", 1, 1 },
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		if (strcmp(name, markers[i].name))
			continue;
		if (markers[i].field)
			ks->sched_text[markers[i].end] = addr;
		else
			ks->lock_text[markers[i].end] = addr;
	}
}

int ksyms_load(struct ksyms *ks, const char *path, char *err, size_t errlen)
{
	char line[512], name[256], type;
	size_t cap = 0;
	uint64_t addr;
	FILE *f;

	memset(ks, 0, sizeof(*ks));
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type,
			   name) != 3 || !addr)
			continue;
		note_marker(ks, addr, name);
		if (add_sym(ks, &cap, addr, type, name)) {
			fclose(f);
			ksyms_free(ks);
			snprintf(err, errlen, "cannot read %s: %s", path,
				 strerror(ENOMEM));
			return -1;
		}
	}
	fclose(f);
	if (!ks->n) {
		snprintf(err, errlen,
			 "%s names no kernel symbol (addresses hidden: not root, or kernel.kptr_restrict is 2)",
			 path);
		return -1;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), by_addr);
	return 0;
}

void ksyms_free(struct ksyms *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->syms[i].name);
	free(ks->syms);
	memset(ks, 0, sizeof(*ks));
}

/* The last symbol at or below addr, the first of its aliases. */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	while (lo && ks->syms[lo - 1].addr == ks->syms[lo].addr)
		lo--;
	return &ks->syms[lo];
}

void ksyms_frame(const struct ksyms *ks, uint64_t addr, char *buf,
		 size_t len)
{
	const struct ksym *s = ksyms_find(ks, addr);

	if (s)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

static bool within(const uint64_t range[2], uint64_t addr)
{
	return range[0] && range[0] <= addr && addr < range[1];
}

bool ksyms_is_lock_code(const struct ksyms *ks, uint64_t addr)
{
	return within(ks->lock_text, addr) || within(ks->sched_text, addr);
}

/* A frame of the tracing machinery that calls a tracepoint's programs. */
static bool is_tracing_frame(const struct ksyms *ks, uint64_t ip)
{
	static const char *const prefixes[] = {
		"bpf_", "__bpf_", "__traceiter_", "trace_", "__trace_",
		"perf_trace_",
	};
	const struct ksym *s = ksyms_find(ks, ip);

	if (!s)
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(s->name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

size_t ksyms_lock_caller(const struct ksyms *ks, const uint64_t *ips,
			 size_t n, size_t *first)
{
	size_t i;

	/* The BPF program's own frame, which kallsyms may not name, can
	 * come first: the stack proper starts after the last tracing frame
	 * among the first few. */
	*first = 0;
	for (i = 0; i < n && i < KSYMS_TRACING_FRAMES_MAX; i++)
		if (is_tracing_frame(ks, ips[i]))
			*first = i + 1;
	for (i = *first; i < n; i++)
		if (ips[i] && !ksyms_is_lock_code(ks, ips[i]))
			return i;
	return n;
}

static bool is_data(char type)
{
	return strchr("dDbBrR", type) != NULL;
}

void ksyms_lock_name(const struct ksyms *ks, uint64_t addr, char *buf,
		     size_t len)
{
	const struct ksym *s = ksyms_find(ks, addr);

	buf[0] = '\0';
	/* No symbol starts between s and addr (ksyms_find() returns the
	 * nearest), so addr is in s unless s ended before it, which the
	 * bound on the offset guards against. */
	if (!s || !is_data(s->type) || addr - s->addr >= LOCK_NAME_MAX_OFFSET)
		return;
	if (addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
}
