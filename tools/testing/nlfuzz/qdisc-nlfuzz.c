// SPDX-License-Identifier: GPL-2.0
/*
 * qdisc-nlfuzz: random and edge-case attribute sets sent raw (past the tc
 * plugins) to the Shoal qdiscs' init and change, while traffic crosses the
 * device.  For every set the kernel refuses, it checks that the refusal
 * carries an extended-ACK message and that the root qdisc's configuration
 * (its kind, handle and dumped options) is the one from before.
 *
 * Sets are drawn from the uapi attribute tables (qdisc-attrs.h): mostly the
 * right width with edge values (0, 1, powers of two, all ones, ...), some
 * of the wrong width, unknown types, duplicates, no options at all, and raw
 * bytes in place of attributes.  Half start from a set the kernel took
 * before with a few changes, so that the qdiscs' cross-field checks are
 * reached and not only the netlink policy.  Each set goes one of three
 * ways: a change of the running qdisc (RTM_NEWQDISC, no flags), a replace
 * of it by the same kind (NLM_F_CREATE | NLM_F_REPLACE, the core calls
 * change), or an init: the qdisc created in place of a pfifo.
 *
 * Usage: qdisc-nlfuzz -d DEV [-n SETS] [-s SEED] [-k KIND[,KIND]] [-t ADDR] [-v]
 * SETS per kind (default 1000); SEED (default from the clock) is printed;
 * -t ADDR sends UDP (some of it with a Shoal header) to ADDR through DEV
 * meanwhile.  Output is TAP, one result per kind; exit status 0 when all
 * pass, 1 when one fails, 2 on a usage or set-up error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qdisc-attrs.h"
#include "nlfuzz-traffic.h"

#define MAX_ATTRS	10
#define MAX_VAL		24	/* the widest attribute: a struct tc_pl2_prefix, 20 */
#define POOL		64
#define MAX_MSGS	256
#define MAX_REPORTS	8
#define OPTS_MAX	1024
#define BUF		65536

#define HANDLE_OURS	0x00010000	/* 1: */
#define HANDLE_FIFO	0x00020000	/* 2: */

enum op { OP_CHANGE, OP_REPLACE, OP_INIT, OPS };
static const char *const op_name[OPS] = { "change", "replace", "init" };

struct attr {
	unsigned short type;
	unsigned short len;
	unsigned char val[MAX_VAL];
};
_Static_assert(sizeof(struct tc_pl2_prefix) <= MAX_VAL, "MAX_VAL below an attribute's width");

/* one attribute set: attributes, or raw bytes in place of them */
struct aset {
	int n;
	struct attr a[MAX_ATTRS];
	bool no_options;
	bool nested_flag;
	int raw_len;			/* > 0: raw bytes in TCA_OPTIONS */
	unsigned char raw[64];
};

/* what GET says of the root qdisc */
struct snap {
	int err;
	unsigned int handle;
	char kind[IFNAMSIZ];
	int optlen;
	unsigned char opts[OPTS_MAX];
	unsigned int packets;
};

struct kind_stats {
	long sets[OPS], taken[OPS], refused[OPS];
	long no_msg, changed, other;
	int msgs;
	unsigned int packets;
};

