// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-stat - shoal.ko's counters of a network namespace, as nstat shows
 * the kernel's SNMP counters: what changed since the last call, or in
 * each interval, as text or JSON.
 *
 *   shoal-stat [-a] [-z] [-j] [-r] [-n NETNS] [-i SECS [-c COUNT]]
 *              [--file PATH] [--history PATH] [PATTERN...]
 *
 * The counters are /proc/net/shoal/stats's "name value" lines (their
 * meanings are Documentation/shoal.md's).  Without -i, shoal-stat prints
 * each counter's growth since its last call, which it keeps in a history
 * file (per user and namespace, under $TMPDIR or /tmp), and updates it;
 * -a prints the values themselves and leaves the history alone.  With -i
 * it prints the growth in each interval of SECS seconds, COUNT times (0,
 * the default: until interrupted).  A counter smaller than its history's
 * (shoal.ko was loaded again) counts from 0.  Counters that did not move
 * are left out unless -z; PATTERNs (shell globs, "rx_*") pick counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_writer.h"

#define MAX_COUNTERS	512
#define NAME_MAX_LEN	64
#define STATS_PATH	"/proc/net/shoal/stats"

struct counter {
	char name[NAME_MAX_LEN];
	uint64_t value;
};

struct counters {
	unsigned int n;
	struct counter c[MAX_COUNTERS];
};

static bool opt_abs, opt_zeros, opt_json, opt_reset;
static const char *opt_file = STATS_PATH, *opt_history, *opt_netns;
static double opt_interval;
static long opt_count;
static char **patterns;
static int nr_patterns;

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: shoal-stat [-a] [-z] [-j] [-r] [-n NETNS] [-i SECS [-c COUNT]]\n"
		"                  [--file PATH] [--history PATH] [PATTERN...]\n"
		"shoal.ko's counters (/proc/net/shoal/stats): their growth since the\n"
		"last call, or in each interval.\n"
		"  -a, --absolute     the values themselves; the history is left alone\n"
		"  -z, --zeros        counters that did not move too\n"
		"  -j, --json         one JSON object per report\n"
		"  -r, --reset        forget the history first: report from 0\n"
		"  -n, --netns NAME   the counters of namespace NAME (/run/netns/NAME)\n"
		"  -i, --interval S   report the growth every S seconds\n"
		"  -c, --count N      that many reports (default 0: until interrupted)\n"
		"      --file PATH    read the counters from PATH\n"
		"      --history PATH keep the history in PATH\n"
		"  PATTERN            shell globs of counter names (\"rx_*\")\n"
		"  -h, --help         this text\n");
}

/* Read "name value" lines of @path into @s; false with errno set */
static bool counters_read(const char *path, struct counters *s)
{
	char line[256], name[NAME_MAX_LEN];
	uint64_t v;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return false;
	s->n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %" SCNu64, name, &v) != 2)
			continue;
		if (s->n == MAX_COUNTERS) {
			fclose(f);
			errno = E2BIG;
			return false;
		}
		snprintf(s->c[s->n].name, NAME_MAX_LEN, "%s", name);
		s->c[s->n].value = v;
		s->n++;
	}
	fclose(f);
	return true;
}

static const struct counter *counters_find(const struct counters *s,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

static bool picked(const char *name)
{
	int i;

	if (!nr_patterns)
		return true;
	for (i = 0; i < nr_patterns; i++)
		if (!fnmatch(patterns[i], name, 0))
			return true;
	return false;
}

/* The growth of counter @i of @now since @base (NULL: its value) */
static uint64_t counter_value(const struct counters *now,
			      const struct counters *base, unsigned int i)
{
	const struct counter *b;
	uint64_t v = now->c[i].value;

	b = base ? counters_find(base, now->c[i].name) : NULL;
	if (b && b->value <= v)
		v -= b->value;
	return v;
}

static bool shown(const struct counters *now, unsigned int i, uint64_t v)
{
	return (v || opt_zeros) && picked(now->c[i].name);
}

/* One JSON object a report.  Counter names are the kernel's [a-z0-9_];
 * the writer quotes anything else all the same, so that the output stays
 * JSON whatever the file holds.
 */
static void report_json(const struct counters *now,
			const struct counters *base, double secs)
{
	unsigned int i;
	struct jw w;
	uint64_t v;

	jw_init(&w, stdout);
	jw_obj(&w, NULL, JW_INLINE);
	jw_s64(&w, "time", (long long)time(NULL));
	if (secs > 0)
		jw_num(&w, "interval_s", secs, 3);
	jw_obj(&w, "counters", JW_INLINE);
	for (i = 0; i < now->n; i++) {
		v = counter_value(now, base, i);
		if (shown(now, i, v))
			jw_u64(&w, now->c[i].name, v);
	}
	jw_end(&w);
	jw_end(&w);
	if (jw_finish(&w))
		fprintf(stderr, "shoal-stat: cannot write the JSON report\n");
}

/* One report: @now less @base (NULL: the values), over @secs (0: none) */
static void report(const struct counters *now, const struct counters *base,
		   double secs)
{
	unsigned int i;
	uint64_t v;

	if (opt_json) {
		report_json(now, base, secs);
		fflush(stdout);
		return;
	}
	printf("#shoal-stat %s\n", base ? (secs > 0 ? "interval" :
				   "since the last call") : "values");
	for (i = 0; i < now->n; i++) {
		v = counter_value(now, base, i);
		if (!shown(now, i, v))
			continue;
		if (secs > 0)
			printf("%-32s %20" PRIu64 " %14.1f/s\n", now->c[i].name,
			       v, v / secs);
		else
			printf("%-32s %20" PRIu64 "\n", now->c[i].name, v);
	}
	fflush(stdout);
}

static bool history_write(const char *path, const struct counters *s)
{
	char tmp[4096 + 8];
	unsigned int i;
	FILE *f;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return false;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return false;
	}
	for (i = 0; i < s->n; i++)
		fprintf(f, "%s %" PRIu64 "\n", s->c[i].name, s->c[i].value);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return false;
	}
	return true;
}

