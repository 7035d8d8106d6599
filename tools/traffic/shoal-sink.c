// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-sink - receive Shoal DATA packets and validate every one.
 *
 * Packets are captured on --dev with an AF_PACKET SOCK_DGRAM socket, so
 * the sink sees each packet as it reached the interface (trimmed or not,
 * checksum right or wrong) before the UDP stack judges it.  A UDP socket
 * bound to the port is drained alongside, so the stack answers with no
 * ICMP port unreachable; its count is a second opinion on the checksums.
 *
 * The one-way delay uses the type word shoal-blast fills with its
 * CLOCK_MONOTONIC send time in microseconds; the arrival time is the
 * kernel's receive timestamp mapped onto CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sock_diag.h>

#include "json_writer.h"
#include "pktcheck.h"
#include "sink-timing.h"

#define SOCKBUF		(64 << 20)
#define MAX_SENDERS	4096

enum kind { K_WHOLE, K_TRIMMED, K_UNMARKED };

struct opts {
	int family;		/* 0 = both */
	const char *dev;
	uint16_t port;
	uint64_t expect;
	unsigned int idle_ms;
	unsigned int timeout_s;
	const char *json;
	const char *ready;
	bool pattern;
	bool slack;		/* the deadline field is a slack, not absolute */
	uint64_t order_tol_ns;	/* deadline order: tolerated inversion */
};

struct sender {
	uint32_t id;
	uint64_t whole, trimmed, unmarked, dup;
};

struct arrival {
	uint32_t sender;	/* index into senders[] */
	uint32_t seq;
	uint8_t kind;
};

struct delays {
	uint32_t *v;
	size_t n, cap;
};

/* Open-addressing set of msg_ids seen; grows at half load. */
struct idset {
	uint64_t *key;
	uint8_t *used;
	size_t cap, n;
};

struct sink {
	uint64_t total, whole, trimmed, unmarked, malformed, dup, distinct;
	uint64_t reasons[__PKC_R_MAX];
	uint64_t csum_ok, csum_partial, csum_zero;
	uint64_t fragments, other, bounced_flag, truncated;
	uint64_t udp_rx;
	struct sender senders[MAX_SENDERS];
	unsigned int nsenders;
	uint64_t sender_overflow;
	struct arrival *arr;
	struct timed_arrival *tarr;	/* parallel to arr */
	size_t narr, caparr;
	struct delays dwhole, dtrim;
	struct idset ids;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Insert key; returns true if it was already there. */
static bool idset_add(struct idset *s, uint64_t key)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct idset t = { .cap = s->cap ? 2 * s->cap : 4096 };
		size_t j;

		t.key = calloc(t.cap, sizeof(*t.key));
		t.used = calloc(t.cap, 1);
		if (!t.key || !t.used) {
			perror("calloc");
			exit(2);
		}
		for (j = 0; j < s->cap; j++)
			if (s->used[j])
				idset_add(&t, s->key[j]);
		free(s->key);
		free(s->used);
		*s = t;
	}
	for (i = mix64(key) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (s->key[i] == key)
			return true;
	s->used[i] = 1;
	s->key[i] = key;
	s->n++;
	return false;
}

static void delay_add(struct delays *d, uint32_t v)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 4096;
		d->v = xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	d->v[d->n++] = v;
}

static struct sender *sender_get(struct sink *s, uint32_t id, uint32_t *idx)
{
	static unsigned int last;
	unsigned int i;

	if (last < s->nsenders && s->senders[last].id == id)
		goto found;
	for (last = 0; last < s->nsenders; last++)
		if (s->senders[last].id == id)
			goto found;
	if (s->nsenders == MAX_SENDERS)
		return NULL;
	i = s->nsenders++;
	memset(&s->senders[i], 0, sizeof(s->senders[i]));
	s->senders[i].id = id;
	last = i;
found:
	*idx = last;
	return &s->senders[last];
}

