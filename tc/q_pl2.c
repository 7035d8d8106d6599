// SPDX-License-Identifier: GPL-2.0
/*
 * q_pl2.so: iproute2 tc plugin for the Shoal "pl2" qdisc (sch_pl2), PL2's
 * host side for any traffic: bursts of k packets per destination, each
 * reserved at the PL2 switch (tools/pl2-switch) and released in its slot.
 *
 *	tc qdisc add dev DEV root pl2 k 4 rate 50mbit domain 10.0.0.0/8
 *	tc -s qdisc show dev DEV
 *
 * Parsing collects the options the user gave and sends only those, so that
 * "tc qdisc change" leaves every other parameter as it is; every value is
 * checked against the range of the uapi before anything is sent.  Printing
 * decodes whatever the kernel dumps and tolerates attributes of any integer
 * width and an xstats struct shorter (older module) or longer (newer
 * module) than ours.
 *
 * The netlink contract is include/uapi/linux/pkt_sched_shoal.h; the command
 * syntax and the output format are documented in tc-pl2(8).
 */
#include <stdlib.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <linux/pkt_sched_shoal.h>
#include "plugin_util.h"

_Static_assert(TCA_PL2_MAX <= PU_ATTR_MAX, "PU_ATTR_MAX too small");

#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

/* Bounds sch_pl2 enforces that the uapi does not (yet) name */
#ifndef PL2_QD_LIMIT_MAX
#define PL2_QD_LIMIT_MAX	1000000
#endif
#ifndef PL2_QD_FLOWS_MAX
#define PL2_QD_FLOWS_MAX	65536
#endif
#define PL2_TC_UNSOL_MAX	0xffff	/* a GRT's slots are 16 bits */
#define PL2_TC_RATE_MIN		1514	/* bytes/s: a full frame a second */

static void explain(void)
{
	char slot[24], tmo[24];

	pu_sprint_ns(PL2_QD_SLOT_NS_MAX, slot, sizeof(slot));
	pu_sprint_ns(PL2_QD_TIMEOUT_US_MAX * 1000ULL, tmo, sizeof(tmo));
	fprintf(stderr,
		"Usage: ... pl2 [ limit PACKETS ] [ flows N ] [ k N ] [ outstanding N ]\n"
		"		[ rate RATE | auto ] [ slot TIME | auto ]\n"
		"		[ rsv_timeout TIME ] [ unsol SLOTS | off ]\n"
		"		[ shoal_port PORT ] [ domain PREFIX | all ]...\n"
		"PREFIX := A.B.C.D[/LEN] | X:X::X:X[/LEN], at most one per family;\n"
		"all: every destination, IPv4 and IPv6.\n"
		"limit: 1..%u; flows: 1..%u; k: 1..%u packets per burst;\n"
		"outstanding: 1..%u, a destination's packets reserved at once in K's;\n"
		"slot: up to %s (0 or auto: a full frame at the rate);\n"
		"rsv_timeout: 1us..%s; unsol: 0..%u slots (0 or off: never);\n"
		"shoal_port: 1..65535 (the switch's --port).\n"
		"RATE takes units (50mbit, 1gbit) or a percentage of the link, 0 or\n"
		"auto: the device's speed; TIME takes units (120us, 20ms): plain\n"
		"numbers are ns for slot, us for rsv_timeout.\n",
		PL2_QD_LIMIT_MAX, PL2_QD_FLOWS_MAX, PL2_QD_K_MAX,
		PL2_QD_OUTSTANDING_MAX, slot, tmo,
		PL2_TC_UNSOL_MAX);
}

/* ---- option values, collected before anything is sent ---- */

/*
 * Width in bytes of every number we send, from the uapi comments.  The
 * domains are structs (0 here): never in r->val, put by pl2_put_domains.
 */
