// SPDX-License-Identifier: GPL-2.0
/*
 * q_trim.so: iproute2 tc plugin for the Shoal "trim" qdisc (sch_trim).
 *
 *	tc qdisc add dev DEV root trim limit 12 keep 64 sched wrr weights 10:1
 *	tc -s qdisc show dev DEV
 *
 * Parsing collects the options the user gave and sends only those, so that
 * "tc qdisc change" leaves every other parameter as it is.  Printing decodes
 * whatever the kernel dumps and tolerates attributes of any integer width and
 * an xstats struct shorter (older module) or longer (newer module) than ours.
 *
 * The netlink contract is include/uapi/linux/pkt_sched_shoal.h; the command
 * syntax and the output format are documented in tc-trim(8).
 */
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include <netinet/in.h>

#include <linux/pkt_sched_shoal.h>
#include "plugin_util.h"

_Static_assert(TCA_TRIM_MAX <= PU_ATTR_MAX, "PU_ATTR_MAX too small");

#define DSCP_MAX	63
#define DSCP_ALL	(~0ULL)
#define DSCP_LIST_LEN	256	/* "0,2,4,...,62" fits easily */

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... trim [ limit PACKETS ] [ limit_bytes BYTES ]\n"
		"		[ hdr_limit PACKETS ] [ hdr_limit_bytes BYTES ]\n"
		"		[ keep BYTES ] [ sched strict | wrr | drr ]\n"
		"		[ weights HDR:DATA ] [ hdr_weight N ] [ data_weight N ]\n"
		"		[ tail_prob P ] [ mode prio | same ] [ overflow drop | rts ]\n"
		"		[ mark_dscp DSCP | none ] [ mark_offset OFFSET ]\n"
		"		[ mark_mask MASK ] [ bounce_mask MASK ]\n"
		"		[ ctrl_dscp DSCPLIST | none ] [ elig_dscp DSCPLIST | all ]\n"
		"		[ proto udp | tcp ] [ ports PORT | MIN-MAX ]\n"
		"		[ ecn_thresh BYTES | off ] [ rate RATE | 0 ]\n"
		"		[ ecn_hdrs | no_ecn_hdrs ] [ shoal_port PORT | none ]\n"
		"P := probability, 0..1 (0.5) or 0..100%%\n"
		"DSCP := 0..63 | cs0..cs7 | af11..af43 | ef | va | le\n"
		"DSCPLIST := DSCP[-DSCP][,DSCP[-DSCP]]... | all | none\n"
		"Sizes take units (64, 9kb, 1mb); RATE takes units (10mbit, 1gbit).\n");
}

/* ---- option values, collected before anything is sent ---- */

/* Width in bytes of every attribute we send, from the uapi comments. */
static const unsigned char trim_attr_width[TCA_TRIM_MAX + 1] = {
	[TCA_TRIM_LIMIT]		= 4,
	[TCA_TRIM_LIMIT_BYTES]		= 4,
	[TCA_TRIM_HDR_LIMIT]		= 4,
	[TCA_TRIM_HDR_LIMIT_BYTES]	= 4,
	[TCA_TRIM_KEEP]			= 2,
	[TCA_TRIM_SCHED]		= 1,
	[TCA_TRIM_HDR_WEIGHT]		= 4,
	[TCA_TRIM_DATA_WEIGHT]		= 4,
	[TCA_TRIM_TAIL_PROB]		= 4,
	[TCA_TRIM_HDR_MODE]		= 1,
	[TCA_TRIM_OVERFLOW]		= 1,
	[TCA_TRIM_MARK_DSCP]		= 1,
	[TCA_TRIM_MARK_OFFSET]		= 2,
	[TCA_TRIM_MARK_MASK]		= 1,
	[TCA_TRIM_CTRL_DSCP]		= 8,
	[TCA_TRIM_ECN_THRESH]		= 4,
	[TCA_TRIM_ELIG_DSCP]		= 8,
	[TCA_TRIM_ELIG_PROTO]		= 1,
	[TCA_TRIM_ELIG_PORT_MIN]	= 2,
	[TCA_TRIM_ELIG_PORT_MAX]	= 2,
	[TCA_TRIM_RATE]			= 8,
	[TCA_TRIM_FLAGS]		= 4,
	[TCA_TRIM_BOUNCE_MASK]		= 1,
	[TCA_TRIM_SHOAL_PORT]		= 2,
};