static void account(struct sink *s, const struct opts *o,
		    const struct pkc_result *r, int v, bool partial, uint64_t t_ns)
{
	uint64_t t_us = t_ns / 1000;
	struct sender *snd;
	uint32_t idx, delay;
	enum kind k;
	bool dup;

	s->total++;
	if (v == PKC_MALFORMED) {
		s->malformed++;
		s->reasons[r->reason]++;
		return;
	}
	if (partial)
		s->csum_partial++;
	else if (r->csum == PKC_CSUM_ZERO)
		s->csum_zero++;
	else
		s->csum_ok++;
	if (r->flags & SHOAL_F_BOUNCED)
		s->bounced_flag++;

	k = v == PKC_WHOLE ? K_WHOLE : v == PKC_TRIMMED ? K_TRIMMED : K_UNMARKED;
	if (k == K_WHOLE)
		s->whole++;
	else if (k == K_TRIMMED)
		s->trimmed++;
	else
		s->unmarked++;

	dup = idset_add(&s->ids, r->msg_id);
	snd = sender_get(s, (uint32_t)(r->msg_id >> 32), &idx);
	if (!snd)
		s->sender_overflow++;
	if (dup) {
		s->dup++;
		if (snd)
			snd->dup++;
		return;
	}
	s->distinct++;
	/* sender and receiver share CLOCK_MONOTONIC; the word wraps at 2^32 us */
	delay = (uint32_t)t_us - r->word;
	delay_add(k == K_WHOLE ? &s->dwhole : &s->dtrim, delay);
	if (!snd)
		return;
	if (k == K_WHOLE)
		snd->whole++;
	else if (k == K_TRIMMED)
		snd->trimmed++;
	else
		snd->unmarked++;
	if (s->narr == s->caparr) {
		s->caparr = s->caparr ? 2 * s->caparr : 4096;
		s->arr = xrealloc(s->arr, s->caparr * sizeof(*s->arr));
		s->tarr = xrealloc(s->tarr, s->caparr * sizeof(*s->tarr));
	}
	s->tarr[s->narr] = (struct timed_arrival){
		.sender = idx, .t_ns = t_ns, .sent_ns = t_ns - (uint64_t)delay * 1000,
		.has_dl = !!(r->flags & SHOAL_F_DEADLINE),
		.dl_ns = o->slack ? t_ns + r->deadline : r->deadline,
	};
	s->arr[s->narr++] = (struct arrival){ idx, (uint32_t)r->msg_id, (uint8_t)k };
}

/*
 * A header "jumped" if a whole packet of the same sender with a lower seq
 * arrived after it: the header overtook data queued before it.  Walk the
 * arrivals backwards keeping, per sender, the lowest whole seq seen later.
 */
static uint64_t count_jumps(const struct sink *s)
{
	uint32_t *minseq;
	uint64_t jumps = 0;
	size_t i;

	minseq = malloc((s->nsenders + 1) * sizeof(*minseq));
	if (!minseq)
		return 0;
	memset(minseq, 0xff, (s->nsenders + 1) * sizeof(*minseq));
	for (i = s->narr; i-- > 0;) {
		const struct arrival *a = &s->arr[i];

		if (a->kind == K_WHOLE) {
			if (a->seq < minseq[a->sender])
				minseq[a->sender] = a->seq;
		} else if (minseq[a->sender] < a->seq) {
			jumps++;
		}
	}
	free(minseq);
	return jumps;
}

/*
 * How far ahead the headers that jumped arrived: per such header, the time
 * from its arrival to that of the last whole packet of its sender with a
 * lower seq (the latest of the older data it overtook).  Walking the
 * arrivals backwards, each sender's whole packets seen so far (arriving
 * later) are kept in the order seen, with the lowest seq among the first
 * k: the first with a seq below the header's is the latest to arrive, and
 * bisection finds it.  p50 and max in us, -1 when no header jumped.
 */
