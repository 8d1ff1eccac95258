/* driver/capture/lock_bpf.c: the in-kernel lock collector's loading, window and reading, through libbpf and the skeleton bpftool made of lock_bpf.bpf.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/capture/lock_bpf.h"
#include "driver/base/util.h"

#ifdef HAVE_BPF_COLLECTOR
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "driver/capture/lock_bpf.skel.h"

struct lock_bpf {
	struct lock_bpf_skel *skel;
	int n_cpus;		/* possible CPUs: per-CPU maps' width */
	uint64_t t0_ns, t1_ns;
};

/* libbpf's last message, kept for the error it explains instead of
 * printed over the table. */
static char libbpf_last[256];

static int keep_libbpf_message(enum libbpf_print_level level,
			       const char *fmt, va_list ap)
{
	size_t len;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, ap);
	len = strlen(libbpf_last);
	while (len && libbpf_last[len - 1] == '\n')
		libbpf_last[--len] = '\0';
	return 0;
}

const char *lock_bpf_missing(void)
{
	return NULL;
}

static void open_failed(const char *what, int rc, bool *denied, char *err,
			size_t errlen)
{
	*denied = rc == -EPERM || rc == -EACCES;
	snprintf(err, errlen, "cannot %s the in-kernel lock collector: %s%s%s",
		 what, strerror(-rc), libbpf_last[0] ? " (libbpf: " : "",
		 libbpf_last[0] ? libbpf_last : "");
	if (libbpf_last[0])
		snprintf(err + strlen(err), errlen - strlen(err), ")");
}

static int size_maps(struct lock_bpf_skel *skel, unsigned int tasks,
		     unsigned int keys)
{
	int rc;

	rc = bpf_map__set_max_entries(skel->maps.tasks, tasks);
	if (!rc)
		rc = bpf_map__set_max_entries(skel->maps.stacks,
					      LOCK_BPF_STACKS);
	if (!rc)
		rc = bpf_map__set_max_entries(skel->maps.sums,
					      keys ? keys : LOCK_BPF_KEYS);
	return rc;
}

struct lock_bpf *lock_bpf_open(unsigned int tasks, unsigned int keys,
			       bool *denied, char *err, size_t errlen)
{
	struct lock_bpf *b = calloc(1, sizeof(*b));
	int rc;

	*denied = false;
	if (!b) {
		snprintf(err, errlen, "in-kernel lock collector: %s",
			 strerror(ENOMEM));
		return NULL;
	}
	libbpf_set_print(keep_libbpf_message);
	libbpf_last[0] = '\0';
	b->n_cpus = libbpf_num_possible_cpus();
	b->skel = lock_bpf_skel__open();
	if (!b->skel) {
		open_failed("open", -errno, denied, err, errlen);
		goto fail;
	}
	rc = size_maps(b->skel, tasks, keys);
	if (!rc)
		rc = lock_bpf_skel__load(b->skel);
	if (rc) {
		open_failed("load", rc, denied, err, errlen);
		goto fail;
	}
	rc = lock_bpf_skel__attach(b->skel);
	if (rc) {
		open_failed("attach", rc, denied, err, errlen);
		goto fail;
	}
	return b;
fail:
	lock_bpf_close(b);
	return NULL;
}

/* Deletes the keys of map fd that keep(value) says not to keep; the keys
 * are listed first, so that keys added meanwhile cannot keep it going. */
static int delete_keys(int fd, size_t key_size, size_t value_size,
		       size_t max, bool (*keep)(const void *value))
{
	unsigned char *keys = calloc(max ? max : 1, key_size);
	unsigned char *value = calloc(1, value_size ? value_size : 1);
	size_t n = 0;

	if (!keys || !value) {
		free(keys);
		free(value);
		return ENOMEM;
	}
	while (n < max && !bpf_map_get_next_key(fd, n ? keys + (n - 1) *
							key_size : NULL,
						keys + n * key_size))
		n++;
	for (size_t i = 0; i < n; i++)
		if (!keep || bpf_map_lookup_elem(fd, keys + i * key_size,
						 value) ||
		    !keep(value))
			bpf_map_delete_elem(fd, keys + i * key_size);
	free(keys);
	free(value);
	return 0;
}