/* ---- value parsers (numbers, sizes: plugin_util.h) ---- */

static int parse_weights(const struct pu_opt *o, const char *arg,
			 struct pu_req *r)
{
	const char *s = arg;
	unsigned long h, d;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		goto err;
	h = strtoul(s, &end, 10);
	if (*end != ':')
		goto err;
	s = end + 1;
	if (*s < '0' || *s > '9')
		goto err;
	d = strtoul(s, &end, 10);
	if (*end || errno)
		goto err;
	if (!h || !d || h > UINT32_MAX || d > UINT32_MAX)
		goto err;
	req_set(r, TCA_TRIM_HDR_WEIGHT, h);
	req_set(r, TCA_TRIM_DATA_WEIGHT, d);
	return 0;
err:
	return bad(r, o->name, arg,
		   "expected HDR:DATA, two positive integers");
}

/*
 * A probability as a fraction (0.5) or a percentage (50%), scaled so that
 * 1 maps to TRIM_PROB_MAX.
 */
static int trim_parse_prob(const char *arg, __u32 *out)
{
	double p, scaled;
	char *end;

	p = strtod(arg, &end);
	if (end == arg)
		return -1;
	if (*end == '%') {
		p /= 100;
		end++;
	}
	if (*end || !(p >= 0 && p <= 1))	/* also rejects NaN */
		return -1;
	scaled = p * (double)TRIM_PROB_MAX + 0.5;
	*out = scaled >= (double)TRIM_PROB_MAX ? TRIM_PROB_MAX : (__u32)scaled;
	return 0;
}

static double trim_prob_value(__u32 v)
{
	return (double)v / (double)TRIM_PROB_MAX;
}

static int parse_prob(const struct pu_opt *o, const char *arg,
		      struct pu_req *r)
{
	__u32 v;

	if (trim_parse_prob(arg, &v))
		return bad(r, o->name, arg,
			   "expected a probability 0..1 (like 0.5) or 0..100%");
	req_set(r, o->type, v);
	return 0;
}

/* One DSCP: a number 0..63 or a class name (cs0..cs7, af11..af43, ef, ...) */
static int trim_parse_dscp(const char *s, size_t len, unsigned int *out)
{
	char buf[8];
	unsigned long v;
	char *end;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';

	if (buf[0] >= '0' && buf[0] <= '9') {
		v = strtoul(buf, &end, 10);
		if (*end || v > DSCP_MAX)
			return -1;
		*out = v;
		return 0;
	}
	if (!strcasecmp(buf, "ef"))
		*out = 46;
	else if (!strcasecmp(buf, "va"))
		*out = 44;
	else if (!strcasecmp(buf, "le"))
		*out = 1;
	else if (len == 3 && !strncasecmp(buf, "cs", 2) &&
		 buf[2] >= '0' && buf[2] <= '7')
		*out = (buf[2] - '0') << 3;
	else if (len == 4 && !strncasecmp(buf, "af", 2) &&
		 buf[2] >= '1' && buf[2] <= '4' &&
		 buf[3] >= '1' && buf[3] <= '3')
		*out = ((buf[2] - '0') << 3) | ((buf[3] - '0') << 1);
	else
		return -1;
	return 0;
}

