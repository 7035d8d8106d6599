// SPDX-License-Identifier: GPL-2.0
/*
 * q_sqr.so: iproute2 tc plugin for the Shoal "sqr" qdisc (sch_sqr), a
 * delayed-retransmit ring that hides link failures.
 *
 *	tc qdisc add dev s8-s6 root handle 1: sqr hold 1ms \
 *		backup s8-s5 dmac 02:00:00:00:05:01
 *	tc qdisc change dev s8-s6 root sqr fault_len 760us fault_detect 30us
 *	tc -s qdisc show dev s8-s6
 *
 * As the other Shoal plugins: only the options given are sent, so "tc
 * qdisc change" keeps the rest; the plugin checks syntax, the kernel
 * ranges.  Times take us, ms or s (a bare number is microseconds).  The
 * netlink contract is include/uapi/linux/pkt_sched_shoal.h; the syntax and
 * the output are documented in tc-sqr(8).
 */
#include <net/if.h>
#include <stdlib.h>

#include <linux/pkt_sched_shoal.h>
#include "plugin_util.h"

_Static_assert(TCA_SQR_MAX <= PU_ATTR_MAX, "PU_ATTR_MAX too small");

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... sqr [ hold TIME ] [ ring_bytes BYTES ] [ ring_pkts N ]\n"
		"		[ copy_max BYTES ]\n"
		"		[ backup DEV | backup same ] [ dmac MAC ]\n"
		"		[ reconf TIME ] [ release timer | event | immediate ]\n"
		"		[ max_hold TIME ] [ failback TIME ] [ divert | nodivert ]\n"
		"		[ detect carrier | notifier | carrier,notifier | none ]\n"
		"		[ poll TIME ] [ dedup_guard TIME ]\n"
		"		[ heartbeat TIME | heartbeat off ] [ hb_miss N ]\n"
		"		[ protect all ] [ dscp V[/MASK] ] [ proto tcp | udp | N ]\n"
		"		[ ports LO[-HI] ] [ mark V[/MASK] ]\n"
		"		[ force down | up ]\n"
		"		[ fault_len TIME | fault off ] [ fault_period TIME ]\n"
		"		[ fault_detect TIME ] [ fault_count N ] [ fault_offset TIME ]\n"
		"TIME: 30us, 1ms, 0.5s; a bare number is microseconds; hold 0 = no copies.\n"
		"hold, reconf, failback, poll, dedup_guard, heartbeat, fault_len, fault_detect:\n"
		"up to 1s;\n"
		"max_hold, fault_period, fault_offset: up to 10s.\n"
		"ring_bytes: 4kb to 1gb, the copy buffer; copy_max: up to 16kb, 0 = clone all.\n"
		"hb_miss: 1 to 100 probes unanswered in a row; (hb_miss + 1) x heartbeat < hold.\n");
}

/* Width in bytes of every attribute we send (6: a MAC address) */
static const unsigned char sqr_attr_width[TCA_SQR_MAX + 1] = {
	[TCA_SQR_HOLD]		= 4,
	[TCA_SQR_RING_BYTES]	= 4,
	[TCA_SQR_RING_PKTS]	= 4,
	[TCA_SQR_BACKUP]	= 4,
	[TCA_SQR_BACKUP_DMAC]	= 6,
	[TCA_SQR_RECONF]	= 4,
	[TCA_SQR_RELEASE]	= 1,
	[TCA_SQR_MAX_HOLD]	= 4,
	[TCA_SQR_FAILBACK]	= 4,
	[TCA_SQR_DIVERT]	= 1,
	[TCA_SQR_DETECT]	= 4,
	[TCA_SQR_POLL]		= 4,
	[TCA_SQR_DEDUP_GUARD]	= 4,
	[TCA_SQR_MATCH]		= 4,
	[TCA_SQR_DSCP]		= 1,
	[TCA_SQR_DSCP_MASK]	= 1,
	[TCA_SQR_PROTO]		= 1,
	[TCA_SQR_PORT_MIN]	= 2,
	[TCA_SQR_PORT_MAX]	= 2,
	[TCA_SQR_MARK]		= 4,
	[TCA_SQR_MARK_MASK]	= 4,
	[TCA_SQR_FORCE]		= 1,
	[TCA_SQR_FAULT_LEN]	= 4,
	[TCA_SQR_FAULT_PERIOD]	= 4,
	[TCA_SQR_FAULT_DETECT]	= 4,
	[TCA_SQR_FAULT_COUNT]	= 4,
	[TCA_SQR_FAULT_OFFSET]	= 4,
	[TCA_SQR_COPY_MAX]	= 4,
	[TCA_SQR_HB_INTERVAL]	= 4,
	[TCA_SQR_HB_MISS]	= 4,
};

