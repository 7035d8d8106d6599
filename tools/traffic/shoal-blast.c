// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-blast - send Shoal DATA packets over UDP, count returned headers.
 *
 * Every packet is one Shoal DATA packet of message (id << 32 | seq):
 * offset = seq * size, msg_len = count * size, payload_len = size, and the
 * type word carries the send time in microseconds (CLOCK_MONOTONIC, low 32
 * bits) so that a receiver in any netns of the same kernel can compute the
 * one-way delay.  The payload follows pkc_pattern().
 *
 * With --deadline-in or --slack the header carries SHOAL_F_DEADLINE and
 * the 64-bit field: an absolute CLOCK_MONOTONIC deadline in ns, or a slack
 * in ns.  With --txtime-lead every packet gets an SO_TXTIME departure time
 * on the --rate schedule, so a calendar queue can pace a bursty sender.
 *
 * The socket is connected to the destination, so headers a switch returns
 * to us (addresses and ports swapped, SHOAL_F_BOUNCED) arrive on it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/net_tstamp.h>
#include <linux/sock_diag.h>

#include "json_writer.h"
#include "pktcheck.h"

#define RETRY_SLEEP_NS	50000		/* back off on ENOBUFS/EAGAIN */
#define RETRY_MAX	200000		/* per packet: ~10 s of back-off */
#define SOCKBUF		(8 << 20)

struct opts {
	int family;
	const char *dst;
	uint16_t port;
	uint32_t count;
	uint32_t size;
	uint64_t rate;
	uint32_t burst;
	uint32_t id;
	const char *json;
	unsigned int wait_bounce_ms;
	double start_at;	/* CLOCK_BOOTTIME seconds, 0 = now */
	const char *ready;	/* create, then wait for SIGUSR1 */
	uint8_t flags;		/* Shoal header flags byte, for tests */
	uint64_t deadline_in_us; /* absolute deadline: send time + this */
	uint64_t slack_us;	/* slack field (relative), for LSTF */
	uint64_t txtime_lead_us; /* SO_TXTIME: depart on the rate's schedule */
	uint32_t priority;	/* SO_PRIORITY, 0 = leave */
	uint8_t hdr_len;
};

