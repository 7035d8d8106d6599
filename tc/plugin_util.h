/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Shoal tc plugins (q_trim.c, q_afq.c, q_calq.c, q_sqr.c,
 * q_pl2.c) share: the option table and its parsing loop, the value parsers
 * (numbers, packet counts, sizes, times, keywords, rates), the one form of
 * their error messages, the attributes sent, reading attributes of any
 * integer width back, and the xstats field table.
 *
 * Each plugin is built as one .so from one .c file, so everything here is
 * static inline (no unused-function warnings, no shared object to link).
 * What differs between the plugins (their kind in error messages, their
 * usage text, their value-less words) is in struct pu_desc.
 *
 * Every refusal is one line on stderr, then the plugin's usage:
 *	Error: trim: invalid limit "abc": expected an integer 1..4294967295
 *	Error: trim: option "limit" needs a value
 *	Error: trim: unknown option "color"
 * and tc exits with status 1, before anything is sent to the kernel.
 */
#ifndef _SHOAL_TC_PLUGIN_UTIL_H
#define _SHOAL_TC_PLUGIN_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "tc_plugin.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exported by /usr/sbin/tc of iproute2 6.1 (nm -D), not in tc_plugin.h */
int print_color_s64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, int64_t value);

/* ---- option values, collected before anything is sent ---- */

/* Room for every TCA_<KIND>_MAX (each plugin checks its own) */
#define PU_ATTR_MAX	31

struct pu_req;
struct pu_opt;

/* One plugin's parsing: what differs between them */
struct pu_desc {
	const char *kind;		/* "afq": starts every error message */
	const unsigned char *width;	/* bytes of each attribute, by type */
	int max;			/* TCA_<KIND>_MAX */
	const struct pu_opt *opts;	/* options that take a value */
	size_t nopts;
	void (*explain)(void);		/* the usage text, after every error */
	/* value-less words and "help": 1 taken, 0 not one, -1 error */
	int (*word)(struct pu_req *r, const char *word);
	/* attributes that are not numbers (structs), added after those of
	 * r->val in the same nest; NULL: none.  0, or -1 (no room)
	 */
	int (*put)(const struct pu_req *r, struct nlmsghdr *n);
};

struct pu_req {
	const struct pu_desc *d;
	const char *dev;
	bool set[PU_ATTR_MAX + 1];
	__u64 val[PU_ATTR_MAX + 1];
};

/* One option: its keyword, the attribute it sets and how to read it. */
struct pu_opt {
	const char *name;
	int type;
	int (*parse)(const struct pu_opt *o, const char *arg,
		     struct pu_req *r);
	const char * const *names;	/* keyword values, indexed by value */
	unsigned int nnames;
	__u64 min;			/* numbers, sizes, times: the least */
	__u64 max;			/* ... the most (0: what the attribute holds) */
	bool c_base;			/* numbers: also 0x hex (and 0 octal) */
	unsigned int unit_ns;		/* times: ns per unit sent (0: 1) */
};

static inline void req_set(struct pu_req *r, int type, __u64 v)
{
	r->set[type] = true;
	r->val[type] = v;
}

static inline __u64 attr_max(const struct pu_req *r, int type)
{
	unsigned int w = r->d->width[type];

	return w >= 8 ? ~0ULL : (1ULL << (8 * w)) - 1;
}

/* The most @o takes: its own bound if it has one, else what fits */
static inline __u64 opt_max(const struct pu_opt *o, const struct pu_req *r)
{
	__u64 max = attr_max(r, o->type);

	return o->max && o->max < max ? o->max : max;
}

static inline int bad(const struct pu_req *r, const char *opt,
		      const char *arg, const char *why)
{
	fprintf(stderr, "Error: %s: invalid %s \"%s\": %s\n", r->d->kind, opt,
		arg, why);
	r->d->explain();
	return -1;
}

/* ---- value parsers ---- */

/*
 * @digits as an unsigned integer from o->min to o->max or what the
 * attribute holds:
 * decimal, or with o->c_base also 0x hex and 0 octal.  It starts with a
 * digit (no sign, no blank) and has nothing after it.  An error quotes
 * @arg, the option's value as given.
 */
