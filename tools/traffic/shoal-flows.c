// SPDX-License-Identifier: GPL-2.0
/*
 * shoal-flows - long-running TCP and UDP flows, goodput per flow in time
 * bins, for fairness and convergence tests of queueing disciplines.
 *
 *   shoal-flows recv --port P --json FILE [--bin-ms MS] [--idle-ms MS] ...
 *   shoal-flows send --dst ADDR --port P --id N [--flows K] [--udp RATE] ...
 *
 * Every flow starts with its 32-bit id (TCP: the first 4 bytes of the
 * stream; UDP: the first 4 bytes of every datagram).  The receiver counts
 * the bytes of each flow in bins of CLOCK_BOOTTIME, shared by every netns,
 * so bins of senders in different namespaces line up, and senders can be
 * told to start and stop at BOOTTIME instants (see /proc/uptime).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "flows-capture.h"
#include "json_writer.h"

#define MAX_FLOWS	16384
#define FLOW_HASH	65536	/* slots of the flow index, > 2 * MAX_FLOWS */
#define MAX_BINS	36000	/* an hour of 100 ms bins */
#define BUF_LEN		65536

struct opts {
	bool recv;
	int family;
	const char *dst;
	uint16_t port;
	uint32_t id;
	uint32_t flows;
	uint64_t udp_bps;	/* UDP sender rate, bits/s; 0 = TCP */
	uint32_t udp_size;
	bool poisson;		/* UDP: exponential gaps, not a fixed one */
	double start_at;	/* BOOTTIME seconds, 0 = now */
	double duration;	/* seconds of sending */
	const char *cc;
	const char *json;
	const char *ready;
	const char *capture;	/* count bytes from a capture on this device */
	uint32_t bin_ms;
	uint32_t idle_ms;
	double timeout;
};

struct flow {
	struct cap_tuple t;	/* capture: who sends it; else the id */
	uint32_t id;
	bool id_known;
	bool udp;
	bool seq_init;
	uint32_t tcp_end;	/* capture: highest TCP sequence seen, + 1 */
	uint64_t bytes;
	uint64_t first_bin, last_bin;
	uint64_t *bins;		/* nbins from first_bin, grown on demand */
	uint64_t nbins;
};

struct conn {
	int fd;
	struct cap_tuple peer;	/* capture mode: its flow in the capture */
	struct flow *f;		/* NULL until the id has arrived */
	uint8_t idbuf[4];
	uint32_t idlen;
};

static volatile sig_atomic_t stop;
static struct flow flows[MAX_FLOWS];
static unsigned int nflows;
static int32_t flow_index[FLOW_HASH];	/* open addressing, -1 = empty */
static uint64_t bin_ns;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until_boot(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / 1000000000ull),
		.tv_nsec = (long)(t % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL) == EINTR &&
	       !stop)
		;
}