struct stats {
	uint64_t sent;
	uint64_t send_errors;	/* packets given up on */
	uint64_t retries;	/* ENOBUFS/EAGAIN back-offs */
	uint64_t refused;	/* ECONNREFUSED from an earlier ICMP error */
	uint64_t icmp_errors;	/* entries read from the error queue */
	uint64_t bounced;	/* valid returned headers, distinct */
	uint64_t bounce_dup;
	uint64_t bounce_invalid;
	uint64_t rx_other;	/* datagrams without SHOAL_F_BOUNCED */
	uint64_t rx_dropped;	/* socket receive queue overflows (SO_MEMINFO) */
	int last_errno;
	double late_start_ms;
	uint32_t *bdelay;	/* bounce delays, us */
	uint64_t nbdelay;
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(clockid_t clk, uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / 1000000000ull),
		.tv_nsec = (long)(t % 1000000000ull),
	};

	while (clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The header as wire.h builds it, but hdr_len is o->hdr_len: --flags may
 * set SHOAL_F_DEADLINE without a deadline (a test's malformed header)
 */
static void build(uint8_t *buf, const struct opts *o, uint32_t seq, uint16_t lport)
{
	struct shoal_wire_pkt w = {
		.type = SHOAL_T_DATA,
		.flags = o->flags,
		.sport = lport,
		.dport = o->port,
		.msg_id = (uint64_t)o->id << 32 | seq,
		.msg_len = o->count * o->size,
		.offset = seq * o->size,
		.payload_len = o->size,
	};
	uint8_t hdr[SHOAL_HDR_MAX];
	uint32_t i;

	shoal_wire_build(hdr, &w);
	hdr[SHOAL_OFF_HDR_LEN] = o->hdr_len;
	memcpy(buf, hdr, o->hdr_len);
	for (i = 0; i < o->size; i++)
		buf[o->hdr_len + i] = pkc_pattern(w.msg_id, w.offset + i);
}

/* The deadline field, written just before the packet leaves */
static void stamp_deadline(uint8_t *buf, const struct opts *o, uint64_t now)
{
	uint64_t v;

	if (o->hdr_len < SHOAL_HDR_DEADLINE_LEN)
		return;
	v = o->slack_us ? o->slack_us * 1000 : now + o->deadline_in_us * 1000;
	shoal_put64(buf + SHOAL_OFF_DEADLINE, v);
}

/* Is this datagram a header of ours that a switch returned? */
static void rx_one(const uint8_t *buf, size_t n, const struct opts *o,
		   struct stats *st, uint8_t *seen)
{
	struct pkc_result r;
	uint32_t seq;
	int v;

	memset(&r, 0, sizeof(r));
	v = pkc_check_shoal(buf, n, PKC_O_PATTERN, &r);
	if (n > SHOAL_OFF_FLAGS && !(buf[SHOAL_OFF_FLAGS] & SHOAL_F_BOUNCED)) {
		st->rx_other++;
		return;
	}
	seq = (uint32_t)r.msg_id;
	if ((v != PKC_TRIMMED && v != PKC_WHOLE) ||
	    (uint32_t)(r.msg_id >> 32) != o->id || seq >= o->count ||
	    r.offset != seq * o->size || r.payload_len != o->size ||
	    r.msg_len != o->count * o->size) {
		st->bounce_invalid++;
		return;
	}
	if (seen[seq >> 3] & (1u << (seq & 7))) {
		st->bounce_dup++;
		return;
	}
	seen[seq >> 3] |= (uint8_t)(1u << (seq & 7));
	st->bounced++;
	st->bdelay[st->nbdelay++] = (uint32_t)(now_ns(CLOCK_MONOTONIC) / 1000) - r.word;
}

/* Read everything queued on the socket, error queue included. */
static void drain(int fd, const struct opts *o, struct stats *st, uint8_t *seen)
{
	uint8_t buf[65536];
	char cbuf[256];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg;
	unsigned int errs = 0;
	ssize_t n;

	/* each failed read consumes sk_err or an error queue entry; bound anyway */
	while (errs < 1024) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			/* a pending ICMP error: the error queue holds it */
			errs++;
			msg.msg_controllen = sizeof(cbuf);
			if (recvmsg(fd, &msg, MSG_DONTWAIT | MSG_ERRQUEUE) >= 0)
				st->icmp_errors++;
			continue;
		}
		rx_one(buf, (size_t)n, o, st, seen);
	}
	/* errors that did not make recvmsg() fail */
	while (errs++ < 1024) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		if (recvmsg(fd, &msg, MSG_DONTWAIT | MSG_ERRQUEUE) < 0)
			break;
		st->icmp_errors++;
	}
}

/* Datagrams the kernel dropped for a full receive queue. */
static uint64_t rx_drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	memset(mem, 0, sizeof(mem));
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len < (SK_MEMINFO_DROPS + 1) * sizeof(mem[0]))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

/* Send one datagram; back off and retry on transient errors. */
/* send(), or sendmsg() with an SCM_TXTIME departure time when @txtime */
static ssize_t send_at(int fd, const uint8_t *buf, size_t len, uint64_t txtime)
{
	char cbuf[CMSG_SPACE(sizeof(txtime))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (!txtime)
		return send(fd, buf, len, 0);
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TXTIME;
	c->cmsg_len = CMSG_LEN(sizeof(txtime));
	memcpy(CMSG_DATA(c), &txtime, sizeof(txtime));
	return sendmsg(fd, &msg, 0);
}

static void send_one(int fd, const uint8_t *buf, size_t len, uint64_t txtime,
		     struct stats *st)
{
	unsigned int tries = 0;

	for (;;) {
		if (send_at(fd, buf, len, txtime) == (ssize_t)len) {
			st->sent++;
			return;
		}
		st->last_errno = errno;
		if (++tries > RETRY_MAX)
			break;
		if (errno == EINTR)
			continue;
		if (errno == ECONNREFUSED) {	/* reports an old ICMP error */
			st->refused++;
			continue;
		}
		if (errno == ENOBUFS || errno == EAGAIN) {
			struct timespec ts = { 0, RETRY_SLEEP_NS };

			st->retries++;
			nanosleep(&ts, NULL);
			continue;
		}
		break;
	}
	st->send_errors++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int open_socket(const struct opts *o, uint16_t *lport)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1, buf = SOCKBUF;

	memset(&ss, 0, sizeof(ss));
	if (o->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(o->port);
		if (inet_pton(AF_INET6, o->dst, &s6->sin6_addr) != 1)
			goto bad_addr;
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(o->port);
		if (inet_pton(AF_INET, o->dst, &s4->sin_addr) != 1)
			goto bad_addr;
		sl = sizeof(*s4);
	}
	fd = socket(o->family, SOCK_DGRAM, IPPROTO_UDP);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	/* FORCE needs CAP_NET_ADMIN; fall back to what the sysctl allows */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	/* without RECVERR, UDP hides ENOBUFS from a local qdisc drop */
	if (o->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
	else
		setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	if (o->txtime_lead_us) {
		struct sock_txtime tt = { .clockid = CLOCK_MONOTONIC };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &tt, sizeof(tt))) {
			perror("setsockopt(SO_TXTIME)");
			close(fd);
			return -1;
		}
	}
	if (o->priority &&
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &o->priority, sizeof(o->priority))) {
		perror("setsockopt(SO_PRIORITY)");
		close(fd);
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&ss, sl)) {
		perror("connect");
		close(fd);
		return -1;
	}
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		perror("getsockname");
		close(fd);
		return -1;
	}
	*lport = ntohs(o->family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
					       ((struct sockaddr_in *)&ss)->sin_port);
	return fd;