static const unsigned char pl2_attr_width[TCA_PL2_MAX + 1] = {
	[TCA_PL2_LIMIT]			= 4,
	[TCA_PL2_FLOWS]			= 4,
	[TCA_PL2_K]			= 4,
	[TCA_PL2_RATE]			= 8,
	[TCA_PL2_SLOT_NS]		= 4,
	[TCA_PL2_RSV_TIMEOUT_US]	= 4,
	[TCA_PL2_UNSOL]			= 4,
	[TCA_PL2_SHOAL_PORT]		= 2,
	[TCA_PL2_OUTSTANDING]		= 4,
};

/* The domains of the command line, [0] IPv4 and [1] IPv6, beside @r */
struct pl2_req {
	struct pu_req r;
	bool dom_set[2];
	struct tc_pl2_prefix dom[2];
};

static const int dom_type[2] = { TCA_PL2_DOMAIN4, TCA_PL2_DOMAIN6 };

/* ---- value parsers (numbers, times: plugin_util.h) ---- */

/* A rate, a percentage of the link, or 0 / auto: the device's speed */
static int parse_rate_auto(const struct pu_opt *o, const char *arg,
			   struct pu_req *r)
{
	char why[96];
	__u64 rate;

	if (!strcmp(arg, "auto")) {
		req_set(r, o->type, 0);
		return 0;
	}
	/* not parse_rate: its "off" (0) would mean the device's speed here */
	if (strchr(arg, '%')) {
		/* tc explains what went wrong reading the link speed */
		if (!r->dev || get_percent_rate64(&rate, arg, r->dev))
			return bad(r, o->name, arg,
				   "no rate for this percentage of the link");
	} else if (arg[0] == '-' || get_rate64(&rate, arg)) {
		return bad(r, o->name, arg,
			   "expected a rate like 50mbit or 1gbit, or 0 or auto (the device's speed)");
	}
	/* "1bit" is 0 bytes per second, which would mean auto */
	if ((rate || strtod(arg, NULL) != 0) && rate < PL2_TC_RATE_MIN) {
		snprintf(why, sizeof(why),
			 "below a full frame a second (%ubit); 0 or auto: the device's speed",
			 PL2_TC_RATE_MIN * 8);
		return bad(r, o->name, arg, why);
	}
	req_set(r, o->type, rate);
	return 0;
}

/* A time, or auto (0): one full frame at the rate */
static int parse_time_auto(const struct pu_opt *o, const char *arg,
			   struct pu_req *r)
{
	if (!strcmp(arg, "auto")) {
		req_set(r, o->type, 0);
		return 0;
	}
	return parse_time(o, arg, r);
}

/* "12" as a prefix length 0..@max: digits only */
static int pl2_parse_plen(const char *s, unsigned int max, __u8 *plen)
{
	unsigned long v;
	char *end;

	if (s[0] < '0' || s[0] > '9' || strlen(s) > 3)
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > max)
		return -1;
	*plen = v;
	return 0;
}

/*
 * "10.0.0.0/8", "fd00::/8", a bare address (a host: /32, /128), or "all"
 * (both families, plen 0).  Host bits past the length are the kernel's to
 * mask.  Each family once: a second one is a mistake, not a list.
 */
static int parse_domain(const struct pu_opt *o, const char *arg,
			struct pu_req *r)
{
	struct pl2_req *pr = container_of(r, struct pl2_req, r);
	struct tc_pl2_prefix p = {};
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(arg, '/');
	size_t len = slash ? (size_t)(slash - arg) : strlen(arg);
	unsigned int max;
	int fam, i;

