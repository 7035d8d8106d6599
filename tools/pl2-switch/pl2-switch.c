// SPDX-License-Identifier: GPL-2.0
/*
 * pl2-switch - run the PL2 switch (pl2_switch.bpf.o) on a namespace's
 * ports with libbpf; Documentation/pl2-switch.md, pl2-switch(8).
 *
 *   pl2-switch attach [options] DEV...   the program on each DEV's ingress
 *                     [--any-transport]  (all unicast IP counts as DATA)
 *                     [--uplink DEV]...  (an uplink reserves nothing)
 *   pl2-switch detach [-a] DEV...        off again (-a: every port)
 *   pl2-switch show [-j]                 counters and statistics per port
 *   pl2-switch reset [DEV...]            zero the reservation counters
 *
 * The maps are pinned in <pin-dir>/net<inode of the network namespace>,
 * so every invocation in one namespace finds the same switch and each
 * namespace has its own.  `ip netns exec` mounts a fresh /sys without
 * the BPF filesystem: then the pins are found through /proc/1/root.
 *
 * Concurrency: the tool holds an flock on the pin directory while it
 * changes the port map, so two invocations cannot pick the same slot.
 * The program reads the maps meanwhile; it treats a port without a slot
 * as not a switch port, and a slot's counters are zeroed before its
 * port is mapped to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/magic.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf-object-path.h"
#include "json_writer.h"
#include "pl2_switch_core.h"

#define HANDLE		0x9102
#define PRIO		1
#define PIN_DEFAULT	"/sys/fs/bpf/pl2-switch"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char * const map_names[] = {
	"pl2_cfg", "pl2_ifmap", "pl2_ports", "pl2_stats", "pl2_lock", "pl2_sweep"
};

static const char * const mode_names[PL2_MODE_NR] = {
	"counter", "clock", "joint"
};

static bool verbose;
static char pin_dir[PATH_MAX + 64];	/* this namespace's */

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: pl2-switch attach [options] [DEV...] [--uplink DEV]...\n"
		"       pl2-switch detach [-a] DEV...\n"
		"       pl2-switch show [-j]\n"
		"       pl2-switch reset [DEV...]\n"
		"attach options (the switch's; fixed while any port is attached):\n"
		"  --mode M       counter (the paper's Algorithm 1, default), clock\n"
		"                 (pairwise, drains with time) or joint (no collisions)\n"
		"  --port P       UDP destination port of Shoal packets (default %u)\n"
		"  --kmax K       an RSV's demand is capped at K packets (default %u)\n"
		"  --t T          drop unsolicited DATA past a backlog of T slots\n"
		"                 (default %u, 0 = never)\n"
		"  --slot-ns N    a slot in ns (default %u: 1500 B at 1 Gbit/s)\n"
		"  --expire-us N  counter mode: forget reservations N us overdue, on\n"
		"                 the next packet or the sweep every N/4 us (default\n"
		"                 %u: 1 s; 0: never, the paper's Algorithm 1 as is)\n"
		"  --queue on|off count what waits in an output's queue in its slot\n"
		"                 (default on; off: the paper's counters alone)\n"
		"  --any-transport  every other unicast IP packet (TCP, UDP not to\n"
		"                 the Shoal port, ICMP...) counts as scheduled DATA\n"
		"                 (hosts running the pl2 qdisc send them in reserved\n"
		"                 bursts); default: passed as other\n"
		"  --obj FILE     the BPF object (default: pl2_switch.bpf.o beside this\n"
		"                 program, else in " SHOAL_BPF_DIR ")\n"
		"  --uplink DEV   attach DEV as an uplink (towards the core): it reserves\n"
		"                 nothing, and an RSV leaving by it passes on for the\n"
		"                 receiver's switch to answer\n"
		"common options:\n"
		"  --pin-dir DIR  where the maps are pinned (default " PIN_DEFAULT ")\n"
		"  -v             libbpf's messages (the verifier's log on a failed load)\n",
		SHOAL_UDP_PORT, PL2_KMAX_DEFAULT, PL2_T_DEFAULT,
		PL2_SLOT_NS_DEFAULT, PL2_EXPIRE_US_DEFAULT);
}

static void short_usage(void)
{
	fputs("try 'pl2-switch --help'\n", stderr);
}