bad_addr:
	fprintf(stderr, "shoal-blast: bad %s address '%s'\n",
		o->family == AF_INET6 ? "IPv6" : "IPv4", o->dst);
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: shoal-blast --dst ADDR [options]\n"
"  -6                 IPv6 (ADDR is an IPv6 address)\n"
"  --dst ADDR         destination address\n"
"  --port P           UDP destination port (default %d)\n"
"  --count N          packets to send (default 1000)\n"
"  --size BYTES       payload after the Shoal header (default 1000)\n"
"  --rate PPS         average packet rate, 0 = as fast as possible (default 0)\n"
"  --burst N          send bursts of N packets back to back (default 1)\n"
"  --id N             sender id: msg_id = id << 32 | seq (default 1)\n"
"  --start-at SEC     start at this CLOCK_BOOTTIME time (see /proc/uptime)\n"
"  --ready FILE       once the socket is open create FILE, then start on SIGUSR1\n"
"  --wait-bounce MS   after sending, read returned headers for MS ms\n"
"  --flags N          Shoal header flags byte (decimal; 128 = TRIMMED), for tests\n"
"  --deadline-in US   carry an absolute deadline: send time + US (CLOCK_MONOTONIC)\n"
"  --slack US         carry a slack of US (LSTF; calq decrements it per hop)\n"
"  --txtime-lead US   SO_TXTIME: packet k departs at start + US + k / rate\n"
"  --priority N       SO_PRIORITY of the socket\n"
"  --json FILE        write a JSON summary\n", SHOAL_UDP_PORT);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *v > max || s[0] == '-' ? -1 : 0;
}