static int make_addr(const struct opts *o, const char *host,
		     struct sockaddr_storage *ss, socklen_t *sl)
{
	memset(ss, 0, sizeof(*ss));
	if (o->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(o->port);
		if (host && inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -1;
		*sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(o->port);
		if (host && inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -1;
		*sl = sizeof(*s4);
	}
	return 0;
}

/* ---- receiver ---- */

static uint32_t tuple_hash(const struct cap_tuple *t)
{
	uint32_t h = 2166136261u;
	const uint8_t *p = (const uint8_t *)t;
	size_t i;

	for (i = 0; i < sizeof(*t); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The flow of tuple @t, created on first sight; NULL when the table is full */
static struct flow *flow_find(const struct cap_tuple *t, uint64_t t_ns)
{
	uint32_t h = tuple_hash(t) & (FLOW_HASH - 1);
	struct flow *f;

	for (; flow_index[h] >= 0; h = (h + 1) & (FLOW_HASH - 1))
		if (!memcmp(&flows[flow_index[h]].t, t, sizeof(*t)))
			return &flows[flow_index[h]];
	if (nflows == MAX_FLOWS)
		return NULL;
	f = &flows[nflows];
	*f = (struct flow){ .t = *t, .udp = t->proto == IPPROTO_UDP };
	f->first_bin = t_ns / bin_ns;
	flow_index[h] = (int32_t)nflows++;
	return f;
}

/* Socket mode: flows are known by their id */
static struct flow *flow_by_id(uint32_t id, bool udp)
{
	struct cap_tuple t = { .proto = udp ? IPPROTO_UDP : IPPROTO_TCP };
	struct flow *f;

	memcpy(t.saddr, &id, sizeof(id));
	f = flow_find(&t, boot_ns());
	if (f) {
		f->id = id;
		f->id_known = true;
	}
	return f;
}

static void flow_add(struct flow *f, uint64_t n, uint64_t t_ns)
{
	uint64_t b = t_ns / bin_ns;

	if (b < f->first_bin)	/* a stamp slightly older than the flow */
		b = f->first_bin;
	f->bytes += n;
	b -= f->first_bin;
	if (b >= MAX_BINS)
		return;
	if (b >= f->nbins) {
		uint64_t nb = b + 64;

		f->bins = realloc(f->bins, nb * sizeof(*f->bins));
		if (!f->bins) {
			perror("realloc");
			exit(2);
		}
		memset(f->bins + f->nbins, 0, (nb - f->nbins) * sizeof(*f->bins));
		f->nbins = nb;
	}
	f->bins[b] += n;
	if (b + f->first_bin > f->last_bin)
		f->last_bin = b + f->first_bin;
}

/* Capture mode: account one packet at its kernel receive time */
static void capture_one(const struct cap_pkt *k, uint64_t t_ns)
{
	struct flow *f = flow_find(&k->t, t_ns);
	uint32_t end = k->seq + k->payload;

	if (!f)
		return;
	if (f->udp) {
		if (k->has_id && !f->id_known) {
			f->id = k->id;
			f->id_known = true;
		}
		flow_add(f, k->payload, t_ns);
		return;
	}
	if (k->syn || !f->seq_init) {
		f->tcp_end = k->syn ? k->seq + 1 : k->seq;
		f->seq_init = true;
	}
	/* only bytes beyond the highest sequence so far are new */
	if ((int32_t)(end - f->tcp_end) > 0) {
		flow_add(f, end - f->tcp_end < k->payload ? end - f->tcp_end : k->payload,
			 t_ns);
		f->tcp_end = end;
	}
}

static void capture_read(int fd, uint16_t port)
{
	uint64_t off, t_real;
	struct cap_pkt k;
	struct timespec r;

	clock_gettime(CLOCK_REALTIME, &r);
	off = (uint64_t)r.tv_sec * 1000000000ull + (uint64_t)r.tv_nsec - boot_ns();
	while (cap_next(fd, port, &k, &t_real) > 0)
		capture_one(&k, t_real > off ? t_real - off : boot_ns());
}

/* The sender of a connection, as the capture sees it */
static void conn_peer(struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&c->peer, 0, sizeof(c->peer));
	if (getpeername(c->fd, (struct sockaddr *)&ss, &sl))
		return;
	c->peer.proto = IPPROTO_TCP;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		c->peer.family = 6;
		c->peer.sport = ntohs(s6->sin6_port);
		memcpy(c->peer.saddr, &s6->sin6_addr, 16);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		c->peer.family = 4;
		c->peer.sport = ntohs(s4->sin_port);
		memcpy(c->peer.saddr, &s4->sin_addr, 4);
	}
}

static int write_json(FILE *out, const struct opts *o)
{
	unsigned int i, unknown = 0;
	uint64_t b, nb;
	struct jw w;

	jw_init(&w, out);
	jw_obj(&w, NULL, JW_INLINE);
	jw_u64(&w, "bin_ms", o->bin_ms);
	jw_arr(&w, "flows", JW_LINES);
	for (i = 0; i < nflows; i++) {
		const struct flow *f = &flows[i];

		if (!f->id_known) {
			unknown++;
			continue;
		}
		nb = f->last_bin - f->first_bin + 1;
		if (nb > f->nbins)
			nb = f->nbins;
		jw_obj(&w, NULL, JW_INLINE);
		jw_u64(&w, "id", f->id);
		jw_str(&w, "proto", f->udp ? "udp" : "tcp");
		jw_u64(&w, "bytes", f->bytes);
		jw_num(&w, "first_bin_s", (double)(f->first_bin * bin_ns) / 1e9, 3);
		jw_arr(&w, "bins", JW_INLINE);
		for (b = 0; b < nb; b++)
			jw_u64(&w, NULL, f->bins[b]);
		jw_end(&w);
		jw_end(&w);
	}
	jw_end(&w);
	jw_u64(&w, "unknown_flows", unknown);
	jw_str(&w, "source", o->capture ? "capture" : "sockets");
	jw_end(&w);
	return jw_finish(&w);
}

static int listen_sockets(const struct opts *o, int *tfd, int *ufd)
{
	struct sockaddr_storage ss;
	int one = 1, rcv = 8 << 20;
	socklen_t sl;

	make_addr(o, NULL, &ss, &sl);
	*tfd = socket(o->family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	*ufd = socket(o->family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (*tfd < 0 || *ufd < 0) {
		perror("socket");
		return -1;
	}
	setsockopt(*tfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (setsockopt(*ufd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(*ufd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (bind(*tfd, (struct sockaddr *)&ss, sl) || listen(*tfd, 1024) ||
	    bind(*ufd, (struct sockaddr *)&ss, sl)) {
		perror("bind/listen");
		return -1;
	}
	return 0;
}

/* Read what one TCP connection has; false when it is finished.  In
 * capture mode only its id matters: it names the capture's flow.
 */
static bool conn_read(struct conn *c, uint8_t *buf, bool capture)
{
	ssize_t n;

	for (;;) {
		n = read(c->fd, buf, BUF_LEN);
		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (!c->f) {
			size_t take = (size_t)n < 4 - c->idlen ? (size_t)n : 4 - c->idlen;
			uint32_t id;

			memcpy(c->idbuf + c->idlen, buf, take);
			c->idlen += (uint32_t)take;
			if (c->idlen < 4)
				continue;
			memcpy(&id, c->idbuf, 4);
			id = ntohl(id);
			if (capture) {
				c->f = flow_find(&c->peer, boot_ns());
				if (c->f) {
					c->f->id = id;
					c->f->id_known = true;
				}
			} else {
				c->f = flow_by_id(id, false);
			}
			if (!c->f)
				return false;
			n -= (ssize_t)take;
		}
		if (!capture)
			flow_add(c->f, (uint64_t)n, boot_ns());
	}
}

static void udp_read(int fd, uint8_t *buf, bool capture)
{
	struct flow *f;
	uint32_t id;
	ssize_t n;

	while ((n = recv(fd, buf, BUF_LEN, 0)) >= 0) {
		if (capture || n < 4)
			continue;
		memcpy(&id, buf, 4);
		f = flow_by_id(ntohl(id), true);
		if (f)
			flow_add(f, (uint64_t)n, boot_ns());
	}
}

static int run_recv(const struct opts *o)
{
	static struct conn conns[MAX_FLOWS];
	static struct pollfd pf[MAX_FLOWS + 3];
	uint64_t t0 = boot_ns(), last = 0;
	unsigned int nconn = 0, i, fixed = 2;
	bool cap = o->capture;
	int tfd, ufd, cfd = -1, rc;
	uint8_t *buf = malloc(BUF_LEN);
	FILE *out;

	memset(flow_index, 0xff, sizeof(flow_index));
	if (!buf || listen_sockets(o, &tfd, &ufd))
		return 2;
	if (cap) {
		cfd = cap_open(o->capture);
		if (cfd < 0) {
			fprintf(stderr, "shoal-flows: cannot capture on %s: %s\n",
				o->capture, strerror(errno));
			return 2;
		}
		fixed = 3;
	}
	if (o->ready) {
		out = fopen(o->ready, "w");
		if (!out || fclose(out)) {
			perror(o->ready);
			return 2;
		}
	}
	while (!stop) {
		uint64_t now = boot_ns();
		int n;

		if (o->timeout > 0 && now - t0 > (uint64_t)(o->timeout * 1e9))
			break;
		if (last && o->idle_ms && now - last > o->idle_ms * 1000000ull)
			break;
		pf[0] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = ufd, .events = POLLIN };
		pf[2] = (struct pollfd){ .fd = cfd, .events = POLLIN };
		for (i = 0; i < nconn; i++)
			pf[i + fixed] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
		n = poll(pf, nconn + fixed, 100);
		if (n <= 0)
			continue;
		/* the capture sees every packet, also those of other traffic */
		if (pf[1].revents || (pf[0].revents & POLLIN))
			last = boot_ns();
		if (cap && pf[2].revents)
			capture_read(cfd, o->port);
		if (pf[0].revents) {
			int fd;

			while (nconn < MAX_FLOWS &&
			       (fd = accept4(tfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
				conns[nconn] = (struct conn){ .fd = fd };
				conn_peer(&conns[nconn++]);
			}
		}
		if (pf[1].revents)
			udp_read(ufd, buf, cap);
		for (i = 0; i < nconn; i++) {
			if (!pf[i + fixed].revents)
				continue;
			last = boot_ns();
			if (conn_read(&conns[i], buf, cap))
				continue;
			close(conns[i].fd);
			conns[i] = conns[--nconn];
			pf[i + fixed] = pf[nconn + fixed];
			i--;
		}
	}
	if (cap)
		capture_read(cfd, o->port);	/* what arrived before the end */
	for (i = 0; i < nconn; i++)
		close(conns[i].fd);
	out = o->json ? fopen(o->json, "w") : stdout;
	if (!out) {
		perror(o->json);
		return 2;
	}
	errno = EIO;
	rc = write_json(out, o);
	if ((out != stdout && fclose(out)) || rc || fflush(stdout)) {
		perror(o->json ? o->json : "stdout");
		return 2;
	}
	return 0;
}

/* ---- sender ---- */

static int tcp_connect(const struct opts *o, uint32_t id)
{
	struct sockaddr_storage ss;
	uint32_t nid = htonl(id);
	int fd, lowat = 16384;
	socklen_t sl;

	make_addr(o, o->dst, &ss, &sl);
	fd = socket(o->family, SOCK_STREAM, 0);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	if (o->cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o->cc,
				(socklen_t)strlen(o->cc))) {
		perror("TCP_CONGESTION");
		close(fd);
		return -1;
	}
	/* keep little unsent data in the socket: a flow that stops stops
	 * now, not when megabytes of buffered data have drained
	 */
	setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
	if (connect(fd, (struct sockaddr *)&ss, sl) ||
	    write(fd, &nid, 4) != 4) {
		perror("connect");
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int run_tcp(const struct opts *o, uint64_t t_end)
{
	struct pollfd pf[MAX_FLOWS];
	uint8_t *buf = calloc(1, BUF_LEN);
	uint32_t i;

	if (!buf)
		return 2;
	for (i = 0; i < o->flows; i++) {
		pf[i].fd = tcp_connect(o, o->id + i);
		pf[i].events = POLLOUT;
		if (pf[i].fd < 0)
			return 2;
	}
	while (!stop && boot_ns() < t_end) {
		if (poll(pf, o->flows, 50) <= 0)
			continue;
		/* a few writes per flow and turn, so all flows get the CPU
		 * and the end time is kept even when writes never block
		 */
		for (i = 0; i < o->flows; i++) {
			int w = 4;

			if (pf[i].revents & POLLOUT)
				while (w-- && write(pf[i].fd, buf, BUF_LEN) > 0)
					;
		}
	}
	/* abort: what is still in flight or buffered is not sent */
	for (i = 0; i < o->flows; i++) {
		struct linger l = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(pf[i].fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(pf[i].fd);
	}
	return 0;
}

/* Paced UDP: datagrams of udp_size on an absolute schedule, round robin
 * over the flows, one socket (source port) each; an unresponsive sender,
 * it never slows down.  The gaps are fixed, or with --poisson drawn from
 * an exponential distribution of the same mean: fixed gaps can lock into
 * step with a FIFO's departures, so that which sender finds the free slot
 * depends on the phase and not on the rates.  It sleeps at most once per
 * UDP_BATCH_NS (and every 64 datagrams) and then sends every datagram due
 * by the end of that window: a timer per datagram costs more than the
 * datagram on a slow guest, and a sender that falls behind its schedule
 * offers less than the test asked for.  It stops at the end of the run
 * whatever it has sent, and says on stderr how much of the schedule it
 * kept, so a test can tell an overloaded sender.
 */
#define UDP_BATCH_NS	1000000ull

static int run_udp(const struct opts *o, uint64_t t0, uint64_t t_end)
{
	uint64_t gap = (uint64_t)o->udp_size * 8 * 1000000000ull / o->udp_bps;
	uint64_t k, horizon = 0, late = 0, now = 0, at = t0, first = 0;
	unsigned short xs[3] = { (unsigned short)o->id, 0x5ca1, 0x1e55 };
	uint8_t *buf = calloc(1, o->udp_size);
	int *fds = calloc(o->flows, sizeof(int)), snd = 1 << 20;
	struct sockaddr_storage ss;
	socklen_t sl;
	uint32_t i;

	if (!buf || !fds)
		return 2;
	if (!gap)	/* as fast as it goes, but the schedule still ends */
		gap = 1;
	make_addr(o, o->dst, &ss, &sl);
	for (i = 0; i < o->flows; i++) {
		fds[i] = socket(o->family, SOCK_DGRAM, 0);
		if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&ss, sl)) {
			perror("udp socket");
			return 2;
		}
		if (setsockopt(fds[i], SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd)))
			setsockopt(fds[i], SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd));
	}
	for (k = 0; !stop; k++) {
		uint32_t f = (uint32_t)(k % o->flows), id = htonl(o->id + f);

		if (k)
			at += o->poisson ?
			      (uint64_t)(-log(1.0 - erand48(xs)) * (double)gap) :
			      gap;
		if (at >= t_end)
			break;
		/* a window may hold many datagrams at a high rate: look at
		 * the clock every 64 of them too
		 */
		if (at > horizon || !(k & 63)) {
			sleep_until_boot(at);
			now = boot_ns();
			if (now >= t_end)
				break;
			if (now > at + UDP_BATCH_NS && now - at > late)
				late = now - at;
			horizon = now + UDP_BATCH_NS;
			if (!k)
				first = now;
		}
		memcpy(buf, &id, 4);
		send(fds[f], buf, o->udp_size, 0);	/* drops are the point */
	}
	/* the time it really sent for: it may start late (opening many
	 * sockets) and stops at the end of the run
	 */
	now = boot_ns();
	fprintf(stderr,
		"shoal-flows: udp id %u: sent %llu of %llu datagrams scheduled (%.1f%%), at most %.1f ms late, for %.3f s\n",
		o->id, (unsigned long long)k,
		(unsigned long long)((t_end - t0 + gap - 1) / gap),
		100.0 * (double)k * (double)gap / (double)(t_end - t0),
		(double)late / 1e6,
		(double)((now < t_end ? now : t_end) - (first ? first : now)) / 1e9);
	for (i = 0; i < o->flows; i++)
		close(fds[i]);
	return 0;
}

static int run_send(const struct opts *o)
{
	uint64_t t0 = boot_ns();
	FILE *f;

	if (o->ready) {
		f = fopen(o->ready, "w");
		if (!f || fclose(f)) {
			perror(o->ready);
			return 2;
		}
	}
	if (o->start_at > 0) {
		t0 = (uint64_t)(o->start_at * 1e9);
		sleep_until_boot(t0);
	}
	if (o->udp_bps)
		return run_udp(o, t0, t0 + (uint64_t)(o->duration * 1e9));
	return run_tcp(o, t0 + (uint64_t)(o->duration * 1e9));
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: shoal-flows recv --port P [--json FILE] [options]\n"
"       shoal-flows send --dst ADDR --port P [options]\n"
"common:\n"
"  -6                 IPv6\n"
"  --port P           TCP and UDP port (default 5500)\n"
"  --ready FILE       create FILE once set up\n"
"recv:\n"
"  --json FILE        per-flow bytes and bins as JSON (default stdout)\n"
"  --capture DEV      count bytes when they arrive on DEV (AF_PACKET, kernel\n"
"                     time stamps; TCP counted once), not when read\n"
"  --bin-ms MS        bin width (default 100)\n"
"  --idle-ms MS       stop MS ms after the last data (default 3000)\n"
"  --timeout S        stop after S seconds in any case\n"
"send:\n"
"  --dst ADDR         receiver address\n"
"  --id N             first flow id (default 1)\n"
"  --flows K          K flows with ids N..N+K-1 (default 1)\n"
"  --duration S       seconds of sending (default 10)\n"
"  --start-at SEC     start at this CLOCK_BOOTTIME time (see /proc/uptime)\n"
"  --cc NAME          TCP congestion control (default: the system's)\n"
"  --udp BITS         paced UDP at BITS per second instead of TCP\n"
"  --size BYTES       UDP datagram payload (default 1400)\n"
"  --poisson          UDP: exponential gaps of the same mean (Poisson arrivals)\n");
}

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "ready", required_argument, NULL, 'R' },
	{ "json", required_argument, NULL, 'j' },
	{ "capture", required_argument, NULL, 'C' },
	{ "bin-ms", required_argument, NULL, 'b' },
	{ "idle-ms", required_argument, NULL, 'I' },
	{ "timeout", required_argument, NULL, 't' },
	{ "dst", required_argument, NULL, 'd' },
	{ "id", required_argument, NULL, 'i' },
	{ "flows", required_argument, NULL, 'k' },
	{ "duration", required_argument, NULL, 'D' },
	{ "start-at", required_argument, NULL, 'S' },
	{ "cc", required_argument, NULL, 'c' },
	{ "udp", required_argument, NULL, 'u' },
	{ "size", required_argument, NULL, 's' },
	{ "poisson", no_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int parse_num(const char *s, double max, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end == s || *end || *v < 0 || *v > max ? -1 : 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	double v;
	int c;

	if (argc < 2 || (strcmp(argv[1], "recv") && strcmp(argv[1], "send"))) {
		usage(stderr);
		return -1;
	}
	o->recv = !strcmp(argv[1], "recv");
	optind = 2;
	while ((c = getopt_long(argc, argv, "6h", long_opts, NULL)) != -1) {
		switch (c) {
		case '6':
			o->family = AF_INET6;
			continue;
		case 'h':
			usage(stdout);
			exit(0);
		case 'R':
			o->ready = optarg;
			continue;
		case 'j':
			o->json = optarg;
			continue;
		case 'C':
			o->capture = optarg;
			continue;
		case 'P':
			o->poisson = true;
			continue;
		case 'd':
			o->dst = optarg;
			continue;
		case 'c':
			o->cc = optarg;
			continue;
		case '?':
			usage(stderr);
			return -1;
		}
		if (parse_num(optarg, 1e12, &v))
			goto bad;
		switch (c) {
		case 'p':
			if (v < 1 || v > 65535)
				goto bad;
			o->port = (uint16_t)v;
			break;
		case 'b':
			if (v < 1)
				goto bad;
			o->bin_ms = (uint32_t)v;
			break;
		case 'I':
			o->idle_ms = (uint32_t)v;
			break;
		case 't':
			o->timeout = v;
			break;
		case 'i':
			o->id = (uint32_t)v;
			break;
		case 'k':
			if (v < 1 || v > MAX_FLOWS)
				goto bad;
			o->flows = (uint32_t)v;
			break;
		case 'D':
			o->duration = v;
			break;
		case 'S':
			o->start_at = v;
			break;
		case 'u':
			o->udp_bps = (uint64_t)v;
			break;
		case 's':
			if (v < 4 || v > 65000)
				goto bad;
			o->udp_size = (uint32_t)v;
			break;
		}
	}
	if (optind != argc || (!o->recv && !o->dst)) {
		usage(stderr);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "shoal-flows: bad value '%s'\n", optarg);
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.family = AF_INET, .port = 5500, .id = 1, .flows = 1,
		.udp_size = 1400, .duration = 10, .bin_ms = 100, .idle_ms = 3000,
	};
	struct sigaction sa;
	struct rlimit rl;

	if (parse_opts(argc, argv, &o))
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	bin_ns = (uint64_t)o.bin_ms * 1000000ull;
	/* a socket per flow */
	rl.rlim_cur = rl.rlim_max = MAX_FLOWS + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) && o.flows > 900)
		perror("setrlimit(RLIMIT_NOFILE)");
	return o.recv ? run_recv(&o) : run_send(&o);
}