/* "0-7,46,cs6" -> bitmap; "all" / "none" */
static int trim_parse_dscp_set(const char *arg, __u64 *out)
{
	const char *p = arg;
	__u64 set = 0;

	if (!strcmp(arg, "all")) {
		*out = DSCP_ALL;
		return 0;
	}
	if (!strcmp(arg, "none")) {
		*out = 0;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		const char *dash = memchr(p, '-', len);
		unsigned int lo, hi;

		if (dash) {
			if (trim_parse_dscp(p, dash - p, &lo) ||
			    trim_parse_dscp(dash + 1, len - (dash - p) - 1, &hi) ||
			    lo > hi)
				return -1;
		} else {
			if (trim_parse_dscp(p, len, &lo))
				return -1;
			hi = lo;
		}
		for (; lo <= hi; lo++)
			set |= 1ULL << lo;
		if (!p[len])
			break;
		p += len + 1;
	}
	*out = set;
	return 0;
}

/* Bitmap -> "0-7,46,48", "all" or "none" */
static char *trim_sprint_dscp_set(__u64 set, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int lo, hi;

	buf[0] = '\0';
	if (set == DSCP_ALL || !set) {
		snprintf(buf, size, "%s", set ? "all" : "none");
		return buf;
	}
	for (lo = 0; lo <= DSCP_MAX && len < size; lo = hi + 1) {
		if (!(set & (1ULL << lo))) {
			hi = lo;
			continue;
		}
		for (hi = lo; hi < DSCP_MAX && (set & (1ULL << (hi + 1))); hi++)
			;
		if (hi == lo)
			len += snprintf(buf + len, size - len, "%s%u",
					len ? "," : "", lo);
		else
			len += snprintf(buf + len, size - len, "%s%u-%u",
					len ? "," : "", lo, hi);
	}
	return buf;
}

static int parse_dscp_set(const struct pu_opt *o, const char *arg,
			  struct pu_req *r)
{
	__u64 set;

	if (trim_parse_dscp_set(arg, &set))
		return bad(r, o->name, arg,
			   "expected a DSCP list like 0-7,46,cs6, or all, or none");
	req_set(r, o->type, set);
	return 0;
}

static int parse_mark_dscp(const struct pu_opt *o, const char *arg,
			   struct pu_req *r)
{
	unsigned int d;

	if (!strcmp(arg, "none") || !strcmp(arg, "keep")) {
		req_set(r, o->type, TRIM_DSCP_KEEP);
		return 0;
	}
	if (trim_parse_dscp(arg, strlen(arg), &d))
		return bad(r, o->name, arg,
			   "expected a DSCP 0..63 or name (cs1, af11, ef), or none");
	req_set(r, o->type, d);
	return 0;
}

static int parse_proto(const struct pu_opt *o, const char *arg,
		       struct pu_req *r)
{
	if (!strcmp(arg, "udp") || !strcmp(arg, "17"))
		req_set(r, o->type, IPPROTO_UDP);
	else if (!strcmp(arg, "tcp") || !strcmp(arg, "6"))
		req_set(r, o->type, IPPROTO_TCP);
	else
		return bad(r, o->name, arg, "expected udp | tcp");
	return 0;
}

/* "4797" or "4000-4999" */
static int trim_parse_ports(const char *arg, unsigned int *min,
			    unsigned int *max)
{
	unsigned long lo, hi;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	lo = strtoul(arg, &end, 10);
	hi = lo;
	if (*end == '-') {
		const char *s = end + 1;

		if (s[0] < '0' || s[0] > '9')
			return -1;
		hi = strtoul(s, &end, 10);
	}
	if (*end || lo > 65535 || hi > 65535 || lo > hi)
		return -1;
	*min = lo;
	*max = hi;
	return 0;
}

static int parse_ports(const struct pu_opt *o, const char *arg,
		       struct pu_req *r)
{
	unsigned int lo, hi;

	if (trim_parse_ports(arg, &lo, &hi))
		return bad(r, o->name, arg,
			   "expected a port 0..65535 or a range MIN-MAX");
	req_set(r, TCA_TRIM_ELIG_PORT_MIN, lo);
	req_set(r, TCA_TRIM_ELIG_PORT_MAX, hi);
	return 0;
}

static const char * const sched_names[__TRIM_SCHED_MAX] = {
	[TRIM_SCHED_STRICT]	= "strict",
	[TRIM_SCHED_WRR]	= "wrr",
	[TRIM_SCHED_DRR]	= "drr",
};

