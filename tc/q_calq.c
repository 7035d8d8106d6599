// SPDX-License-Identifier: GPL-2.0
/*
 * q_calq.so: iproute2 tc plugin for the Shoal "calq" qdisc (sch_calq), a
 * programmable calendar queue.
 *
 *	tc qdisc add dev DEV root calq buckets 32 interval 10us rank slack
 *	tc -s qdisc show dev DEV
 *
 * Parsing collects the options the user gave and sends only those, so that
 * "tc qdisc change" leaves every other parameter as it is; the two flag
 * pairs (nwc/wc, rewrite/norewrite) go with a mask of the bits given.
 * Value ranges are the kernel's to check (its message names the option);
 * the plugin refuses only what is not a value at all.  Keyword options
 * also take a number, which the kernel checks like any other.
 *
 * Printing decodes whatever the kernel dumps and tolerates attributes of
 * any integer width and an xstats struct shorter or longer than ours.
 * The netlink contract is include/uapi/linux/pkt_sched_shoal.h; syntax
 * and output are documented in tc-calq(8).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include <linux/pkt_sched_shoal.h>
#include "tc_plugin.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exported by /usr/sbin/tc of iproute2 6.1 (nm -D), not in tc_plugin.h */
int print_color_s64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, int64_t value);

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... calq [ limit PACKETS ] [ limit_bytes BYTES ] [ buckets N ]\n"
		"		[ mode logical | physical ] [ nwc | wc ] [ interval TIME ]\n"
		"		[ rank tstamp | prio | mark | slack | deadline | fq ]\n"
		"		[ fallback head | last | fq ] [ shift N ]\n"
		"		[ horizon drop | clamp | overflow ] [ quantum BYTES ]\n"
		"		[ rows N ] [ cols N ] [ port PORT ]\n"
		"		[ rewrite | norewrite ] [ rate RATE ]\n"
		"TIME := 10us, 1.5ms, 1s; a plain number is nanoseconds.\n"
		"Sizes take units (1514, 9kb); RATE takes units (10mbit, 1gbit).\n");
}

/* ---- option values, collected before anything is sent ---- */

/* Width in bytes of every attribute we send, from the uapi comments. */
static const unsigned char calq_attr_width[TCA_CALQ_MAX + 1] = {
	[TCA_CALQ_LIMIT]	= 4,
	[TCA_CALQ_LIMIT_BYTES]	= 4,
	[TCA_CALQ_BUCKETS]	= 4,
	[TCA_CALQ_MODE]		= 1,
	[TCA_CALQ_INTERVAL]	= 8,
	[TCA_CALQ_RANK]		= 1,
	[TCA_CALQ_FALLBACK]	= 1,
	[TCA_CALQ_SHIFT]	= 1,
	[TCA_CALQ_HORIZON]	= 1,
	[TCA_CALQ_QUANTUM]	= 4,
	[TCA_CALQ_ROWS]		= 4,
	[TCA_CALQ_COLS]		= 4,
	[TCA_CALQ_PORT]		= 2,
	[TCA_CALQ_FLAGS]	= 4,
	[TCA_CALQ_RATE]		= 8,
	[TCA_CALQ_FLAGS_MASK]	= 4,
};

struct calq_req {
	bool set[TCA_CALQ_MAX + 1];
	__u64 val[TCA_CALQ_MAX + 1];
	__u32 flags;		/* CALQ_F_* bits given ... */
	__u32 flags_mask;	/* ... and which bits those are */
	const char *dev;
};

static void req_set(struct calq_req *r, int type, __u64 v)
{
	r->set[type] = true;
	r->val[type] = v;
}

static __u64 attr_max(int type)
{
	unsigned int w = calq_attr_width[type];

	return w >= 8 ? ~0ULL : (1ULL << (8 * w)) - 1;
}

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "Error: calq: invalid %s \"%s\": %s\n", opt, arg, why);
	return -1;
}

/* One option: its keyword, the attribute it sets and how to read it. */
struct calq_opt {
	const char *name;
	int type;
	int (*parse)(const struct calq_opt *o, const char *arg,
		     struct calq_req *r);
	const char * const *names;	/* keyword values, indexed by value */
	unsigned int nnames;
};

/* ---- value parsers ---- */

static int parse_num(const struct calq_opt *o, const char *arg,
		     struct calq_req *r)
{
	char why[80];
	__u64 v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno ||
	    v > attr_max(o->type)) {
		snprintf(why, sizeof(why), "expected an integer 0..%llu",
			 (unsigned long long)attr_max(o->type));
		return bad(o->name, arg, why);
	}
	req_set(r, o->type, v);
	return 0;
}