static void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("pl2-switch: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* errno values that mean we lack the privilege, said once and clearly */
static bool denied(int e)
{
	if (e != EPERM && e != EACCES)
		return false;
	err("BPF not permitted (%s): run as root or with CAP_BPF+CAP_NET_ADMIN",
	    strerror(e));
	return true;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	/* our own messages say what failed; -v adds libbpf's why */
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* 1 if path is on a BPF filesystem, 0 if not, -1 if we may not look */
static int is_bpffs(const char *path)
{
	struct statfs st;

	if (statfs(path, &st))
		return errno == EACCES || errno == EPERM ? -1 : 0;
	return st.f_type == BPF_FS_MAGIC;
}

/*
 * pin_dir = BASE/net<ino>, BASE's parent being a BPF filesystem here or
 * in pid 1's mount namespace.  Creates the directories when create.
 */
static int find_pin_dir(const char *base, bool create)
{
	char parent[PATH_MAX], alt[PATH_MAX + 16], *slash;
	const char *use = base;
	struct stat ns;
	int r;

	if (strlen(base) >= PATH_MAX - 64) {
		err("--pin-dir too long");
		return -1;
	}
	if (stat("/proc/self/ns/net", &ns)) {
		err("cannot read this network namespace: %s", strerror(errno));
		return -1;
	}
	snprintf(parent, sizeof(parent), "%s", base);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = 0;
	if (is_bpffs(parent) != 1) {
		snprintf(alt, sizeof(alt), "/proc/1/root%s", parent);
		r = is_bpffs(alt);
		if (r < 0 && denied(errno))
			return -1;
		if (r != 1) {
			err("%s is not a BPF filesystem: mount -t bpf bpffs %s, or use --pin-dir",
			    parent, parent);
			return -1;
		}
		snprintf(alt, sizeof(alt), "/proc/1/root%s", base);
		use = alt;
	}
	if (create && mkdir(use, 0700) && errno != EEXIST) {
		if (!denied(errno))
			err("mkdir %s: %s", use, strerror(errno));
		return -1;
	}
	snprintf(pin_dir, sizeof(pin_dir), "%s/net%lu", use,
		 (unsigned long)ns.st_ino);
	if (create && mkdir(pin_dir, 0700) && errno != EEXIST) {
		if (!denied(errno))
			err("mkdir %s: %s", pin_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The pinned map NAME, or -1 (ENOENT: no switch in this namespace) */
static int pinned(const char *name)
{
	char path[sizeof(pin_dir) + 32];

	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	return bpf_obj_get(path);
}

struct maps {
	int cfg, ifmap, ports, stats;
};

static void maps_close(struct maps *m)
{
	if (m->cfg >= 0)
		close(m->cfg);
	if (m->ifmap >= 0)
		close(m->ifmap);
	if (m->ports >= 0)
		close(m->ports);
	if (m->stats >= 0)
		close(m->stats);
	m->cfg = -1;
	m->ifmap = -1;
	m->ports = -1;
	m->stats = -1;
}

/* 0, 1 when there is no switch here (quietly if quiet), -1 on errors */
static int maps_open(struct maps *m, bool quiet)
{
	m->cfg = pinned("pl2_cfg");
	m->ifmap = pinned("pl2_ifmap");
	m->ports = pinned("pl2_ports");
	m->stats = pinned("pl2_stats");
	if (m->cfg >= 0 && m->ifmap >= 0 && m->ports >= 0 && m->stats >= 0)
		return 0;
	if (errno == ENOENT) {
		maps_close(m);
		if (!quiet)
			err("no port of this network namespace is attached");
		return 1;
	}
	if (!denied(errno))
		err("cannot open the maps in %s: %s", pin_dir, strerror(errno));
	maps_close(m);
	return -1;
}

/* The pin directory locked against other invocations, or -1 */
static int lock_dir(void)
{
	int fd = open(pin_dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		err("cannot lock %s: %s", pin_dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int nports(int ifmap)
{
	__u32 key, next, *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(ifmap, prev, &next)) {
		key = next;
		prev = &key;
		n++;
	}
	return n;
}

static void zero_slot(const struct maps *m, __u32 slot, bool uplink)
{
	int ncpu = libbpf_num_possible_cpus();
	struct pl2_port port = { .uplink = uplink };
	struct pl2_stats *st;

	bpf_map_update_elem(m->ports, &slot, &port, BPF_ANY);
	st = calloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof(*st));
	if (st) {
		bpf_map_update_elem(m->stats, &slot, st, BPF_ANY);
		free(st);
	}
}

/* The first slot no port uses, or -1 */
static int free_slot(int ifmap)
{
	__u64 used = 0;
	__u32 key, next, *prev = NULL, slot;
	int i;

	while (!bpf_map_get_next_key(ifmap, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(ifmap, &key, &slot) && slot < PL2_PORTS)
			used |= 1ULL << slot;
	}
	for (i = 0; i < PL2_PORTS; i++)
		if (!(used & (1ULL << i)))
			return i;
	return -1;
}

static int default_obj(char *buf, size_t len)
{
	return bpf_object_path(buf, len, "pl2_switch.bpf.o");
}

static bool tc_attached(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE, .priority = PRIO);

	return !bpf_tc_query(&hook, &opts);
}

/* Remove every pin; the kernel frees the maps with the last program */
static void unpin_all(void)
{
	char path[sizeof(pin_dir) + 32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map_names); i++) {
		snprintf(path, sizeof(path), "%s/%s", pin_dir, map_names[i]);
		unlink(path);
	}
	rmdir(pin_dir);
}

struct attach_args {
	struct pl2_cfg cfg;
	bool given;		/* any switch option on the command line */
	const char *obj;
	char *uplinks[PL2_PORTS];	/* --uplink DEVs, in order */
	int nuplinks;
};

/* The DEVs, then the uplinks: one list, and which of it are uplinks */
static int attach_list(const struct attach_args *a, char **devs, int ndev,
		       char **all, bool *uplink)
{
	int i, j, n = 0;

	if (ndev + a->nuplinks > PL2_PORTS) {
		err("at most %d ports", PL2_PORTS);
		return -1;
	}
	for (i = 0; i < ndev + a->nuplinks; i++) {
		all[n] = i < ndev ? devs[i] : a->uplinks[i - ndev];
		uplink[n] = i >= ndev;
		for (j = 0; j < n; j++) {
			if (!strcmp(all[j], all[n])) {
				err("%s: named twice", all[n]);
				return -1;
			}
		}
		n++;
	}
	return n;
}

static int cmd_attach(const struct attach_args *a, char **args, int nargs)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .pin_root_path = pin_dir);
	struct maps m = { -1, -1, -1, -1 };
	int ifindex[PL2_PORTS], i, rc = 1, lock = -1, slot, e;
	struct bpf_program *prog;
	struct bpf_object *obj = NULL;
	char *devs[PL2_PORTS];
	bool uplink[PL2_PORTS];
	struct pl2_cfg old;
	__u32 key = 0, s;
	int ndev;

	ndev = attach_list(a, args, nargs, devs, uplink);
	if (ndev < 0)
		return 2;
	for (i = 0; i < ndev; i++) {
		ifindex[i] = (int)if_nametoindex(devs[i]);
		if (!ifindex[i]) {
			err("%s: no such device", devs[i]);
			return 2;
		}
	}
	lock = lock_dir();
	if (lock < 0)
		return 1;
	/* the switch's settings are fixed while it has ports */
	if (!maps_open(&m, true) && nports(m.ifmap) > 0 &&
	    !bpf_map_lookup_elem(m.cfg, &key, &old) &&
	    a->given && memcmp(&old, &a->cfg, sizeof(old))) {
		err("the switch here runs with other settings: detach all its ports first");
		fprintf(stderr, "  running: mode %s port %u kmax %u t %u ",
			old.mode < PL2_MODE_NR ? mode_names[old.mode] : "?",
			old.udp_port, old.kmax, old.t_unsol);
		fprintf(stderr, "slot_ns %llu expire_ns %llu queue %s any_transport %s\n",
			(unsigned long long)old.slot_ns,
			(unsigned long long)old.expire_ns,
			old.queue ? "on" : "off", old.any ? "on" : "off");
		rc = 2;
		goto out;
	}
	for (i = 0; i < ndev; i++) {
		if ((m.ifmap >= 0 &&
		     !bpf_map_lookup_elem(m.ifmap, &ifindex[i], &s)) ||
		    tc_attached(ifindex[i])) {
			err("%s: already attached (pl2-switch detach %s first)",
			    devs[i], devs[i]);
			rc = 2;
			goto out;
		}
	}
	maps_close(&m);

	obj = bpf_object__open_file(a->obj, &oopts);
	if (!obj) {
		err("cannot open %s: %s", a->obj, strerror(errno));
		goto out;
	}
	e = bpf_object__load(obj);
	if (e) {
		/* EACCES here is the verifier's refusal, not a privilege */
		if (e != -EPERM || !denied(EPERM))
			err("cannot load %s: %s%s", a->obj, strerror(-e),
			    verbose ? "" : " (-v shows why)");
		goto out;
	}
	prog = bpf_object__find_program_by_name(obj, "pl2_switch");
	if (!prog || maps_open(&m, false))
		goto out;
	if (!nports(m.ifmap) &&
	    bpf_map_update_elem(m.cfg, &key, &a->cfg, BPF_ANY)) {
		err("cannot configure: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < ndev; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex[i],
			    .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE,
			    .priority = PRIO,
			    .prog_fd = bpf_program__fd(prog));

		slot = free_slot(m.ifmap);
		if (slot < 0) {
			err("%s: all %d ports are in use", devs[i], PL2_PORTS);
			goto out;
		}
		s = (__u32)slot;
		zero_slot(&m, s, uplink[i]);
		if (bpf_map_update_elem(m.ifmap, &ifindex[i], &s, BPF_NOEXIST)) {
			err("%s: %s", devs[i], strerror(errno));
			goto out;
		}
		e = bpf_tc_hook_create(&hook);
		if (e && e != -EEXIST) {
			err("%s: clsact: %s", devs[i], strerror(-e));
			bpf_map_delete_elem(m.ifmap, &ifindex[i]);
			goto out;
		}
		e = bpf_tc_attach(&hook, &opts);
		if (e) {
			err("%s: attach: %s", devs[i], e == -EEXIST ?
			    "a filter with pl2-switch's handle is there already" :
			    strerror(-e));
			bpf_map_delete_elem(m.ifmap, &ifindex[i]);
			goto out;
		}
	}
	rc = 0;
out:
	/* a failed first attach leaves no switch behind */
	maps_close(&m);
	if (rc && maps_open(&m, true) <= 0 && (m.ifmap < 0 || !nports(m.ifmap)))
		unpin_all();
	maps_close(&m);
	bpf_object__close(obj);
	close(lock);
	return rc;
}

static int detach_one(const struct maps *m, int ifindex, const char *name)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE, .priority = PRIO);
	bool mapped;
	__u32 slot;
	int e = 0;

	mapped = !bpf_map_lookup_elem(m->ifmap, &ifindex, &slot);
	if (!mapped && !tc_attached(ifindex)) {
		err("%s: not attached", name);
		return 2;
	}
	if (tc_attached(ifindex)) {
		e = bpf_tc_detach(&hook, &opts);
		if (e && e != -ENOENT) {
			if (!denied(-e))
				err("%s: detach: %s", name, strerror(-e));
			return 1;
		}
	}
	if (mapped) {
		bpf_map_delete_elem(m->ifmap, &ifindex);
		zero_slot(m, slot, false);
	}
	return 0;
}