	if (!strcmp(arg, "all")) {
		for (i = 0; i < 2; i++) {
			if (pr->dom_set[i])
				goto twice;
			memset(&pr->dom[i], 0, sizeof(pr->dom[i]));
			pr->dom_set[i] = true;
		}
		return 0;
	}
	fam = memchr(arg, ':', len) ? 1 : 0;
	max = fam ? 128 : 32;
	if (!len || len >= sizeof(addr))
		goto err;
	memcpy(addr, arg, len);
	addr[len] = '\0';
	if (inet_pton(fam ? AF_INET6 : AF_INET, addr, p.addr) != 1)
		goto err;
	if (!slash)
		p.plen = max;
	else if (pl2_parse_plen(slash + 1, max, &p.plen))
		return bad(r, o->name, arg, fam ?
			   "expected an IPv6 prefix length 0..128" :
			   "expected an IPv4 prefix length 0..32");
	if (pr->dom_set[fam])
		goto twice;
	pr->dom[fam] = p;
	pr->dom_set[fam] = true;
	return 0;
err:
	return bad(r, o->name, arg,
		   "expected A.B.C.D/LEN, X:X::X:X/LEN or all");
twice:
	return bad(r, o->name, arg,
		   "one domain per family (IPv4, IPv6); all is both");
}

static const struct pu_opt pl2_opts[] = {
	OPT_RANGE("limit",	TCA_PL2_LIMIT,		parse_pkts, 1,
		  PL2_QD_LIMIT_MAX),
	OPT_RANGE("flows",	TCA_PL2_FLOWS,		parse_num, 1,
		  PL2_QD_FLOWS_MAX),
	OPT_RANGE("k",		TCA_PL2_K,		parse_num, 1, PL2_QD_K_MAX),
	OPT_RANGE("outstanding", TCA_PL2_OUTSTANDING,	parse_num, 1,
		  PL2_QD_OUTSTANDING_MAX),
	OPT("rate",		TCA_PL2_RATE,		parse_rate_auto),
	{ .name = "slot", .type = TCA_PL2_SLOT_NS, .parse = parse_time_auto,
	  .max = PL2_QD_SLOT_NS_MAX },
	{ .name = "rsv_timeout", .type = TCA_PL2_RSV_TIMEOUT_US,
	  .parse = parse_time, .unit_ns = 1000, .min = 1,
	  .max = PL2_QD_TIMEOUT_US_MAX },
	OPT_RANGE("unsol",	TCA_PL2_UNSOL,		parse_num_or_off, 0,
		  PL2_TC_UNSOL_MAX),
	OPT_MIN("shoal_port",	TCA_PL2_SHOAL_PORT,	parse_num, 1),
	/* either family: parse_domain keeps them beside r, not in r->val */
	OPT("domain",		TCA_PL2_DOMAIN4,	parse_domain),
};

/* help: the one word that takes no value */
static int pl2_word(struct pu_req *r, const char *word)
{
	(void)r;
	if (!strcmp(word, "help")) {
		explain();
		return -1;
	}
	return 0;
}

/* The domains given, after the numbers */
static int pl2_put_domains(const struct pu_req *r, struct nlmsghdr *n)
{
	const struct pl2_req *pr = container_of(r, const struct pl2_req, r);
	int i;

	for (i = 0; i < 2; i++)
		if (pr->dom_set[i] &&
		    addattr_l(n, TC_PLUGIN_MSG_MAX, dom_type[i], &pr->dom[i],
			      sizeof(pr->dom[i])))
			return -1;
	return 0;
}

static const struct pu_desc pl2_desc = {
	.kind			= "pl2",
	.width			= pl2_attr_width,
	.max			= TCA_PL2_MAX,
	.opts			= pl2_opts,
	.nopts			= ARRAY_SIZE(pl2_opts),
	.explain		= explain,
	.word			= pl2_word,
	.put			= pl2_put_domains,
};

static int pl2_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	struct pl2_req pr = { .r = { .d = &pl2_desc, .dev = dev } };

	(void)qu;
	if (parse_args(&pr.r, argc, argv))
		return -1;
	return put_attrs(&pr.r, n);
}

/* ---- printing the options ---- */

static void print_u32_opt(struct rtattr *tb[], int type, const char *key,
			  const char *fmt)
{
	__u64 v;

	if (attr_u64(tb, type, &v))
		print_uint(PRINT_ANY, key, fmt, v);
}