static void jump_leads(const struct sink *s, int64_t *p50_us, int64_t *max_us)
{
	size_t ns = s->nsenders + 1, i, nl = 0, *off, *len;
	uint32_t *pmin = malloc((s->narr + 1) * sizeof(*pmin));
	uint64_t *tw = malloc((s->narr + 1) * sizeof(*tw));
	uint64_t *lead = malloc((s->narr + 1) * sizeof(*lead));

	*p50_us = *max_us = -1;
	off = calloc(ns + 1, sizeof(*off));
	len = calloc(ns, sizeof(*len));
	if (!pmin || !tw || !lead || !off || !len)
		goto out;
	for (i = 0; i < s->narr; i++)
		if (s->arr[i].kind == K_WHOLE)
			off[s->arr[i].sender + 1]++;
	for (i = 1; i <= ns; i++)
		off[i] += off[i - 1];
	for (i = s->narr; i-- > 0;) {
		const struct arrival *a = &s->arr[i];
		size_t base = off[a->sender], k = len[a->sender], lo = 0, hi;

		if (a->kind == K_WHOLE) {
			pmin[base + k] = k && pmin[base + k - 1] < a->seq ?
					 pmin[base + k - 1] : a->seq;
			tw[base + k] = s->tarr[i].t_ns;
			len[a->sender]++;
			continue;
		}
		if (!k || pmin[base + k - 1] >= a->seq)
			continue;
		hi = k - 1;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (pmin[base + mid] < a->seq)
				hi = mid;
			else
				lo = mid + 1;
		}
		lead[nl++] = tw[base + lo] - s->tarr[i].t_ns;
	}
	if (nl) {
		qsort(lead, nl, sizeof(*lead), tm_cmp_u64);
		*p50_us = (int64_t)(lead[nl / 2] / 1000);
		*max_us = (int64_t)(lead[nl - 1] / 1000);
	}
out:
	free(pmin);
	free(tw);
	free(lead);
	free(off);
	free(len);
}

/*
 * Packets that arrived after one of their sender with a higher seq: out of
 * order (a resent copy overtaken by newer packets, say).  Duplicates are
 * not among the arrivals, so each packet counts once.
 */
static uint64_t count_reordered(const struct sink *s)
{
	uint32_t *maxseq;
	uint8_t *seen;
	uint64_t n = 0;
	size_t i;

	maxseq = calloc(s->nsenders + 1, sizeof(*maxseq));
	seen = calloc(s->nsenders + 1, 1);
	for (i = 0; maxseq && seen && i < s->narr; i++) {
		const struct arrival *a = &s->arr[i];

		if (seen[a->sender] && a->seq < maxseq[a->sender])
			n++;
		else
			maxseq[a->sender] = a->seq;
		seen[a->sender] = 1;
	}
	free(maxseq);
	free(seen);
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct dstats {
	size_t n;
	uint32_t min, p50, p99, max;
	double mean;
};

static struct dstats dstats(struct delays *d)
{
	struct dstats r = { 0 };
	double sum = 0;
	size_t i;

	if (!d->n)
		return r;
	qsort(d->v, d->n, sizeof(*d->v), cmp_u32);
	for (i = 0; i < d->n; i++)
		sum += d->v[i];
	r.n = d->n;
	r.min = d->v[0];
	r.p50 = d->v[(d->n - 1) / 2];
	r.p99 = d->v[(d->n - 1) * 99 / 100];
	r.max = d->v[d->n - 1];
	r.mean = sum / (double)d->n;
	return r;
}

static void json_dstats(struct jw *w, const char *name, const struct dstats *d)
{
	jw_obj(w, name, JW_INLINE);
	jw_u64(w, "n", d->n);
	jw_u64(w, "min", d->min);
	jw_u64(w, "p50", d->p50);
	jw_u64(w, "p99", d->p99);
	jw_u64(w, "max", d->max);
	jw_num(w, "mean", d->mean, 1);
	jw_end(w);
}

/* three times in ns, as a {k[0]: us, ...} object */
static void json_us3(struct jw *w, const char *name, const char *const k[3],
		     uint64_t a, uint64_t b, uint64_t c)
{
	jw_obj(w, name, JW_INLINE);
	jw_num(w, k[0], (double)a / 1e3, 1);
	jw_num(w, k[1], (double)b / 1e3, 1);
	jw_num(w, k[2], (double)c / 1e3, 1);
	jw_end(w);
}

static uint64_t meminfo_drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	memset(mem, 0, sizeof(mem));
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len < (SK_MEMINFO_DROPS + 1) * sizeof(mem[0]))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

