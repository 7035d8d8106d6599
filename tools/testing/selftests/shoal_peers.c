// SPDX-License-Identifier: GPL-2.0
/*
 * shoal_peers: one server socket, thousands of peer hosts.
 *
 *	shoal_peers -C CLIENT_NS -S SERVER_NS -n N -p PORT [-P] [-t SECS]
 *		[-w WAVE]
 *
 * CLIENT_NS and SERVER_NS are network namespace files (/run/netns/X),
 * set up by tools/testing/scenarios/shoal-peers.sh: the client
 * namespace has the N addresses peer_addr(j), and a route to each server
 * address server_addr(j) whose source is peer_addr(j), so that client
 * socket j sends from a host of its own.  One process opens the server's
 * socket (SIRD, or PL2 with -P) in the server namespace and N client
 * sockets in the client namespace (a socket stays in the namespace it
 * was made in), then the clients send one request each, WAVE of them at
 * once (default: all), the next wave once the last is answered; the
 * server reads each and answers it, and each client reads its response.
 *
 * Checked: every request arrives once, intact, from the address of the
 * client that sent it and its port, marked a request; every response
 * arrives intact at its client, from the server's address the request
 * went to, with the request's id; no error report; all within -t SECS.
 * It prints, as "key value" lines for the scenario, the elapsed times,
 * the peaks of /sys/kernel/debug/shoal/objects' counts and of the
 * server namespace's SIRD peers (/proc/net/shoal/sird) while it ran, the
 * peers made there (peers + peers_freed), and the growth of the slab
 * caches (/proc/meminfo's Slab) at their peak.  TAP.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/shoal.h>

#include "../lib/shoal_selftest.h"
#include "../../lib/shoal_socket.h"

#define MAGIC		0x50eea5a1u
#define HDR		16	/* magic, index, length, kind */
#define BUF		65536
#define OBJ_KINDS	16

static int nr, port, proto = IPPROTO_SIRD, timeout_s = 60;
static char buf[BUF], ctl[256];

/* Client j's address, 10.1.x.y, and the server's address it sends to,
 * 10.2.x.y (tools/testing/scenarios/shoal-peers.sh makes the same)
 */
static uint32_t peer_addr(int j)
{
	return 0x0a010000u | ((j / 250) << 8) | (j % 250 + 1);
}

static uint32_t server_addr(int j)
{
	return 0x0a020000u | ((j / 250) << 8) | (j % 250 + 1);
}

/* sizes differ between peers: 1 to 6 packets */
static uint32_t req_len(int j)
{
	return HDR + 200 + (j * 997) % 7000;
}

static uint32_t resp_len(int j)
{
	return HDR + 8 + (j * 389) % 1500;
}

static uint8_t pat(int j, uint32_t i, int kind)
{
	return (uint8_t)(j * 31 + i * 13 + (i >> 9) + kind * 101);
}

static void fill(char *b, int j, uint32_t len, int kind)
{
	uint32_t h[4] = { MAGIC, (uint32_t)j, len, (uint32_t)kind }, i;

	memcpy(b, h, HDR);
	for (i = HDR; i < len; i++)
		b[i] = (char)pat(j, i, kind);
}