/* The default history file: one per user and network namespace */
static void history_default(char *buf, size_t len)
{
	const char *dir = getenv("TMPDIR");
	struct stat st;
	unsigned long ino = 0;

	if (stat("/proc/self/ns/net", &st) == 0)
		ino = st.st_ino;
	snprintf(buf, len, "%s/.shoal-stat.u%u.%lu",
		 dir && *dir ? dir : "/tmp", (unsigned int)getuid(), ino);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void read_failed(void)
{
	bool proc = !strcmp(opt_file, STATS_PATH);

	fprintf(stderr, "shoal-stat: %s: %s%s\n", opt_file, strerror(errno),
		proc && errno == ENOENT ? " (is shoal.ko loaded?)" : "");
}

static int run_intervals(void)
{
	static struct counters a, b;
	struct counters *prev = &a, *cur = &b, *t;
	double t0, t1;
	long n;

	if (!counters_read(opt_file, prev))
		goto bad;
	t0 = now_s();
	for (n = 0; !opt_count || n < opt_count; n++) {
		struct timespec ts = {
			.tv_sec = (time_t)opt_interval,
			.tv_nsec = (long)((opt_interval -
					   (time_t)opt_interval) * 1e9),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (!counters_read(opt_file, cur))
			goto bad;
		t1 = now_s();
		report(cur, prev, t1 - t0);
		t = prev;
		prev = cur;
		cur = t;
		t0 = t1;
	}
	return 0;
bad:
	read_failed();
	return 1;
}

static int run_once(void)
{
	static struct counters now, hist;
	char path[4096];
	bool have = false;

	if (!counters_read(opt_file, &now)) {
		read_failed();
		return 1;
	}
	if (opt_abs) {
		report(&now, NULL, 0);
		return 0;
	}
	if (opt_history)
		snprintf(path, sizeof(path), "%s", opt_history);
	else
		history_default(path, sizeof(path));
	if (!opt_reset)
		have = counters_read(path, &hist);
	if (!have)
		hist.n = 0;
	report(&now, &hist, 0);
	if (!history_write(path, &now)) {
		fprintf(stderr, "shoal-stat: history %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	return 0;
}

static int enter_netns(const char *name)
{
	char path[4096];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "shoal-stat: namespace %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "absolute", no_argument, NULL, 'a' },
		{ "zeros", no_argument, NULL, 'z' },
		{ "json", no_argument, NULL, 'j' },
		{ "reset", no_argument, NULL, 'r' },
		{ "netns", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "file", required_argument, NULL, 'F' },
		{ "history", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "azjrn:i:c:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'a':
			opt_abs = true;
			break;
		case 'z':
			opt_zeros = true;
			break;
		case 'j':
			opt_json = true;
			break;
		case 'r':
			opt_reset = true;
			break;
		case 'n':
			opt_netns = optarg;
			break;
		case 'i':
			opt_interval = strtod(optarg, &end);
			if (*end || !(opt_interval >= 0.01) ||
			    opt_interval > 86400) {
				fprintf(stderr, "shoal-stat: -i %s: %s\n", optarg,
					"an interval of 0.01 to 86400 seconds");
				return 2;
			}
			break;
		case 'c':
			opt_count = strtol(optarg, &end, 10);
			if (*end || opt_count < 0) {
				fprintf(stderr, "shoal-stat: -c %s: a count of 0 or more\n",
					optarg);
				return 2;
			}
			break;
		case 'F':
			opt_file = optarg;
			break;
		case 'H':
			opt_history = optarg;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			print_help(stderr);
			return 2;
		}
	}
	if (opt_count && !opt_interval) {
		fprintf(stderr, "shoal-stat: -c needs -i\n");
		return 2;
	}
	if (opt_interval && opt_abs) {
		fprintf(stderr, "shoal-stat: -a and -i do not go together\n");
		return 2;
	}
	patterns = argv + optind;
	nr_patterns = argc - optind;
	if (opt_netns && enter_netns(opt_netns))
		return 1;
	return opt_interval ? run_intervals() : run_once();
}