static void set_bufs(int fd)
{
	int buf = SOCKBUF;

	/* FORCE needs CAP_NET_ADMIN; fall back to what the sysctl allows */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
}

static int open_capture(const struct opts *o)
{
	struct sockaddr_ll sll;
	int fd, one = 1, ifindex;

	/* "any": every device of the netns (a receiver with two paths) */
	ifindex = strcmp(o->dev, "any") ? (int)if_nametoindex(o->dev) : 0;
	if (!ifindex && strcmp(o->dev, "any")) {
		fprintf(stderr, "shoal-sink: no device '%s'\n", o->dev);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return -1;
	}
	set_bufs(fd);
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		perror("setsockopt(PACKET_AUXDATA/SO_TIMESTAMPNS)");
		close(fd);
		return -1;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("bind(AF_PACKET)");
		close(fd);
		return -1;
	}
	return fd;
}

static int open_udp(int family, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;

	fd = socket(family, SOCK_DGRAM, IPPROTO_UDP);
	if (fd < 0) {
		perror("socket(UDP)");
		return -1;
	}
	set_bufs(fd);
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		/* v6-only, so that a v4 socket can own the v4 side */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = in6addr_any;
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		sl = sizeof(*s4);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		perror("bind(UDP)");
		close(fd);
		return -1;
	}
	return fd;
}

/* Read all pending captured packets. */
static void capture(int fd, const struct opts *o, struct sink *s, uint64_t *last_ns)
{
	static uint8_t buf[65536 + 1];
	char cbuf[512];
	struct sockaddr_ll sll;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg;
	struct pkc_result r;
	uint64_t off_ns, t_ns;
	ssize_t n;

	/* REALTIME - MONOTONIC: maps kernel receive stamps onto MONOTONIC */
	off_ns = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);
	for (;;) {
		struct tpacket_auxdata aux;
		struct cmsghdr *c;
		bool have_aux = false;
		unsigned int opts;
		int v;

		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &sll;
		msg.msg_namelen = sizeof(sll);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (sll.sll_protocol != htons(ETH_P_IP) &&
		    sll.sll_protocol != htons(ETH_P_IPV6)) {
			s->other++;
			continue;
		}
		t_ns = now_ns(CLOCK_MONOTONIC);
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA) {
				memcpy(&aux, CMSG_DATA(c), sizeof(aux));
				have_aux = true;
			} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
				struct timespec ts;
				uint64_t real;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				real = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
				if (real > off_ns && real - off_ns <= t_ns)
					t_ns = real - off_ns;
			}
		}
		if ((size_t)n > sizeof(buf) - 1) {
			s->truncated++;
			continue;
		}
		opts = o->pattern ? PKC_O_PATTERN : 0;
		if (have_aux && (aux.tp_status & TP_STATUS_CSUMNOTREADY))
			opts |= PKC_O_CSUM_PARTIAL;
		v = pkc_check_ip(buf, (size_t)n, o->port, opts, &r);
		if ((o->family == AF_INET && r.family != 4) ||
		    (o->family == AF_INET6 && r.family != 6))
			v = PKC_OTHER;
		if (v == PKC_OTHER) {
			s->other++;
			continue;
		}
		if (v == PKC_FRAGMENT) {
			s->fragments++;
			continue;
		}
		account(s, o, &r, v, opts & PKC_O_CSUM_PARTIAL, t_ns);
		*last_ns = now_ns(CLOCK_MONOTONIC);
	}
}