static inline int pu_num(const struct pu_opt *o, const char *digits,
			 const char *arg, struct pu_req *r)
{
	__u64 max = opt_max(o, r), v;
	char why[80];
	char *end;

	errno = 0;
	v = strtoull(digits, &end, o->c_base ? 0 : 10);
	if (digits[0] < '0' || digits[0] > '9' || *end || errno ||
	    v < o->min || v > max) {
		snprintf(why, sizeof(why), "expected an integer %llu..%llu%s",
			 (unsigned long long)o->min, (unsigned long long)max,
			 o->c_base ? " (decimal or 0x hex)" : "");
		return bad(r, o->name, arg, why);
	}
	req_set(r, o->type, v);
	return 0;
}

static inline int parse_num(const struct pu_opt *o, const char *arg,
			    struct pu_req *r)
{
	return pu_num(o, arg, arg, r);
}

/* A packet count, also as printed: "12" or "12p" */
static inline int parse_pkts(const struct pu_opt *o, const char *arg,
			     struct pu_req *r)
{
	size_t len = strlen(arg);
	char buf[24];

	if (len >= 2 && len < sizeof(buf) && arg[len - 1] == 'p' &&
	    arg[len - 2] >= '0' && arg[len - 2] <= '9') {
		memcpy(buf, arg, len - 1);
		buf[len - 1] = '\0';
		return pu_num(o, buf, arg, r);
	}
	return pu_num(o, arg, arg, r);
}

/* A size in bytes with tc's units (64, 9kb, 1mb), o->min and up */
static inline int parse_bytes(const struct pu_opt *o, const char *arg,
			      struct pu_req *r)
{
	__u64 max = opt_max(o, r);
	unsigned int v;
	char why[80];

	if (arg[0] == '-' || get_size(&v, arg) || v < o->min || v > max) {
		snprintf(why, sizeof(why),
			 "expected a size %llu..%llu bytes (units b, kb, mb)",
			 (unsigned long long)o->min, (unsigned long long)max);
		return bad(r, o->name, arg, why);
	}
	req_set(r, o->type, v);
	return 0;
}

/* @ns in the largest unit that shows it exactly: "0", "20ms", "12345ns" */
static inline char *pu_sprint_ns(__u64 ns, char *buf, size_t size)
{
	static const struct { const char *unit; __u64 ns; } units[] = {
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 },
	};
	size_t i;

	for (i = 0; ns && i < ARRAY_SIZE(units); i++) {
		if (ns % units[i].ns == 0) {
			snprintf(buf, size, "%llu%s",
				 (unsigned long long)(ns / units[i].ns),
				 units[i].unit);
			return buf;
		}
	}
	snprintf(buf, size, ns ? "%lluns" : "%llu", (unsigned long long)ns);
	return buf;
}

/*
 * A time: "10us", "1.5ms", "2s", "12345ns", or a plain number in the unit
 * of the attribute (o->unit_ns nanoseconds; 0 or 1: ns).  An attribute in
 * ns takes the nearest ns; one in a coarser unit takes whole units only.
 * With o->min or o->max the range (in units of the attribute) is checked
 * and named in the error.
 */
static inline int parse_time(const struct pu_opt *o, const char *arg,
			     struct pu_req *r)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1e3 }, { "usec", 1e3 },
		{ "ms", 1e6 }, { "msec", 1e6 }, { "s", 1e9 }, { "sec", 1e9 },
		{ "secs", 1e9 },
	};
	double unit = o->unit_ns > 1 ? o->unit_ns : 1, v, whole;
	__u64 max = opt_max(o, r);
	char why[160], range[56] = "", lo[24], hi[24];
	__u64 u = (__u64)unit;
	char *end;
	size_t i;

	/* a digit first (".5ms" too): strtod would also take signs, spaces, inf */
	if (!isdigit((unsigned char)arg[arg[0] == '.']))
		goto bad;
	v = strtod(arg, &end);
	if (*end) {
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcmp(end, units[i].unit))
				break;
		if (i == ARRAY_SIZE(units))
			goto bad;
		v = v * units[i].ns / unit;
	}
	/* 2^64 as a double: no u64 reaches it */
	if (!(v >= 0 && v < 18446744073709551616.0))
		goto bad;
	whole = (double)(__u64)(v + 0.5);
	if (unit > 1 && (v - whole > 1e-6 || whole - v > 1e-6))
		goto bad;
	if ((__u64)whole < o->min || (__u64)whole > max)
		goto bad;
	req_set(r, o->type, (__u64)whole);
	return 0;
