// SPDX-License-Identifier: GPL-2.0
/*
 * q_afq.so: iproute2 tc plugin for the Shoal "afq" qdisc (sch_afq),
 * approximate fair queueing.
 *
 *	tc qdisc add dev DEV root afq nqueues 32 bpr 1514 rows 2 cols 16384
 *	tc -s qdisc show dev DEV
 *
 * Parsing collects the options the user gave and sends only those, so that
 * "tc qdisc change" leaves every other parameter as it is.  The plugin
 * checks syntax (numbers, keywords, units); the kernel checks ranges and
 * names the bad option in its extack message.  Printing decodes whatever
 * the kernel dumps and tolerates attributes of any integer width and an
 * xstats struct shorter (older module) or longer (newer module) than ours.
 *
 * The netlink contract is include/uapi/linux/pkt_sched_shoal.h; the command
 * syntax and the output format are documented in tc-afq(8).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include <linux/pkt_sched_shoal.h>
#include "tc_plugin.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... afq [ limit PACKETS ] [ limit_bytes BYTES ]\n"
		"		[ nqueues N ] [ bpr BYTES ] [ rows N ] [ cols N ]\n"
		"		[ ecn_rounds N | noecn ]\n"
		"		[ flow_key flow | hosts | src | dst | mark | prio ]\n"
		"		[ overflow drop | pushout ] [ exact | sketch ]\n"
		"		[ exact_flows N ] [ seed N | random ] [ rate RATE ]\n"
		"nqueues: power of 2, 2..4096; cols: power of 2, 16..1048576;\n"
		"rows: 1..8; bpr: 64..16777216; exact_flows: power of 2, 256..4194304.\n"
		"Sizes take units (1514, 9kb, 1mb); RATE takes units (10mbit, 1gbit).\n");
}

/* ---- option values, collected before anything is sent ---- */

/* Width in bytes of every attribute we send, from the uapi comments. */
static const unsigned char afq_attr_width[TCA_AFQ_MAX + 1] = {
	[TCA_AFQ_LIMIT]		= 4,
	[TCA_AFQ_LIMIT_BYTES]	= 4,
	[TCA_AFQ_NQUEUES]	= 4,
	[TCA_AFQ_BPR]		= 4,
	[TCA_AFQ_ROWS]		= 4,
	[TCA_AFQ_COLS]		= 4,
	[TCA_AFQ_ECN_ROUNDS]	= 4,
	[TCA_AFQ_FLOW_KEY]	= 1,
	[TCA_AFQ_OVERFLOW]	= 1,
	[TCA_AFQ_EXACT]		= 1,
	[TCA_AFQ_EXACT_FLOWS]	= 4,
	[TCA_AFQ_SEED]		= 4,
	[TCA_AFQ_RATE]		= 8,
};

struct afq_req {
	bool set[TCA_AFQ_MAX + 1];
	__u64 val[TCA_AFQ_MAX + 1];
	const char *dev;
};

static void req_set(struct afq_req *r, int type, __u64 v)
{
	r->set[type] = true;
	r->val[type] = v;
}

static __u64 attr_max(int type)
{
	unsigned int w = afq_attr_width[type];

	return w >= 8 ? ~0ULL : (1ULL << (8 * w)) - 1;
}

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "Error: afq: invalid %s \"%s\": %s\n", opt, arg, why);
	explain();
	return -1;
}

/* One option: its keyword, the attribute it sets and how to read it. */
struct afq_opt {
	const char *name;
	int type;
	int (*parse)(const struct afq_opt *o, const char *arg,
		     struct afq_req *r);
	const char * const *names;	/* keyword values, indexed by value */
	unsigned int nnames;
};

/* ---- value parsers ---- */

static int parse_num(const struct afq_opt *o, const char *arg,
		     struct afq_req *r)
{
	char why[80];
	__u32 v;

	if (get_u32(&v, arg, 10) || v > attr_max(o->type)) {
		snprintf(why, sizeof(why), "expected an integer 0..%llu",
			 (unsigned long long)attr_max(o->type));
		return bad(o->name, arg, why);
	}
	req_set(r, o->type, v);
	return 0;
}

/* A packet count, also as printed: "100" or "100p" */
static int parse_pkts(const struct afq_opt *o, const char *arg,
		      struct afq_req *r)
{
	size_t len = strlen(arg);
	char buf[16];

	if (len >= 2 && len < sizeof(buf) && arg[len - 1] == 'p' &&
	    arg[len - 2] >= '0' && arg[len - 2] <= '9') {
		memcpy(buf, arg, len - 1);
		buf[len - 1] = '\0';
		arg = buf;
	}
	return parse_num(o, arg, r);
}

static int parse_bytes(const struct afq_opt *o, const char *arg,
		       struct afq_req *r)
{
	char why[80];
	unsigned int v;

	if (get_size(&v, arg) || v > attr_max(o->type)) {
		snprintf(why, sizeof(why),
			 "expected a size 0..%llu bytes (units b, kb, mb)",
			 (unsigned long long)attr_max(o->type));
		return bad(o->name, arg, why);
	}
	req_set(r, o->type, v);
	return 0;
}