static const char * const mode_names[__TRIM_HDR_MODE_MAX] = {
	[TRIM_HDR_PRIO]		= "prio",
	[TRIM_HDR_SAME]		= "same",
};

static const char * const overflow_names[__TRIM_OVERFLOW_MAX] = {
	[TRIM_OVERFLOW_DROP]	= "drop",
	[TRIM_OVERFLOW_RTS]	= "rts",
};


static const struct pu_opt trim_opts[] = {
	OPT_MIN("limit",		TCA_TRIM_LIMIT,		  parse_pkts, 1),
	OPT("limit_bytes",		TCA_TRIM_LIMIT_BYTES,	  parse_bytes),
	OPT_MIN("hdr_limit",		TCA_TRIM_HDR_LIMIT,	  parse_pkts, 1),
	OPT("hdr_limit_bytes",		TCA_TRIM_HDR_LIMIT_BYTES, parse_bytes),
	OPT("keep",			TCA_TRIM_KEEP,		  parse_bytes),
	OPT_KW("sched",			TCA_TRIM_SCHED,		  sched_names),
	OPT("weights",			TCA_TRIM_HDR_WEIGHT,	  parse_weights),
	OPT_MIN("hdr_weight",		TCA_TRIM_HDR_WEIGHT,	  parse_num, 1),
	OPT_MIN("data_weight",		TCA_TRIM_DATA_WEIGHT,	  parse_num, 1),
	OPT("tail_prob",		TCA_TRIM_TAIL_PROB,	  parse_prob),
	OPT_KW("mode",			TCA_TRIM_HDR_MODE,	  mode_names),
	OPT_KW("overflow",		TCA_TRIM_OVERFLOW,	  overflow_names),
	OPT("mark_dscp",		TCA_TRIM_MARK_DSCP,	  parse_mark_dscp),
	OPT("mark_offset",		TCA_TRIM_MARK_OFFSET,	  parse_num),
	OPT_CNUM("mark_mask",		TCA_TRIM_MARK_MASK),
	OPT_CNUM("bounce_mask",		TCA_TRIM_BOUNCE_MASK),
	OPT("ctrl_dscp",		TCA_TRIM_CTRL_DSCP,	  parse_dscp_set),
	OPT("elig_dscp",		TCA_TRIM_ELIG_DSCP,	  parse_dscp_set),
	OPT("proto",			TCA_TRIM_ELIG_PROTO,	  parse_proto),
	OPT("ports",			TCA_TRIM_ELIG_PORT_MIN,	  parse_ports),
	OPT("ecn_thresh",		TCA_TRIM_ECN_THRESH,	  parse_bytes_or_off),
	OPT("rate",			TCA_TRIM_RATE,		  parse_rate),
	OPT("shoal_port",		TCA_TRIM_SHOAL_PORT,	  parse_num_or_off),
};

/* ecn_hdrs, no_ecn_hdrs and help: the words that take no value */
static int trim_word(struct pu_req *r, const char *word)
{
	if (!strcmp(word, "ecn_hdrs")) {
		req_set(r, TCA_TRIM_FLAGS, TRIM_F_ECN_HDRS);
		return 1;
	}
	if (!strcmp(word, "no_ecn_hdrs")) {
		req_set(r, TCA_TRIM_FLAGS, 0);
		return 1;
	}
	if (!matches(word, "help")) {
		explain();
		return -1;
	}
	return 0;
}

static const struct pu_desc trim_desc = {
	.kind			= "trim",
	.width			= trim_attr_width,
	.max			= TCA_TRIM_MAX,
	.opts			= trim_opts,
	.nopts			= ARRAY_SIZE(trim_opts),
	.explain		= explain,
	.word			= trim_word,
};

static int trim_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct pu_req r = { .d = &trim_desc, .dev = dev };

	(void)qu;
	if (parse_args(&r, argc, argv))
		return -1;
	return put_attrs(&r, n);
}

