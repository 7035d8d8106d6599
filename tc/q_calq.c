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
#include <stdlib.h>

#include <linux/pkt_sched_shoal.h>
#include "afq_key_names.h"
#include "plugin_util.h"

_Static_assert(TCA_CALQ_MAX <= PU_ATTR_MAX, "PU_ATTR_MAX too small");

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
		"		[ flow_key flow | hosts | src | dst | mark | prio | shoal_msg ]\n"
		"		[ ecn_thresh BYTES | off ]\n"
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
	[TCA_CALQ_FLOW_KEY]	= 1,
	[TCA_CALQ_ECN_THRESH]	= 4,
};

struct calq_req {
	struct pu_req pu;
	__u32 flags;		/* CALQ_F_* bits given ... */
	__u32 flags_mask;	/* ... and which bits those are */
};

static struct calq_req *calq_req(struct pu_req *r)
{
	return (struct calq_req *)((char *)r - offsetof(struct calq_req, pu));
}

/* ---- value parsers (numbers, sizes, times: plugin_util.h) ---- */

/* A keyword, or the number it stands for (the kernel checks numbers) */
static int parse_keyword_num(const struct pu_opt *o, const char *arg,
			     struct pu_req *r)
{
	if (arg[0] >= '0' && arg[0] <= '9')	/* no keyword starts so */
		return parse_num(o, arg, r);
	return parse_keyword(o, arg, r);
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

#define OPT_KWN(n, t, kw) { .name = n, .type = t, .parse = parse_keyword_num, \
			    .names = kw, .nnames = ARRAY_SIZE(kw) }

static const struct pu_opt calq_opts[] = {
	OPT("limit",		TCA_CALQ_LIMIT,		parse_pkts),
	OPT("limit_bytes",	TCA_CALQ_LIMIT_BYTES,	parse_bytes),
	OPT("buckets",		TCA_CALQ_BUCKETS,	parse_num),
	OPT_KWN("mode",		TCA_CALQ_MODE,		mode_names),
	OPT("interval",		TCA_CALQ_INTERVAL,	parse_time),
	OPT_KWN("rank",		TCA_CALQ_RANK,		rank_names),
	OPT_KWN("fallback",	TCA_CALQ_FALLBACK,	fallback_names),
	OPT("shift",		TCA_CALQ_SHIFT,		parse_num),
	OPT_KWN("horizon",	TCA_CALQ_HORIZON,	horizon_names),
	OPT("quantum",		TCA_CALQ_QUANTUM,	parse_bytes),
	OPT("rows",		TCA_CALQ_ROWS,		parse_num),
	OPT("cols",		TCA_CALQ_COLS,		parse_num),
	OPT("port",		TCA_CALQ_PORT,		parse_num),
	OPT("rate",		TCA_CALQ_RATE,		parse_rate),
	OPT_KWN("flow_key",	TCA_CALQ_FLOW_KEY,	flow_key_names),
	OPT("ecn_thresh",	TCA_CALQ_ECN_THRESH,	parse_bytes_or_off),
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

/* the flag words and help: the words that take no value */
static int calq_word(struct pu_req *r, const char *word)
{
	if (parse_flag_word(word, calq_req(r)))
		return 1;
	if (!matches(word, "help")) {
		explain();
		return -1;
	}
	return 0;
}

static const struct pu_desc calq_desc = {
	.kind			= "calq",
	.width			= calq_attr_width,
	.max			= TCA_CALQ_MAX,
	.opts			= calq_opts,
	.nopts			= ARRAY_SIZE(calq_opts),
	.explain		= explain,
	.word			= calq_word,
};

static int calq_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct calq_req r = { .pu = { .d = &calq_desc, .dev = dev } };

	(void)qu;
	if (parse_args(&r.pu, argc, argv))
		return -1;
	if (r.flags_mask) {
		req_set(&r.pu, TCA_CALQ_FLAGS, r.flags);
		req_set(&r.pu, TCA_CALQ_FLAGS_MASK, r.flags_mask);
	}
	return put_attrs(&r.pu, n);
}

/* ---- printing the options ---- */

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
	print_keyword(tb, TCA_CALQ_FLOW_KEY, "flow_key", flow_key_names,
		      ARRAY_SIZE(flow_key_names));
	if (attr_u64(tb, TCA_CALQ_ECN_THRESH, &v)) {
		print_uint(PRINT_JSON, "ecn_thresh", NULL, v);
		if (v)
			print_size(PRINT_FP, NULL, "ecn_thresh %s ", v);
		else
			print_string(PRINT_FP, NULL, "ecn_thresh %s ", "off");
	}
	if (has_flags && (flags & ~(__u64)CALQ_F_MASK))	/* a newer module */
		print_uint(PRINT_ANY, "flags", "flags %#x ", flags);
	return 0;
}

/* ---- printing the extended statistics ---- */

#define XS(f, k)	PU_XS(struct tc_calq_xstats, f, k)

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
	XS_LINE,
	XS(ecn_marked, XS_U64), XS(ecn_nonect, XS_U64),
};

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
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
	xs_print_fields(calq_xs_fields, ARRAY_SIZE(calq_xs_fields), &st, len);
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