static int parse_keyword(const struct afq_opt *o, const char *arg,
			 struct afq_req *r)
{
	char why[80];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < o->nnames; i++) {
		if (o->names[i] && strcmp(arg, o->names[i]) == 0) {
			req_set(r, o->type, i);
			return 0;
		}
	}
	len += snprintf(why, sizeof(why), "expected");
	for (i = 0; i < o->nnames && len < sizeof(why); i++) {
		if (o->names[i])
			len += snprintf(why + len, sizeof(why) - len, "%s %s",
					i ? " |" : "", o->names[i]);
	}
	return bad(o->name, arg, why);
}

static int parse_seed(const struct afq_opt *o, const char *arg,
		      struct afq_req *r)
{
	if (!strcmp(arg, "random")) {
		req_set(r, o->type, 0);
		return 0;
	}
	return parse_num(o, arg, r);
}

static int parse_rate(const struct afq_opt *o, const char *arg,
		      struct afq_req *r)
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

static const char * const flow_key_names[__AFQ_KEY_MAX] = {
	[AFQ_KEY_FLOW]		= "flow",
	[AFQ_KEY_HOSTS]		= "hosts",
	[AFQ_KEY_SRC]		= "src",
	[AFQ_KEY_DST]		= "dst",
	[AFQ_KEY_MARK]		= "mark",
	[AFQ_KEY_PRIO]		= "prio",
};

static const char * const overflow_names[__AFQ_OVERFLOW_MAX] = {
	[AFQ_OVERFLOW_DROP]	= "drop",
	[AFQ_OVERFLOW_PUSHOUT]	= "pushout",
};

#define OPT(n, t, fn)	{ .name = n, .type = t, .parse = fn }
#define OPT_KW(n, t, kw) { .name = n, .type = t, .parse = parse_keyword, \
			   .names = kw, .nnames = ARRAY_SIZE(kw) }

static const struct afq_opt afq_opts[] = {
	OPT("limit",		TCA_AFQ_LIMIT,		parse_pkts),
	OPT("limit_bytes",	TCA_AFQ_LIMIT_BYTES,	parse_bytes),
	OPT("nqueues",		TCA_AFQ_NQUEUES,	parse_num),
	OPT("bpr",		TCA_AFQ_BPR,		parse_bytes),
	OPT("rows",		TCA_AFQ_ROWS,		parse_num),
	OPT("cols",		TCA_AFQ_COLS,		parse_num),
	OPT("ecn_rounds",	TCA_AFQ_ECN_ROUNDS,	parse_num),
	OPT_KW("flow_key",	TCA_AFQ_FLOW_KEY,	flow_key_names),
	OPT_KW("overflow",	TCA_AFQ_OVERFLOW,	overflow_names),
	OPT("exact_flows",	TCA_AFQ_EXACT_FLOWS,	parse_num),
	OPT("seed",		TCA_AFQ_SEED,		parse_seed),
	OPT("rate",		TCA_AFQ_RATE,		parse_rate),
};

static const struct afq_opt *find_opt(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(afq_opts); i++)
		if (!strcmp(name, afq_opts[i].name))
			return &afq_opts[i];
	return NULL;
}