/* The message's index, or -1 when it is not whole and right */
static int check(const char *b, ssize_t n, int kind)
{
	uint32_t h[4], i;

	if (n < HDR)
		return -1;
	memcpy(h, b, HDR);
	if (h[0] != MAGIC || h[1] >= (uint32_t)nr || h[3] != (uint32_t)kind ||
	    h[2] != (uint32_t)n ||
	    h[2] != (kind ? resp_len(h[1]) : req_len(h[1])))
		return -1;
	for (i = HDR; i < (uint32_t)n; i++)
		if ((uint8_t)b[i] != pat(h[1], i, kind))
			return -1;
	return h[1];
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void enter(int nsfd, const char *what)
{
	if (setns(nsfd, CLONE_NEWNET)) {
		printf("Bail out! setns %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

/* ---- what the module holds ---- */

static const char *const obj_names[] = {
	"out_msgs", "in_msgs", "done_names", "send_errors", "sird_peers",
	"pl2_dsts", "pl2_bursts",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NOBJ		ARRAY_SIZE(obj_names)

static long obj_peak[NOBJ], srv_peers_peak, slab_base, slab_peak;

static long meminfo_slab(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The server namespace's SIRD receiver: its peers now and freed so far
 * (the thread must be in that namespace: /proc/net is its own)
 */
static bool sird_peers(long *peers, long *freed)
{
	char line[512], *p;
	FILE *f = fopen("/proc/net/shoal/sird", "r");
	bool got = false;

	*peers = *freed = -1;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "peers ");
		if (p && *peers < 0 && (p == line || p[-1] == ' '))
			*peers = strtol(p + 6, NULL, 10);
		p = strstr(line, "peers_freed ");
		if (p && *freed < 0)
			*freed = strtol(p + 12, NULL, 10);
	}
	fclose(f);
	got = *peers >= 0 && *freed >= 0;
	return got;
}

static void sample(bool in_server_ns)
{
	char line[128], name[64];
	long v, peers, freed;
	unsigned int i;
	FILE *f = fopen("/sys/kernel/debug/shoal/objects", "r");

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%63s %ld", name, &v) == 2)
				for (i = 0; i < NOBJ; i++)
					if (!strcmp(name, obj_names[i]) &&
					    v > obj_peak[i])
						obj_peak[i] = v;
		fclose(f);
	}
	v = meminfo_slab();
	if (v > slab_peak)
		slab_peak = v;
	if (in_server_ns && sird_peers(&peers, &freed) &&
	    peers > srv_peers_peak)
		srv_peers_peak = peers;
}

/* The namespace's counters that moved, on one line */
static void dump_stats(const char *label)
{
	char line[256], name[64], out[4096];
	unsigned long long v;
	size_t n = 0;
	FILE *f = fopen("/proc/net/shoal/stats", "r");

	if (!f)
		return;
	out[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", name, &v) == 2 && v &&
		    n < sizeof(out) - 80)
			n += snprintf(out + n, sizeof(out) - n, " %s %llu",
				      name, v);
	fclose(f);
	printf("# %s:%s\n", label, out);
}

/* error reports by errno: client's, server's */
static int errs[2][160];

static void note_err(int side, int e)
{
	errs[side][e > 0 && e < 160 ? e : 0]++;
}

static void print_errs(void)
{
	int side, e;

	for (side = 0; side < 2; side++)
		for (e = 0; e < 160; e++)
			if (errs[side][e])
				printf("# %s error reports: %d of %s\n",
				       side ? "server" : "client",
				       errs[side][e], strerror(e));
}

/* ---- the run ---- */

static void sin_of(struct sockaddr_in *s, uint32_t host, int p)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(p);
	s->sin_addr.s_addr = htonl(host);
}

static ssize_t recv_one(int fd, struct sockaddr_in *from,
			struct shoal_recv_info *info, int flags)
{
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = {
		.msg_name = from, .msg_namelen = sizeof(*from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t n;

	memset(info, 0, sizeof(*info));
	n = recvmsg(fd, &m, MSG_DONTWAIT | flags);
	if (n < 0)
		return n;
	if (m.msg_flags & MSG_TRUNC)
		return -2;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SHOAL &&
		    c->cmsg_type == SHOAL_CMSG_RECV)
			memcpy(info, CMSG_DATA(c), sizeof(*info));
	return n;
}

static ssize_t send_one(int fd, const struct sockaddr_in *to, uint32_t len,
			uint32_t flags, uint64_t reply_to, uint64_t *id)
{
	struct shoal_send_args a = {
		.flags = flags, .reply_to = reply_to,
		.id_addr = (uintptr_t)id,
	};
	char c[CMSG_SPACE(sizeof(a))] = { 0 };
	struct iovec iov = { buf, len };
	struct msghdr m = {
		.msg_name = (void *)to, .msg_namelen = sizeof(*to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c, .msg_controllen = sizeof(c),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SHOAL;
	cm->cmsg_type = SHOAL_CMSG_SEND;
	cm->cmsg_len = CMSG_LEN(sizeof(a));
	memcpy(CMSG_DATA(cm), &a, sizeof(a));
	return sendmsg(fd, &m, 0);
}

int main(int argc, char **argv)
{
	int opt, cns = -1, sns = -1, srv, j, k, *cfd, done_req = 0, wave = 0,
	    w0, w1,
	    done_resp = 0, bad = 0, errq = 0, dup = 0, fails = 0;
	bool pl2;
	uint64_t *req_id, *resp_seen, *req_seen;
	double t0, t_sent, t_reqs = 0, t_end, deadline, next_sample = 0;
	long peers, freed, peers0 = 0, freed0 = 0;
	struct shoal_recv_info info;
	struct sockaddr_in to, from;
	struct pollfd *pfd;
	struct rlimit rl;
	int rcvbuf = 64 << 20;
	ssize_t n;
	char firstbad[256] = "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "C:S:n:p:Pt:w:")) != -1) {
		switch (opt) {
		case 'C':
			cns = open(optarg, O_RDONLY);
			break;
		case 'S':
			sns = open(optarg, O_RDONLY);
			break;
		case 'n':
			nr = atoi(optarg);
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'P':
			proto = IPPROTO_PL2;
			break;
		case 't':
			timeout_s = atoi(optarg);
			break;
		case 'w':
			wave = atoi(optarg);
			break;
		default:
			printf("usage: %s -C NS -S NS -n N -p PORT [-P] [-t SECS] [-w WAVE]\n",
			       argv[0]);
			return 2;
		}
	}
	if (wave <= 0 || wave > nr)
		wave = nr;
	if (cns < 0 || sns < 0 || nr < 1 || nr > 62500 || port < 1) {
		printf("Bail out! usage: %s -C NS -S NS -n N -p PORT [-P] [-t SECS] [-w WAVE]\n",
		       argv[0]);
		return 2;
	}
	pl2 = proto == IPPROTO_PL2;
	proto = shoal_proto_number(pl2);
	rl.rlim_cur = nr + 64;
	rl.rlim_max = nr + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		printf("Bail out! RLIMIT_NOFILE %d: %s\n", nr + 64,
		       strerror(errno));
		return 1;
	}
	cfd = calloc(nr, sizeof(*cfd));
	req_id = calloc(nr, sizeof(*req_id));
	req_seen = calloc(nr, sizeof(*req_seen));
	resp_seen = calloc(nr, sizeof(*resp_seen));
	pfd = calloc(nr + 1, sizeof(*pfd));
	if (!cfd || !req_id || !req_seen || !resp_seen || !pfd) {
		printf("Bail out! no memory\n");
		return 1;
	}
	printf("# %s: %d peer hosts, one server socket, port %d\n",
	       pl2 ? "pl2" : "sird", nr,
	       port);
	slab_base = meminfo_slab();
	slab_peak = slab_base;

	enter(sns, "server");
	srv = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, proto);
	if (srv < 0 || setsockopt(srv, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				  sizeof(rcvbuf)) ||
	    setsockopt(srv, SOL_SOCKET, SO_SNDBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf))) {
		printf("Bail out! server socket: %s\n", strerror(errno));
		return 1;
	}
	sin_of(&to, INADDR_ANY, port);
	if (bind(srv, (struct sockaddr *)&to, sizeof(to))) {
		printf("Bail out! bind %d: %s\n", port, strerror(errno));
		return 1;
	}
	sird_peers(&peers0, &freed0);

	enter(cns, "client");
	for (j = 0; j < nr; j++) {
		cfd[j] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, proto);
		if (cfd[j] < 0) {
			printf("Bail out! client socket %d: %s\n", j,
			       strerror(errno));
			return 1;
		}
	}
	deadline = now_s() + timeout_s;
	for (j = 0; j < nr; j++) {
		pfd[j].fd = cfd[j];
		pfd[j].events = POLLIN;
	}
	pfd[nr].fd = srv;
	pfd[nr].events = POLLIN;
	t0 = now_s();
	for (w0 = 0; w0 < nr && now_s() < deadline; w0 = w1) {
		w1 = w0 + wave < nr ? w0 + wave : nr;
		t_sent = now_s();
		enter(cns, "client");
		for (j = w0; j < w1; j++) {
			fill(buf, j, req_len(j), 0);
			sin_of(&to, server_addr(j), port);
			if (send_one(cfd[j], &to, req_len(j), SHOAL_MSG_REQUEST, 0,
				     &req_id[j]) != (ssize_t)req_len(j)) {
				fails++;
				if (!firstbad[0])
					snprintf(firstbad, sizeof(firstbad),
						 "client %d: sendmsg: %s", j,
						 strerror(errno));
			}
		}
		enter(sns, "server");
		printf("# peers %d to %d: requests sent in %.2f s\n", w0, w1 - 1,
		       now_s() - t_sent);
		while (done_resp < w1 && now_s() < deadline) {
			if (now_s() >= next_sample) {
				sample(true);
				next_sample = now_s() + 0.05;
			}
			if (poll(pfd, nr + 1, 20) < 0)
				continue;
			/* the server: every request it has, answered at once */
			if (pfd[nr].revents & POLLERR)
				while (recv_one(srv, &from, &info, MSG_ERRQUEUE) >= 0) {
					note_err(1, info.error);
					if (!errq++)
						snprintf(firstbad, sizeof(firstbad),
							 "server: error report %d for %s",
							 info.error,
							 inet_ntoa(from.sin_addr));
				}
			while (pfd[nr].revents & POLLIN) {
				n = recv_one(srv, &from, &info, 0);
				if (n == -1) {
					if (errno != EAGAIN && !bad++)
						snprintf(firstbad, sizeof(firstbad),
							 "server recvmsg: %s",
							 strerror(errno));
					break;
				}
				k = check(buf, n, 0);
				if (k < 0 || info.flags != SHOAL_MSG_REQUEST ||
				    from.sin_addr.s_addr != htonl(peer_addr(k)) ||
				    info.id != req_id[k]) {
					if (!bad++)
						snprintf(firstbad, sizeof(firstbad),
							 "request %d of %zd bytes from %s, kind %u: not whole, not from its client or not its id",
							 k, n, inet_ntoa(from.sin_addr),
							 info.flags);
					continue;
				}
				if (req_seen[k]++) {
					dup++;
					continue;
				}
				if (++done_req == nr)
					t_reqs = now_s();
				fill(buf, k, resp_len(k), 1);
				if (send_one(srv, &from, resp_len(k),
					     SHOAL_MSG_RESPONSE, info.id, NULL) !=
				    (ssize_t)resp_len(k) && !fails++)
					snprintf(firstbad, sizeof(firstbad),
						 "response %d: sendmsg: %s", k,
						 strerror(errno));
			}
			/* the clients */
			for (j = 0; j < nr; j++) {
				while ((pfd[j].revents & POLLERR) &&
				       recv_one(cfd[j], &from, &info,
						MSG_ERRQUEUE) >= 0) {
					note_err(0, info.error);
					if (!errq++)
						snprintf(firstbad, sizeof(firstbad),
							 "client %d: error report %d",
							 j, info.error);
				}
				if (!(pfd[j].revents & POLLIN))
					continue;
				n = recv_one(cfd[j], &from, &info, 0);
				if (n == -1 && errno == EAGAIN)
					continue;
				k = check(buf, n, 1);
				if (k != j || info.flags != SHOAL_MSG_RESPONSE ||
				    info.id != req_id[j] ||
				    from.sin_addr.s_addr != htonl(server_addr(j)) ||
				    ntohs(from.sin_port) != port) {
					if (!bad++)
						snprintf(firstbad, sizeof(firstbad),
							 "client %d: response %d of %zd bytes from %s, kind %u",
							 j, k, n,
							 inet_ntoa(from.sin_addr),
							 info.flags);
					continue;
				}
				if (resp_seen[j]++)
					dup++;
				else
					done_resp++;
			}
		}
		printf("# peers %d to %d: %d responses read %.2f s after the first request\n",
		       w0, w1 - 1, done_resp, now_s() - t_sent);
	}
	t_end = now_s();
	sample(true);
	sird_peers(&peers, &freed);
	print_errs();
	dump_stats("server namespace");
	enter(cns, "client");
	dump_stats("client namespace");
	enter(sns, "server");

	printf("# all requests read by the server after %.2f s; all responses after %.2f s\n",
	       t_reqs ? t_reqs - t0 : -1.0, t_end - t0);
	printf("key elapsed_s %.2f\n", t_end - t0);
	printf("key requests %d\nkey responses %d\n", done_req, done_resp);
	for (k = 0; k < (int)NOBJ; k++)
		printf("key peak_%s %ld\n", obj_names[k], obj_peak[k]);
	printf("key server_peers_peak %ld\n", srv_peers_peak);
	printf("key server_peers_made %ld\n",
	       peers + freed - peers0 - freed0);
	printf("key server_peers_before %ld\n", peers0);
	printf("key server_peers_now %ld\n", peers);
	printf("key slab_growth_kb %ld\n", slab_peak - slab_base);

	tap(!fails, "every send taken (%d refused)%s%s", fails,
	    fails ? ": " : "", fails ? firstbad : "");
	tap(done_req == nr && !dup && !bad,
	    "the server read %d of %d requests, each once, whole and from its client's own address (%d damaged or misaddressed, %d twice)%s%s",
	    done_req, nr, bad, dup, bad ? ": " : "", bad ? firstbad : "");
	tap(done_resp == nr,
	    "every client read its response, whole, from the address it sent to, with its request's id: %d of %d in %.1f s (limit %d s)",
	    done_resp, nr, t_end - t0, timeout_s);
	tap(!errq, "no error report (%d)%s%s", errq, errq ? ": " : "",
	    errq ? firstbad : "");

	/* every socket closed: the module keeps only idle peers */
	close(srv);
	for (j = 0; j < nr; j++)
		close(cfd[j]);
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