/* A packet count, also as printed: "100" or "100p" */
static int parse_pkts(const struct calq_opt *o, const char *arg,
		      struct calq_req *r)
{
	size_t len = strlen(arg);
	char buf[24];

	if (len >= 2 && len < sizeof(buf) && arg[len - 1] == 'p' &&
	    arg[len - 2] >= '0' && arg[len - 2] <= '9') {
		memcpy(buf, arg, len - 1);
		buf[len - 1] = '\0';
		if (parse_num(o, buf, r))
			return bad(o->name, arg, "expected a packet count");
		return 0;
	}
	return parse_num(o, arg, r);
}

static int parse_bytes(const struct calq_opt *o, const char *arg,
		       struct calq_req *r)
{
	char why[80];
	unsigned int v;

	if (arg[0] == '-' || get_size(&v, arg) || v > attr_max(o->type)) {
		snprintf(why, sizeof(why),
			 "expected a size 0..%llu bytes (units b, kb, mb)",
			 (unsigned long long)attr_max(o->type));
		return bad(o->name, arg, why);
	}
	req_set(r, o->type, v);
	return 0;
}

/* A keyword, or the number it stands for (the kernel checks numbers) */
static int parse_keyword(const struct calq_opt *o, const char *arg,
			 struct calq_req *r)
{
	char why[96];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < o->nnames; i++) {
		if (o->names[i] && strcmp(arg, o->names[i]) == 0) {
			req_set(r, o->type, i);
			return 0;
		}
	}
	if (arg[0] >= '0' && arg[0] <= '9')
		return parse_num(o, arg, r);
	len += snprintf(why, sizeof(why), "expected");
	for (i = 0; i < o->nnames && len < sizeof(why); i++) {
		if (o->names[i])
			len += snprintf(why + len, sizeof(why) - len, "%s %s",
					i ? " |" : "", o->names[i]);
	}
	return bad(o->name, arg, why);
}

/* "10us", "1.5ms", "2s", "12345ns" or "12345" (ns) -> ns */
static int calq_parse_time(const char *arg, __u64 *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "nsec", 1 },
		{ "us", NSEC_PER_USEC }, { "usec", NSEC_PER_USEC },
		{ "ms", NSEC_PER_MSEC }, { "msec", NSEC_PER_MSEC },
		{ "s", NSEC_PER_SEC }, { "sec", NSEC_PER_SEC },
		{ "secs", NSEC_PER_SEC },
	};
	double v;
	char *end;
	unsigned int i;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	v = strtod(arg, &end);
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			v = v * units[i].mult + 0.5;	/* to the nearest ns */
			if (!(v >= 0 && v < 18446744073709551615.0))
				return -1;
			*ns = (__u64)v;
			return 0;
		}
	}
	return -1;
}

/* ns -> the largest unit that shows it exactly: "10us", "12345ns" */
static char *calq_sprint_time(__u64 ns, char *buf, size_t size)
{
	if (ns && ns % NSEC_PER_SEC == 0)
		snprintf(buf, size, "%llus", (unsigned long long)(ns / NSEC_PER_SEC));
	else if (ns && ns % NSEC_PER_MSEC == 0)
		snprintf(buf, size, "%llums", (unsigned long long)(ns / NSEC_PER_MSEC));
	else if (ns && ns % NSEC_PER_USEC == 0)
		snprintf(buf, size, "%lluus", (unsigned long long)(ns / NSEC_PER_USEC));
	else
		snprintf(buf, size, "%lluns", (unsigned long long)ns);
	return buf;
}

static int parse_time(const struct calq_opt *o, const char *arg,
		      struct calq_req *r)
{
	__u64 ns;

	if (calq_parse_time(arg, &ns))
		return bad(o->name, arg,
			   "expected a time like 10us, 1.5ms or 1s (plain numbers are ns)");
	req_set(r, o->type, ns);
	return 0;
}

static int parse_rate(const struct calq_opt *o, const char *arg,
		      struct calq_req *r)
{
	__u64 rate;

	if (!strcmp(arg, "off") || !strcmp(arg, "none")) {
		req_set(r, o->type, 0);
		return 0;
	}
	if (strchr(arg, '%')) {
		/* tc explains what went wrong reading the link speed */
		if (!r->dev || get_percent_rate64(&rate, arg, r->dev))
			return bad(o->name, arg,
				   "no rate for this percentage of the link");
	} else if (arg[0] == '-' || get_rate64(&rate, arg)) {
		return bad(o->name, arg,
			   "expected a rate like 10mbit or 1gbit, or 0");
	}
	req_set(r, o->type, rate);
	return 0;
}