/* A wait that is still going on stays; one that ended after the last
 * window was kept only for that window's reading. */
static bool still_waiting(const void *value)
{
	return !((const struct lock_bpf_wait *)value)->end_ns;
}

int lock_bpf_reset(struct lock_bpf *b, char *err, size_t errlen)
{
	struct lock_bpf_skel *skel = b->skel;
	uint64_t *zero = calloc(b->n_cpus, sizeof(*zero));
	int rc;

	if (!zero)
		return err_set(err, errlen, "in-kernel lock collector: %s",
			       strerror(ENOMEM));
	/* The window closed first: nothing is summed while the sums go. */
	__atomic_store_n(&skel->data->window_start_ns, ~0ULL,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&skel->data->window_end_ns, ~0ULL, __ATOMIC_RELEASE);
	b->t0_ns = b->t1_ns = 0;
	rc = delete_keys(bpf_map__fd(skel->maps.sums),
			 sizeof(struct lock_bpf_key), 0,
			 bpf_map__max_entries(skel->maps.sums), NULL);
	if (!rc)
		rc = delete_keys(bpf_map__fd(skel->maps.tasks),
				 sizeof(uint32_t),
				 sizeof(struct lock_bpf_wait),
				 bpf_map__max_entries(skel->maps.tasks),
				 still_waiting);
	for (uint32_t k = 0; !rc && k < LOCK_BPF_N_COUNTERS; k++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.counters), &k,
					zero, BPF_ANY))
			rc = errno;
	free(zero);
	if (rc)
		return err_set(err, errlen,
			       "cannot clear the in-kernel lock collector's maps: %s",
			       strerror(rc));
	return 0;
}

void lock_bpf_start(struct lock_bpf *b, uint64_t t0_ns)
{
	b->t0_ns = t0_ns;
	__atomic_store_n(&b->skel->data->window_start_ns, t0_ns,
			 __ATOMIC_RELEASE);
}

void lock_bpf_stop(struct lock_bpf *b, uint64_t t1_ns)
{
	b->t1_ns = t1_ns;
	__atomic_store_n(&b->skel->data->window_end_ns, t1_ns,
			 __ATOMIC_RELEASE);
}

static size_t read_stack(void *ctx, int32_t stack_id,
			 uint64_t ips[LOCK_BPF_DEPTH])
{
	struct lock_bpf *b = ctx;
	size_t n = 0;

	if (stack_id < 0 ||
	    bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.stacks), &stack_id,
				ips))
		return 0;
	while (n < LOCK_BPF_DEPTH && ips[n])
		n++;
	return n;
}

static int read_counters(struct lock_bpf *b, struct lock_bpf_lost *lost)
{
	int fd = bpf_map__fd(b->skel->maps.counters);
	uint64_t *percpu = calloc(b->n_cpus, sizeof(*percpu));

	if (!percpu)
		return ENOMEM;
	for (uint32_t k = 0; k < LOCK_BPF_N_COUNTERS; k++) {
		if (bpf_map_lookup_elem(fd, &k, percpu)) {
			free(percpu);
			return errno;
		}
		lock_bpf_lost_add(lost, k, percpu, b->n_cpus);
	}
	free(percpu);
	return 0;
}

/* Every key of the per-CPU sums map, its CPUs added up. */
static int read_sums(struct lock_bpf *b, struct lock_bpf_total **out,
		     size_t *n)
{
	int fd = bpf_map__fd(b->skel->maps.sums);
	struct lock_bpf_sum *percpu = calloc(b->n_cpus, sizeof(*percpu));
	size_t max = bpf_map__max_entries(b->skel->maps.sums);
	struct lock_bpf_total *v = calloc(max, sizeof(*v));
	struct lock_bpf_key key, next;
	bool first = true;

	*n = 0;
	if (!percpu || !v) {
		free(percpu);
		free(v);
		return ENOMEM;
	}
	while (*n < max &&
	       !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, percpu))
			continue;
		v[*n].key = key;
		lock_bpf_fold_cpus(percpu, b->n_cpus, &v[*n].sum);
		(*n)++;
	}
	free(percpu);
	*out = v;
	return 0;
}

