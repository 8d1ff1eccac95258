/* driver/capture/capture_list.h: every per-level capture, one line each, in the order capture.c runs them. */

/*
 * CAPTURE(name) stands for the row `const struct capture_ops
 * name_capture` that driver/capture/name.c defines. capture.c defines
 * CAPTURE before including this file, twice: once to declare the rows,
 * once to list them in its table. Adding a capture is its file and one
 * line here (plus its option, its line in Makefile.am and its docs); it
 * needs no header unless other code calls it.
 *
 * The order is the one in which captures are prepared and started, and
 * the rule for the profiles' slices of the window: the CPU profile's
 * comes first, from t0, the lock profile's after it. write and abort run
 * from the bottom up, so the hook stays last: it is ended first, as soon
 * as its level is over. A new capture goes above it.
 *
 * No include guard: each inclusion expands the list once more.
 */
CAPTURE(cpu_profile)
CAPTURE(lock_profile)
CAPTURE(hook)