static const char * const mode_names[__CALQ_MODE_MAX] = {
	[CALQ_MODE_LOGICAL]	= "logical",
	[CALQ_MODE_PHYSICAL]	= "physical",
};

static const char * const rank_names[__CALQ_RANK_MAX] = {
	[CALQ_RANK_TSTAMP]	= "tstamp",
	[CALQ_RANK_PRIO]	= "prio",
	[CALQ_RANK_MARK]	= "mark",
	[CALQ_RANK_SLACK]	= "slack",
	[CALQ_RANK_DEADLINE]	= "deadline",
	[CALQ_RANK_FQ]		= "fq",
};

static const char * const fallback_names[__CALQ_FALLBACK_MAX] = {
	[CALQ_FALLBACK_HEAD]	= "head",
	[CALQ_FALLBACK_LAST]	= "last",
	[CALQ_FALLBACK_FQ]	= "fq",
};

static const char * const horizon_names[__CALQ_HORIZON_MAX] = {
	[CALQ_HORIZON_DROP]	= "drop",
	[CALQ_HORIZON_CLAMP]	= "clamp",
	[CALQ_HORIZON_OVERFLOW]	= "overflow",
};

#define OPT(n, t, fn)	{ .name = n, .type = t, .parse = fn }
#define OPT_KW(n, t, kw) { .name = n, .type = t, .parse = parse_keyword, \
			   .names = kw, .nnames = ARRAY_SIZE(kw) }

static const struct calq_opt calq_opts[] = {
	OPT("limit",		TCA_CALQ_LIMIT,		parse_pkts),
	OPT("limit_bytes",	TCA_CALQ_LIMIT_BYTES,	parse_bytes),
	OPT("buckets",		TCA_CALQ_BUCKETS,	parse_num),
	OPT_KW("mode",		TCA_CALQ_MODE,		mode_names),
	OPT("interval",		TCA_CALQ_INTERVAL,	parse_time),
	OPT_KW("rank",		TCA_CALQ_RANK,		rank_names),
	OPT_KW("fallback",	TCA_CALQ_FALLBACK,	fallback_names),
	OPT("shift",		TCA_CALQ_SHIFT,		parse_num),
	OPT_KW("horizon",	TCA_CALQ_HORIZON,	horizon_names),
	OPT("quantum",		TCA_CALQ_QUANTUM,	parse_bytes),
	OPT("rows",		TCA_CALQ_ROWS,		parse_num),
	OPT("cols",		TCA_CALQ_COLS,		parse_num),
	OPT("port",		TCA_CALQ_PORT,		parse_num),
	OPT("rate",		TCA_CALQ_RATE,		parse_rate),
};

/* Value-less keywords: each sets or clears one CALQ_F_* bit */
static const struct {
	const char *name;
	__u32 bit;
	bool on;
} calq_flag_words[] = {
	{ "nwc", CALQ_F_NWC, true },
	{ "wc", CALQ_F_NWC, false },
	{ "norewrite", CALQ_F_NOREWRITE, true },
	{ "rewrite", CALQ_F_NOREWRITE, false },
};

static const struct calq_opt *find_opt(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(calq_opts); i++)
		if (!strcmp(name, calq_opts[i].name))
			return &calq_opts[i];
	return NULL;
}

static bool parse_flag_word(const char *word, struct calq_req *r)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(calq_flag_words); i++) {
		if (strcmp(word, calq_flag_words[i].name))
			continue;
		r->flags_mask |= calq_flag_words[i].bit;
		if (calq_flag_words[i].on)
			r->flags |= calq_flag_words[i].bit;
		else
			r->flags &= ~calq_flag_words[i].bit;
		return true;
	}
	return false;
}