static int cmd_detach(char **devs, int ndev, bool all)
{
	struct maps m = { -1, -1, -1, -1 };
	int i, rc = 0, r, lock, idx;
	__u32 key, next;
	char name[IF_NAMESIZE];

	for (i = 0; i < ndev; i++) {
		if (!if_nametoindex(devs[i])) {
			err("%s: no such device", devs[i]);
			return 2;
		}
	}
	r = maps_open(&m, false);
	if (r)
		return r < 0 ? 1 : 2;
	lock = lock_dir();
	if (lock < 0) {
		maps_close(&m);
		return 1;
	}
	for (i = 0; i < ndev; i++) {
		r = detach_one(&m, (int)if_nametoindex(devs[i]), devs[i]);
		rc = rc ? rc : r;
	}
	/* -a: every port, those whose device is gone too */
	while (all && !bpf_map_get_next_key(m.ifmap, NULL, &next)) {
		key = next;
		idx = (int)key;
		if (!if_indextoname(key, name))
			snprintf(name, sizeof(name), "ifindex %d", idx);
		if (detach_one(&m, idx, name) == 1) {
			rc = 1;
			break;
		}
		bpf_map_delete_elem(m.ifmap, &key);
	}
	if (!nports(m.ifmap))
		unpin_all();
	maps_close(&m);
	close(lock);
	return rc;
}