static const struct option long_opts[] = {
	{ "dst", required_argument, NULL, 'd' },
	{ "port", required_argument, NULL, 'p' },
	{ "count", required_argument, NULL, 'c' },
	{ "size", required_argument, NULL, 's' },
	{ "rate", required_argument, NULL, 'r' },
	{ "burst", required_argument, NULL, 'b' },
	{ "id", required_argument, NULL, 'i' },
	{ "json", required_argument, NULL, 'j' },
	{ "wait-bounce", required_argument, NULL, 'w' },
	{ "start-at", required_argument, NULL, 'S' },
	{ "ready", required_argument, NULL, 'R' },
	{ "flags", required_argument, NULL, 'f' },
	{ "deadline-in", required_argument, NULL, 'D' },
	{ "slack", required_argument, NULL, 'L' },
	{ "txtime-lead", required_argument, NULL, 'T' },
	{ "priority", required_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const char *opt_name(int c)
{
	const struct option *p;

	for (p = long_opts; p->name; p++)
		if (p->val == c)
			return p->name;
	return "?";
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	uint64_t v;
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
			o->dst = optarg;
			continue;
		case 'j':
			o->json = optarg;
			continue;
		case 'R':
			o->ready = optarg;
			continue;
		case 'S':
			o->start_at = strtod(optarg, &end);
			if (end == optarg || *end || o->start_at < 0)
				goto bad;
			continue;
		case 'h':
			usage(stdout);
			exit(0);
		case 'p': case 'c': case 's': case 'r': case 'b': case 'i': case 'w':
		case 'f': case 'D': case 'L': case 'T': case 'P':
			break;
		default:
			usage(stderr);
			return -1;
		}
		if (parse_u64(optarg, UINT32_MAX, &v))
			goto bad;
		switch (c) {
		case 'p':
			if (!v || v > 65535)
				goto bad;
			o->port = (uint16_t)v;
			break;
		case 'c':
			o->count = (uint32_t)v;
			break;
		case 's':
			o->size = (uint32_t)v;
			break;
		case 'r':
			o->rate = v;
			break;
		case 'b':
			if (!v)
				goto bad;
			o->burst = (uint32_t)v;
			break;
		case 'i':
			o->id = (uint32_t)v;
			break;
		case 'f':
			if (v > 0xff)
				goto bad;
			o->flags = (uint8_t)v;
			break;
		case 'w':
			o->wait_bounce_ms = (unsigned int)v;
			break;
		case 'D':
			if (!v)
				goto bad;
			o->deadline_in_us = v;
			break;
		case 'L':
			if (!v)
				goto bad;
			o->slack_us = v;
			break;
		case 'T':
			o->txtime_lead_us = v;
			break;
		case 'P':
			o->priority = (uint32_t)v;
			break;
		}
	}
	if (optind != argc || !o->dst) {
		usage(stderr);
		return -1;
	}
	if (o->deadline_in_us && o->slack_us) {
		fprintf(stderr, "shoal-blast: --deadline-in and --slack exclude each other\n");
		return -1;
	}
	if (o->txtime_lead_us && !o->rate) {
		fprintf(stderr, "shoal-blast: --txtime-lead needs --rate\n");
		return -1;
	}
	o->hdr_len = SHOAL_HDR_LEN;
	if (o->deadline_in_us || o->slack_us) {
		o->flags |= SHOAL_F_DEADLINE;
		o->hdr_len = SHOAL_HDR_DEADLINE_LEN;
	}
	/* the largest UDP payload over IPv4 is 65507 bytes */
	if (o->size > 65507u - o->hdr_len) {
		fprintf(stderr, "shoal-blast: --size at most %u\n", 65507u - o->hdr_len);
		return -1;
	}
	if ((uint64_t)o->count * o->size > UINT32_MAX) {
		fprintf(stderr, "shoal-blast: count * size must fit msg_len (32 bits)\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "shoal-blast: bad value '%s' for --%s\n", optarg, opt_name(c));
	return -1;
}

/* The run's summary into o->json; nonzero with errno set if not written */
static int write_json(const struct opts *o, const struct stats *st,
		      uint16_t lport, uint64_t t0, double dur, double pps,
		      const uint32_t bounce_delay[3])
{
	FILE *f = fopen(o->json, "w");
	struct jw w;
	int rc;

	if (!f)
		return -1;
	errno = 0;
	jw_init(&w, f);
	jw_obj(&w, NULL, JW_LINES);
	jw_u64(&w, "id", o->id);
	jw_u64(&w, "family", o->family == AF_INET6 ? 6 : 4);
	jw_str(&w, "dst", o->dst);
	jw_u64(&w, "port", o->port);
	jw_u64(&w, "lport", lport);
	jw_u64(&w, "count", o->count);
	jw_u64(&w, "size", o->size);
	jw_u64(&w, "rate", o->rate);
	jw_u64(&w, "burst", o->burst);
	jw_u64(&w, "sent", st->sent);
	jw_u64(&w, "send_errors", st->send_errors);
	jw_u64(&w, "retries", st->retries);
	jw_u64(&w, "refused", st->refused);
	jw_u64(&w, "icmp_errors", st->icmp_errors);
	jw_u64(&w, "bounced", st->bounced);
	jw_u64(&w, "bounce_dup", st->bounce_dup);
	jw_u64(&w, "bounce_invalid", st->bounce_invalid);
	jw_u64(&w, "rx_other", st->rx_other);
	jw_u64(&w, "rx_dropped", st->rx_dropped);
	jw_obj(&w, "bounce_delay_us", JW_INLINE);
	jw_u64(&w, "min", bounce_delay[0]);
	jw_u64(&w, "p50", bounce_delay[1]);
	jw_u64(&w, "max", bounce_delay[2]);
	jw_end(&w);
	jw_u64(&w, "start_us", t0 / 1000);
	jw_num(&w, "late_start_ms", st->late_start_ms, 3);
	jw_num(&w, "duration_s", dur, 6);
	jw_num(&w, "pps", pps, 1);
	jw_end(&w);
	rc = jw_finish(&w);
	if (fclose(f) || rc) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.family = AF_INET,
		.port = SHOAL_UDP_PORT,
		.count = 1000,
		.size = 1000,
		.burst = 1,
		.id = 1,
	};
	struct stats st;
	sigset_t usr1;
	uint64_t t0, t_end, deadline, gap_ns = 0, k;
	uint32_t seq = 0, dmin = 0, dp50 = 0, dmax = 0;
	uint16_t lport;
	uint8_t *buf, *seen;
	double dur, pps;
	int fd;

	/* blocked from the start, so a SIGUSR1 sent early stays pending */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (parse_opts(argc, argv, &o))
		return 2;
	memset(&st, 0, sizeof(st));
	buf = malloc(o.hdr_len + o.size);
	seen = calloc(o.count / 8 + 1, 1);
	st.bdelay = calloc(o.count + 1, sizeof(*st.bdelay));
	if (!buf || !seen || !st.bdelay) {
		perror("malloc");
		return 2;
	}
	fd = open_socket(&o, &lport);
	if (fd < 0)
		return 2;
	/* many senders start at one signal: launching them takes longer */
	if (o.ready) {
		FILE *f = fopen(o.ready, "w");
		int sig;

		if (!f || fclose(f)) {
			perror(o.ready);
			return 2;
		}
		while (sigwait(&usr1, &sig))
			;
	}

	if (o.start_at > 0) {
		uint64_t at = (uint64_t)(o.start_at * 1e9), now = now_ns(CLOCK_BOOTTIME);

		if (at > now)
			sleep_until(CLOCK_BOOTTIME, at);
		else
			st.late_start_ms = (double)(now - at) / 1e6;
	}
	if (o.rate)
		gap_ns = (uint64_t)o.burst * 1000000000ull / o.rate;

	t0 = now_ns(CLOCK_MONOTONIC);
	for (k = 0; seq < o.count; k++) {
		uint32_t i;

		if (gap_ns) {
			/* absolute targets: a late burst does not delay the rest */
			uint64_t at = t0 + k * gap_ns;

			drain(fd, &o, &st, seen);
			if (now_ns(CLOCK_MONOTONIC) < at)
				sleep_until(CLOCK_MONOTONIC, at);
		}
		for (i = 0; i < o.burst && seq < o.count; i++, seq++) {
			uint64_t now = now_ns(CLOCK_MONOTONIC), txtime = 0;

			if (o.txtime_lead_us)
				txtime = t0 + o.txtime_lead_us * 1000 +
					 seq * 1000000000ull / o.rate;
			build(buf, &o, seq, lport);
			shoal_put32(buf + SHOAL_OFF_WORD, (uint32_t)(now / 1000));
			stamp_deadline(buf, &o, now);
			send_one(fd, buf, o.hdr_len + o.size, txtime, &st);
		}
	}
	t_end = now_ns(CLOCK_MONOTONIC);
	drain(fd, &o, &st, seen);

	deadline = t_end + (uint64_t)o.wait_bounce_ms * 1000000ull;
	while (now_ns(CLOCK_MONOTONIC) < deadline) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		drain(fd, &o, &st, seen);
	}
	st.rx_dropped = rx_drops(fd);
	close(fd);

	dur = (double)(t_end - t0) / 1e9;
	pps = dur > 0 ? (double)st.sent / dur : 0;
	if (st.nbdelay) {
		qsort(st.bdelay, st.nbdelay, sizeof(*st.bdelay), cmp_u32);
		dmin = st.bdelay[0];
		dp50 = st.bdelay[st.nbdelay / 2];
		dmax = st.bdelay[st.nbdelay - 1];
	}

	fprintf(stderr, "shoal-blast id %u: sent %llu/%u in %.3f s (%.0f pps), "
		"%llu errors, %llu retries, %llu bounced%s%s\n",
		o.id, (unsigned long long)st.sent, o.count, dur, pps,
		(unsigned long long)st.send_errors, (unsigned long long)st.retries,
		(unsigned long long)st.bounced,
		st.bounce_invalid ? ", INVALID bounces" : "",
		st.rx_dropped ? ", RX DROPS" : "");
	if (st.send_errors)
		fprintf(stderr, "shoal-blast: last error: %s\n", strerror(st.last_errno));

	if (o.json && write_json(&o, &st, lport, t0, dur, pps,
				 (uint32_t[]){ dmin, dp50, dmax })) {
		perror(o.json);
		return 2;
	}
	return 0;
}