static int put_attrs(struct calq_req *r, struct nlmsghdr *n)
{
	struct rtattr *nest;
	int type, err = 0;

	if (r->flags_mask) {
		req_set(r, TCA_CALQ_FLAGS, r->flags);
		req_set(r, TCA_CALQ_FLAGS_MASK, r->flags_mask);
	}
	nest = addattr_nest(n, TC_PLUGIN_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	for (type = 0; type <= TCA_CALQ_MAX && !err; type++) {
		if (!r->set[type])
			continue;
		switch (calq_attr_width[type]) {
		case 1:
			err = addattr8(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		case 2:
			err = addattr16(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		case 4:
			err = addattr32(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		default:
			err = addattr64(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		}
	}
	if (err)
		return -1;
	addattr_nest_end(n, nest);
	return 0;
}

static int calq_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct calq_req r = { .dev = dev };
	const struct calq_opt *o;

	(void)qu;
	for (; argc > 0; argc--, argv++) {
		if (parse_flag_word(*argv, &r))
			continue;
		if (!matches(*argv, "help")) {
			explain();
			return -1;
		}
		o = find_opt(*argv);
		if (!o) {
			fprintf(stderr, "Error: calq: unknown option \"%s\"\n",
				*argv);
			explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr,
				"Error: calq: option \"%s\" needs a value\n",
				o->name);
			explain();
			return -1;
		}
		argc--, argv++;
		if (o->parse(o, *argv, &r))
			return -1;
	}
	return put_attrs(&r, n);
}

/* ---- printing the options ---- */

/* Read an unsigned attribute of whatever width the kernel used. */
static bool attr_u64(struct rtattr *tb[], int type, __u64 *v)
{
	struct rtattr *rta = tb[type];
	__u8 u8;
	__u16 u16;
	__u32 u32;

	if (!rta)
		return false;
	switch (RTA_PAYLOAD(rta)) {
	case 1:
		memcpy(&u8, RTA_DATA(rta), 1);
		*v = u8;
		return true;
	case 2:
		memcpy(&u16, RTA_DATA(rta), 2);
		*v = u16;
		return true;
	case 4:
		memcpy(&u32, RTA_DATA(rta), 4);
		*v = u32;
		return true;
	case 8:
		memcpy(v, RTA_DATA(rta), 8);
		return true;
	}
	return false;
}

static void print_keyword(struct rtattr *tb[], int type, const char *key,
			  const char * const *names, unsigned int nnames)
{
	char fmt[32], num[24];
	__u64 v;

	if (!attr_u64(tb, type, &v))
		return;
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	if (v < nnames && names[v]) {
		print_string(PRINT_ANY, key, fmt, names[v]);
	} else {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
		print_string(PRINT_ANY, key, fmt, num);
	}
}

static void print_num(struct rtattr *tb[], int type, const char *key)
{
	char fmt[32];
	__u64 v;

	if (!attr_u64(tb, type, &v))
		return;
	snprintf(fmt, sizeof(fmt), "%s %%" PRIu64 " ", key);
	print_u64(PRINT_ANY, key, fmt, v);
}

static void print_bytes(struct rtattr *tb[], int type, const char *key)
{
	char fmt[32];
	__u64 v;

	if (!attr_u64(tb, type, &v))
		return;
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	print_size(PRINT_ANY, key, fmt, v);
}

/* One flag bit as the keyword that sets it ("nwc") or clears it ("wc") */
static void print_flag(__u64 flags, __u32 bit, const char *key, bool json_on,
		       const char *on, const char *off)
{
	bool set = flags & bit;

	print_bool(PRINT_JSON, key, NULL, set == json_on);
	print_string(PRINT_FP, NULL, "%s ", set ? on : off);
}

static int calq_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_CALQ_MAX + 1];
	bool has_flags;
	__u64 v, flags = 0;
	char b[32];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_CALQ_MAX, opt);
	has_flags = attr_u64(tb, TCA_CALQ_FLAGS, &flags);

	if (attr_u64(tb, TCA_CALQ_LIMIT, &v))
		print_uint(PRINT_ANY, "limit", "limit %up ", v);
	print_bytes(tb, TCA_CALQ_LIMIT_BYTES, "limit_bytes");
	print_num(tb, TCA_CALQ_BUCKETS, "buckets");
	print_keyword(tb, TCA_CALQ_MODE, "mode", mode_names,
		      ARRAY_SIZE(mode_names));
	if (has_flags)
		print_flag(flags, CALQ_F_NWC, "nwc", true, "nwc", "wc");
	if (attr_u64(tb, TCA_CALQ_INTERVAL, &v)) {
		print_u64(PRINT_JSON, "interval", NULL, v);
		print_string(PRINT_FP, NULL, "interval %s ",
			     calq_sprint_time(v, b, sizeof(b)));
	}
	print_keyword(tb, TCA_CALQ_RANK, "rank", rank_names,
		      ARRAY_SIZE(rank_names));
	print_keyword(tb, TCA_CALQ_FALLBACK, "fallback", fallback_names,
		      ARRAY_SIZE(fallback_names));
	print_num(tb, TCA_CALQ_SHIFT, "shift");
	print_keyword(tb, TCA_CALQ_HORIZON, "horizon", horizon_names,
		      ARRAY_SIZE(horizon_names));
	print_bytes(tb, TCA_CALQ_QUANTUM, "quantum");
	print_num(tb, TCA_CALQ_ROWS, "rows");
	print_num(tb, TCA_CALQ_COLS, "cols");
	print_num(tb, TCA_CALQ_PORT, "port");
	if (has_flags)
		print_flag(flags, CALQ_F_NOREWRITE, "rewrite", false,
			   "norewrite", "rewrite");
	if (attr_u64(tb, TCA_CALQ_RATE, &v))
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", v);
	if (has_flags && (flags & ~(__u64)CALQ_F_MASK))	/* a newer module */
		print_uint(PRINT_ANY, "flags", "flags %#x ", flags);
	return 0;
}

