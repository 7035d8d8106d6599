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
#include <stdlib.h>

#include <linux/pkt_sched_shoal.h>
#include "afq_key_names.h"
#include "plugin_util.h"

_Static_assert(TCA_AFQ_MAX <= PU_ATTR_MAX, "PU_ATTR_MAX too small");

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... afq [ limit PACKETS ] [ limit_bytes BYTES ]\n"
		"		[ nqueues N ] [ bpr BYTES ] [ rows N ] [ cols N ]\n"
		"		[ ecn_rounds N | noecn ]\n"
		"		[ flow_key flow | hosts | src | dst | mark | prio | shoal_msg ]\n"
		"		[ overflow drop | pushout ] [ exact | sketch ]\n"
		"		[ exact_flows N ] [ seed N | random ] [ rate RATE ]\n"
		"		[ shoal_port PORT | off ]\n"
		"nqueues: power of 2, 2..4096; cols: power of 2, 16..1048576;\n"
		"rows: 1..8; bpr: 64..16777216; exact_flows: power of 2, 256..4194304.\n"
		"shoal_port: UDP port of Shoal packets, keyed by their Shoal ports\n"
		"(flow, shoal_msg); 0 or off: none.\n"
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
	[TCA_AFQ_SHOAL_PORT]	= 2,
};

/* ---- value parsers (numbers, sizes: plugin_util.h) ---- */

static int parse_seed(const struct pu_opt *o, const char *arg,
		      struct pu_req *r)
{
	if (!strcmp(arg, "random")) {
		req_set(r, o->type, 0);
		return 0;
	}
	return parse_num(o, arg, r);
}

static const char * const overflow_names[__AFQ_OVERFLOW_MAX] = {
	[AFQ_OVERFLOW_DROP]	= "drop",
	[AFQ_OVERFLOW_PUSHOUT]	= "pushout",
};

static const struct pu_opt afq_opts[] = {
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
	OPT("shoal_port",	TCA_AFQ_SHOAL_PORT,	parse_num_or_off),
};

/* exact, sketch, noecn and help: the words that take no value */
static int afq_word(struct pu_req *r, const char *word)
{
	if (!strcmp(word, "exact")) {
		req_set(r, TCA_AFQ_EXACT, 1);
		return 1;
	}
	if (!strcmp(word, "sketch")) {
		req_set(r, TCA_AFQ_EXACT, 0);
		return 1;
	}
	if (!strcmp(word, "noecn")) {
		req_set(r, TCA_AFQ_ECN_ROUNDS, 0);
		return 1;
	}
	if (!strcmp(word, "help")) {
		explain();
		return -1;
	}
	return 0;
}

static const struct pu_desc afq_desc = {
	.kind			= "afq",
	.width			= afq_attr_width,
	.max			= TCA_AFQ_MAX,
	.opts			= afq_opts,
	.nopts			= ARRAY_SIZE(afq_opts),
	.explain		= explain,
	.word			= afq_word,
};

static int afq_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	struct pu_req r = { .d = &afq_desc, .dev = dev };

	(void)qu;
	if (parse_args(&r, argc, argv))
		return -1;
	return put_attrs(&r, n);
}

/* ---- printing the options ---- */

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
	if (attr_u64(tb, TCA_AFQ_SHOAL_PORT, &v)) {
		print_uint(PRINT_JSON, "shoal_port", NULL, v);
		if (v)
			print_uint(PRINT_FP, NULL, "shoal_port %u ", v);
		else
			print_string(PRINT_FP, NULL, "shoal_port %s ", "off");
	}
	return 0;
}

/* ---- printing the extended statistics ---- */

#define XS(f, k)	PU_XS(struct tc_afq_xstats, f, k)

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

static int afq_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_afq_xstats st = {};
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
	xs_print_fields(afq_xs_fields, ARRAY_SIZE(afq_xs_fields), &st, len);
	return 0;
}

struct qdisc_util afq_qdisc_util = {
	.id		= "afq",
	.parse_qopt	= afq_parse_opt,
	.print_qopt	= afq_print_opt,
	.print_xstats	= afq_print_xstats,
};