static void drain_udp(int fd, struct sink *s)
{
	static uint8_t buf[65536];

	if (fd < 0)
		return;
	for (;;) {
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			s->udp_rx++;
		else if (errno != EINTR)
			break;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: shoal-sink --dev IFACE [options]\n"
"  -4 | -6            only IPv4 or only IPv6 (default both)\n"
"  --dev IFACE        interface to capture on (any: all of the netns)\n"
"  --port P           UDP destination port (default %d)\n"
"  --expect N         stop after N distinct packets\n"
"  --idle MS          stop after MS ms without packets, once one came (default 2000)\n"
"  --timeout S        stop after S seconds in any case (default: none)\n"
"  --no-pattern       do not check the payload bytes (traffic not from shoal-blast)\n"
"  --ready FILE       create FILE once the sockets are open\n"
"  --deadline abs|slack  the Shoal deadline field is an absolute CLOCK_MONOTONIC\n"
"                     deadline (default) or the slack left (rewritten per hop)\n"
"  --order-tol US     deadline order: inversions up to US are tolerated (default 0)\n"
"  --json FILE        write the results as JSON\n", SHOAL_UDP_PORT);
}

static const struct option long_opts[] = {
	{ "dev", required_argument, NULL, 'd' },
	{ "port", required_argument, NULL, 'p' },
	{ "expect", required_argument, NULL, 'e' },
	{ "idle", required_argument, NULL, 'I' },
	{ "timeout", required_argument, NULL, 't' },
	{ "json", required_argument, NULL, 'j' },
	{ "ready", required_argument, NULL, 'R' },
	{ "no-pattern", no_argument, NULL, 'P' },
	{ "deadline", required_argument, NULL, 'D' },
	{ "order-tol", required_argument, NULL, 'O' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	unsigned long long v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "46h", long_opts, NULL)) != -1) {
		switch (c) {
		case '4':
			o->family = AF_INET;
			continue;
		case '6':
			o->family = AF_INET6;
			continue;
		case 'd':
			o->dev = optarg;
			continue;
		case 'j':
			o->json = optarg;
			continue;
		case 'R':
			o->ready = optarg;
			continue;
		case 'P':
			o->pattern = false;
			continue;
		case 'D':
			if (strcmp(optarg, "abs") && strcmp(optarg, "slack")) {
				fprintf(stderr, "shoal-sink: --deadline abs or slack\n");
				return -1;
			}
			o->slack = !strcmp(optarg, "slack");
			continue;
		case 'h':
			usage(stdout);
			exit(0);
		case 'p': case 'e': case 'I': case 't': case 'O':
			break;
		default:
			usage(stderr);
			return -1;
		}
		errno = 0;
		v = strtoull(optarg, &end, 10);
		if (errno || end == optarg || *end || optarg[0] == '-' ||
		    v > UINT32_MAX || (c == 'p' && (!v || v > 65535))) {
			fprintf(stderr, "shoal-sink: bad value '%s'\n", optarg);
			return -1;
		}
		if (c == 'p')
			o->port = (uint16_t)v;
		else if (c == 'e')
			o->expect = v;
		else if (c == 'I')
			o->idle_ms = (unsigned int)v;
		else if (c == 'O')
			o->order_tol_ns = v * 1000;
		else
			o->timeout_s = (unsigned int)v;
	}
	if (optind != argc || !o->dev) {
		usage(stderr);
		return -1;
	}
	return 0;
}

static void json_sender(struct jw *w, const struct sender *p,
			const struct sender_timing *t)
{
	static const char *const gaps[3] = { "p10", "p50", "p90" };
	static const char *const delays[3] = { "p50", "p99", "max" };
	double span = (double)(t->last_ns - t->first_ns) / 1e9;
	char id[16];

	snprintf(id, sizeof(id), "%u", p->id);
	jw_obj(w, id, JW_INLINE);
	jw_u64(w, "whole", p->whole);
	jw_u64(w, "trimmed", p->trimmed);
	jw_u64(w, "trimmed_unmarked", p->unmarked);
	jw_u64(w, "duplicates", p->dup);
	jw_num(w, "rate_pps", t->n > 1 && span > 0 ? (double)(t->n - 1) / span : 0, 1);
	json_us3(w, "gap_us", gaps, t->gap_p10_ns, t->gap_p50_ns, t->gap_p90_ns);
	jw_u64(w, "windows", t->windows);
	jw_u64(w, "windows_steady", t->windows_steady);
	json_us3(w, "delay_us", delays, t->delay_p50_ns, t->delay_p99_ns,
		 t->delay_max_ns);
	jw_obj(w, "deadline", JW_INLINE);
	jw_u64(w, "pkts", t->dl_pkts);
	jw_u64(w, "miss", t->dl_miss);
	jw_num(w, "late_max_us", (double)t->dl_late_max_ns / 1e3, 1);
	jw_u64(w, "inversions", t->dl_inversions);
	jw_end(w);
	jw_end(w);
}

