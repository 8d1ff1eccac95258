/* driver/output/plot.c: draws results: writes script and data, runs gnuplot. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/output/plot.h"
#include "driver/output/plot_data.h"
#include "driver/output/plot_script.h"
#include "driver/base/process.h"
#include "driver/output/result_read.h"
#include "driver/base/util.h"

static bool has_ok_level(const cJSON *root)
{
	const cJSON *l;

	cJSON_ArrayForEach(l, result_levels(root))
		if (level_is_ok(l))
			return true;
	return false;
}

/* The data file at dat_path: a header line, then every result's blocks,
 * their lines going into d's panels. -1 after a message in err. */
static int write_data_file(struct plot_data *d, const struct plot_result *res,
			   size_t n, const char *dat_path, char *err,
			   size_t errlen)
{
	int rc;

	d->dat = fopen(dat_path, "w");
	if (!d->dat) {
		snprintf(err, errlen, "cannot write %s: %s", dat_path,
			 strerror(errno));
		return -1;
	}
	fprintf(d->dat, "# %s: aimsweep plot data, read by the script next to it; failed levels are left out, a blank line breaks the line there.\n",
		d->dat_name);
	rc = plot_data_add_results(d, res, n);
	for (int i = 0; !rc && i < N_PANELS; i++)
		rc = fflush(d->panels[i].clauses) ? -1 : 0;
	if (rc) {
		snprintf(err, errlen, "out of memory");
		fclose(d->dat);
	} else if (fclose(d->dat)) {
		snprintf(err, errlen, "cannot write %s: %s", dat_path,
			 strerror(errno));
		rc = -1;
	}
	d->dat = NULL;
	return rc;
}

/* The script at gp_path, drawing d's panels to out_name. -1 after a
 * message in err. */
static int write_script_file(const struct plot_data *d, size_t n_results,
			     const char *gp_path, const char *out_name,
			     bool png, char *err, size_t errlen)
{
	const char *gp_name = strrchr(gp_path, '/');
	FILE *gp = fopen(gp_path, "w");

	gp_name = gp_name ? gp_name + 1 : gp_path;
	if (gp) {
		plot_script_write(gp, d, n_results, gp_name, out_name, png);
		if (!fclose(gp))
			return 0;
	}
	snprintf(err, errlen, "cannot write %s: %s", gp_path,
		 strerror(errno));
	return -1;
}