/* The waits still in progress at t1. */
static int read_open_waits(struct lock_bpf *b, unsigned int max,
			   struct lock_bpf_wait **out, size_t *n)
{
	int fd = bpf_map__fd(b->skel->maps.tasks);
	struct lock_bpf_wait *v = calloc(max ? max : 1, sizeof(*v));
	uint32_t key, next;
	bool first = true;

	*n = 0;
	if (!v)
		return ENOMEM;
	while (*n < max &&
	       !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &v[*n]))
			continue;
		if (v[*n].begin_ns < b->t1_ns &&
		    (!v[*n].end_ns || v[*n].end_ns > b->t1_ns))
			(*n)++;
	}
	*out = v;
	return 0;
}

int lock_bpf_read(struct lock_bpf *b, const struct ksyms *ks, size_t top,
		  struct lock_report *out, struct lock_bpf_lost *lost,
		  char *err, size_t errlen)
{
	struct lock_bpf_total *totals = NULL;
	struct lock_bpf_wait *open = NULL;
	size_t n_totals = 0, n_open = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(lost, 0, sizeof(*lost));
	rc = read_counters(b, lost);
	if (!rc)
		rc = read_sums(b, &totals, &n_totals);
	if (!rc)
		rc = read_open_waits(b, bpf_map__max_entries(b->skel->maps.tasks),
				     &open, &n_open);
	if (!rc)
		rc = lock_bpf_report(totals, n_totals, open, n_open, b->t0_ns,
				     b->t1_ns, ks, read_stack, b, top,
				     out) ? errno : 0;
	if (rc)
		snprintf(err, errlen,
			 "cannot read the in-kernel lock collector's maps: %s",
			 strerror(rc));
	/* Read: new waits may begin again, so that one in progress when
	 * the next window opens has its begin. */
	__atomic_store_n(&b->skel->data->window_end_ns, ~0ULL,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&b->skel->data->window_start_ns, ~0ULL,
			 __ATOMIC_RELEASE);
	free(totals);
	free(open);
	return rc ? -1 : 0;
}

void lock_bpf_close(struct lock_bpf *b)
{
	if (!b)
		return;
	lock_bpf_skel__destroy(b->skel);
	free(b);
}

#else /* !HAVE_BPF_COLLECTOR */

struct lock_bpf {
	int unused;
};

const char *lock_bpf_missing(void)
{
	return BPF_COLLECTOR_MISSING;
}

struct lock_bpf *lock_bpf_open(unsigned int tasks, unsigned int keys,
			       bool *denied, char *err, size_t errlen)
{
	(void)tasks;
	(void)keys;
	*denied = false;
	snprintf(err, errlen,
		 "this aimsweep was built without the in-kernel lock collector (without %s)",
		 BPF_COLLECTOR_MISSING);
	return NULL;
}

void lock_bpf_start(struct lock_bpf *b, uint64_t t0_ns)
{
	(void)b;
	(void)t0_ns;
}

void lock_bpf_stop(struct lock_bpf *b, uint64_t t1_ns)
{
	(void)b;
	(void)t1_ns;
}

int lock_bpf_reset(struct lock_bpf *b, char *err, size_t errlen)
{
	(void)b;
	return err_set(err, errlen,
		       "the in-kernel lock collector was not built");
}

int lock_bpf_read(struct lock_bpf *b, const struct ksyms *ks, size_t top,
		  struct lock_report *out, struct lock_bpf_lost *lost,
		  char *err, size_t errlen)
{
	(void)b;
	(void)ks;
	(void)top;
	memset(out, 0, sizeof(*out));
	memset(lost, 0, sizeof(*lost));
	return err_set(err, errlen,
		       "the in-kernel lock collector was not built");
}

void lock_bpf_close(struct lock_bpf *b)
{
	(void)b;
}

#endif