/* ---- value parsers (numbers, sizes, times: plugin_util.h) ---- */

/* A time in microseconds ("30", "30us", "1.5ms", "2s"), or "off" (0) */
static int parse_us(const struct pu_opt *o, const char *arg,
		    struct pu_req *r)
{
	if (!strcmp(arg, "off")) {
		req_set(r, o->type, 0);
		return 0;
	}
	return parse_time(o, arg, r);
}

#define OPT_US(n, t)	{ .name = n, .type = t, .parse = parse_us, \
			  .unit_ns = 1000 }

/* "same" (or "none"): the same port; else a device of this netns */
static int parse_dev(const struct pu_opt *o, const char *arg,
		     struct pu_req *r)
{
	unsigned int idx;

	if (!strcmp(arg, "same") || !strcmp(arg, "none")) {
		req_set(r, o->type, 0);
		return 0;
	}
	idx = if_nametoindex(arg);
	if (!idx)
		return bad(r, o->name, arg, "no such device");
	req_set(r, o->type, idx);
	return 0;
}

static int parse_mac(const struct pu_opt *o, const char *arg,
		     struct pu_req *r)
{
	unsigned int b[6];
	__u64 v = 0;
	char tail;
	int i;

	if (sscanf(arg, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &tail) != 6)
		return bad(r, o->name, arg, "expected a MAC like 02:00:00:00:00:01");
	for (i = 0; i < 6; i++)
		v = v << 8 | b[i];
	req_set(r, o->type, v);
	return 0;
}

/* "V" or "V/MASK"; the mask goes to the attribute after o->type */
static int parse_masked(const struct pu_opt *o, const char *arg,
			struct pu_req *r)
{
	char *slash = strchr(arg, '/'), val[32];
	__u32 v, m;

	if (strlen(arg) >= sizeof(val))
		return bad(r, o->name, arg, "too long");
	strcpy(val, arg);
	if (slash)
		val[slash - arg] = '\0';
	if (get_u32(&v, val, 0) || v > attr_max(r, o->type))
		return bad(r, o->name, arg, "expected VALUE or VALUE/MASK");
	if (slash) {
		if (get_u32(&m, slash + 1, 0) || m > attr_max(r, o->type + 1))
			return bad(r, o->name, arg,
				   "expected VALUE or VALUE/MASK");
		req_set(r, o->type + 1, m);
	}
	req_set(r, o->type, v);
	return 0;
}

static int parse_proto(const struct pu_opt *o, const char *arg,
		       struct pu_req *r)
{
	if (!strcmp(arg, "tcp")) {
		req_set(r, o->type, 6);
		return 0;
	}
	if (!strcmp(arg, "udp")) {
		req_set(r, o->type, 17);
		return 0;
	}
	return parse_num(o, arg, r);
}

/* "LO-HI" or one port */
static int parse_ports(const struct pu_opt *o, const char *arg,
		       struct pu_req *r)
{
	unsigned int lo, hi;
	char tail;
	int n;

	n = sscanf(arg, "%u-%u%c", &lo, &hi, &tail);
	if (n == 1)
		hi = lo;
	if ((n != 1 && n != 2) || lo > 65535 || hi > 65535)
		return bad(r, o->name, arg, "expected PORT or LO-HI, 0..65535");
	req_set(r, TCA_SQR_PORT_MIN, lo);
	req_set(r, TCA_SQR_PORT_MAX, hi);
	return 0;
}

static int parse_detect(const struct pu_opt *o, const char *arg,
			struct pu_req *r)
{
	char buf[64], *tok, *save = NULL;
	__u32 bits = 0;

	if (strlen(arg) >= sizeof(buf))
		return bad(r, o->name, arg, "too long");
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "carrier"))
			bits |= SQR_DETECT_CARRIER;
		else if (!strcmp(tok, "notifier"))
			bits |= SQR_DETECT_NOTIFIER;
		else if (strcmp(tok, "none"))
			return bad(r, o->name, arg,
				   "expected carrier, notifier, carrier,notifier or none");
	}
	req_set(r, o->type, bits);
	return 0;
}