static int put_attrs(const struct afq_req *r, struct nlmsghdr *n)
{
	struct rtattr *nest;
	int type, err = 0;

	nest = addattr_nest(n, TC_PLUGIN_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	for (type = 0; type <= TCA_AFQ_MAX && !err; type++) {
		if (!r->set[type])
			continue;
		switch (afq_attr_width[type]) {
		case 1:
			err = addattr8(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
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

static int afq_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	struct afq_req r = { .dev = dev };
	const struct afq_opt *o;

	(void)qu;
	for (; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "exact")) {
			req_set(&r, TCA_AFQ_EXACT, 1);
			continue;
		}
		if (!strcmp(*argv, "sketch")) {
			req_set(&r, TCA_AFQ_EXACT, 0);
			continue;
		}
		if (!strcmp(*argv, "noecn")) {
			req_set(&r, TCA_AFQ_ECN_ROUNDS, 0);
			continue;
		}
		if (!strcmp(*argv, "help")) {
			explain();
			return -1;
		}
		o = find_opt(*argv);
		if (!o) {
			fprintf(stderr, "Error: afq: unknown option \"%s\"\n",
				*argv);
			explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr,
				"Error: afq: option \"%s\" needs a value\n",
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

static void print_u32_opt(struct rtattr *tb[], int type, const char *key,
			  const char *fmt)
{
	__u64 v;

	if (attr_u64(tb, type, &v))
		print_uint(PRINT_ANY, key, fmt, v);
}

static void print_size_opt(struct rtattr *tb[], int type, const char *key,
			   const char *fmt)
{
	__u64 v;

	if (attr_u64(tb, type, &v))
		print_size(PRINT_ANY, key, fmt, v);
}

static int afq_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_AFQ_MAX + 1];
	__u64 v;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_AFQ_MAX, opt);
	print_u32_opt(tb, TCA_AFQ_LIMIT, "limit", "limit %up ");
	print_size_opt(tb, TCA_AFQ_LIMIT_BYTES, "limit_bytes",
		       "limit_bytes %s ");
	print_u32_opt(tb, TCA_AFQ_NQUEUES, "nqueues", "nqueues %u ");
	print_size_opt(tb, TCA_AFQ_BPR, "bpr", "bpr %s ");
	print_u32_opt(tb, TCA_AFQ_ROWS, "rows", "rows %u ");
	print_u32_opt(tb, TCA_AFQ_COLS, "cols", "cols %u ");
	if (attr_u64(tb, TCA_AFQ_ECN_ROUNDS, &v)) {
		print_uint(PRINT_JSON, "ecn_rounds", NULL, v);
		if (v)
			print_uint(PRINT_FP, NULL, "ecn_rounds %u ", v);
		else
			print_string(PRINT_FP, NULL, "%s ", "noecn");
	}
	print_keyword(tb, TCA_AFQ_FLOW_KEY, "flow_key", flow_key_names,
		      ARRAY_SIZE(flow_key_names));
	print_keyword(tb, TCA_AFQ_OVERFLOW, "overflow", overflow_names,
		      ARRAY_SIZE(overflow_names));
	if (attr_u64(tb, TCA_AFQ_EXACT, &v)) {
		print_bool(PRINT_JSON, "exact", NULL, v);
		print_string(PRINT_FP, NULL, "%s ", v ? "exact" : "sketch");
	}
	print_u32_opt(tb, TCA_AFQ_EXACT_FLOWS, "exact_flows",
		      "exact_flows %u ");
	if (attr_u64(tb, TCA_AFQ_SEED, &v)) {
		print_uint(PRINT_JSON, "seed", NULL, v);
		if (v)
			print_uint(PRINT_FP, NULL, "seed %u ", v);
		else
			print_string(PRINT_FP, NULL, "seed %s ", "random");
	}
	if (attr_u64(tb, TCA_AFQ_RATE, &v))
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", v);
	return 0;
}

/* ---- printing the extended statistics ---- */

enum xs_kind { XS_U64, XS_U32, XS_SIZE, XS_NL };

struct xs_field {
	const char *name;
	unsigned short off;
	unsigned char size;
	unsigned char kind;
};

#define XS(f, k) { #f, offsetof(struct tc_afq_xstats, f), \
		   sizeof(((struct tc_afq_xstats *)0)->f), k }
#define XS_LINE	 { NULL, 0, 0, XS_NL }

/* One text line per group; JSON keys are the struct member names. */
static const struct xs_field afq_xs_fields[] = {
	XS(round, XS_U64), XS(rotations, XS_U64), XS(empty_skips, XS_U64),
	XS(active_queues, XS_U32), XS(active_queues_max, XS_U32),
	XS(max_ahead, XS_U32), XS(memory, XS_SIZE),
	XS_LINE,
	XS(enqueued, XS_U64), XS(dequeued, XS_U64), XS(gso_split, XS_U64),
	XS(bid_bumps, XS_U64), XS(ecn_marked, XS_U64),
	XS(ecn_nonect, XS_U64),
	XS_LINE,
	XS(horizon_drops, XS_U64), XS(limit_drops, XS_U64),
	XS(pushout_drops, XS_U64),
	XS_LINE,
	XS(exact_pkts, XS_U64), XS(sketch_misplaced, XS_U64),
	XS(sketch_extra_rounds, XS_U64), XS(exact_table_full, XS_U64),
};

static void xs_print_field(const struct xs_field *x, const void *st)
{
	__u64 v64;
	__u32 v32;

	print_string(PRINT_FP, NULL, "%s ", x->name);
	if (x->kind == XS_U64) {
		memcpy(&v64, (const char *)st + x->off, sizeof(v64));
		print_u64(PRINT_ANY, x->name, "%" PRIu64 " ", v64);
		return;
	}
	memcpy(&v32, (const char *)st + x->off, sizeof(v32));
	if (x->kind == XS_SIZE)
		print_size(PRINT_ANY, x->name, "%s ", v32);
	else
		print_uint(PRINT_ANY, x->name, "%u ", v32);
}

static int afq_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_afq_xstats st = {};
	bool line_open = false;
	size_t len, i;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	for (i = 0; i < ARRAY_SIZE(afq_xs_fields); i++) {
		const struct xs_field *x = &afq_xs_fields[i];

		if (x->kind == XS_NL) {
			if (line_open)
				print_nl();
			line_open = false;
			continue;
		}
		if (x->off + x->size > len)
			continue;	/* an older module's shorter struct */
		if (!line_open)
			print_string(PRINT_FP, NULL, " ", NULL);
		line_open = true;
		xs_print_field(x, &st);
	}
	return 0;
}

struct qdisc_util afq_qdisc_util = {
	.id		= "afq",
	.parse_qopt	= afq_parse_opt,
	.print_qopt	= afq_print_opt,
	.print_xstats	= afq_print_xstats,
};