/* "slot 120us" / "slot auto"; JSON @json_key in the attribute's unit */
static void print_time_opt(struct rtattr *tb[], int type, const char *key,
			   const char *json_key, __u64 unit_ns, bool is_auto)
{
	char fmt[32], b[32];
	__u64 v;

	if (!attr_u64(tb, type, &v))
		return;
	print_u64(PRINT_JSON, json_key, NULL, v);
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	print_string(PRINT_FP, NULL, fmt, !v && is_auto ? "auto" :
		     pu_sprint_ns(v > ~0ULL / unit_ns ? ~0ULL : v * unit_ns,
				  b, sizeof(b)));
}

/*
 * "domain 10.0.0.0/8", "domain ::/0", or "domain all" when both families
 * are every destination; JSON "domain4", "domain6": "ADDR/LEN".  An
 * attribute shorter than ours is read as far as it goes.
 */
static bool pl2_sprint_domain(struct rtattr *rta, int fam, char *buf,
			      size_t size, bool *all)
{
	struct tc_pl2_prefix p = {};
	char addr[INET6_ADDRSTRLEN];
	size_t len;

	if (!rta || !RTA_PAYLOAD(rta))
		return false;
	len = RTA_PAYLOAD(rta);
	memcpy(&p, RTA_DATA(rta), len < sizeof(p) ? len : sizeof(p));
	if (!inet_ntop(fam, p.addr, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "?");
	snprintf(buf, size, "%s/%u", addr, p.plen);
	*all = !p.plen;
	return true;
}

static void print_domains(struct rtattr *tb[])
{
	char b4[INET6_ADDRSTRLEN + 8], b6[INET6_ADDRSTRLEN + 8];
	bool all4 = false, all6 = false, has4, has6;

	has4 = pl2_sprint_domain(tb[TCA_PL2_DOMAIN4], AF_INET, b4, sizeof(b4),
				 &all4);
	has6 = pl2_sprint_domain(tb[TCA_PL2_DOMAIN6], AF_INET6, b6, sizeof(b6),
				 &all6);
	if (has4)
		print_string(PRINT_JSON, "domain4", NULL, b4);
	if (has6)
		print_string(PRINT_JSON, "domain6", NULL, b6);
	if (has4 && has6 && all4 && all6) {
		print_string(PRINT_FP, NULL, "domain %s ", "all");
		return;
	}
	if (has4)
		print_string(PRINT_FP, NULL, "domain %s ", b4);
	if (has6)
		print_string(PRINT_FP, NULL, "domain %s ", b6);
}

static int pl2_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_PL2_MAX + 1];
	__u64 v;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_PL2_MAX, opt);
	print_u32_opt(tb, TCA_PL2_LIMIT, "limit", "limit %up ");
	print_u32_opt(tb, TCA_PL2_FLOWS, "flows", "flows %u ");
	print_u32_opt(tb, TCA_PL2_K, "k", "k %u ");
	print_u32_opt(tb, TCA_PL2_OUTSTANDING, "outstanding", "outstanding %u ");
	if (attr_u64(tb, TCA_PL2_RATE, &v)) {
		if (v) {
			tc_print_rate(PRINT_ANY, "rate", "rate %s ", v);
		} else {
			print_u64(PRINT_JSON, "rate", NULL, 0);
			print_string(PRINT_FP, NULL, "rate %s ", "auto");
		}
	}
	print_time_opt(tb, TCA_PL2_SLOT_NS, "slot", "slot_ns", 1, true);
	print_time_opt(tb, TCA_PL2_RSV_TIMEOUT_US, "rsv_timeout",
		       "rsv_timeout_us", 1000, false);
	if (attr_u64(tb, TCA_PL2_UNSOL, &v)) {
		print_uint(PRINT_JSON, "unsol", NULL, v);
		if (v)
			print_uint(PRINT_FP, NULL, "unsol %u ", v);
		else
			print_string(PRINT_FP, NULL, "unsol %s ", "off");
	}
	print_u32_opt(tb, TCA_PL2_SHOAL_PORT, "shoal_port", "shoal_port %u ");
	print_domains(tb);
	return 0;
}

/* ---- printing the extended statistics ---- */