/* The packets' tally by kind */
static void json_counts(struct jw *w, const struct sink *s)
{
	unsigned int i;

	jw_u64(w, "total", s->total);
	jw_u64(w, "distinct", s->distinct);
	jw_u64(w, "whole", s->whole);
	jw_u64(w, "trimmed", s->trimmed);
	jw_u64(w, "trimmed_unmarked", s->unmarked);
	jw_u64(w, "malformed", s->malformed);
	jw_u64(w, "duplicates", s->dup);
	jw_obj(w, "malformed_reasons", JW_INLINE);
	for (i = 1; i < __PKC_R_MAX; i++)
		if (s->reasons[i])
			jw_u64(w, pkc_reason_name(i), s->reasons[i]);
	jw_end(w);
	jw_u64(w, "csum_ok", s->csum_ok);
	jw_u64(w, "csum_partial", s->csum_partial);
	jw_u64(w, "csum_zero", s->csum_zero);
	jw_u64(w, "bounced_flag", s->bounced_flag);
	jw_u64(w, "fragments", s->fragments);
	jw_u64(w, "other", s->other);
	jw_u64(w, "truncated", s->truncated);
}

static int write_json(FILE *f, const struct opts *o, struct sink *s,
		      const struct dstats *dw, const struct dstats *dt,
		      uint64_t jumps, uint64_t reordered, uint64_t cap_drops,
		      uint64_t udp_drops, double dur, const char *why)
{
	struct sender_timing tm[MAX_SENDERS];
	struct deadline_order dord;
	int64_t lead_p50, lead_max;
	unsigned int i;
	struct jw w;

	for (i = 0; i < s->nsenders; i++)
		tm_sender(s->tarr, s->narr, i, &tm[i]);
	jump_leads(s, &lead_p50, &lead_max);
	tm_deadline_order(s->tarr, s->narr, o->order_tol_ns, &dord, tm);

	jw_init(&w, f);
	jw_obj(&w, NULL, JW_LINES);
	jw_str(&w, "dev", o->dev);
	jw_u64(&w, "port", o->port);
	jw_str(&w, "stopped", why);
	jw_num(&w, "duration_s", dur, 3);
	json_counts(&w, s);
	jw_u64(&w, "capture_drops", cap_drops);
	jw_u64(&w, "udp_rx", s->udp_rx);
	jw_u64(&w, "udp_drops", udp_drops);
	jw_u64(&w, "jumps", jumps);
	jw_s64(&w, "jump_lead_p50_us", lead_p50);
	jw_s64(&w, "jump_lead_max_us", lead_max);
	jw_u64(&w, "reordered", reordered);
	jw_obj(&w, "delay_us", JW_LINES);
	json_dstats(&w, "whole", dw);
	json_dstats(&w, "trimmed", dt);
	jw_end(&w);
	jw_obj(&w, "deadline", JW_INLINE);
	jw_u64(&w, "pkts", dord.pkts);
	jw_u64(&w, "miss", dord.miss);
	jw_u64(&w, "inversions", dord.inversions);
	jw_num(&w, "inversion_max_us", (double)dord.inversion_max_ns / 1e3, 1);
	jw_end(&w);
	jw_u64(&w, "sender_overflow", s->sender_overflow);
	jw_obj(&w, "per_sender", JW_LINES);
	for (i = 0; i < s->nsenders; i++)
		json_sender(&w, &s->senders[i], &tm[i]);
	jw_end(&w);
	jw_end(&w);
	return jw_finish(&w);
}