static const char * const release_names[__SQR_RELEASE_MAX] = {
	[SQR_RELEASE_TIMER]	= "timer",
	[SQR_RELEASE_EVENT]	= "event",
	[SQR_RELEASE_IMMEDIATE]	= "immediate",
};

static const char * const force_names[__SQR_FORCE_MAX] = {
	[SQR_FORCE_DOWN]	= "down",
	[SQR_FORCE_UP]		= "up",
};

static const struct pu_opt sqr_opts[] = {
	OPT_US("hold",		TCA_SQR_HOLD),
	OPT("ring_bytes",	TCA_SQR_RING_BYTES,	parse_bytes),
	OPT_CNUM("ring_pkts",	TCA_SQR_RING_PKTS),
	OPT("copy_max",		TCA_SQR_COPY_MAX,	parse_bytes),
	OPT("backup",		TCA_SQR_BACKUP,		parse_dev),
	OPT("dmac",		TCA_SQR_BACKUP_DMAC,	parse_mac),
	OPT_US("reconf",	TCA_SQR_RECONF),
	OPT_KW("release",	TCA_SQR_RELEASE,	release_names),
	OPT_US("max_hold",	TCA_SQR_MAX_HOLD),
	OPT_US("failback",	TCA_SQR_FAILBACK),
	OPT("detect",		TCA_SQR_DETECT,		parse_detect),
	OPT_US("poll",		TCA_SQR_POLL),
	OPT_US("dedup_guard",	TCA_SQR_DEDUP_GUARD),
	OPT_US("heartbeat",	TCA_SQR_HB_INTERVAL),
	OPT_CNUM("hb_miss",	TCA_SQR_HB_MISS),
	OPT("dscp",		TCA_SQR_DSCP,		parse_masked),
	{ .name = "proto", .type = TCA_SQR_PROTO, .parse = parse_proto,
	  .c_base = true },
	OPT("ports",		TCA_SQR_PORT_MIN,	parse_ports),
	OPT("mark",		TCA_SQR_MARK,		parse_masked),
	OPT_KW("force",		TCA_SQR_FORCE,		force_names),
	OPT_US("fault_len",	TCA_SQR_FAULT_LEN),
	OPT_US("fault_period",	TCA_SQR_FAULT_PERIOD),
	OPT_US("fault_detect",	TCA_SQR_FAULT_DETECT),
	OPT_CNUM("fault_count",	TCA_SQR_FAULT_COUNT),
	OPT_US("fault_offset",	TCA_SQR_FAULT_OFFSET),
};

/* The words that take no value; "protect all" and "fault off" are two */
static int sqr_word(struct pu_req *r, const char *word)
{
	if (!strcmp(word, "divert") || !strcmp(word, "nodivert")) {
		req_set(r, TCA_SQR_DIVERT, word[0] == 'd');
		return 1;
	}
	if (!strcmp(word, "help")) {
		explain();
		return -1;
	}
	return 0;
}

static const struct pu_desc sqr_desc = {
	.kind			= "sqr",
	.width			= sqr_attr_width,
	.max			= TCA_SQR_MAX,
	.opts			= sqr_opts,
	.nopts			= ARRAY_SIZE(sqr_opts),
	.explain		= explain,
	.word			= sqr_word,
};

static int sqr_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	struct pu_req r = { .d = &sqr_desc, .dev = dev };
	int i, k = 0;
	char **args;

	(void)qu;
	/* the two-word switches, then the generic parser on the rest */
	args = calloc(argc + 1, sizeof(*args));
	if (!args)
		return -1;
	for (i = 0; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "protect") &&
		    !strcmp(argv[i + 1], "all")) {
			req_set(&r, TCA_SQR_MATCH, 0);
			i++;
		} else if (i + 1 < argc && !strcmp(argv[i], "fault") &&
			   !strcmp(argv[i + 1], "off")) {
			req_set(&r, TCA_SQR_FAULT_LEN, 0);
			i++;
		} else {
			args[k++] = argv[i];
		}
	}
	i = parse_args(&r, k, args);
	free(args);
	if (i)
		return -1;
	return put_attrs(&r, n);
}

/* ---- printing the options ---- */

static void print_us(struct rtattr *tb[], int type, const char *key)
{
	char fmt[32], json_key[32];
	__u64 v;

	if (!attr_u64(tb, type, &v))
		return;
	snprintf(json_key, sizeof(json_key), "%s_us", key);
	print_uint(PRINT_JSON, json_key, NULL, v);
	snprintf(fmt, sizeof(fmt), "%s %%uus ", key);
	print_uint(PRINT_FP, NULL, fmt, v);
}