/* A port's counters and clocks to 0; whether it is an uplink stays */
static void reset_slot(const struct maps *m, __u32 slot)
{
	struct pl2_port port;
	bool uplink;

	uplink = !bpf_map_lookup_elem(m->ports, &slot, &port) && port.uplink;
	memset(&port, 0, sizeof(port));
	port.uplink = uplink;
	bpf_map_update_elem(m->ports, &slot, &port, BPF_ANY);
}

static int cmd_reset(char **devs, int ndev)
{
	struct maps m = { -1, -1, -1, -1 };
	__u32 key, next, *prev = NULL, slot;
	int i, r, rc = 0, ifindex;

	r = maps_open(&m, false);
	if (r)
		return r < 0 ? 1 : 2;
	for (i = 0; i < ndev; i++) {
		ifindex = (int)if_nametoindex(devs[i]);
		if (!ifindex || bpf_map_lookup_elem(m.ifmap, &ifindex, &slot)) {
			err("%s: %s", devs[i], ifindex ? "not attached" :
			    "no such device");
			rc = 2;
			continue;
		}
		reset_slot(&m, slot);
	}
	while (!ndev && !bpf_map_get_next_key(m.ifmap, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(m.ifmap, &key, &slot))
			reset_slot(&m, slot);
	}
	maps_close(&m);
	return rc;
}

