// SPDX-License-Identifier: GPL-2.0
/*
 * calq-rank - attach tools/bpf/calq_rank.bpf.o to a device's egress with
 * libbpf, so that sch_calq (`rank mark`) on that device serves Shoal
 * packets shortest-remaining-message first, with aging.
 *
 *   calq-rank attach DEV [--shift N] [--max-day N] [--port P] [--obj FILE]
 *   calq-rank stats DEV      packets ranked and passed over (this boot)
 *   calq-rank detach DEV     remove the clsact hook and its filters
 *
 * The filter stays attached when calq-rank exits (the kernel holds the
 * program); the statistics map is found again through the program's id.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf-object-path.h"
#include "json_writer.h"

#define HANDLE		0x5a1
#define PRIO		1

struct calq_rank_cfg {
	__u32 shift;
	__u32 max_day;
	__u32 port;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: calq-rank attach DEV [--shift N] [--max-day N] [--port P] [--obj FILE]\n"
"       calq-rank stats DEV\n"
"       calq-rank detach DEV\n"
"  --shift N     a day is 2^N bytes of message still to come (default 14)\n"
"  --max-day N   the furthest day (default 31; at most the calq's buckets - 1)\n"
"  --port P      UDP port of Shoal packets (default 4797)\n"
"  --obj FILE    the BPF object (default: calq_rank.bpf.o beside this program,\n"
"                else in " SHOAL_BPF_DIR ")\n");
}

static int default_obj(char *buf, size_t len)
{
	return bpf_object_path(buf, len, "calq_rank.bpf.o");
}

static int attach(int ifindex, const char *path, const struct calq_rank_cfg *cfg)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE, .priority = PRIO);
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	__u32 key = 0;
	int err;

	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		fprintf(stderr, "calq-rank: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	prog = bpf_object__find_program_by_name(obj, "calq_rank");
	map = bpf_object__find_map_by_name(obj, "calq_rank_cfg");
	if (err || !prog || !map) {
		fprintf(stderr, "calq-rank: cannot load %s: %s\n", path, strerror(-err));
		goto out;
	}
	err = bpf_map_update_elem(bpf_map__fd(map), &key, cfg, BPF_ANY);
	if (err) {
		perror("calq-rank: config");
		goto out;
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		fprintf(stderr, "calq-rank: clsact hook: %s\n", strerror(-err));
		goto out;
	}
	opts.prog_fd = bpf_program__fd(prog);
	opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &opts);
	if (err)
		fprintf(stderr, "calq-rank: attach: %s\n", strerror(-err));
out:
	bpf_object__close(obj);
	return err ? 1 : 0;
}

/* The statistics map of the attached program, as an fd, or -1 */
static int stats_fd(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE, .priority = PRIO);
	struct bpf_prog_info pinfo = {};
	struct bpf_map_info minfo = {};
	__u32 len = sizeof(pinfo), ids[4], i;
	int pfd, fd;

	if (bpf_tc_query(&hook, &opts))
		return -1;
	pfd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (pfd < 0)
		return -1;
	pinfo.nr_map_ids = 4;
	pinfo.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(pfd, &pinfo, &len)) {
		close(pfd);
		return -1;
	}
	close(pfd);
	for (i = 0; i < pinfo.nr_map_ids && i < 4; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		len = sizeof(minfo);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &minfo, &len) &&
		    !strcmp(minfo.name, "calq_rank_stats"))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

static int stats(int ifindex)
{
	int ncpu = libbpf_num_possible_cpus(), fd = stats_fd(ifindex), c;
	unsigned long long sum[2] = { 0, 0 };
	struct jw w;
	__u64 *v;
	__u32 k;

	if (fd < 0 || ncpu <= 0) {
		fprintf(stderr, "calq-rank: no calq-rank program on this device\n");
		return 1;
	}
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return 1;
	for (k = 0; k < 2; k++) {
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (c = 0; c < ncpu; c++)
			sum[k] += v[c];
	}
	free(v);
	close(fd);
	jw_init(&w, stdout);
	jw_obj(&w, NULL, JW_INLINE);
	jw_u64(&w, "ranked", sum[0]);
	jw_u64(&w, "other", sum[1]);
	jw_end(&w);
	return jw_finish(&w) ? 1 : 0;
}

static int detach(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	int err = bpf_tc_hook_destroy(&hook);

	if (err && err != -ENOENT) {
		fprintf(stderr, "calq-rank: detach: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}

static const struct option long_opts[] = {
	{ "shift", required_argument, NULL, 's' },
	{ "max-day", required_argument, NULL, 'm' },
	{ "port", required_argument, NULL, 'p' },
	{ "obj", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	struct calq_rank_cfg cfg = { .shift = 14, .max_day = 31, .port = 4797 };
	char objbuf[PATH_MAX];
	const char *obj = NULL;
	unsigned long v;
	unsigned int ifindex;
	char *end;
	int c;

	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	optind = 3;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'o') {
			obj = optarg;
			continue;
		}
		if (c == '?') {
			usage(stderr);
			return 2;
		}
		errno = 0;
		v = strtoul(optarg, &end, 10);
		if (errno || end == optarg || *end || optarg[0] == '-' ||
		    (c == 's' && v > 31) || (c == 'm' && v > 4095) ||
		    (c == 'p' && (v < 1 || v > 65535))) {
			fprintf(stderr, "calq-rank: bad value '%s'\n", optarg);
			return 2;
		}
		if (c == 's')
			cfg.shift = (__u32)v;
		else if (c == 'm')
			cfg.max_day = (__u32)v;
		else
			cfg.port = (__u32)v;
	}
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "calq-rank: no device '%s'\n", argv[2]);
		return 2;
	}
	if (!strcmp(argv[1], "attach")) {
		if (!obj && default_obj(objbuf, sizeof(objbuf))) {
			fprintf(stderr, "calq-rank: cannot find calq_rank.bpf.o; use --obj\n");
			return 2;
		}
		return attach((int)ifindex, obj ? obj : objbuf, &cfg);
	}
	if (!strcmp(argv[1], "stats"))
		return stats((int)ifindex);
	if (!strcmp(argv[1], "detach"))
		return detach((int)ifindex);
	usage(stderr);
	return 2;
}