int plot_write(const struct plot_result *res, size_t n, const char *gp_path,
	       const char *dat_path, const char *dat_name,
	       const char *out_name, bool png, char *err, size_t errlen)
{
	struct plot_data d = {
		.dat_name = dat_name,
		.min_users = INFINITY,
		.max_users = -INFINITY,
		.geometric = true,
	};
	int active = 0, rc = -1;

	if (plot_script_panels_init(&d)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (write_data_file(&d, res, n, dat_path, err, errlen))
		goto out;
	for (int i = 0; i < N_PANELS; i++)
		active += d.panels[i].n > 0;
	if (!active) {
		struct stat st;

		/* Nothing to draw from it: leave nothing behind either; but
		 * only a file, never a device the data was sent to. */
		if (!stat(dat_path, &st) && S_ISREG(st.st_mode))
			unlink(dat_path);
		snprintf(err, errlen, "nothing to plot: no level is ok");
		goto out;
	}
	if (!write_script_file(&d, n, gp_path, out_name, png, err, errlen))
		rc = active;
out:
	for (int i = 0; i < N_PANELS; i++) {
		if (d.panels[i].clauses)
			fclose(d.panels[i].clauses);
		free(d.panels[i].text);
	}
	return rc;
}

/* How long gnuplot may take: five panels of a long ramp take well under
 * a second; a gnuplot that hangs must not hang the end of a run. */
#define GNUPLOT_TIMEOUT_S 60

/* Copies what gnuplot said (kept in `log`) to standard error. */
static void show_gnuplot_log(FILE *log)
{
	char line[512];

	if (!log || fseek(log, 0, SEEK_SET))
		return;
	while (fgets(line, sizeof(line), log))
		fprintf(stderr, "gnuplot: %s%s", line,
			strchr(line, '\n') ? "" : "\n");
}

/*
 * Runs `gnuplot SCRIPT` in dir, without a shell. Returns its exit status,
 * or -1 after a message. What gnuplot writes to standard error is shown
 * only when it fails: a working script's warnings (an x range of one
 * level is "empty") are noise in a run's output. A script never needs the
 * terminal: gnuplot reads /dev/null, so that a `pause` in an edited copy
 * cannot hang us.
 */
static int run_gnuplot(const char *dir, const char *script)
{
	char *const argv[] = { "gnuplot", (char *)script, NULL };
	FILE *log = tmpfile();
	int status, got, rc = -1;
	pid_t pid;

	fflush(NULL);
	pid = process_spawn(&(struct spawn_spec){
		.argv = argv, .dir = dir, .out_fd = -1,
		.err_fd = log ? fileno(log) : -1,
	});
	if (pid < 0) {
		msg_error("plot: cannot fork gnuplot: %s", strerror(errno));
		if (log)
			fclose(log);
		return -1;
	}
	got = process_wait(pid, &status, PROCESS_REAP,
			   process_deadline_in(GNUPLOT_TIMEOUT_S));
	if (got == 0) {
		process_end_group(&pid, 0, 0);
		show_gnuplot_log(log);
		msg_error("plot: gnuplot did not finish within %d s; killed it",
			  GNUPLOT_TIMEOUT_S);
	} else if (got < 0) {
		msg_error("plot: waiting for gnuplot: %s", strerror(errno));
	} else if (WIFSIGNALED(status)) {
		show_gnuplot_log(log);
		msg_error("plot: gnuplot was killed by signal %d",
			  WTERMSIG(status));
	} else {
		rc = WEXITSTATUS(status);
		if (rc)
			show_gnuplot_log(log);
	}
	if (log)
		fclose(log);
	return rc;
}

/* FILE.svg -> FILE.gp and FILE.dat, with the directory and bare names. */
struct plot_paths {
	char *dir, *gp, *dat, *gp_name, *dat_name, *out_name;
};

static void plot_paths_free(struct plot_paths *p)
{
	free(p->dir);
	free(p->gp);
	free(p->dat);
	free(p->gp_name);
	free(p->dat_name);
	free(p->out_name);
}

/* "%.*s%s" of the first `len` bytes of s and suffix; NULL when out of
 * memory. */
static char *stem_with(const char *s, size_t len, const char *suffix)
{
	char *r;

	if (asprintf(&r, "%.*s%s", (int)len, s, suffix) < 0)
		return NULL;
	return r;
}

static int plot_paths_make(const char *out, struct plot_paths *p)
{
	const char *slash = strrchr(out, '/');
	const char *name = slash ? slash + 1 : out;
	size_t stem = strlen(out) - 4, name_stem = strlen(name) - 4;

	if (slash)
		p->dir = strndup(out, slash == out ? 1 : (size_t)(slash - out));
	else
		p->dir = strdup(".");
	p->gp = stem_with(out, stem, ".gp");
	p->dat = stem_with(out, stem, ".dat");
	p->gp_name = stem_with(name, name_stem, ".gp");
	p->dat_name = stem_with(name, name_stem, ".dat");
	p->out_name = strdup(name);
	return p->dir && p->gp && p->dat && p->gp_name && p->dat_name &&
	       p->out_name ? 0 : -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

bool plot_output_name_ok(const char *out)
{
	const char *name = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;

	if ((!ends_with(out, ".png") && !ends_with(out, ".svg")) ||
	    strlen(name) <= 4) {
		msg_error("plot: -o %s: the picture's name must end in .svg or .png",
			  out);
		return false;
	}
	if (!plot_script_literal(out)) {
		msg_error("plot: -o: the name has control characters or is not UTF-8; the script could not name it");
		return false;
	}
	return true;
}

char *plot_label(const cJSON *root, const char *label, const char *path)
{
	const char *kernel = json_str(json_obj(root, "host"),
				      "kernel_release") ?: "?";
	char *s;

	/* The kernel is in every legend: two runs of one kernel and
	 * workfile are told apart by --label, two kernels by this. */
	if (label ? asprintf(&s, "%s (%s)", label, kernel) < 0 :
	    asprintf(&s, "%s %s", kernel,
		     json_str(json_obj(root, "mix"), "name") ?: path) < 0)
		return NULL;
	return s;
}

int plot_draw(const struct plot_result *res, size_t n, const char *out)
{
	struct plot_paths paths = { 0 };
	char err[1024];
	int panels, status, rc = -1;

	if (!plot_output_name_ok(out))
		return -1;
	if (plot_paths_make(out, &paths)) {
		msg_error("plot: out of memory");
		goto out;
	}
	panels = plot_write(res, n, paths.gp, paths.dat, paths.dat_name,
			    paths.out_name, ends_with(out, ".png"), err,
			    sizeof(err));
	if (panels < 0) {
		msg_error("plot: %s", err);
		goto out;
	}
	if (!process_in_path("gnuplot")) {
		msg_error("plot: gnuplot is not installed, so %s was not drawn (Debian, Ubuntu: apt-get install gnuplot-nox); wrote %s and %s: run `gnuplot %s` in %s to draw it",
			  out, paths.gp, paths.dat, paths.gp_name, paths.dir);
		rc = 0;
		goto out;
	}
	/* A picture left from an earlier run must not pass for this one. */
	if (unlink(out) && errno != ENOENT) {
		msg_error("plot: cannot replace %s: %s", out, strerror(errno));
		goto out;
	}
	status = run_gnuplot(paths.dir, paths.gp_name);
	if (status != 0) {
		if (status > 0)
			msg_error("plot: gnuplot %s failed with status %d",
				  paths.gp, status);
		goto out;
	}
	/* On stderr: stdout may be a run's machine-readable output. */
	msg_info("wrote %s (%d panels; gnuplot script %s, data %s)", out,
		 panels, paths.gp, paths.dat);
	rc = 0;
out:
	plot_paths_free(&paths);
	return rc;
}

/* Frees what read_results() filled in. */
static void results_free(struct plot_result *res, size_t n)
{
	for (size_t i = 0; res && i < n; i++) {
		cJSON_Delete((cJSON *)res[i].root);
		free((char *)res[i].label);
	}
	free(res);
}

/* Each of the n files in paths[] with its legend: the i-th of the
 * n_labels --labels, else the file's own. NULL after a message. */
static struct plot_result *read_results(char **paths, size_t n,
					const char **labels, size_t n_labels)
{
	struct plot_result *res = calloc(n, sizeof(*res));
	char err[1024];

	if (!res) {
		msg_error("plot: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		res[i].root = result_read(paths[i], err, sizeof(err));
		if (!res[i].root) {
			msg_error("%s", err);
			goto fail;
		}
		if (!has_ok_level(res[i].root))
			msg_warn("plot: %s has no ok level, so it has no line",
				 paths[i]);
		res[i].label = plot_label(res[i].root,
					  i < n_labels ? labels[i] : NULL,
					  paths[i]);
		if (!res[i].label) {
			msg_error("plot: out of memory");
			goto fail;
		}
	}
	return res;
fail:
	results_free(res, n);
	return NULL;
}

int plot_files(char **paths, size_t n, const char **labels,
	       size_t n_labels, const char *out)
{
	struct plot_result *res;
	int rc = EXIT_RUN_FAILED;

	res = read_results(paths, n, labels, n_labels);
	if (res && !plot_draw(res, n, out))
		rc = EXIT_OK;
	results_free(res, n);
	return rc;
}