#define XS(f, k)	PU_XS(struct tc_pl2_xstats, f, k)
#define XS_HAS(len, f) xs_has(len, offsetof(struct tc_pl2_xstats, f), \
			      sizeof(((struct tc_pl2_xstats *)0)->f))

/*
 * One text line per group; JSON keys are the struct member names, but for
 * wait_avg_us and rate_in_use.
 */
static const struct xs_field pl2_xs_bursts[] = {
	XS(bursts, XS_U64), XS(burst_pkts, XS_U64), XS(rsv, XS_U64),
	XS(grt, XS_U64), XS(grt_stale, XS_U64),
};

/* after waits: wait_avg and wait_sum (wait_ns) */
static const struct xs_field pl2_xs_waits = XS(waits, XS_U64);
static const struct xs_field pl2_xs_sent[] = {
	XS(unsol, XS_U64), XS(timeouts, XS_U64), XS(rsv_nomem, XS_U64),
};

static const struct xs_field pl2_xs_rest[] = {
	XS(passed, XS_U64), XS(drop_limit, XS_U64), XS(drop_flows, XS_U64),
	XS_LINE,
	XS(flows, XS_U32), XS(waiting, XS_U32),
};

/*
 * " waits N wait_avg 12.3us wait_sum 4.5ms unsol N timeouts N rsv_nomem N";
 * JSON: waits, wait_avg_us (float), wait_ns (the sum), then the rest.
 */
static void xs_print_waits(const struct tc_pl2_xstats *st, size_t len)
{
	char b[SPRINT_BSIZE];
	size_t i;

	print_nl();
	print_string(PRINT_FP, NULL, " ", NULL);
	xs_print_field(&pl2_xs_waits, st);
	if (XS_HAS(len, wait_ns)) {
		print_float(PRINT_JSON, "wait_avg_us", NULL, st->waits ?
			    (double)st->wait_ns / st->waits / 1000 : 0);
		print_string(PRINT_FP, NULL, "wait_avg %s ",
			     sprint_time64(st->waits ?
					   st->wait_ns / st->waits : 0, b));
		print_u64(PRINT_JSON, "wait_ns", NULL, st->wait_ns);
		print_string(PRINT_FP, NULL, "wait_sum %s ",
			     sprint_time64(st->wait_ns, b));
	}
	for (i = 0; i < ARRAY_SIZE(pl2_xs_sent); i++)
		if (xs_has(len, pl2_xs_sent[i].off, pl2_xs_sent[i].size))
			xs_print_field(&pl2_xs_sent[i], st);
}

/*
 * "... rate 50Mbit slot 242us": what the qdisc runs with (auto resolved).
 * JSON: rate_in_use, not "rate", which tc gives a rate estimator's bps at
 * the same level.
 */
static void xs_print_in_use(const struct tc_pl2_xstats *st, size_t len)
{
	char b[SPRINT_BSIZE];

	if (XS_HAS(len, rate))
		tc_print_rate(PRINT_ANY, "rate_in_use", "rate %s ", st->rate);
	if (XS_HAS(len, slot_ns)) {
		print_u64(PRINT_JSON, "slot_ns", NULL, st->slot_ns);
		print_string(PRINT_FP, NULL, "slot %s ",
			     sprint_time64(st->slot_ns, b));
	}
}

static int pl2_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_pl2_xstats st = {};
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));
	xs_print_fields(pl2_xs_bursts, ARRAY_SIZE(pl2_xs_bursts), &st, len);
	if (XS_HAS(len, waits))
		xs_print_waits(&st, len);
	if (XS_HAS(len, passed)) {
		print_nl();
		xs_print_fields(pl2_xs_rest, ARRAY_SIZE(pl2_xs_rest), &st, len);
	}
	xs_print_in_use(&st, len);
	return 0;
}

struct qdisc_util pl2_qdisc_util = {
	.id		= "pl2",
	.parse_qopt	= pl2_parse_opt,
	.print_qopt	= pl2_print_opt,
	.print_xstats	= pl2_print_xstats,
};