static void print_u32_opt(struct rtattr *tb[], int type, const char *key,
			  const char *fmt)
{
	__u64 v;

	if (attr_u64(tb, type, &v))
		print_uint(PRINT_ANY, key, fmt, v);
}

static void print_backup(struct rtattr *tb[])
{
	char name[IF_NAMESIZE + 24], mac[18];
	const unsigned char *a;
	__u64 idx;

	if (!attr_u64(tb, TCA_SQR_BACKUP, &idx))
		return;
	if (!idx) {
		print_string(PRINT_ANY, "backup", "backup %s ", "same");
		return;
	}
	if (!if_indextoname(idx, name))
		snprintf(name, sizeof(name), "if%llu", (unsigned long long)idx);
	print_string(PRINT_ANY, "backup", "backup %s ", name);
	if (tb[TCA_SQR_BACKUP_DMAC] && RTA_PAYLOAD(tb[TCA_SQR_BACKUP_DMAC]) == 6) {
		a = RTA_DATA(tb[TCA_SQR_BACKUP_DMAC]);
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 a[0], a[1], a[2], a[3], a[4], a[5]);
		print_string(PRINT_ANY, "dmac", "dmac %s ", mac);
	}
}

static void print_detect(struct rtattr *tb[])
{
	const char *s = "none";
	__u64 v;

	if (!attr_u64(tb, TCA_SQR_DETECT, &v))
		return;
	if ((v & SQR_DETECT_MASK) == SQR_DETECT_MASK)
		s = "carrier,notifier";
	else if (v & SQR_DETECT_CARRIER)
		s = "carrier";
	else if (v & SQR_DETECT_NOTIFIER)
		s = "notifier";
	print_string(PRINT_ANY, "detect", "detect %s ", s);
}

static void print_match(struct rtattr *tb[])
{
	__u64 flags, v, m;

	if (!attr_u64(tb, TCA_SQR_MATCH, &flags))
		return;
	if (!flags)
		print_string(PRINT_ANY, "protect", "protect %s ", "all");
	if ((flags & SQR_MATCH_DSCP) && attr_u64(tb, TCA_SQR_DSCP, &v) &&
	    attr_u64(tb, TCA_SQR_DSCP_MASK, &m)) {
		print_uint(PRINT_ANY, "dscp", "dscp %u", v);
		print_uint(PRINT_ANY, "dscp_mask", "/0x%x ", m);
	}
	if ((flags & SQR_MATCH_PROTO) && attr_u64(tb, TCA_SQR_PROTO, &v))
		print_uint(PRINT_ANY, "proto", "proto %u ", v);
	if ((flags & SQR_MATCH_PORTS) && attr_u64(tb, TCA_SQR_PORT_MIN, &v) &&
	    attr_u64(tb, TCA_SQR_PORT_MAX, &m)) {
		print_uint(PRINT_ANY, "port_min", "ports %u", v);
		print_uint(PRINT_ANY, "port_max", "-%u ", m);
	}
	if ((flags & SQR_MATCH_MARK) && attr_u64(tb, TCA_SQR_MARK, &v) &&
	    attr_u64(tb, TCA_SQR_MARK_MASK, &m)) {
		print_uint(PRINT_ANY, "mark", "mark 0x%x", v);
		print_uint(PRINT_ANY, "mark_mask", "/0x%x ", m);
	}
}