/* ---- printing the options ---- */

static void print_dscp_set(const char *key, __u64 set)
{
	char buf[DSCP_LIST_LEN], fmt[32];
	unsigned int d;

	open_json_array(PRINT_JSON, key);
	for (d = 0; d <= DSCP_MAX; d++)
		if (set & (1ULL << d))
			print_uint(PRINT_JSON, NULL, NULL, d);
	close_json_array(PRINT_JSON, NULL);

	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	print_string(PRINT_FP, NULL, fmt,
		     trim_sprint_dscp_set(set, buf, sizeof(buf)));
}

static void print_limits(struct rtattr *tb[])
{
	__u64 v;

	if (attr_u64(tb, TCA_TRIM_LIMIT, &v))
		print_uint(PRINT_ANY, "limit", "limit %up ", v);
	if (attr_u64(tb, TCA_TRIM_LIMIT_BYTES, &v))
		print_size(PRINT_ANY, "limit_bytes", "limit_bytes %s ", v);
	if (attr_u64(tb, TCA_TRIM_HDR_LIMIT, &v))
		print_uint(PRINT_ANY, "hdr_limit", "hdr_limit %up ", v);
	if (attr_u64(tb, TCA_TRIM_HDR_LIMIT_BYTES, &v))
		print_size(PRINT_ANY, "hdr_limit_bytes", "hdr_limit_bytes %s ",
			   v);
	if (attr_u64(tb, TCA_TRIM_KEEP, &v))
		print_size(PRINT_ANY, "keep", "keep %s ", v);
}

static void print_queueing(struct rtattr *tb[])
{
	__u64 h, d;
	bool has_h, has_d;

	print_keyword(tb, TCA_TRIM_SCHED, "sched", sched_names,
		      ARRAY_SIZE(sched_names));
	has_h = attr_u64(tb, TCA_TRIM_HDR_WEIGHT, &h);
	has_d = attr_u64(tb, TCA_TRIM_DATA_WEIGHT, &d);
	if (has_h)
		print_uint(PRINT_JSON, "hdr_weight", NULL, h);
	if (has_d)
		print_uint(PRINT_JSON, "data_weight", NULL, d);
	if (has_h && has_d) {
		print_uint(PRINT_FP, NULL, "weights %u", h);
		print_uint(PRINT_FP, NULL, ":%u ", d);
	} else if (has_h) {
		print_uint(PRINT_FP, NULL, "hdr_weight %u ", h);
	} else if (has_d) {
		print_uint(PRINT_FP, NULL, "data_weight %u ", d);
	}
	if (attr_u64(tb, TCA_TRIM_TAIL_PROB, &h))
		print_float(PRINT_ANY, "tail_prob", "tail_prob %g ",
			    trim_prob_value(h));
	print_keyword(tb, TCA_TRIM_HDR_MODE, "mode", mode_names,
		      ARRAY_SIZE(mode_names));
	print_keyword(tb, TCA_TRIM_OVERFLOW, "overflow", overflow_names,
		      ARRAY_SIZE(overflow_names));
}

static void print_marking(struct rtattr *tb[])
{
	__u64 v;

	if (attr_u64(tb, TCA_TRIM_MARK_DSCP, &v)) {
		if (v == TRIM_DSCP_KEEP)
			print_null(PRINT_ANY, "mark_dscp", "mark_dscp %s ",
				   "none");
		else
			print_uint(PRINT_ANY, "mark_dscp", "mark_dscp %u ", v);
	}
	if (attr_u64(tb, TCA_TRIM_MARK_OFFSET, &v))
		print_uint(PRINT_ANY, "mark_offset", "mark_offset %u ", v);
	if (attr_u64(tb, TCA_TRIM_MARK_MASK, &v)) {
		print_uint(PRINT_JSON, "mark_mask", NULL, v);
		print_uint(PRINT_FP, NULL, "mark_mask %#x ", v);
	}
	if (attr_u64(tb, TCA_TRIM_BOUNCE_MASK, &v)) {
		print_uint(PRINT_JSON, "bounce_mask", NULL, v);
		print_uint(PRINT_FP, NULL, "bounce_mask %#x ", v);
	}
	if (attr_u64(tb, TCA_TRIM_CTRL_DSCP, &v))
		print_dscp_set("ctrl_dscp", v);
}