bad:
	if (o->min || o->max)
		snprintf(range, sizeof(range), " %s..%s",
			 pu_sprint_ns(o->min * u, lo, sizeof(lo)),
			 pu_sprint_ns(max > ~0ULL / u ? ~0ULL : max * u, hi,
				      sizeof(hi)));
	snprintf(why, sizeof(why), unit > 1 ?
		 "expected a time%s in whole us like 30us, 1.5ms or 1s (plain numbers are us)" :
		 "expected a time%s like 10us, 1.5ms or 1s (plain numbers are ns)",
		 range);
	return bad(r, o->name, arg, why);
}

static inline int parse_keyword(const struct pu_opt *o, const char *arg,
				struct pu_req *r)
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
	len += snprintf(why, sizeof(why), "expected");
	for (i = 0; i < o->nnames && len < sizeof(why); i++) {
		if (o->names[i])
			len += snprintf(why + len, sizeof(why) - len, "%s %s",
					i ? " |" : "", o->names[i]);
	}
	return bad(r, o->name, arg, why);
}

/* "off" or "none" is 0; anything else is what @fn reads */
static inline int parse_or_off(const struct pu_opt *o, const char *arg,
			       struct pu_req *r,
			       int (*fn)(const struct pu_opt *, const char *,
					 struct pu_req *))
{
	if (!strcmp(arg, "off") || !strcmp(arg, "none")) {
		req_set(r, o->type, 0);
		return 0;
	}
	return fn(o, arg, r);
}

static inline int parse_num_or_off(const struct pu_opt *o, const char *arg,
				   struct pu_req *r)
{
	return parse_or_off(o, arg, r, parse_num);
}

static inline int parse_bytes_or_off(const struct pu_opt *o, const char *arg,
				     struct pu_req *r)
{
	return parse_or_off(o, arg, r, parse_bytes);
}

static inline int parse_rate(const struct pu_opt *o, const char *arg,
			     struct pu_req *r)
{
	__u64 rate;

	if (!strcmp(arg, "off") || !strcmp(arg, "none")) {
		req_set(r, o->type, 0);
		return 0;
	}
	if (strchr(arg, '%')) {
		/* tc explains what went wrong reading the link speed */
		if (!r->dev || get_percent_rate64(&rate, arg, r->dev))
			return bad(r, o->name, arg,
				   "no rate for this percentage of the link");
	} else if (arg[0] == '-' || get_rate64(&rate, arg)) {
		return bad(r, o->name, arg,
			   "expected a rate like 10mbit or 1gbit, or 0");
	}
	req_set(r, o->type, rate);
	return 0;
}

#define OPT(n, t, fn)	{ .name = n, .type = t, .parse = fn }
/* A number or size of at least @m; a number that may also be in 0x hex */
#define OPT_MIN(n, t, fn, m) { .name = n, .type = t, .parse = fn, .min = m }
/* A number, size or time from @lo to @hi */
#define OPT_RANGE(n, t, fn, lo, hi) { .name = n, .type = t, .parse = fn, \
				      .min = lo, .max = hi }
#define OPT_CNUM(n, t)	{ .name = n, .type = t, .parse = parse_num, \
			  .c_base = true }
/* A time whose attribute counts @u ns */
#define OPT_TIME(n, t, u) { .name = n, .type = t, .parse = parse_time, \
			    .unit_ns = u }
#define OPT_KW(n, t, kw) { .name = n, .type = t, .parse = parse_keyword, \
			   .names = kw, .nnames = ARRAY_SIZE(kw) }

/* ---- the command line to attributes ---- */

static inline const struct pu_opt *find_opt(const struct pu_desc *d,
					    const char *name)
{
	size_t i;

	for (i = 0; i < d->nopts; i++)
		if (!strcmp(name, d->opts[i].name))
			return &d->opts[i];
	return NULL;
}