static int sqr_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_SQR_MAX + 1];
	__u64 v;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_SQR_MAX, opt);
	print_us(tb, TCA_SQR_HOLD, "hold");
	if (attr_u64(tb, TCA_SQR_RING_BYTES, &v))
		print_size(PRINT_ANY, "ring_bytes", "ring_bytes %s ", v);
	print_u32_opt(tb, TCA_SQR_RING_PKTS, "ring_pkts", "ring_pkts %u ");
	if (attr_u64(tb, TCA_SQR_COPY_MAX, &v))
		print_size(PRINT_ANY, "copy_max", "copy_max %s ", v);
	print_backup(tb);
	print_us(tb, TCA_SQR_RECONF, "reconf");
	print_keyword(tb, TCA_SQR_RELEASE, "release", release_names,
		      ARRAY_SIZE(release_names));
	print_us(tb, TCA_SQR_MAX_HOLD, "max_hold");
	print_us(tb, TCA_SQR_FAILBACK, "failback");
	if (attr_u64(tb, TCA_SQR_DIVERT, &v)) {
		print_bool(PRINT_JSON, "divert", NULL, v);
		print_string(PRINT_FP, NULL, "%s ", v ? "divert" : "nodivert");
	}
	print_detect(tb);
	print_us(tb, TCA_SQR_POLL, "poll");
	print_us(tb, TCA_SQR_DEDUP_GUARD, "dedup_guard");
	if (attr_u64(tb, TCA_SQR_HB_INTERVAL, &v) && !v) {
		print_uint(PRINT_JSON, "heartbeat_us", NULL, 0);
		print_string(PRINT_FP, NULL, "%s ", "heartbeat off");
	} else {
		print_us(tb, TCA_SQR_HB_INTERVAL, "heartbeat");
		print_u32_opt(tb, TCA_SQR_HB_MISS, "hb_miss", "hb_miss %u ");
	}
	print_match(tb);
	if (attr_u64(tb, TCA_SQR_FAULT_LEN, &v) && !v) {
		print_uint(PRINT_JSON, "fault_len_us", NULL, 0);
		print_string(PRINT_FP, NULL, "%s ", "fault off");
	} else {
		print_us(tb, TCA_SQR_FAULT_LEN, "fault_len");
		print_us(tb, TCA_SQR_FAULT_PERIOD, "fault_period");
		print_us(tb, TCA_SQR_FAULT_DETECT, "fault_detect");
		print_u32_opt(tb, TCA_SQR_FAULT_COUNT, "fault_count",
			      "fault_count %u ");
		print_us(tb, TCA_SQR_FAULT_OFFSET, "fault_offset");
	}
	return 0;
}

/* ---- printing the extended statistics ---- */

#define XS(f, k)	PU_XS(struct tc_sqr_xstats, f, k)

static const char * const state_names[] = {
	[SQR_STATE_UP]		= "up",
	[SQR_STATE_FAILED]	= "failed",
	[SQR_STATE_RELEASING]	= "releasing",
	[SQR_STATE_FAILBACK]	= "failback",
};

/* One text line per group; JSON keys are the struct member names. */
static const struct xs_field sqr_xs_fields[] = {
	XS(ring_pkts, XS_U32), XS(ring_bytes, XS_SIZE),
	XS(ring_peak_pkts, XS_U32), XS(failq_pkts, XS_U32),
	XS(backup_ok, XS_U32),
	XS_LINE,
	XS(cached, XS_U64), XS(cached_bytes, XS_U64), XS(expired, XS_U64),
	XS(unprotected, XS_U64), XS(backstop, XS_U64),
	XS(clone_fail, XS_U64), XS(ring_peak_bytes, XS_U64),
	XS(ring_peak_mem, XS_U64), XS(cloned, XS_U64),
	XS_LINE,
	XS(failures, XS_U64), XS(committed, XS_U64), XS(dup_avoided, XS_U64),
	XS(resent, XS_U64), XS(resent_bytes, XS_U64), XS(diverted, XS_U64),
	XS(guarded, XS_U64),
	XS(xmit_errors, XS_U64), XS(gave_up, XS_U64), XS(failq_drops, XS_U64),
	XS(commit_nomem, XS_U64),
	XS_LINE,
	XS(hb_sent, XS_U64), XS(hb_echoes, XS_U64), XS(hb_failures, XS_U64),
	XS(hb_xmit_errors, XS_U64),
	XS_LINE,
	XS(detect_latency_last, XS_U64), XS(detect_latency_max, XS_U64),
	XS(recovery_last, XS_U64),
	XS_LINE,
	XS(fault_outages, XS_U64), XS(fault_drops, XS_U64), XS(lost, XS_U64),
	XS(window_lost, XS_U64),
};

static int sqr_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_sqr_xstats st = {};
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
	if (len >= offsetof(struct tc_sqr_xstats, state) + sizeof(st.state)) {
		print_string(PRINT_FP, NULL, " %s", "state ");
		print_string(PRINT_ANY, "state", "%s",
			     st.state < ARRAY_SIZE(state_names) ?
			     state_names[st.state] : "?");
		print_nl();
	}
	xs_print_fields(sqr_xs_fields, ARRAY_SIZE(sqr_xs_fields), &st, len);
	return 0;
}

struct qdisc_util sqr_qdisc_util = {
	.id		= "sqr",
	.parse_qopt	= sqr_parse_opt,
	.print_qopt	= sqr_print_opt,
	.print_xstats	= sqr_print_xstats,
};