static void print_eligibility(struct rtattr *tb[])
{
	__u64 v, lo, hi;
	bool has_lo, has_hi;
	char num[24];

	if (attr_u64(tb, TCA_TRIM_ELIG_DSCP, &v))
		print_dscp_set("elig_dscp", v);
	if (attr_u64(tb, TCA_TRIM_ELIG_PROTO, &v)) {
		const char *name = v == IPPROTO_UDP ? "udp" :
				   v == IPPROTO_TCP ? "tcp" : NULL;

		if (!name) {
			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)v);
			name = num;
		}
		print_string(PRINT_ANY, "proto", "proto %s ", name);
	}
	has_lo = attr_u64(tb, TCA_TRIM_ELIG_PORT_MIN, &lo);
	has_hi = attr_u64(tb, TCA_TRIM_ELIG_PORT_MAX, &hi);
	if (has_lo)
		print_uint(PRINT_JSON, "port_min", NULL, lo);
	if (has_hi)
		print_uint(PRINT_JSON, "port_max", NULL, hi);
	if (!has_lo || !has_hi)
		return;
	if (lo == hi)
		snprintf(num, sizeof(num), "%u", (unsigned int)lo);
	else
		snprintf(num, sizeof(num), "%u-%u", (unsigned int)lo,
			 (unsigned int)hi);
	print_string(PRINT_FP, NULL, "ports %s ", num);
}

static void print_signals(struct rtattr *tb[])
{
	__u64 v;

	if (attr_u64(tb, TCA_TRIM_ECN_THRESH, &v)) {
		if (v)
			print_size(PRINT_ANY, "ecn_thresh", "ecn_thresh %s ", v);
		else
			print_uint(PRINT_ANY, "ecn_thresh", "ecn_thresh off ",
				   0);
	}
	if (attr_u64(tb, TCA_TRIM_RATE, &v))
		tc_print_rate(PRINT_ANY, "rate", "rate %s ", v);
	if (attr_u64(tb, TCA_TRIM_FLAGS, &v)) {
		bool on = v & TRIM_F_ECN_HDRS;

		print_bool(PRINT_JSON, "ecn_hdrs", NULL, on);
		print_string(PRINT_FP, NULL, "%s ",
			     on ? "ecn_hdrs" : "no_ecn_hdrs");
		if (v & ~(__u64)TRIM_F_MASK)	/* from a newer module */
			print_uint(PRINT_ANY, "flags", "flags %#x ", v);
	}
	if (attr_u64(tb, TCA_TRIM_SHOAL_PORT, &v)) {
		print_uint(PRINT_JSON, "shoal_port", NULL, v);
		if (v)
			print_uint(PRINT_FP, NULL, "shoal_port %u ", v);
		else
			print_string(PRINT_FP, NULL, "shoal_port %s ", "none");
	}
}

static int trim_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_TRIM_MAX + 1];

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_TRIM_MAX, opt);
	print_limits(tb);
	print_queueing(tb);
	print_marking(tb);
	print_eligibility(tb);
	print_signals(tb);
	return 0;
}

/* ---- printing the extended statistics ---- */

#define XS(f, k)	PU_XS(struct tc_trim_xstats, f, k)