/* How far a port's clock is ahead of now (the program's clock) */
static unsigned long long ahead(__u64 next)
{
	struct timespec ts;
	__u64 now;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	now = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	return next > now ? next - now : 0;
}

static const char * const stat_names[] = {
	"rsv", "data", "unsol", "unsol_drop", "clamp", "unrouted",
	"malformed", "grt_err", "other", "expired", "transit", "foreign"
};

/* show sums struct pl2_stats as an array of u64, in this order */
_Static_assert(sizeof(stat_names) / sizeof(stat_names[0]) ==
	       sizeof(struct pl2_stats) / sizeof(__u64),
	       "a name for every statistic");

/* Whether the lease's sweep runs now (it stops while nothing is reserved) */
static bool sweep_running(void)
{
	struct pl2_sweep sw;
	__u32 k = 0;
	int fd = pinned("pl2_sweep");
	bool on;

	if (fd < 0)
		return false;
	on = !bpf_map_lookup_elem(fd, &k, &sw) && sw.armed;
	close(fd);
	return on;
}

static const char *cfg_mode_name(const struct pl2_cfg *cfg)
{
	return cfg->mode < PL2_MODE_NR ? mode_names[cfg->mode] : "?";
}

static void show_cfg_json(struct jw *w, const struct pl2_cfg *cfg, bool swept)
{
	jw_str(w, "mode", cfg_mode_name(cfg));
	jw_u64(w, "udp_port", cfg->udp_port);
	jw_u64(w, "kmax", cfg->kmax);
	jw_u64(w, "t", cfg->t_unsol);
	jw_u64(w, "slot_ns", cfg->slot_ns);
	jw_u64(w, "expire_ns", cfg->expire_ns);
	jw_bool(w, "queue", cfg->queue);
	jw_bool(w, "any_transport", cfg->any);
	jw_bool(w, "sweep", swept);
}

static void show_cfg_text(const struct pl2_cfg *cfg, bool swept)
{
	printf("mode %s udp_port %u kmax %u t %u slot_ns %llu expire_ns %llu queue %s any_transport %s sweep %s\n",
	       cfg_mode_name(cfg), cfg->udp_port, cfg->kmax, cfg->t_unsol,
	       (unsigned long long)cfg->slot_ns,
	       (unsigned long long)cfg->expire_ns,
	       cfg->queue ? "on" : "off", cfg->any ? "on" : "off",
	       swept ? "on" : "off");
}

/* One switch port: its device, reservations and counters summed over CPUs */
struct port_view {
	const char *dev;
	__u32 ifindex, slot;
	const struct pl2_port *port;
	const __u64 *sum;
};

static void show_port_json(struct jw *w, const struct port_view *v)
{
	size_t j;

	jw_obj(w, NULL, JW_INLINE);
	jw_str(w, "dev", v->dev);
	jw_u64(w, "ifindex", v->ifindex);
	jw_u64(w, "slot", v->slot);
	jw_bool(w, "uplink", v->port->uplink);
	jw_s64(w, "in_res", v->port->in_res);
	jw_s64(w, "out_res", v->port->out_res);
	jw_u64(w, "in_next_ns", v->port->in_next);
	jw_u64(w, "out_next_ns", v->port->out_next);
	jw_u64(w, "in_ahead_ns", ahead(v->port->in_next));
	jw_u64(w, "out_ahead_ns", ahead(v->port->out_next));
	jw_u64(w, "queue_ahead_ns", ahead(v->port->out_drain));
	for (j = 0; j < ARRAY_SIZE(stat_names); j++)
		jw_u64(w, stat_names[j], v->sum[j]);
	jw_end(w);
}

