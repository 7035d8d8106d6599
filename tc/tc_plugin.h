/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tc plugin ABI of iproute2 6.1 (Debian bookworm), declared by hand.
 *
 * iproute2 ships no development headers, so a q_<kind>.so built outside its
 * source tree must declare what it uses itself.  tc dlopen()s
 * $TC_LIB_DIR/q_<kind>.so and dlsym()s "<kind>_qdisc_util", a struct
 * qdisc_util; the plugin calls back into helpers exported by /usr/sbin/tc.
 *
 * Everything below must match iproute2 6.1 exactly:
 *  - struct qdisc_util: field order of tc/tc_util.h (8 pointers, 64 bytes;
 *    checked against the size of fq_codel_qdisc_util in /usr/sbin/tc);
 *  - enum output_type and enum color_attr values (include/json_print.h,
 *    include/color.h);
 *  - the prototypes of the helpers, every one of which is a dynamic symbol
 *    of /usr/sbin/tc (nm -D /usr/sbin/tc).
 * Declare only what a plugin needs; add a symbol here only after checking
 * that tc exports it.
 */
#ifndef _SHOAL_TC_PLUGIN_H
#define _SHOAL_TC_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* ---- tc/tc_util.h ---- */

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* Room tc's request buffer leaves for options (what in-tree plugins pass). */
#define TC_PLUGIN_MSG_MAX	1024

int get_percent_rate64(__u64 *rate, const char *str, const char *dev);

/* ---- include/utils.h ---- */

#define SPRINT_BSIZE	64

int get_u8(__u8 *val, const char *arg, int base);
int get_u16(__u16 *val, const char *arg, int base);
int get_u32(__u32 *val, const char *arg, int base);
int get_rate64(__u64 *rate, const char *str);
int get_size(unsigned int *size, const char *str);
/* Returns false when @prefix is a prefix of @string (sic). */
bool matches(const char *prefix, const char *string);
char *sprint_time64(__s64 time, char *buf);

/* ---- include/libnetlink.h ---- */

int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data);
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);

#define parse_rtattr_nested(tb, max, rta)				\
	parse_rtattr_flags((tb), (max), RTA_DATA(rta), RTA_PAYLOAD(rta),	\
			   NLA_F_NESTED)

/* ---- include/color.h, include/json_print.h ---- */

enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

bool is_json_context(void);
void open_json_object(const char *str);
void close_json_object(void);
void open_json_array(enum output_type type, const char *delim);
void close_json_array(enum output_type type, const char *delim);
void print_nl(void);

int print_color_bool(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, bool value);
int print_color_null(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, const char *value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, uint64_t value);
int print_color_size(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, __u32 value);
int print_color_float(enum output_type t, enum color_attr color,
		      const char *key, const char *fmt, double value);
char *sprint_size(__u32 sz, char *buf);

/* tc_util.h: prints bytes/s as "<n>[KMGT]bit" (text) or a number (JSON) */
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate);

static inline int print_bool(enum output_type t, const char *key,
			     const char *fmt, bool value)
{
	return print_color_bool(t, COLOR_NONE, key, fmt, value);
}

static inline int print_null(enum output_type t, const char *key,
			     const char *fmt, const char *value)
{
	return print_color_null(t, COLOR_NONE, key, fmt, value);
}

static inline int print_string(enum output_type t, const char *key,
			       const char *fmt, const char *value)
{
	return print_color_string(t, COLOR_NONE, key, fmt, value);
}

static inline int print_uint(enum output_type t, const char *key,
			     const char *fmt, unsigned int value)
{
	return print_color_uint(t, COLOR_NONE, key, fmt, value);
}

static inline int print_u64(enum output_type t, const char *key,
			    const char *fmt, uint64_t value)
{
	return print_color_u64(t, COLOR_NONE, key, fmt, value);
}

static inline int print_size(enum output_type t, const char *key,
			     const char *fmt, __u32 value)
{
	return print_color_size(t, COLOR_NONE, key, fmt, value);
}

static inline int print_float(enum output_type t, const char *key,
			      const char *fmt, double value)
{
	return print_color_float(t, COLOR_NONE, key, fmt, value);
}

#endif /* _SHOAL_TC_PLUGIN_H */