/* Every word of the command line into @r; 0, or -1 after a message */
static inline int parse_args(struct pu_req *r, int argc, char **argv)
{
	const struct pu_desc *d = r->d;
	const struct pu_opt *o;
	int ret;

	for (; argc > 0; argc--, argv++) {
		ret = d->word(r, *argv);
		if (ret < 0)
			return -1;
		if (ret)
			continue;
		o = find_opt(d, *argv);
		if (!o) {
			fprintf(stderr, "Error: %s: unknown option \"%s\"\n",
				d->kind, *argv);
			d->explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr,
				"Error: %s: option \"%s\" needs a value\n",
				d->kind, o->name);
			d->explain();
			return -1;
		}
		argc--, argv++;
		if (o->parse(o, *argv, r))
			return -1;
	}
	return 0;
}

/* A MAC address kept in the low 48 bits of @v, first byte highest */
static inline int put_mac(struct nlmsghdr *n, int type, __u64 v)
{
	unsigned char mac[6];
	int i;

	for (i = 0; i < 6; i++)
		mac[i] = v >> (8 * (5 - i));
	return addattr_l(n, TC_PLUGIN_MSG_MAX, type, mac, sizeof(mac));
}

/*
 * The attributes given, each in its width (6: a MAC), then those of
 * d->put, in TCA_OPTIONS
 */
static inline int put_attrs(const struct pu_req *r, struct nlmsghdr *n)
{
	struct rtattr *nest;
	int type, err = 0;

	nest = addattr_nest(n, TC_PLUGIN_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	for (type = 0; type <= r->d->max && !err; type++) {
		if (!r->set[type])
			continue;
		switch (r->d->width[type]) {
		case 1:
			err = addattr8(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		case 2:
			err = addattr16(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		case 4:
			err = addattr32(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		case 6:
			err = put_mac(n, type, r->val[type]);
			break;
		default:
			err = addattr64(n, TC_PLUGIN_MSG_MAX, type, r->val[type]);
			break;
		}
	}
	if (!err && r->d->put)
		err = r->d->put(r, n);
	if (err)
		return -1;
	addattr_nest_end(n, nest);
	return 0;
}

/* ---- printing the options ---- */

/* Read an unsigned attribute of whatever width the kernel used. */
static inline bool attr_u64(struct rtattr *tb[], int type, __u64 *v)
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

static inline void print_keyword(struct rtattr *tb[], int type,
				 const char *key, const char * const *names,
				 unsigned int nnames)
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

/* ---- printing the extended statistics ---- */

enum xs_kind { XS_U64, XS_S64, XS_U32, XS_SIZE, XS_NL };

struct xs_field {
	const char *name;
	unsigned short off;
	unsigned char size;
	unsigned char kind;
};

#define PU_XS(type, f, k) { #f, offsetof(type, f), sizeof(((type *)0)->f), k }
#define XS_LINE	 { NULL, 0, 0, XS_NL }

static inline bool xs_has(size_t len, size_t off, size_t size)
{
	return off + size <= len;
}

static inline void xs_print_field(const struct xs_field *x, const void *st)
{
	__u64 v64;
	__u32 v32;

	print_string(PRINT_FP, NULL, "%s ", x->name);
	if (x->kind == XS_U64 || x->kind == XS_S64) {
		memcpy(&v64, (const char *)st + x->off, sizeof(v64));
		if (x->kind == XS_S64)
			print_color_s64(PRINT_ANY, COLOR_NONE, x->name,
					"%" PRId64 " ", (int64_t)v64);
		else
			print_u64(PRINT_ANY, x->name, "%" PRIu64 " ", v64);
		return;
	}
	memcpy(&v32, (const char *)st + x->off, sizeof(v32));
	if (x->kind == XS_SIZE)
		print_size(PRINT_ANY, x->name, "%s ", v32);
	else
		print_uint(PRINT_ANY, x->name, "%u ", v32);
}

/*
 * The fields of @st (@len bytes came from the kernel): one text line per
 * group; JSON keys are the struct member names.  Fields beyond @len (an
 * older module's shorter struct) are left out.
 */
static inline void xs_print_fields(const struct xs_field *fields, size_t n,
				   const void *st, size_t len)
{
	bool line_open = false;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct xs_field *x = &fields[i];

		if (x->kind == XS_NL) {
			if (line_open)
				print_nl();
			line_open = false;
			continue;
		}
		if (!xs_has(len, x->off, x->size))
			continue;
		if (!line_open)
			print_string(PRINT_FP, NULL, " ", NULL);
		line_open = true;
		xs_print_field(x, st);
	}
}

#endif /* _SHOAL_TC_PLUGIN_UTIL_H */