static void show_port_text(const struct port_view *v)
{
	size_t j;

	printf("%s (slot %u%s): in_res %d out_res %d ", v->dev, v->slot,
	       v->port->uplink ? ", uplink" : "", v->port->in_res,
	       v->port->out_res);
	printf("busy ahead: in %llu ns out %llu ns queue %llu ns\n ",
	       ahead(v->port->in_next), ahead(v->port->out_next),
	       ahead(v->port->out_drain));
	for (j = 0; j < ARRAY_SIZE(stat_names); j++)
		printf(" %s %llu", stat_names[j], (unsigned long long)v->sum[j]);
	printf("\n");
}

static int cmd_show(bool json)
{
	int ncpu = libbpf_num_possible_cpus(), r, c, rc = 0;
	struct maps m = { -1, -1, -1, -1 };
	__u32 key, next, *prev = NULL, slot, k = 0;
	__u64 sum[ARRAY_SIZE(stat_names)];
	struct port_view v = { .sum = sum };
	struct pl2_stats *st;
	struct pl2_port port;
	struct pl2_cfg cfg;
	char name[IF_NAMESIZE];
	struct jw w;
	bool swept;
	size_t j;

	r = maps_open(&m, false);
	if (r)
		return r < 0 ? 1 : 2;
	st = calloc(ncpu > 0 ? (size_t)ncpu : 1, sizeof(*st));
	if (!st || bpf_map_lookup_elem(m.cfg, &k, &cfg)) {
		err("cannot read the maps: %s", strerror(errno));
		free(st);
		maps_close(&m);
		return 1;
	}
	swept = sweep_running();
	jw_init(&w, stdout);
	if (json) {
		jw_obj(&w, NULL, JW_INLINE);
		show_cfg_json(&w, &cfg, swept);
		jw_arr(&w, "ports", JW_LINES);
	} else {
		show_cfg_text(&cfg, swept);
	}
	while (!bpf_map_get_next_key(m.ifmap, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(m.ifmap, &key, &slot) ||
		    bpf_map_lookup_elem(m.ports, &slot, &port) ||
		    bpf_map_lookup_elem(m.stats, &slot, st))
			continue;
		memset(sum, 0, sizeof(sum));
		for (c = 0; c < (ncpu > 0 ? ncpu : 1); c++)
			for (j = 0; j < ARRAY_SIZE(sum); j++)
				sum[j] += ((__u64 *)&st[c])[j];
		if (!if_indextoname(key, name))
			snprintf(name, sizeof(name), "?%u", key);
		v.dev = name;
		v.ifindex = key;
		v.slot = slot;
		v.port = &port;
		if (json)
			show_port_json(&w, &v);
		else
			show_port_text(&v);
	}
	if (json) {
		jw_end(&w);
		jw_end(&w);
		if (jw_finish(&w)) {
			err("cannot write the JSON");
			rc = 1;
		}
	}
	free(st);
	maps_close(&m);
	return rc;
}