int main(int argc, char **argv)
{
	struct opts o = { .port = SHOAL_UDP_PORT, .idle_ms = 2000, .pattern = true };
	struct sink *s;
	struct dstats dw, dt;
	struct tpacket_stats pst;
	socklen_t pl = sizeof(pst);
	struct sigaction sa;
	uint64_t t0, last = 0, jumps, cap_drops = 0, udp_drops;
	const char *why = "signal";
	int pfd, u4 = -1, u6 = -1;

	if (parse_opts(argc, argv, &o))
		return 2;
	s = calloc(1, sizeof(*s));
	if (!s) {
		perror("calloc");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	pfd = open_capture(&o);
	if (pfd < 0)
		return 2;
	if (o.family != AF_INET6 && (u4 = open_udp(AF_INET, o.port)) < 0)
		return 2;
	if (o.family != AF_INET && (u6 = open_udp(AF_INET6, o.port)) < 0)
		return 2;
	if (o.ready) {
		FILE *f = fopen(o.ready, "w");

		if (!f || fclose(f)) {
			perror(o.ready);
			return 2;
		}
	}

	t0 = now_ns(CLOCK_MONOTONIC);
	while (!stop) {
		struct pollfd pf[3] = {
			{ .fd = pfd, .events = POLLIN },
			{ .fd = u4, .events = POLLIN },
			{ .fd = u6, .events = POLLIN },
		};
		uint64_t now = now_ns(CLOCK_MONOTONIC), until = UINT64_MAX;
		int ms;

		if (o.expect && s->distinct >= o.expect) {
			why = "expect";
			break;
		}
		if (o.timeout_s) {
			until = t0 + o.timeout_s * 1000000000ull;
			if (now >= until) {
				why = "timeout";
				break;
			}
		}
		if (s->total && o.idle_ms) {
			uint64_t idle = last + o.idle_ms * 1000000ull;

			if (now >= idle) {
				why = "idle";
				break;
			}
			if (idle < until)
				until = idle;
		}
		ms = until == UINT64_MAX ? 1000 : (int)((until - now) / 1000000 + 1);
		if (ms > 1000)
			ms = 1000;
		if (poll(pf, 3, ms) < 0 && errno != EINTR) {
			perror("poll");
			return 2;
		}
		capture(pfd, &o, s, &last);
		drain_udp(u4, s);
		drain_udp(u6, s);
	}
	/* what is still queued arrived before we stopped */
	capture(pfd, &o, s, &last);
	drain_udp(u4, s);
	drain_udp(u6, s);

	if (!getsockopt(pfd, SOL_PACKET, PACKET_STATISTICS, &pst, &pl))
		cap_drops = pst.tp_drops;
	udp_drops = meminfo_drops(u4) + meminfo_drops(u6);
	jumps = count_jumps(s);
	dw = dstats(&s->dwhole);
	dt = dstats(&s->dtrim);

	fprintf(stderr, "shoal-sink: %llu packets (%llu distinct): %llu whole, %llu trimmed, "
		"%llu unmarked, %llu malformed, %llu dup; delay p50 whole %u us, trimmed %u us; "
		"%llu jumps; stopped on %s%s\n",
		(unsigned long long)s->total, (unsigned long long)s->distinct,
		(unsigned long long)s->whole, (unsigned long long)s->trimmed,
		(unsigned long long)s->unmarked, (unsigned long long)s->malformed,
		(unsigned long long)s->dup, dw.p50, dt.p50, (unsigned long long)jumps,
		why, cap_drops ? ", CAPTURE DROPS" : "");

	if (o.json) {
		FILE *f = fopen(o.json, "w");
		int rc;

		if (!f) {
			perror(o.json);
			return 2;
		}
		rc = write_json(f, &o, s, &dw, &dt, jumps, count_reordered(s), cap_drops,
				udp_drops, (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9, why);
		if (fclose(f) || rc) {
			perror(o.json);
			return 2;
		}
	}
	return 0;
}