/* One text line per group; JSON keys are the struct member names. */
static const struct xs_field trim_xs_fields[] = {
	XS(data_enq, XS_U64), XS(data_deq, XS_U64), XS(data_qlen, XS_U32),
	XS(data_backlog, XS_SIZE), XS(data_qlen_max, XS_U32),
	XS(data_backlog_max, XS_SIZE),
	XS_LINE,
	XS(hdr_enq, XS_U64), XS(hdr_deq, XS_U64), XS(hdr_qlen, XS_U32),
	XS(hdr_backlog, XS_SIZE), XS(hdr_qlen_max, XS_U32),
	XS(hdr_backlog_max, XS_SIZE),
	XS(ctrl_enq, XS_U64), XS(fwd_hdr_enq, XS_U64),
	XS_LINE,
	XS(trim_arrival, XS_U64), XS(trim_tail, XS_U64),
	XS(trimmed_bytes, XS_U64), XS(small_promoted, XS_U64),
	XS(gso_split, XS_U64), XS(ecn_mark, XS_U64),
	XS_LINE,
	XS(hdr_drop, XS_U64), XS(bounced, XS_U64), XS(bounced_shoal, XS_U64),
	XS(bounce_err, XS_U64),
	XS(inelig_drop, XS_U64), XS(trim_err, XS_U64),
	XS_LINE,
	XS(inelig_nonip, XS_U64), XS(inelig_frag, XS_U64),
	XS(inelig_proto, XS_U64), XS(inelig_encap, XS_U64),
};

#define XS_HAS(len, f) xs_has(len, offsetof(struct tc_trim_xstats, f), \
			      sizeof(((struct tc_trim_xstats *)0)->f))

/*
 * "hdr_sojourn_avg 12.3us hdr_sojourn_max 40.1us hdr_sojourn_sum 5.02ms";
 * JSON: <q>_sojourn_avg_us (float), <q>_sojourn_max_ns, <q>_sojourn_sum_ns.
 */
static void xs_print_sojourn(const char *q, __u64 deq, __u64 sum, __u64 max,
			     bool has_max)
{
	char key[32], fmt[40], b[SPRINT_BSIZE];
	__u64 avg = deq ? sum / deq : 0;

	print_string(PRINT_FP, NULL, " ", NULL);
	snprintf(key, sizeof(key), "%s_sojourn_avg_us", q);
	print_float(PRINT_JSON, key, NULL, deq ? (double)sum / deq / 1000 : 0);
	snprintf(fmt, sizeof(fmt), "%s_sojourn_avg %%s ", q);
	print_string(PRINT_FP, NULL, fmt, sprint_time64(avg, b));
	if (has_max) {
		snprintf(key, sizeof(key), "%s_sojourn_max_ns", q);
		print_u64(PRINT_JSON, key, NULL, max);
		snprintf(fmt, sizeof(fmt), "%s_sojourn_max %%s ", q);
		print_string(PRINT_FP, NULL, fmt, sprint_time64(max, b));
	}
	snprintf(key, sizeof(key), "%s_sojourn_sum_ns", q);
	print_u64(PRINT_JSON, key, NULL, sum);
	snprintf(fmt, sizeof(fmt), "%s_sojourn_sum %%s ", q);
	print_string(PRINT_FP, NULL, fmt, sprint_time64(sum, b));
}

static void xs_print_sojourns(const struct tc_trim_xstats *st, size_t len)
{
	if (XS_HAS(len, hdr_sojourn_sum_ns)) {
		print_nl();
		xs_print_sojourn("hdr", st->hdr_deq, st->hdr_sojourn_sum_ns,
				 st->hdr_sojourn_max_ns,
				 XS_HAS(len, hdr_sojourn_max_ns));
	}
	if (XS_HAS(len, data_sojourn_sum_ns)) {
		print_nl();
		xs_print_sojourn("data", st->data_deq, st->data_sojourn_sum_ns,
				 st->data_sojourn_max_ns,
				 XS_HAS(len, data_sojourn_max_ns));
	}
}

static int trim_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_trim_xstats st = {};
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
	xs_print_fields(trim_xs_fields, ARRAY_SIZE(trim_xs_fields), &st, len);
	xs_print_sojourns(&st, len);
	return 0;
}

struct qdisc_util trim_qdisc_util = {
	.id		= "trim",
	.parse_qopt	= trim_parse_opt,
	.print_qopt	= trim_print_opt,
	.print_xstats	= trim_print_xstats,
};