static uint64_t rng_state;
static int nl_fd;
static unsigned int nl_seq;
static int ifindex;
static char msgs[MAX_MSGS][128];
static int nmsgs;
static int reports;
static bool verbose;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static void die(const char *what)
{
	fprintf(stderr, "qdisc-nlfuzz: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- netlink ---- */

static void put_attr(char *buf, int *off, unsigned short type, const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)(buf + *off);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(buf + *off + NLA_HDRLEN, data, len);
	memset(buf + *off + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	*off += NLA_ALIGN(NLA_HDRLEN + len);
}

/* a request for the root qdisc of the device; the caller adds attributes */
static int start_req(char *buf, int type, int flags, unsigned int handle)
{
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct tcmsg *t = NLMSG_DATA(n);

	memset(buf, 0, NLMSG_SPACE(sizeof(*t)));
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = ++nl_seq;
	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = ifindex;
	t->tcm_parent = TC_H_ROOT;
	t->tcm_handle = handle;
	return NLMSG_SPACE(sizeof(*t));
}

static void send_req(char *buf, int len)
{
	((struct nlmsghdr *)buf)->nlmsg_len = len;
	if (send(nl_fd, buf, len, 0) != len)
		die("netlink send");
}

/* the answer to the last request: 0 or -errno, with the extack message */
static int recv_ack(char *buf, char *msg, int msglen, struct snap *snap)
{
	for (;;) {
		int len = recv(nl_fd, buf, BUF, 0);
		struct nlmsghdr *n;

		if (len < 0)
			die("netlink recv");
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
			struct nlmsgerr *e = NLMSG_DATA(n);
			struct nlattr *a;
			int off, end;

			if (n->nlmsg_seq != nl_seq)
				continue;
			if (n->nlmsg_type == RTM_NEWQDISC && snap) {
				struct tcmsg *t = NLMSG_DATA(n);

				snap->handle = t->tcm_handle;
				off = NLMSG_SPACE(sizeof(*t));
				for (; off + NLA_HDRLEN <= (int)n->nlmsg_len; off += NLA_ALIGN(a->nla_len)) {
					a = (struct nlattr *)((char *)n + off);
					if (a->nla_len < NLA_HDRLEN)
						break;
					if (a->nla_type == TCA_KIND)
						snprintf(snap->kind, sizeof(snap->kind), "%s",
							 (char *)a + NLA_HDRLEN);
					if (a->nla_type == TCA_OPTIONS &&
					    a->nla_len - NLA_HDRLEN <= OPTS_MAX) {
						snap->optlen = a->nla_len - NLA_HDRLEN;
						memcpy(snap->opts, (char *)a + NLA_HDRLEN, snap->optlen);
					}
					if (a->nla_type == TCA_STATS &&
					    a->nla_len >= NLA_HDRLEN + sizeof(struct tc_stats))
						snap->packets = ((struct tc_stats *)((char *)a + NLA_HDRLEN))->packets;
				}
				return 0;
			}
			if (n->nlmsg_type != NLMSG_ERROR)
				continue;
			if (msg)
				msg[0] = '\0';
			if (!(n->nlmsg_flags & NLM_F_ACK_TLVS) || !msg)
				return e->error;
			off = NLMSG_HDRLEN + sizeof(*e);
			if (!(n->nlmsg_flags & NLM_F_CAPPED))
				off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
			end = n->nlmsg_len;
			for (; off + NLA_HDRLEN <= end; off += NLA_ALIGN(a->nla_len)) {
				a = (struct nlattr *)((char *)n + off);
				if (a->nla_len < NLA_HDRLEN)
					break;
				if (a->nla_type == NLMSGERR_ATTR_MSG)
					snprintf(msg, msglen, "%s", (char *)a + NLA_HDRLEN);
			}
			return e->error;
		}
	}
}

/* RTM_GETQDISC answers only with NLM_F_ECHO (tc_get_qdisc notifies) */
static void get_root(char *buf, struct snap *s)
{
	int len = start_req(buf, RTM_GETQDISC, NLM_F_ECHO, 0);

	memset(s, 0, sizeof(*s));
	send_req(buf, len);
	s->err = recv_ack(buf, NULL, 0, s);
}

static bool same_config(const struct snap *a, const struct snap *b)
{
	return a->err == b->err && a->handle == b->handle &&
	       !strcmp(a->kind, b->kind) && a->optlen == b->optlen &&
	       !memcmp(a->opts, b->opts, a->optlen);
}

/* replace the root by a pfifo (2:), so that the next create is an init */
static void root_fifo(char *buf)
{
	struct tc_fifo_qopt q = { .limit = 1000 };
	int len = start_req(buf, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK,
			    HANDLE_FIFO);
	char msg[128];

	put_attr(buf, &len, TCA_KIND, "pfifo", 6);
	put_attr(buf, &len, TCA_OPTIONS, &q, sizeof(q));
	send_req(buf, len);
	if (recv_ack(buf, msg, sizeof(msg), NULL)) {
		fprintf(stderr, "qdisc-nlfuzz: cannot put a pfifo at the root: %s\n", msg);
		exit(2);
	}
}

/* send one set; 0 or -errno, msg the extack message */
static int send_set(char *buf, const char *kind, enum op op, const struct aset *s,
		    char *msg, int msglen)
{
	int flags = NLM_F_ACK | (op == OP_CHANGE ? 0 : NLM_F_CREATE | NLM_F_REPLACE);
	int len = start_req(buf, RTM_NEWQDISC, flags, HANDLE_OURS);
	int i;

	put_attr(buf, &len, TCA_KIND, kind, strlen(kind) + 1);
	if (s->raw_len) {
		put_attr(buf, &len, TCA_OPTIONS, s->raw, s->raw_len);
	} else if (!s->no_options) {
		struct nlattr *nest = (struct nlattr *)(buf + len);
		int start = len;

		put_attr(buf, &len, TCA_OPTIONS, NULL, 0);
		for (i = 0; i < s->n; i++)
			put_attr(buf, &len, s->a[i].type, s->a[i].val, s->a[i].len);
		nest->nla_len = len - start;
		if (s->nested_flag)
			nest->nla_type |= NLA_F_NESTED;
	}
	send_req(buf, len);
	return recv_ack(buf, msg, msglen, NULL);
}

/* ---- attribute sets ---- */

static uint64_t edge_value(const struct qdisc_kind *k, int type)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 12, 63, 64, 100, 255, 256, 1000, 1500,
		4096, 4797, 65535, 65536, 1U << 20, 1U << 30, 0x7fffffff,
		0xfffffffe, 0xffffffff, 1ULL << 32, 1000000000ULL,
		12500000000ULL, ~0ULL,
	};

	if (type == k->ifindex_attr && below(2))
		return below(2) ? (uint64_t)ifindex : 1 + below(4);
	switch (below(4)) {
	case 0:
		return edges[below(sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return 1ULL << below(64);
	case 2:
		return below(65);
	default:
		return rnd();
	}
}

static void random_attr(const struct qdisc_kind *k, struct attr *a)
{
	static const unsigned short odd_len[] = { 0, 1, 2, 3, 5, 6, 7, 9, 16 };
	uint64_t v;
	int width;

	/* mostly known types, some UNSPEC, PAD, and beyond the last */
	a->type = below(10) ? k->pad + 1 + below(k->max - k->pad) : below(k->max + 3);
	width = a->type <= k->max ? k->width[a->type] : 0;
	a->len = width && below(10) ? width : odd_len[below(sizeof(odd_len) / sizeof(odd_len[0]))];
	v = edge_value(k, a->type);
	memset(a->val, 0, sizeof(a->val));
	memcpy(a->val, &v, a->len < 8 ? a->len : 8);	/* host order, as tc sends */
	if (a->len > 8)
		for (width = 8; width < a->len; width++)
			a->val[width] = rnd();
}

static void random_set(const struct qdisc_kind *k, struct aset *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->nested_flag = below(10);	/* the qdiscs want it: 1 in 10 without */
	switch (below(40)) {
	case 0:
		s->no_options = true;
		return;
	case 1:
		s->raw_len = 1 + below(sizeof(s->raw));
		for (i = 0; i < s->raw_len; i++)
			s->raw[i] = rnd();
		return;
	}
	s->n = below(5) + (below(4) ? 0 : below(MAX_ATTRS - 4));
	for (i = 0; i < s->n; i++)
		random_attr(k, &s->a[i]);
}

/* a set the kernel took, with a few changes: reaches the cross-field checks */
static void mutate_set(const struct qdisc_kind *k, struct aset *s)
{
	int changes = 1 + below(3);

	s->no_options = false;
	s->raw_len = 0;
	while (changes--) {
		int what = below(4);

		if (what == 0 && s->n < MAX_ATTRS) {
			random_attr(k, &s->a[s->n++]);
		} else if (what == 1 && s->n) {
			int gone = below(s->n);

			s->a[gone] = s->a[--s->n];
		} else if (what == 2 && s->n && s->n < MAX_ATTRS) {
			s->a[s->n] = s->a[below(s->n)];	/* a duplicate */
			s->n++;
		} else if (s->n) {
			struct attr *a = &s->a[below(s->n)];
			uint64_t v = edge_value(k, a->type);

			memcpy(a->val, &v, a->len < 8 ? a->len : 8);
		}
	}
}

static void print_set(const struct aset *s)
{
	int i, j;

	if (s->no_options) {
		printf(" (no options)");
	} else if (s->raw_len) {
		printf(" raw:");
		for (i = 0; i < s->raw_len; i++)
			printf("%02x", s->raw[i]);
	}
	for (i = 0; i < s->n; i++) {
		printf(" %u:", s->a[i].type);
		for (j = 0; j < s->a[i].len; j++)
			printf("%02x", s->a[i].val[j]);
		if (!s->a[i].len)
			printf("-");
	}
	printf("\n");
}

static int remember_msg(const char *msg)
{
	int i;

	for (i = 0; i < nmsgs; i++)
		if (!strcmp(msgs[i], msg))
			return 0;
	if (nmsgs < MAX_MSGS)
		snprintf(msgs[nmsgs++], sizeof(msgs[0]), "%s", msg);
	return 1;
}

/* ---- one kind ---- */

static void fuzz_kind(const struct qdisc_kind *k, long sets, struct kind_stats *st, char *buf)
{
	static struct aset pool[POOL];
	int npool = 1, next = 1;
	long i;

	memset(&pool[0], 0, sizeof(pool[0]));	/* no attributes: the defaults */
	pool[0].nested_flag = true;
	for (i = 0; i < sets; i++) {
		enum op op = below(10) < 6 ? OP_CHANGE : below(2) ? OP_REPLACE : OP_INIT;
		struct snap before, after;
		struct aset s;
		char msg[128];
		int err;

		get_root(buf, &before);
		if (op == OP_INIT) {
			if (strcmp(before.kind, "pfifo")) {
				root_fifo(buf);
				get_root(buf, &before);
			}
		} else if (strcmp(before.kind, k->name)) {
			/*
			 * The root must be ours: put a set taken before there,
			 * in place of a pfifo (a replace with our handle would
			 * be a change of the other kind).
			 */
			root_fifo(buf);
			if (send_set(buf, k->name, OP_REPLACE, &pool[below(npool)], msg, sizeof(msg)) &&
			    send_set(buf, k->name, OP_REPLACE, &pool[0], msg, sizeof(msg))) {
				printf("# %s: the defaults refused at init: %s\n", k->name, msg);
				st->other++;
				return;
			}
			get_root(buf, &before);
		}
		if (below(2)) {
			s = pool[below(npool)];
			mutate_set(k, &s);
		} else {
			random_set(k, &s);
		}
		st->sets[op]++;
		if (verbose) {
			struct timespec ts;

			clock_gettime(CLOCK_BOOTTIME, &ts);
			printf("# %ld.%03ld %s set %ld (%s):", (long)ts.tv_sec,
			       ts.tv_nsec / 1000000, k->name, i, op_name[op]);
			print_set(&s);
		}
		err = send_set(buf, k->name, op, &s, msg, sizeof(msg));
		if (!err) {
			st->taken[op]++;
			pool[next] = s;
			next = next % (POOL - 1) + 1;	/* pool[0] stays the defaults */
			if (npool < POOL)
				npool++;
			get_root(buf, &after);
			if (after.packets > st->packets)
				st->packets = after.packets;
			continue;
		}
		st->refused[op]++;
		get_root(buf, &after);
		if (after.packets > st->packets)
			st->packets = after.packets;
		st->msgs += remember_msg(msg);
		if (!msg[0] || !same_config(&before, &after)) {
			if (!msg[0])
				st->no_msg++;
			else
				st->changed++;
			if (reports++ < MAX_REPORTS) {
				printf("# %s set %ld (%s): %s, %s;", k->name, i, op_name[op],
				       strerror(-err), msg[0] ? "configuration changed" : "no message");
				print_set(&s);
				if (msg[0])
					printf("#   before %s %x, %d option bytes; after %s %x, %d\n",
					       before.kind, before.handle, before.optlen,
					       after.kind, after.handle, after.optlen);
			}
		}
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: qdisc-nlfuzz -d DEV [-n SETS] [-s SEED] [-k KIND[,KIND]] [-t ADDR] [-v]\n"
		"  send SETS random attribute sets (default 1000) to each Shoal qdisc's\n"
		"  change and init on DEV; -t ADDR: UDP traffic to ADDR meanwhile;\n"
		"  -v: each set before it is sent, with the time since boot\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *kinds = "trim,afq,calq,sqr,pl2", *target = NULL;
	uint64_t seed = (uint64_t)time(NULL) % 100000;
	int one = 1, failed = 0, tests = 0, c, i;
	static char buf[BUF];
	pid_t traffic = 0;
	long sets = 1000;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a killed run keeps its lines */
	while ((c = getopt(argc, argv, "d:n:s:k:t:v")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': sets = strtol(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'k': kinds = optarg; break;
		case 't': target = optarg; break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (!dev || sets < 1 || optind != argc)
		usage();
	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	for (i = 0; i < QDISC_KINDS; i++) {
		int gap = table_gap(&qdisc_kinds[i]);

		if (gap) {
			fprintf(stderr, "qdisc-nlfuzz: %s: attribute %d has no width in qdisc-attrs.h\n",
				qdisc_kinds[i].name, gap);
			return 2;
		}
	}
	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0 || setsockopt(nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)))
		die("netlink socket");
	printf("# qdisc-nlfuzz: seed %llu (again: -s %llu), %ld sets a kind on %s\n",
	       (unsigned long long)seed, (unsigned long long)seed, sets, dev);
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (target)
		traffic = traffic_start(target, seed);

	printf("TAP version 13\n");
	for (i = 0; i < QDISC_KINDS; i++) {
		const struct qdisc_kind *k = &qdisc_kinds[i];
		struct kind_stats st = { 0 };
		bool reached = true;
		int o;

		if (!strstr(kinds, k->name))
			continue;
		tests++;
		nmsgs = 0;
		fuzz_kind(k, sets, &st, buf);
		printf("# %s:", k->name);
		for (o = 0; o < OPS; o++) {
			printf(" %s %ld (%ld taken, %ld refused)", op_name[o], st.sets[o],
			       st.taken[o], st.refused[o]);
			/* both ways of every operation reached */
			if (!st.taken[o] || !st.refused[o])
				reached = false;
		}
		printf("; %d distinct refusal messages; %u packets through one instance at most\n",
		       st.msgs, st.packets);
		for (o = 0; o < nmsgs && o < 12; o++)
			printf("#   \"%s\"\n", msgs[o]);
		if (st.no_msg || st.changed || st.other || !reached || st.msgs < 3 ||
		    (target && !st.packets)) {
			failed++;
			printf("not ok %d - %s: %ld refusals without a message, %ld that changed the configuration%s%s%s\n",
			       tests, k->name, st.no_msg, st.changed,
			       st.other ? ", could not start" : "",
			       reached && st.msgs >= 3 ? "" : ", some paths not reached (see above)",
			       target && !st.packets ? ", no traffic went through" : "");
		} else {
			printf("ok %d - %s: %ld sets, every refusal with a message and the configuration kept\n",
			       tests, k->name, sets);
		}
	}
	printf("1..%d\n", tests);
	if (traffic) {
		kill(traffic, SIGTERM);
		waitpid(traffic, NULL, 0);
	}
	root_fifo(buf);
	return failed ? 1 : 0;
}