/* ---- printing the extended statistics ---- */

enum xs_kind { XS_U64, XS_S64, XS_U32, XS_NL };

struct xs_field {
	const char *name;
	unsigned short off;
	unsigned char size;
	unsigned char kind;
};

#define XS(f, k) { #f, offsetof(struct tc_calq_xstats, f), \
		   sizeof(((struct tc_calq_xstats *)0)->f), k }
#define XS_LINE	 { NULL, 0, 0, XS_NL }

/* One text line per group; JSON keys are the struct member names. */
static const struct xs_field calq_xs_fields[] = {
	XS(head_day, XS_U64), XS(ahead_ns, XS_S64), XS(active_days, XS_U32),
	XS(parked_now, XS_U32),
	XS_LINE,
	XS(enqueued, XS_U64), XS(dequeued, XS_U64),
	XS(rotations_empty, XS_U64), XS(rotations_time, XS_U64),
	XS(watchdog_arms, XS_U64),
	XS_LINE,
	XS(clamped_past, XS_U64), XS(clamped_future, XS_U64),
	XS(horizon_drops, XS_U64), XS(limit_drops, XS_U64),
	XS(parked, XS_U64), XS(unparked, XS_U64),
	XS_LINE,
	XS(no_rank, XS_U64), XS(deadline_misses, XS_U64),
	XS(slack_rewrites, XS_U64), XS(rewrite_errors, XS_U64),
	XS(inversions, XS_U64), XS(gso_split, XS_U64),
};

static void xs_print_field(const struct xs_field *x, const void *st)
{
	__u64 v64;
	__u32 v32;

	print_string(PRINT_FP, NULL, "%s ", x->name);
	if (x->kind == XS_U32) {
		memcpy(&v32, (const char *)st + x->off, sizeof(v32));
		print_uint(PRINT_ANY, x->name, "%u ", v32);
		return;
	}
	memcpy(&v64, (const char *)st + x->off, sizeof(v64));
	if (x->kind == XS_S64)
		print_color_s64(PRINT_ANY, COLOR_NONE, x->name,
				"%" PRId64 " ", (int64_t)v64);
	else
		print_u64(PRINT_ANY, x->name, "%" PRIu64 " ", v64);
}

/* text: "peaks 0:3 1:5" (non-zero days only); JSON: "peak": [3, 5, 0...] */
static void xs_print_peaks(const unsigned char *p, size_t n)
{
	bool any = false;
	__u32 v;
	size_t k;

	print_nl();
	print_string(PRINT_FP, NULL, " peaks", NULL);
	open_json_array(PRINT_JSON, "peak");
	for (k = 0; k < n; k++) {
		memcpy(&v, p + k * sizeof(v), sizeof(v));
		print_uint(PRINT_JSON, NULL, NULL, v);
		if (!v)
			continue;
		any = true;
		print_uint(PRINT_FP, NULL, " %u", k);
		print_uint(PRINT_FP, NULL, ":%u", v);
	}
	close_json_array(PRINT_JSON, NULL);
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
}

static int calq_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_calq_xstats st = {};
	bool line_open = false;
	size_t len, i;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	for (i = 0; i < ARRAY_SIZE(calq_xs_fields); i++) {
		const struct xs_field *x = &calq_xs_fields[i];

		if (x->kind == XS_NL) {
			if (line_open)
				print_nl();
			line_open = false;
			continue;
		}
		if (x->off + x->size > len)
			continue;
		if (!line_open)
			print_string(PRINT_FP, NULL, " ", NULL);
		line_open = true;
		xs_print_field(x, &st);
	}
	if (len > sizeof(st))
		xs_print_peaks((const unsigned char *)RTA_DATA(xstats) +
			       sizeof(st), (len - sizeof(st)) / sizeof(__u32));
	return 0;
}

struct qdisc_util calq_qdisc_util = {
	.id		= "calq",
	.parse_qopt	= calq_parse_opt,
	.print_qopt	= calq_print_opt,
	.print_xstats	= calq_print_xstats,
};