static const struct option long_opts[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "port", required_argument, NULL, 'p' },
	{ "kmax", required_argument, NULL, 'k' },
	{ "t", required_argument, NULL, 't' },
	{ "slot-ns", required_argument, NULL, 's' },
	{ "expire-us", required_argument, NULL, 'e' },
	{ "queue", required_argument, NULL, 'q' },
	{ "any-transport", no_argument, NULL, 'A' },
	{ "obj", required_argument, NULL, 'o' },
	{ "uplink", required_argument, NULL, 'u' },
	{ "pin-dir", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "all", no_argument, NULL, 'a' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int number(const char *s, unsigned long long max,
		  unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || *v > max) {
		err("bad value '%s' (0..%llu)", s, max);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct attach_args a = {
		.cfg = { .udp_port = SHOAL_UDP_PORT, .mode = PL2_MODE_COUNTER,
			 .kmax = PL2_KMAX_DEFAULT, .t_unsol = PL2_T_DEFAULT,
			 .slot_ns = PL2_SLOT_NS_DEFAULT, .queue = 1 },
	};
	const char *cmd, *base = PIN_DEFAULT, *why;
	bool json = false, all = false, expire_given = false;
	unsigned long long v;
	char objbuf[PATH_MAX];
	int c, i;

	if (argc < 2) {
		short_usage();
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		print_usage(stdout);
		return 0;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "hjav", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_usage(stdout);
			return 0;
		case 'j':
			json = true;
			break;
		case 'a':
			all = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'o':
			a.obj = optarg;
			break;
		case 'd':
			base = optarg;
			break;
		case 'u':
			if (a.nuplinks == PL2_PORTS) {
				err("at most %d ports", PL2_PORTS);
				return 2;
			}
			a.uplinks[a.nuplinks++] = optarg;
			break;
		case 'm':
			for (i = 0; i < PL2_MODE_NR; i++)
				if (!strcmp(optarg, mode_names[i]))
					break;
			if (i == PL2_MODE_NR) {
				err("unknown mode '%s' (counter, clock or joint)",
				    optarg);
				return 2;
			}
			a.cfg.mode = (__u32)i;
			a.given = true;
			break;
		case 'q':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				err("bad value '%s' for --queue (on or off)",
				    optarg);
				return 2;
			}
			a.cfg.queue = !strcmp(optarg, "on");
			a.given = true;
			break;
		case 'A':
			a.cfg.any = 1;
			a.given = true;
			break;
		case 'p':
		case 'k':
		case 't':
		case 's':
		case 'e':
			if (number(optarg, c == 's' ? PL2_SLOT_NS_MAX :
				   c == 'e' ? 60000000 : 65535, &v))
				return 2;
			if (c == 'p')
				a.cfg.udp_port = (__u32)v;
			else if (c == 'k')
				a.cfg.kmax = (__u32)v;
			else if (c == 't')
				a.cfg.t_unsol = (__u32)v;
			else if (c == 'e')
				a.cfg.expire_ns = v * 1000;
			else
				a.cfg.slot_ns = v;
			expire_given |= c == 'e';
			a.given = true;
			break;
		default:
			short_usage();
			return 2;
		}
	}
	/* a lease by default, so that a dead sender's reservations go;
	 * only counter mode has counts to forget
	 */
	if (!expire_given && a.cfg.mode == PL2_MODE_COUNTER)
		a.cfg.expire_ns = PL2_EXPIRE_US_DEFAULT * 1000ULL;
	libbpf_set_print(libbpf_print);
	if (a.nuplinks && strcmp(cmd, "attach")) {
		err("--uplink is an option of attach");
		short_usage();
		return 2;
	}
	if (!strcmp(cmd, "attach") || !strcmp(cmd, "detach")) {
		if (optind >= argc && !a.nuplinks &&
		    !(all && !strcmp(cmd, "detach"))) {
			err("%s: name at least one device", cmd);
			short_usage();
			return 2;
		}
	} else if (strcmp(cmd, "show") && strcmp(cmd, "reset")) {
		err("unknown command '%s'", cmd);
		short_usage();
		return 2;
	}
	why = pl2_cfg_check(&a.cfg);
	if (why) {
		err("%s", why);
		return 2;
	}
	/* ask the kernel first, so that a refusal changes nothing */
	c = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (c < 0) {
		if (!denied(errno))
			err("BPF unavailable: %s", strerror(errno));
		return 1;
	}
	close(c);
	if (find_pin_dir(base, !strcmp(cmd, "attach")))
		return 1;
	if (!strcmp(cmd, "attach")) {
		if (!a.obj && default_obj(objbuf, sizeof(objbuf))) {
			err("cannot find pl2_switch.bpf.o; use --obj");
			return 2;
		}
		if (!a.obj)
			a.obj = objbuf;
		if (access(a.obj, R_OK)) {
			err("%s: %s", a.obj, strerror(errno));
			return 2;
		}
		return cmd_attach(&a, argv + optind, argc - optind);
	}
	if (!strcmp(cmd, "detach"))
		return cmd_detach(argv + optind, argc - optind, all);
	if (!strcmp(cmd, "reset"))
		return cmd_reset(argv + optind, argc - optind);
	if (optind < argc) {
		err("show takes no devices");
		return 2;
	}
	return cmd_show(json);
}
