/* driver/capture/ksyms.h: kernel addresses to names, from /proc/kallsyms: the frames of a lock's call stack, whether a frame is lock code, and the name of a static lock. */
#ifndef AIMSWEEP_KSYMS_H
#define AIMSWEEP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	char type;		/* kallsyms' letter: 'T', 't', 'D', 'b', ... */
	char *name;
};

struct ksyms {
	struct ksym *syms;	/* sorted by address */
	size_t n;
	/* The kernel's lock and scheduler code, where a lock's own
	 * functions are: a caller is the first frame outside both. Zero
	 * when kallsyms does not name them. */
	uint64_t lock_text[2], sched_text[2];
};

/*
 * Reads a file in /proc/kallsyms' format ("ffffffff81000000 T _stext",
 * with "\t[module]" after a module's symbols). Symbols at address 0 (what
 * kallsyms shows to readers it hides addresses from) are skipped. -1 with
 * the reason in err when the file cannot be read or names no symbol.
 */
int ksyms_load(struct ksyms *ks, const char *path, char *err, size_t errlen);

void ksyms_free(struct ksyms *ks);

/* The symbol that holds addr: the one at or below it; NULL below the
 * first symbol. */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr);

/* "down_write+0x66", or the address in hex when no symbol holds it. */
void ksyms_frame(const struct ksyms *ks, uint64_t addr, char *buf,
		 size_t len);

/* True when addr is in the kernel's lock or scheduler text. */
bool ksyms_is_lock_code(const struct ksyms *ks, uint64_t addr);

/* How deep in a lock wait's stack the tracing machinery's frames can be:
 * the BPF program's own, bpf_trace_run*, __traceiter_*. */
#define KSYMS_TRACING_FRAMES_MAX 4

/*
 * Of a lock wait's stack ips[0..n), innermost first, as the tracepoint
 * saw it: *first is the first frame after the tracing machinery's (0
 * when it has none among the first KSYMS_TRACING_FRAMES_MAX), and the
 * return is the caller's index, the first frame from there outside the
 * lock and scheduler text; n when every frame is in them.
 */
size_t ksyms_lock_caller(const struct ksyms *ks, const uint64_t *ips,
			 size_t n, size_t *first);

/*
 * The name of a lock at addr when it is a static one: a data symbol
 * (kallsyms' d, b or r, either case) that starts at addr, or holds it
 * less than LOCK_NAME_MAX_OFFSET bytes in ("rtnl_mutex", "table+0x40").
 * Empty when it is not, as for every lock in allocated memory, and for
 * every static one on a kernel built without CONFIG_KALLSYMS_ALL.
 */
#define LOCK_NAME_MAX_OFFSET 4096
void ksyms_lock_name(const struct ksyms *ks, uint64_t addr, char *buf,
		     size_t len);

#endif
