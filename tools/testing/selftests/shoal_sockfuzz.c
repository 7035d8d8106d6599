// SPDX-License-Identifier: GPL-2.0
/*
 * shoal_sockfuzz: random sequences of socket calls with random arguments
 * on shoal.ko's sockets (include/uapi/linux/shoal.h).
 *
 *	shoal_sockfuzz [-n] [-t] [OPS [SEED]]
 *
 * OPS calls (default 5000) from SEED (default: one from the clock,
 * printed first).  With -n it runs in a network namespace of its own
 * with lo up (root), so that nothing else shares its ports; with -t a
 * second thread makes calls on the same sockets at once (chaos()).
 *
 * A pool of up to POOL descriptors of SIRD and PL2 sockets, IPv4 and
 * IPv6, takes random calls: socket, bind, connect, listen/accept,
 * getsockname/getpeername, setsockopt/getsockopt (SOL_SOCKET, SOL_IP,
 * SOL_IPV6, SOL_SHOAL, others), sendmsg/sendto (to bound sockets of the
 * pool, so that messages flow, to itself, to ports and hosts where no
 * socket is), recvmsg/recvfrom (MSG_ERRQUEUE, MSG_TRUNC, tiny buffers),
 * poll, ioctl, shutdown, close and dup.  Arguments are valid or carry
 * faults: bad pointers (NULL, low, an unmapped page, a kernel address, a
 * buffer running into an unmapped page), short and long lengths, wrong
 * families, bad flags and control messages.  Nothing blocks: receives
 * and sends use MSG_DONTWAIT or a non-blocking descriptor, poll waits a
 * few milliseconds, and a watchdog fails a call that takes WATCHDOG_S.
 *
 * Each call's result is judged (judge()): a fault the call checks before
 * anything else ("early": a bad flag, address, length, control message,
 * a bad iovec array) allows only its own errno values; a fault found
 * while the data is copied ("late") allows its errno or the errno values
 * of a good call (EAGAIN when nothing is queued), never success; a call
 * without faults allows success and its own errno values (the sets
 * below, and in Documentation/testing.md).  Whatever else it returns, a
 * success with a fault, or a length out of range, prints the seed, the
 * operation's index and the call, and fails the run.
 *
 * Every message carries its sequence number, length, ports, kind and a
 * pattern, so that a receiver checks each one it reads: whole (or cut
 * where its buffer ended, with MSG_TRUNC), from the port that sent it,
 * to its own port, with SHOAL_CMSG_RECV's kind and id, and once.
 *
 * At the end it prints per call kind the calls, successes and each
 * errno value; checks that the paths it claims were reached (successes
 * and the named errno values per kind, messages verified, error-queue
 * reports); closes every socket and checks that shoal.ko's object
 * counts (/sys/kernel/debug/shoal/objects) return to 0, but for
 * sird_peers, which a namespace keeps a few of until it goes.  TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/sockios.h>
#include <linux/shoal.h>

#define POOL		12	/* descriptors at most */
#define WATCHDOG_S	20	/* a call taking longer fails the run */
#define PORT_BASE	20000	/* bind()'s ports: PORT_BASE .. + PORT_SPAN */
#define PORT_SPAN	48
#define PORT_NOWHERE	21000	/* ports no socket of the pool binds */
#define HDR		32	/* the message header below */
#define MAGIC		0x5346a7e1u
#define BUF_MAX		(512 * 1024)
#define NERR		192	/* errno values counted one by one */
#define MAX_FAIL_LINES	40

/* the kernel's, which libc does not all name */
#ifndef MSG_PROBE
#define MSG_PROBE	0x10
#endif
#ifndef MSG_SPLICE_PAGES
#define MSG_SPLICE_PAGES 0x8000000	/* internal: sendmsg() drops it */
#endif
#ifndef MSG_CMSG_COMPAT
#define MSG_CMSG_COMPAT	0x80000000
#endif
#ifndef SOL_UDP
#define SOL_UDP		17
#endif

/* ---- random numbers: xorshift64*, from the seed ---- */

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int pct)
{
	return rn(100) < pct;
}

/* one of the @n values at @a */
static int pick_int(const int *a, unsigned int n)
{
	return a[rn(n)];
}

static uint32_t pick_u32(const uint32_t *a, unsigned int n)
{
	return a[rn(n)];
}

static size_t pick_size(const size_t *a, unsigned int n)
{
	return a[rn(n)];
}

static sa_family_t pick_fam(const sa_family_t *a, unsigned int n)
{
	return a[rn(n)];
}

/* ---- call kinds and their counts ---- */

enum kind {
	K_SOCKET, K_BIND, K_CONNECT, K_LISTEN, K_GETNAME, K_SETSOCKOPT,
	K_GETSOCKOPT, K_SENDMSG, K_SENDTO, K_RECVMSG, K_RECVFROM, K_POLL,
	K_IOCTL, K_SHUTDOWN, K_CLOSE, K_DUP, K_SENDMMSG, K_RECVMMSG, K_MAX
};

static const char *const kind_name[K_MAX] = {
	"socket", "bind", "connect", "listen/accept", "getname",
	"setsockopt", "getsockopt", "sendmsg", "sendto", "recvmsg",
	"recvfrom", "poll", "ioctl", "shutdown", "close", "dup", "sendmmsg",
	"recvmmsg",
};

/*
 * The paths each kind must have reached for the run to pass: "ok" is a
 * success, the rest errno names.  A run of the default length reaches
 * each many times (each is a few percent of its kind's calls at least).
 */
static const char *const kind_paths[K_MAX] = {
	[K_SOCKET] = "ok EINVAL ESOCKTNOSUPPORT|EPROTONOSUPPORT",
	[K_BIND] = "ok EINVAL EFAULT EADDRINUSE EAFNOSUPPORT",
	[K_CONNECT] = "EOPNOTSUPP EFAULT",
	[K_LISTEN] = "EOPNOTSUPP",
	[K_GETNAME] = "ok ENOTCONN EFAULT EINVAL",
	[K_SETSOCKOPT] = "ok EINVAL EFAULT ENOPROTOOPT",
	[K_GETSOCKOPT] = "ok EINVAL EFAULT ENOPROTOOPT",
	[K_SENDMSG] = "ok EINVAL EFAULT EMSGSIZE EOPNOTSUPP EDESTADDRREQ EAFNOSUPPORT ENOBUFS",
	[K_SENDTO] = "ok EINVAL EFAULT EMSGSIZE",
	[K_RECVMSG] = "ok EAGAIN EFAULT EOPNOTSUPP EINVAL",
	[K_RECVFROM] = "ok EAGAIN EOPNOTSUPP",
	[K_POLL] = "ok EFAULT",
	[K_IOCTL] = "ok ENOTTY ENOENT EFAULT",
	[K_SHUTDOWN] = "EOPNOTSUPP",
	[K_CLOSE] = "ok",
	[K_DUP] = "ok",
	[K_SENDMMSG] = "ok EINVAL",
	[K_RECVMMSG] = "ok EAGAIN",
};

struct kstat {
	unsigned long calls, ok, err[NERR];
};

static struct kstat kstats[K_MAX];

/* ---- what a call may return ---- */

struct eset {
	uint64_t w[NERR / 64];
};

static void eset_add(struct eset *s, int e)
{
	if (e > 0 && e < NERR)
		s->w[e / 64] |= 1ULL << (e % 64);
}

static bool eset_has(const struct eset *s, int e)
{
	return e > 0 && e < NERR && (s->w[e / 64] >> (e % 64)) & 1;
}

/*
 * An early fault allows only its own errno values; a late one adds its
 * values to the call's own and forbids success; base is what a call
 * without faults may return besides success (base_ok).
 */
struct expect {
	struct eset early, late, base;
	int nearly, nlate;
	bool base_ok;
	char faults[160];
};

static void e_init(struct expect *e, bool base_ok, ...)
{
	va_list ap;
	int v;

	memset(e, 0, sizeof(*e));
	e->base_ok = base_ok;
	va_start(ap, base_ok);
	while ((v = va_arg(ap, int)))
		eset_add(&e->base, v);
	va_end(ap);
}

static void e_note(struct expect *e, const char *what)
{
	size_t n = strlen(e->faults);

	snprintf(e->faults + n, sizeof(e->faults) - n, "%s%s",
		 n ? "," : "", what);
}

/* e_early(e, what, errno..., 0) */
static void e_early(struct expect *e, const char *what, ...)
{
	va_list ap;
	int v;

	va_start(ap, what);
	while ((v = va_arg(ap, int)))
		eset_add(&e->early, v);
	va_end(ap);
	e->nearly++;
	e_note(e, what);
}

static void e_late(struct expect *e, const char *what, ...)
{
	va_list ap;
	int v;

	va_start(ap, what);
	while ((v = va_arg(ap, int)))
		eset_add(&e->late, v);
	va_end(ap);
	e->nlate++;
	e_note(e, what);
}

/* ---- the run ---- */

static unsigned long long seed;
static bool chaos_on;
static unsigned long op_idx, nops;
static unsigned long failures;
static int proto_num[2] = { IPPROTO_SIRD, IPPROTO_PL2 };
static const char *const proto_name[2] = { "sird", "pl2" };
static unsigned long max_msg_len = 32 << 20;

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	failures++;
	if (failures <= MAX_FAIL_LINES) {
		printf("# FAIL seed %llu op %lu: ", seed, op_idx);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		fflush(stdout);
	}
	pthread_mutex_unlock(&out_lock);
}

static const char *ename(int e)
{
	static char buf[24];

	if (e <= 0)
		return "ok";
	switch (e) {
#define N(x) case x: return #x
	N(EPERM); N(ENOENT); N(ESRCH); N(EINTR); N(EIO); N(ENXIO);
	N(EBADF); N(EAGAIN); N(ENOMEM); N(EACCES); N(EFAULT); N(EBUSY);
	N(EEXIST); N(EXDEV); N(ENODEV); N(EINVAL); N(ENFILE); N(EMFILE);
	N(ENOTTY); N(ENOSPC); N(EPIPE); N(EDOM); N(ERANGE); N(ENODATA);
	N(ENOPROTOOPT); N(EPROTONOSUPPORT); N(ESOCKTNOSUPPORT);
	N(EOPNOTSUPP); N(EAFNOSUPPORT); N(EADDRINUSE); N(EADDRNOTAVAIL);
	N(ENOBUFS); N(ENOTCONN); N(EDESTADDRREQ); N(EMSGSIZE);
	N(ECONNREFUSED); N(ECONNRESET); N(ETIMEDOUT); N(EALREADY);
	N(ENOTSOCK); N(EPROTOTYPE); N(EISCONN); N(ENOSYS); N(ENOLINK);
#undef N
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/*
 * Count the call and judge its result against @e; @ret < 0 is a failure
 * with @err.  True when the result was one @e allows.
 */
static bool judge(enum kind k, long ret, int err, struct expect *e,
		  const char *call)
{
	struct kstat *ks = &kstats[k];
	struct eset allowed;
	bool ok_allowed;
	int i;

	ks->calls++;
	if (ret >= 0)
		ks->ok++;
	else
		ks->err[err > 0 && err < NERR ? err : 0]++;
	if (e->nearly) {
		allowed = e->early;
		ok_allowed = false;
	} else {
		allowed = e->base;
		for (i = 0; i < NERR / 64; i++)
			allowed.w[i] |= e->late.w[i];
		ok_allowed = e->base_ok && !e->nlate;
	}
	if (ret >= 0 && !ok_allowed) {
		fail("%s [faults: %s] succeeded (returned %ld)", call,
		     e->faults, ret);
		return false;
	}
	if (ret < 0 && !eset_has(&allowed, err)) {
		fail("%s [faults: %s] failed with %s, not a value it may give",
		     call, e->faults[0] ? e->faults : "none", ename(err));
		return false;
	}
	return true;
}

/* ---- the pool ---- */

struct fsock {			/* one socket, under one or more descriptors */
	int refs;
	int family, pi;		/* AF_INET or AF_INET6; 0 SIRD, 1 PL2 */
	int port;		/* bound port, 0: none yet */
	bool nonblock;
	unsigned long sends_ok, reads_ok, errq_reads, reqs_ok;
};

/* requests read, to answer */
#define NREQ 8
static struct {
	int s;			/* sock that read it */
	struct sockaddr_storage from;
	socklen_t fromlen;
	uint64_t id;
	bool valid;
} reqs[NREQ];

static struct fsock socks[POOL];
static struct { int fd, s; } slots[POOL];

/* what flowed */
static unsigned long n_peer_sends, n_verified, n_trunc, n_short,
	n_errq, n_errq_by[4], n_lost_fault, n_req_read, n_rpc_resp, n_poll_in,
	n_reserve[2];
static uint8_t *seq_state;	/* 1 sent, 2 read */
static uint32_t next_seq = 1;

/* buffers */
static char *sendbuf, *recvbuf, *ctlbuf, *none_page, *edge_page;
static long page;

#define KERNEL_PTR	((void *)0xffff888000000000UL)

/* A bad pointer, and whether access_ok() refuses it at once (a kernel
 * address) or only the copy faults (user addresses)
 */
static size_t bad_room;		/* bytes readable at the last edge pointer */

static void *bad_ptr(bool *kernel, const char **what)
{
	*kernel = false;
	bad_room = 0;
	switch (rn(5)) {
	case 0:
		*what = "NULL";
		return NULL;
	case 1:
		*what = "low";
		return (void *)16;
	case 2:
		*what = "unmapped";
		return none_page;
	case 3:
		*what = "kernel";
		*kernel = true;
		return KERNEL_PTR;
	default:
		*what = "edge";
		bad_room = 1 + rn(8);
		return edge_page + page - bad_room;
	}
}

static int pick_slot(void)
{
	int i, n = 0, pick[POOL];

	for (i = 0; i < POOL; i++)
		if (slots[i].fd >= 0)
			pick[n++] = i;
	return n ? pick[rn(n)] : -1;
}

static int free_slot(void)
{
	int i;

	for (i = 0; i < POOL; i++)
		if (slots[i].fd < 0)
			return i;
	return -1;
}

static bool port_held(int port)
{
	int i;

	for (i = 0; i < POOL; i++)
		if (socks[i].refs && socks[i].port == port)
			return true;
	return false;
}

/* The port the kernel says the socket has (uncounted) */
static void refresh_port(int sl)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct fsock *so = &socks[slots[sl].s];

	if (getsockname(slots[sl].fd, (struct sockaddr *)&ss, &len))
		return;
	so->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void slot_close(int sl)
{
	struct fsock *so = &socks[slots[sl].s];

	int i;

	if (--so->refs == 0) {
		so->port = 0;
		for (i = 0; i < NREQ; i++)	/* its requests are gone */
			if (reqs[i].s == slots[sl].s)
				reqs[i].valid = false;
	}
	slots[sl].fd = -1;
	slots[sl].s = -1;
}

/* ---- addresses ---- */

struct addr {
	struct sockaddr_storage ss;
	char past[128];		/* what a long addrlen names past ss */
	socklen_t len;
};

static void addr4(struct addr *a, uint32_t host, int port)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

	memset(a, 0, sizeof(*a));
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	s4->sin_addr.s_addr = htonl(host);
	a->len = sizeof(*s4);
}

static void addr6(struct addr *a, const struct in6_addr *host, int port)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

	memset(a, 0, sizeof(*a));
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	s6->sin6_addr = *host;
	a->len = sizeof(*s6);
}

static void addr6_mapped(struct addr *a, uint32_t host, int port)
{
	struct in6_addr in6 = { 0 };

	in6.s6_addr[10] = 0xff;
	in6.s6_addr[11] = 0xff;
	memcpy(&in6.s6_addr[12], &(uint32_t){ htonl(host) }, 4);
	addr6(a, &in6, port);
}

/* An address of socket family @fam's peer at 127.0.0.1 or ::1 (or
 * v4-mapped): one the peer of family @peer_fam hears
 */
static void addr_loop(struct addr *a, int fam, int peer_fam, int port)
{
	if (fam == AF_INET6 && peer_fam == AF_INET6 && chance(60)) {
		addr6(a, &in6addr_loopback, port);
		return;
	}
	if (fam == AF_INET6 && chance(50))
		addr6_mapped(a, INADDR_LOOPBACK, port);
	else
		addr4(a, INADDR_LOOPBACK, port);
}

/* ---- messages ---- */

static uint8_t pat(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + (i >> 8));
}

static void put32(char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * A message of @len bytes: magic, seq, len, sport, dport, flags, and
 * reply_to (bytes 0..31), then pattern; one shorter than the header is
 * pattern of seq 0 only
 */
static void msg_fill(char *b, uint32_t len, uint32_t seq, int sport,
		     int dport, uint32_t flags, uint64_t reply_to)
{
	uint32_t i, from = 0;

	if (len >= HDR) {
		put32(b, MAGIC);
		put32(b + 4, seq);
		put32(b + 8, len);
		put32(b + 12, (uint32_t)sport << 16 | (uint16_t)dport);
		put32(b + 16, flags);
		put32(b + 20, 0);
		memcpy(b + 24, &reply_to, 8);
		from = HDR;
	} else {
		seq = 0;
	}
	for (i = from; i < len; i++)
		b[i] = (char)pat(seq, i);
}

static uint32_t msg_len_pick(void)
{
	unsigned int r = rn(100);

	if (r < 35)
		return 1 + rn(64);
	if (r < 65)
		return 65 + rn(4000);
	if (r < 90)
		return 4000 + rn(70000);
	return 70000 + rn(330000);
}

/* ---- calls ---- */

static void op_socket(void)
{
	int sl = free_slot(), fam, pi, type, fd, i;
	struct expect e;
	char call[128];

	if (sl < 0)
		return;
	fam = chance(50) ? AF_INET : AF_INET6;
	pi = rn(2);
	type = SOCK_DGRAM;
	if (chance(50))
		type |= SOCK_NONBLOCK;
	if (chance(30))
		type |= SOCK_CLOEXEC;
	e_init(&e, true, ENOMEM, ENOBUFS, 0);
	/* a failed socket() runs modprobe twice: not too often */
	switch (rn(16)) {
	case 0:
		type = (type & ~SOCK_DGRAM) | SOCK_STREAM;
		e_early(&e, "stream", EPROTONOSUPPORT, ESOCKTNOSUPPORT, 0);
		break;
	case 1:
		type = (type & ~SOCK_DGRAM) | SOCK_SEQPACKET;
		e_early(&e, "seqpacket", EPROTONOSUPPORT, ESOCKTNOSUPPORT,
			0);
		break;
	case 2:
		type |= chance(50) ? 0x100 << rn(3) : 0x1000 << rn(4);
		e_early(&e, "type flags", EINVAL, 0);
		break;
	}
	snprintf(call, sizeof(call), "socket(%s, %#x, %s)",
		 fam == AF_INET ? "AF_INET" : "AF_INET6", type, proto_name[pi]);
	fd = socket(fam, type, proto_num[pi]);
	if (!judge(K_SOCKET, fd, errno, &e, call) || fd < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < POOL; i++)
		if (!socks[i].refs)
			break;
	memset(&socks[i], 0, sizeof(socks[i]));
	socks[i].refs = 1;
	socks[i].family = fam;
	socks[i].pi = pi;
	socks[i].nonblock = type & SOCK_NONBLOCK;
	slots[sl].fd = fd;
	slots[sl].s = i;
}

static void op_close(int sl)
{
	struct expect e;
	char call[64];
	int r;

	e_init(&e, true, 0);
	snprintf(call, sizeof(call), "close(%d)", slots[sl].fd);
	r = close(slots[sl].fd);
	judge(K_CLOSE, r, errno, &e, call);
	slot_close(sl);
}

static void op_dup(int sl)
{
	int to = free_slot(), fd, fd2;
	struct expect e;
	char call[64];

	e_init(&e, true, EMFILE, 0);
	snprintf(call, sizeof(call), "dup(%d)", slots[sl].fd);
	fd = dup(slots[sl].fd);
	if (!judge(K_DUP, fd, errno, &e, call) || fd < 0)
		return;
	if (to >= 0 && chance(50)) {	/* a second descriptor */
		slots[to].fd = fd;
		slots[to].s = slots[sl].s;
		socks[slots[sl].s].refs++;
		return;
	}
	/* the socket lives on in its copy */
	e_init(&e, true, 0);
	snprintf(call, sizeof(call), "close(%d) after dup", slots[sl].fd);
	fd2 = close(slots[sl].fd);
	judge(K_CLOSE, fd2, errno, &e, call);
	slots[sl].fd = fd;
}

/*
 * An address argument for bind/connect/send: the family's own (@a) or a
 * fault.  Returns the pointer and length to pass; faults into @e.
 * @sendto: a length above sockaddr_storage is refused (sendmsg cuts it).
 */
static void *addr_arg(struct expect *e, struct addr *a, int fam,
		      socklen_t *len, bool for_send, bool sendto_call)
{
	const char *what;
	bool kernel;
	int min;

	*len = a->len;
	min = a->ss.ss_family == AF_INET ? sizeof(struct sockaddr_in) : 24;
	switch (chance(25) ? rn(7) : 7) {
	case 0:
		*len = rn(2);
		e_early(e, "addrlen<2", for_send ? EDESTADDRREQ : EINVAL, 0);
		return a;
	case 1:
		*len = 2 + rn(min - 2);
		e_early(e, "short addrlen", EINVAL, 0);
		return a;
	case 2:
		*len = sizeof(struct sockaddr_storage) + 1 + rn(64);
		if (!for_send || sendto_call)
			e_early(e, "addrlen>128", EINVAL, 0);
		return a;
	case 3:
		*len = a->len + rn(sizeof(struct sockaddr_storage) - a->len);
		return a;	/* longer than the family's: fine */
	case 4:
		*len = a->len ? a->len : 16;
		/* a send's NULL name is no name */
		e_early(e, "bad addr ptr", EFAULT, for_send ? EDESTADDRREQ : 0,
			0);
		return bad_ptr(&kernel, &what);
	case 5:
		a->ss.ss_family = pick_fam((const sa_family_t[]){
			AF_UNSPEC, AF_UNIX,
			AF_PACKET, AF_NETLINK, 0x7777 }, 5);
		e_early(e, "wrong family", EAFNOSUPPORT, 0);
		return a;
	case 6:
		if (fam == AF_INET) {
			addr6(a, &in6addr_loopback,
			      ntohs(((struct sockaddr_in *)&a->ss)->sin_port));
			e_early(e, "v6 addr on v4 socket", EAFNOSUPPORT, 0);
			*len = a->len;
		}
		return a;
	default:
		return a;
	}
}

static void op_bind(int sl)
{
	struct fsock *so;
	int fam, port, r, i;
	struct expect e;
	struct addr a;
	char call[160];
	socklen_t len;
	void *p;

	/* most sockets took a port with their first send: an unbound one,
	 * if there is one, more often than not
	 */
	for (i = 0, r = rn(POOL); i < POOL && chance(70); i++)
		if (slots[(r + i) % POOL].fd >= 0 &&
		    !socks[slots[(r + i) % POOL].s].port) {
			sl = (r + i) % POOL;
			break;
		}
	so = &socks[slots[sl].s];
	fam = so->family;
	switch (rn(7)) {
	case 0:
		port = 0;
		break;
	case 6:
		/* another socket's, if one has one of PORT_BASE's */
		port = PORT_BASE + rn(PORT_SPAN);
		for (i = 0, r = rn(POOL); i < POOL; i++)
			if (socks[(r + i) % POOL].refs &&
			    socks[(r + i) % POOL].port) {
				port = socks[(r + i) % POOL].port;
				break;
			}
		break;
	case 1:
		port = 900 + rn(124);	/* root may */
		break;
	case 2:
		port = 65535;
		break;
	default:
		port = PORT_BASE + rn(PORT_SPAN);
	}
	if (fam == AF_INET6 && chance(60)) {
		if (chance(50))
			addr6(&a, &in6addr_any, port);
		else
			addr6(&a, &in6addr_loopback, port);
	} else {
		/* the address is ignored: any of them */
		addr4(&a, chance(50) ? INADDR_ANY : (uint32_t)rnd(), port);
	}
	e_init(&e, true, 0);
	if (so->port)
		e_late(&e, "bound", EINVAL, 0);
	else if (port && port_held(port))
		e_late(&e, "port in use", EADDRINUSE, 0);
	if (chance(3)) {
		p = NULL;
		len = 0;
		e_early(&e, "NULL, 0", EINVAL, 0);
	} else if (chance(3)) {
		p = &a;
		len = -1 - rn(4);
		e_early(&e, "negative addrlen", EINVAL, 0);
	} else {
		p = addr_arg(&e, &a, fam, &len, false, false);
	}
	snprintf(call, sizeof(call), "bind(%d, port %d, len %d) %s %s",
		 slots[sl].fd, port, (int)len, proto_name[so->pi],
		 fam == AF_INET ? "v4" : "v6");
	r = bind(slots[sl].fd, p, len);
	if (!judge(K_BIND, r, errno, &e, call) || r)
		return;
	refresh_port(sl);
	if ((port && so->port != port) ||
	    (!port && (so->port < 32768 || so->port > 65535)))
		fail("%s: bound port %d", call, so->port);
}

static void op_connect(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	struct expect e;
	struct addr a;
	char call[128];
	socklen_t len;
	void *p;
	int r;

	const char *what;
	bool kernel;

	addr_loop(&a, so->family, so->family, PORT_BASE + rn(PORT_SPAN));
	e_init(&e, false, 0);
	/* sock_no_connect(): whatever the address, once it is read */
	e_late(&e, "connect", EOPNOTSUPP, 0);
	p = &a;
	len = a.len;
	switch (rn(8)) {
	case 0:
		((struct sockaddr *)&a.ss)->sa_family = AF_UNSPEC;
		break;
	case 1:
		len = rn(a.len);	/* short: not looked at */
		break;
	case 2:
		len = sizeof(struct sockaddr_storage) + 1 + rn(64);
		e_early(&e, "addrlen>128", EINVAL, 0);
		break;
	case 3:
		len = -1 - rn(10);
		e_early(&e, "negative addrlen", EINVAL, 0);
		break;
	case 4:
		p = bad_ptr(&kernel, &what);
		if (len > bad_room)
			e_early(&e, "bad addr ptr", EFAULT, 0);
		break;
	}
	snprintf(call, sizeof(call), "connect(%d, len %d)", slots[sl].fd,
		 (int)len);
	r = connect(slots[sl].fd, p, len);
	judge(K_CONNECT, r, errno, &e, call);
}

static void op_listen(int sl)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct expect e;
	char call[64];
	int r, sv[2];

	e_init(&e, false, 0);
	e_late(&e, "listen/accept", EOPNOTSUPP, 0);
	switch (rn(3)) {
	case 0:
		snprintf(call, sizeof(call), "listen(%d)", slots[sl].fd);
		r = listen(slots[sl].fd, rn(3) ? 16 : -1);
		break;
	case 1:
		snprintf(call, sizeof(call), "accept4(%d)", slots[sl].fd);
		r = accept4(slots[sl].fd, chance(50) ? (void *)&ss : NULL,
			    &len, SOCK_NONBLOCK);
		if (r >= 0)
			close(r);
		break;
	default:
		snprintf(call, sizeof(call), "socketpair(%s)",
			 proto_name[socks[slots[sl].s].pi]);
		r = socketpair(socks[slots[sl].s].family, SOCK_DGRAM,
			       proto_num[socks[slots[sl].s].pi], sv);
		if (r == 0) {
			close(sv[0]);
			close(sv[1]);
		}
	}
	judge(K_LISTEN, r, errno, &e, call);
}

static void op_getname(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), given, *lp = &len;
	bool peer = chance(40), kernel;
	const char *what = "";
	struct expect e;
	char call[128];
	void *p = &ss;
	int r, want;

	e_init(&e, true, 0);
	switch (peer ? 8 : rn(8)) {
	case 0:
		len = rn(8);	/* truncated: the full length comes back */
		break;
	case 1:
		len = -1 - rn(100);
		e_early(&e, "negative len", EINVAL, 0);
		break;
	case 2:
		lp = bad_ptr(&kernel, &what);
		if (bad_room)
			lp = (socklen_t *)(edge_page + page - 2);
		e_early(&e, "bad len ptr", EFAULT, 0);
		break;
	case 8:
		/* inet_getname() refuses before anything is read */
		if (chance(30))
			lp = bad_ptr(&kernel, &what);
		e_early(&e, "not connected", ENOTCONN, 0);
		break;
	case 3:
		p = bad_ptr(&kernel, &what);	/* no room for a name */
		e_late(&e, "bad addr ptr", EFAULT, 0);
		break;
	}
	given = len;
	memset(&ss, 0xa5, sizeof(ss));
	snprintf(call, sizeof(call), "%s(%d, len %d%s%s)",
		 peer ? "getpeername" : "getsockname", slots[sl].fd,
		 (int)given, what[0] ? ", " : "", what);
	r = peer ? getpeername(slots[sl].fd, p, lp) :
		   getsockname(slots[sl].fd, p, lp);
	if (!judge(K_GETNAME, r, errno, &e, call) || r || p != &ss)
		return;
	want = so->family == AF_INET ? sizeof(struct sockaddr_in) :
				       sizeof(struct sockaddr_in6);
	if ((int)len != want)
		fail("%s: length %d, not %d", call, (int)len, want);
	if (given >= 4 &&
	    (ss.ss_family != so->family ||
	     (so->port && ntohs(((struct sockaddr_in *)&ss)->sin_port) !=
	      so->port)))
		fail("%s: family %d port %d, not %d %d", call, ss.ss_family,
		     ntohs(((struct sockaddr_in *)&ss)->sin_port), so->family,
		     so->port);
}

/* ---- socket options ---- */

static int opt_level(int fam)
{
	switch (rn(20)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		return SOL_SOCKET;
	case 6: case 7: case 8: case 9:
		return SOL_IP;
	case 10: case 11: case 12: case 13:
		return SOL_IPV6;
	case 14: case 15: case 16:
		return SOL_SHOAL;
	case 17:
		return IPPROTO_UDP;
	case 18:
		return IPPROTO_TCP;
	default:
		return rn(400);
	}
	(void)fam;
}

static int opt_value(void)
{
	static const int edge[] = { 0, 1, -1, 2, 0x7fffffff, (int)0x80000000,
		65535, 65536, 1 << 20, 4096, 255, 256 };

	if (chance(60))
		return edge[rn(sizeof(edge) / sizeof(edge[0]))];
	return chance(50) ? (int)rn(100) : (int)rnd();
}

static int opt_len(void)
{
	static const int lens[] = { 0, 1, 2, 3, 4, 4, 4, 5, 7, 8, 8, 12, 16,
		20, 24, 32, 64, 100, 4096 };

	return lens[rn(sizeof(lens) / sizeof(lens[0]))];
}

/* Options that would break the run if set to random values: none of
 * them is Shoal's own, and each is exercised by its own tests
 */
static bool opt_skip(int level, int name)
{
	if (level == SOL_IP || level == SOL_IPV6)
		return name >= 64;	/* netfilter, multicast routing */
	return false;
}

/* Errno values a set/getsockopt may give at the IP, IPv6 and socket
 * levels: the core's and the IP layers' (as for UDP)
 */
static void opt_generic(struct expect *e)
{
	static const int errs[] = { EINVAL, ENOPROTOOPT, EFAULT, EOPNOTSUPP,
		EPERM, ENOMEM, ENOBUFS, EADDRNOTAVAIL, ENODEV, ENOENT, EBUSY,
		EDOM, ERANGE, EACCES, ENOTCONN, EALREADY, EBADF, ENOSPC,
		EMSGSIZE, ENXIO, EADDRINUSE, ENODATA };
	unsigned int i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		eset_add(&e->base, errs[i]);
}

static void op_setsockopt(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	int level = opt_level(so->family), name, len, r, v;
	const char *what = "";
	struct expect e;
	char call[160];
	bool kernel;
	char *p;

	do {
		name = level == SOL_SHOAL ? (int)rn(4) : (int)rn(80);
	} while (opt_skip(level, name));
	/* the socket options a Shoal socket acts on, more often */
	if (level == SOL_SOCKET && chance(40))
		name = pick_int((const int[]){
			SO_RCVBUF, SO_SNDBUF, SO_RCVBUFFORCE,
			SO_SNDBUFFORCE, SO_RESERVE_MEM, SO_TIMESTAMP_OLD,
			SO_TIMESTAMPNS_OLD, SO_TIMESTAMP_NEW, SO_TIMESTAMPNS_NEW,
			SO_TIMESTAMPING_OLD, SO_RCVTIMEO_OLD, SO_SNDTIMEO_OLD,
			SO_RCVLOWAT, SO_PEEK_OFF, SO_ZEROCOPY,
			SO_BINDTODEVICE }, 16);
	if (level == SOL_IPV6 && chance(20))
		name = IPV6_V6ONLY;
	len = opt_len();
	if (chance(50))
		len = sizeof(int);
	p = ctlbuf;
	v = opt_value();
	memset(p, 0, 4096);
	if (chance(30))
		for (r = 0; r < 64; r++)
			p[r] = (char)rnd();
	memcpy(p, &v, 4);
	if (level == SOL_SOCKET && name == SO_BINDTODEVICE && chance(50))
		strcpy(p, chance(50) ? "lo" : "nosuchdev0");
	e_init(&e, true, 0);
	if (chance(12)) {
		p = bad_ptr(&kernel, &what);
		if (!len)
			len = 4;
	}
	if (level == SOL_SHOAL) {
		e_early(&e, "SOL_SHOAL has no option to set", ENOPROTOOPT, 0);
	} else if (level != SOL_SOCKET && level != SOL_IP &&
		   !(level == SOL_IPV6 && so->family == AF_INET6)) {
		e_early(&e, "not a level of this socket", ENOPROTOOPT, 0);
	} else if (level == SOL_SOCKET && name != SO_BINDTODEVICE &&
		   len < (int)sizeof(int)) {
		e_early(&e, "optlen < int", EINVAL, 0);
	} else if (level == SOL_SOCKET && p != ctlbuf && what[0] != 'e') {
		e_early(&e, "bad optval", EFAULT, 0);
	} else {
		opt_generic(&e);
	}
	if (chance(3)) {
		len = -1 - rn(100);
		e_early(&e, "negative optlen", EINVAL, 0);
	}
	snprintf(call, sizeof(call),
		 "setsockopt(%d, level %d, opt %d, val %d%s%s, len %d) %s",
		 slots[sl].fd, level, name, v, what[0] ? " at " : "", what,
		 len, so->family == AF_INET ? "v4" : "v6");
	r = setsockopt(slots[sl].fd, level, name, p, len);
	if (level == SOL_SOCKET && name == SO_RESERVE_MEM)
		n_reserve[r == 0]++;
	judge(K_SETSOCKOPT, r, errno, &e, call);
}

/* SHOAL_SOCK_STATS against what the run did on this socket */
static void stats_check(struct fsock *so, const struct shoal_sock_stats *st,
			const char *call)
{
	/* a request is acknowledged, and fails later if its response
	 * never comes (ECONNRESET, ETIMEDOUT): counted in both
	 */
	if (st->tx_msgs != so->sends_ok ||
	    st->tx_acked + st->tx_failed > st->tx_msgs + so->reqs_ok ||
	    st->tx_queued > st->tx_msgs || st->rx_msgs < so->reads_ok ||
	    st->tx_failed < so->errq_reads)
		fail("%s: tx_msgs %llu (sent %lu) acked %llu failed %llu (read %lu) queued %u, rx_msgs %llu (read %lu)",
		     call, (unsigned long long)st->tx_msgs, so->sends_ok,
		     (unsigned long long)st->tx_acked,
		     (unsigned long long)st->tx_failed, so->errq_reads,
		     st->tx_queued, (unsigned long long)st->rx_msgs,
		     so->reads_ok);
}

static void op_getsockopt(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	int level = opt_level(so->family), name, r, v;
	socklen_t len, given, *lp = &len;
	const char *what = "", *lwhat = "";
	struct expect e;
	char call[160];
	bool kernel;
	char *p = ctlbuf;

	do {
		name = (int)rn(80);
	} while (opt_skip(level, name));
	if (level == SOL_SHOAL && chance(70))
		name = SHOAL_SOCK_STATS;
	if (level == SOL_SOCKET && chance(30))
		name = pick_int((const int[]){
			SO_TYPE, SO_PROTOCOL, SO_DOMAIN, SO_ERROR,
			SO_RCVBUF, SO_SNDBUF }, 6);
	len = opt_len();
	if (level == SOL_SHOAL && chance(50))
		len = sizeof(struct shoal_sock_stats) - 8 + rn(24);
	e_init(&e, true, 0);
	if (chance(8)) {
		lp = bad_ptr(&kernel, &lwhat);
		if (lwhat[0] == 'e')
			lp = (socklen_t *)(edge_page + page - 2);
	}
	if (chance(8))
		p = bad_ptr(&kernel, &what);
	if (chance(5))
		len = -1 - rn(100);
	given = len;
	memset(ctlbuf, 0x5a, 256);
	if (level == SOL_SHOAL && name != SHOAL_SOCK_STATS) {
		e_early(&e, "no such SOL_SHOAL option", ENOPROTOOPT, 0);
	} else if (level != SOL_SOCKET && level != SOL_IP &&
		   level != SOL_SHOAL &&
		   !(level == SOL_IPV6 && so->family == AF_INET6)) {
		/* ip_getsockopt() says EOPNOTSUPP, ipv6_getsockopt()
		 * ENOPROTOOPT (as for UDP)
		 */
		e_early(&e, "not a level of this socket", ENOPROTOOPT,
			EOPNOTSUPP, 0);
	} else if (lp != &len) {
		e_early(&e, "bad optlen ptr", EFAULT, 0);
	} else if ((int)len < 0 && level != SOL_IPV6) {
		/* ipv6_getsockopt() leaves it to each option, and most
		 * take it for a large one (as for UDPv6)
		 */
		e_early(&e, "negative optlen", EINVAL, 0);
	} else if (level == SOL_SHOAL) {
		if (p != ctlbuf && len > (socklen_t)bad_room)
			e_early(&e, "bad optval", EFAULT, 0);
	} else {
		opt_generic(&e);
	}
	snprintf(call, sizeof(call),
		 "getsockopt(%d, level %d, opt %d, len %d%s%s%s%s) %s",
		 slots[sl].fd, level, name, (int)given, what[0] ? ", val " : "",
		 what, lwhat[0] ? ", len at " : "", lwhat,
		 so->family == AF_INET ? "v4" : "v6");
	r = getsockopt(slots[sl].fd, level, name, p, lp);
	if (!judge(K_GETSOCKOPT, r, errno, &e, call) || r || lp != &len)
		return;
	if ((int)given >= 0 && len > given)
		fail("%s: returned length %u > %u", call, len, given);
	if (level == SOL_SHOAL) {
		if (len != (given < sizeof(struct shoal_sock_stats) ? given :
			    sizeof(struct shoal_sock_stats)))
			fail("%s: returned length %u", call, len);
		else if (p == ctlbuf && len == sizeof(struct shoal_sock_stats))
			stats_check(so, (struct shoal_sock_stats *)p, call);
		return;
	}
	if (level != SOL_SOCKET || p != ctlbuf || len != sizeof(int))
		return;
	memcpy(&v, p, sizeof(v));
	if ((name == SO_TYPE && v != SOCK_DGRAM) ||
	    (name == SO_PROTOCOL && v != proto_num[so->pi]) ||
	    (name == SO_DOMAIN && v != so->family) ||
	    (name == SO_ERROR && (v < 0 || v >= NERR)))
		fail("%s: value %d", call, v);
}

/* ---- sending ---- */

/* MSG_BATCH: what sendmmsg() passes on every message but its last */
static const int send_ok_flags = MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR |
	MSG_BATCH;

/* A destination: a bound socket of the pool (*peer its index), itself,
 * a port with no socket, a host with no route, broadcast or multicast
 */
static void send_dest(struct fsock *so, struct addr *a, int *peer)
{
	int i, n = 0, pick[POOL];
	struct in6_addr h6 = { .s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };

	*peer = -1;
	for (i = 0; i < POOL; i++)
		if (socks[i].refs && socks[i].port &&
		    (socks[i].family == AF_INET6 || so->family == AF_INET ||
		     chance(50)))
			pick[n++] = i;
	switch (rn(20)) {
	case 0: case 1:
		addr_loop(a, so->family, AF_INET,
			  PORT_NOWHERE + rn(64));
		return;
	case 2:
		if (so->family == AF_INET6 && chance(50))
			addr6(a, &h6, 7000);
		else
			addr4(a, 0xc0000201, 7000);	/* 192.0.2.1 */
		return;
	case 3:
		addr4(a, chance(50) ? 0xffffffff : 0xe0000001, 7000);
		return;
	}
	if (!n) {
		addr_loop(a, so->family, AF_INET, PORT_NOWHERE + rn(64));
		return;
	}
	*peer = pick[rn(n)];
	addr_loop(a, so->family, socks[*peer].family, socks[*peer].port);
}

static void op_send(int sl, bool use_sendto)
{
	struct fsock *so = &socks[slots[sl].s];
	struct shoal_send_args args = { 0 };
	struct iovec iov[8], *iovp = iov;
	uint64_t id = 0, reply_to = 0;
	const char *what = "";
	uint32_t len, seq = 0;
	int peer, flags, niov = 1, dport, i, ri = -1;
	size_t ctllen = 0, off;
	struct cmsghdr *c;
	struct msghdr m;
	struct expect e;
	struct addr a;
	char call[256];
	void *name, *ctl = NULL, *buf = sendbuf;
	socklen_t namelen;
	bool kernel, with_args = false;
	ssize_t r;
	int err;

	e_init(&e, true, EAGAIN, ENOMEM, 0);
	send_dest(so, &a, &peer);
	/* a response to a request read, now and then */
	if (!use_sendto && chance(60)) {
		for (i = 0; i < NREQ; i++)
			if (reqs[i].valid && reqs[i].s == slots[sl].s)
				break;
		if (i < NREQ) {
			ri = i;
			peer = -1;
			memcpy(&a.ss, &reqs[i].from, reqs[i].fromlen);
			a.len = reqs[i].fromlen;
		}
	}
	dport = ntohs(((struct sockaddr_in *)&a.ss)->sin_port);
	name = addr_arg(&e, &a, so->family, &namelen, true, use_sendto);
	if (chance(3)) {
		name = NULL;
		namelen = 0;
		e_early(&e, "no name", EDESTADDRREQ, 0);
	}
	if (!use_sendto && chance(2)) {
		namelen = -1;
		e_early(&e, "negative namelen", EINVAL, 0);
	}
	if (chance(4)) {
		((struct sockaddr_in *)&a.ss)->sin_port = 0;
		if (name == &a && a.ss.ss_family == AF_INET &&
		    namelen >= sizeof(struct sockaddr_in))
			e_early(&e, "port 0", EINVAL, 0);
		else if (name == &a && a.ss.ss_family == AF_INET6 &&
			 namelen >= 24)
			e_early(&e, "port 0", EINVAL, 0);
	} else if (chance(3) && name == &a && namelen >= 24 &&
		   a.ss.ss_family == AF_INET6) {
		memset(&((struct sockaddr_in6 *)&a.ss)->sin6_addr, 0, 16);
		e_early(&e, "address any", EINVAL, 0);
	}

	len = msg_len_pick();
	if (chance(4)) {
		len = 0;
		e_early(&e, "length 0", EINVAL, 0);
	} else if (chance(4)) {
		len = max_msg_len + 1 + rn(1 << 20);
		e_early(&e, "over max_msg_len", EMSGSIZE, 0);
	}
	flags = 0;
	if (!so->nonblock || chance(50))
		flags |= MSG_DONTWAIT;
	if (chance(20))
		flags |= rn(2) ? MSG_NOSIGNAL : MSG_EOR;
	if (chance(8)) {
		int bad = pick_int((const int[]){
			MSG_OOB, MSG_PEEK, MSG_DONTROUTE, MSG_MORE,
			MSG_CONFIRM, MSG_PROBE, MSG_FASTOPEN, MSG_ZEROCOPY,
			MSG_TRUNC, MSG_ERRQUEUE, MSG_WAITALL, MSG_BATCH,
			(int)(1u << rn(31)) }, 13);

		flags |= bad;
		/* the syscalls drop MSG_SPLICE_PAGES, kernel-internal */
		if (bad & ~(send_ok_flags | MSG_SPLICE_PAGES))
			e_early(&e, "send flag", EOPNOTSUPP, 0);
	}
	if (chance(2)) {
		flags |= MSG_CMSG_COMPAT;
		if (!use_sendto)
			e_early(&e, "MSG_CMSG_COMPAT", EINVAL, 0);
	}
	/* the control message */
	if (!use_sendto && (ri >= 0 || chance(40))) {
		with_args = true;
		ctl = ctlbuf;
		ctllen = CMSG_SPACE(sizeof(args));
		memset(ctlbuf, 0, ctllen);
		if (ri >= 0) {
			args.flags = SHOAL_MSG_RESPONSE;
			args.reply_to = reqs[ri].id;
		} else {
			args.flags = pick_u32((const uint32_t[]){
				0, SHOAL_MSG_REQUEST,
				SHOAL_MSG_RESPONSE }, 3);
			if (args.flags == SHOAL_MSG_RESPONSE)
				args.reply_to = rnd();
		}
		reply_to = args.reply_to;
		if (chance(50))
			args.id_addr = (uintptr_t)&id;
		c = (struct cmsghdr *)ctlbuf;
		c->cmsg_level = SOL_SHOAL;
		c->cmsg_type = SHOAL_CMSG_SEND;
		c->cmsg_len = CMSG_LEN(sizeof(args));
		switch (rn(30)) {
		case 0:
			c->cmsg_level = pick_int((const int[]){
				SOL_SOCKET, SOL_IP, SOL_IPV6,
				SOL_UDP }, 4);
			if (c->cmsg_level == SOL_SOCKET)
				c->cmsg_type = SCM_RIGHTS;
			e_early(&e, "cmsg level", EINVAL, 0);
			break;
		case 1:
			c->cmsg_type = (int)rn(10) + 2;
			e_early(&e, "cmsg type", EINVAL, 0);
			break;
		case 2:
			c->cmsg_len = CMSG_LEN(sizeof(args)) - 1 - rn(8);
			e_early(&e, "cmsg_len", EINVAL, 0);
			break;
		case 3:
			c->cmsg_len = ctllen + 1 + rn(64);
			e_early(&e, "cmsg_len > controllen", EINVAL, 0);
			break;
		case 4:
			args.rsvd = 1 + rn(100);
			e_early(&e, "rsvd", EINVAL, 0);
			break;
		case 5:
			args.flags = chance(50) ? 3 : 4u << rn(28);
			e_early(&e, "args flags", EINVAL, 0);
			break;
		case 6:
			args.id_addr = (uintptr_t)bad_ptr(&kernel, &what);
			if (!args.id_addr) {
				args.id_addr = 8;
				what = "low";
			}
			if (what[0] == 'e')
				args.id_addr = (uintptr_t)(edge_page + page - 4);
			e_early(&e, "id_addr", EFAULT, 0);
			break;
		case 7:
			/* a second control message, a good one */
			memcpy(CMSG_DATA(c), &args, sizeof(args));
			c = (struct cmsghdr *)(ctlbuf + ctllen);
			memcpy(c, ctlbuf, ctllen);
			ctllen *= 2;
			break;
		case 8:
			ctllen = 1 + rn(sizeof(struct cmsghdr) - 1);
			with_args = false;	/* no header fits: none */
			break;
		case 9:
			ctl = bad_ptr(&kernel, &what);
			e_early(&e, "control ptr", EFAULT, 0);
			break;
		case 10:
			ctllen = chance(50) ? 0x80000000UL + rn(100) :
					      200000 + rn(100000);
			e_early(&e, "controllen", ENOBUFS, 0);
			break;
		}
		memcpy(CMSG_DATA(c), &args, sizeof(args));
		if (c != (struct cmsghdr *)ctlbuf)	/* the second one */
			memcpy(CMSG_DATA((struct cmsghdr *)ctlbuf), &args,
			       sizeof(args));
	}
	/* the data */
	if (len && len <= BUF_MAX) {
		seq = next_seq < nops * 2 + 2 ? next_seq++ : 0;
		msg_fill(sendbuf, len, seq, so->port,
			 peer >= 0 ? socks[peer].port : 0,
			 with_args ? args.flags : 0, reply_to);
	}
	if (len > BUF_MAX && len <= max_msg_len) {
		len = BUF_MAX;
		seq = next_seq < nops * 2 + 2 ? next_seq++ : 0;
		msg_fill(sendbuf, len, seq, so->port,
			 peer >= 0 ? socks[peer].port : 0,
			 with_args ? args.flags : 0, reply_to);
	}
	if (chance(6)) {
		buf = bad_ptr(&kernel, &what);
		if (len <= bad_room) {	/* it fits: a good buffer */
			buf = sendbuf;
			what = "";
		} else if (len && kernel)
			e_early(&e, "bad buffer", EFAULT, 0);
		else if (len)
			e_late(&e, "bad buffer", EFAULT, 0);
		if (!buf && len > max_msg_len)
			buf = (void *)4096;
	}
	iov[0].iov_base = buf;
	iov[0].iov_len = len;
	if (!use_sendto && buf == sendbuf && len > 1 && chance(25)) {
		/* the same bytes over several iovecs, some empty */
		niov = 2 + rn(7);
		for (i = 0, off = 0; i < niov; i++) {
			size_t n = i == niov - 1 ? len - off :
				   rn(3) ? rn(len - off + 1) : 0;

			iov[i].iov_base = sendbuf + off;
			iov[i].iov_len = n;
			off += n;
		}
	}
	if (!use_sendto && chance(2)) {
		niov = 1025 + rn(100);
		iovp = (struct iovec *)recvbuf;	/* zeroed below */
		memset(recvbuf, 0, niov * sizeof(*iovp));
		iovp[0] = iov[0];
		e_early(&e, "iovlen > UIO_MAXIOV", EMSGSIZE, 0);
	} else if (!use_sendto && chance(2)) {
		iovp = bad_ptr(&kernel, &what);
		e_early(&e, "iov array", EFAULT, 0);
	}
	snprintf(call, sizeof(call),
		 "%s(%d, len %u, flags %#x, namelen %d%s%s, ctl %zu) %s %s to port %d%s",
		 use_sendto ? "sendto" : "sendmsg", slots[sl].fd, len, flags,
		 (int)namelen, what[0] ? ", bad ptr " : "", what, ctllen,
		 proto_name[so->pi], so->family == AF_INET ? "v4" : "v6",
		 dport, peer >= 0 ? " (pool)" : "");
	if (use_sendto) {
		r = sendto(slots[sl].fd, buf, len, flags, name, namelen);
	} else {
		memset(&m, 0, sizeof(m));
		m.msg_name = name;
		m.msg_namelen = namelen;
		m.msg_iov = iovp;
		m.msg_iovlen = niov;
		m.msg_control = ctl;
		m.msg_controllen = ctllen;
		r = sendmsg(slots[sl].fd, &m, flags);
	}
	err = errno;
	if (!so->port)
		refresh_port(sl);	/* a send may take one */
	if (ri >= 0 && (r >= 0 || err != EAGAIN))
		reqs[ri].valid = false;
	if (!judge(use_sendto ? K_SENDTO : K_SENDMSG, r, err, &e, call) ||
	    r < 0)
		return;
	if ((size_t)r != len) {
		fail("%s: returned %zd", call, r);
		return;
	}
	so->sends_ok++;
	if (with_args && args.flags == SHOAL_MSG_REQUEST)
		so->reqs_ok++;
	if (seq)
		seq_state[seq] = 1;
	if (peer >= 0)
		n_peer_sends++;
	if (ri >= 0)
		n_rpc_resp++;
	if (with_args && args.id_addr == (uintptr_t)&id &&
	    (!id || (args.flags == SHOAL_MSG_RESPONSE && id != args.reply_to)))
		fail("%s: id %#llx written (reply_to %#llx)", call,
		     (unsigned long long)id,
		     (unsigned long long)args.reply_to);
}

/* ---- receiving ---- */

static const int errq_errs[4] = {
	ECONNREFUSED, EMSGSIZE, ETIMEDOUT, ECONNRESET
};

static const int recv_ok_flags = MSG_DONTWAIT | MSG_TRUNC | MSG_ERRQUEUE |
	MSG_WAITALL | MSG_CMSG_CLOEXEC;

/* Check what recvmsg() returned into @buf (@blen bytes asked, @n
 * returned; @mflags its msg_flags, -1 when recvfrom() does not say) of a
 * message from @from (NULL: not known)
 */
static void recv_verify(int sl, const char *call, const char *buf,
			size_t blen, ssize_t n, int rflags, int mflags,
			const struct sockaddr_storage *from,
			const struct shoal_recv_info *info)
{
	struct fsock *so = &socks[slots[sl].s];
	size_t got = (size_t)n < blen ? (size_t)n : blen, i;
	uint32_t seq = 0, mlen, ports, flags;
	bool whole, trunc_known = mflags != -1;
	uint64_t reply_to;

	so->reads_ok++;
	if (n < (blen ? 1 : 0) || (!(rflags & MSG_TRUNC) && (size_t)n > blen)) {
		fail("%s: returned %zd for a buffer of %zu", call, n, blen);
		return;
	}
	/* with MSG_TRUNC asked, n is the message's length */
	if ((rflags & MSG_TRUNC) && trunc_known &&
	    !!(mflags & MSG_TRUNC) != ((size_t)n > blen))
		fail("%s: %zd bytes into %zu, msg_flags %#x", call, n, blen,
		     mflags);
	if (!(rflags & MSG_TRUNC) && trunc_known && (size_t)n < blen &&
	    (mflags & MSG_TRUNC))
		fail("%s: MSG_TRUNC for a message that fit", call);
	if (trunc_known && (mflags & MSG_TRUNC))
		n_trunc++;
	if (from && from->ss_family != so->family)
		fail("%s: msg_name family %d on a %d socket", call,
		     from->ss_family, so->family);
	if (info && (!info->id || info->error || info->flags > 2))
		fail("%s: SHOAL_CMSG_RECV id %#llx flags %u error %d", call,
		     (unsigned long long)info->id, info->flags, info->error);
	if (got < HDR) {
		/* the whole message, if it is known to be whole, is a
		 * short one: a pattern of seq 0
		 */
		if (rflags & MSG_TRUNC)
			whole = (size_t)n <= blen;
		else
			whole = (size_t)n < blen ||
				(trunc_known && !(mflags & MSG_TRUNC));
		if (buf && whole)
			for (i = 0; i < got; i++)
				if ((uint8_t)buf[i] != pat(0, i)) {
					fail("%s: short message byte %zu", call,
					     i);
					return;
				}
		n_short++;
		return;
	}
	if (get32(buf) != MAGIC) {
		fail("%s: no magic: not a message of this run", call);
		return;
	}
	seq = get32(buf + 4);
	mlen = get32(buf + 8);
	ports = get32(buf + 12);
	flags = get32(buf + 16);
	memcpy(&reply_to, buf + 24, 8);
	if (mlen < HDR || mlen > BUF_MAX ||
	    ((rflags & MSG_TRUNC) ? (size_t)n != mlen :
	     (size_t)n != (mlen < blen ? mlen : blen)) ||
	    (trunc_known && !!(mflags & MSG_TRUNC) != (mlen > blen)))
		fail("%s: message of %u bytes returned %zd, msg_flags %#x",
		     call, mlen, n, mflags);
	for (i = HDR; i < got && i < mlen; i++)
		if ((uint8_t)buf[i] != pat(seq, i)) {
			fail("%s: message seq %u: byte %zu of %u is %#x, not %#x",
			     call, seq, i, mlen, (uint8_t)buf[i],
			     pat(seq, i));
			return;
		}
	if ((ports & 0xffff) && so->port && (int)(ports & 0xffff) != so->port)
		fail("%s: message seq %u for port %u read on port %d", call,
		     seq, ports & 0xffff, so->port);
	if ((ports >> 16) && from &&
	    ntohs(((struct sockaddr_in *)from)->sin_port) != ports >> 16)
		fail("%s: message seq %u from port %u says port %u", call,
		     seq, ntohs(((struct sockaddr_in *)from)->sin_port),
		     ports >> 16);
	if (info && (info->flags != flags ||
		     (flags == SHOAL_MSG_RESPONSE && info->id != reply_to)))
		fail("%s: message seq %u sent as kind %u (reply_to %#llx) read as %u id %#llx",
		     call, seq, flags, (unsigned long long)reply_to,
		     info->flags, (unsigned long long)info->id);
	if (seq && seq < nops * 2 + 2) {
		if (seq_state[seq] == 2)
			fail("%s: message seq %u read twice", call, seq);
		else if (seq_state[seq] != 1)
			fail("%s: message seq %u never sent", call, seq);
		seq_state[seq] = 2;
	}
	n_verified++;
}

static void remember_request(int sl, const struct sockaddr_storage *from,
			     socklen_t fromlen, uint64_t id)
{
	int i = rn(NREQ);

	n_req_read++;
	reqs[i].s = slots[sl].s;
	memcpy(&reqs[i].from, from, sizeof(*from));
	reqs[i].fromlen = fromlen;
	reqs[i].id = id;
	reqs[i].valid = true;
}

/* @forced: after poll() said there is one: it must come */
static void op_recv(int sl, bool use_recvfrom, int forced)
{
	struct fsock *so = &socks[slots[sl].s];
	struct shoal_recv_info info, *infop = NULL;
	struct sockaddr_storage from;
	socklen_t fromlen = sizeof(from), *fromlenp = &fromlen;
	const char *what = "", *nwhat = "";
	struct iovec iov[4], *iovp = iov;
	int flags = 0, niov = 1, i;
	size_t blen, ctllen = CMSG_SPACE(sizeof(info)) + 64;
	void *buf = recvbuf, *name = &from, *ctl = ctlbuf;
	bool kernel = false, buf_kernel = false;
	socklen_t name_given;
	struct cmsghdr *c;
	struct msghdr m;
	struct expect e;
	char call[256];
	ssize_t r;
	int err;

	e_init(&e, true, EAGAIN, 0);
	if (forced)	/* unless the other thread read it first */
		e_init(&e, true, chaos_on ? EAGAIN : 0, 0);
	if (!so->nonblock || chance(50))
		flags |= MSG_DONTWAIT;
	if (forced == POLLERR || (!forced && chance(15)))
		flags |= MSG_ERRQUEUE;
	if (flags & MSG_ERRQUEUE) {
		/* past the reports: the error of one that found no memory,
		 * once (Documentation/shoal.md, "Failures")
		 */
		eset_add(&e.base, ECONNREFUSED);
		eset_add(&e.base, EMSGSIZE);
		eset_add(&e.base, ETIMEDOUT);
		eset_add(&e.base, ECONNRESET);
	}
	if (!forced && chance(15))
		flags |= MSG_TRUNC;
	if (!forced && chance(5))
		flags |= chance(50) ? MSG_WAITALL : MSG_CMSG_CLOEXEC;
	if (!forced && chance(8)) {
		int bad = pick_int((const int[]){
			MSG_PEEK, MSG_OOB, MSG_DONTROUTE,
			MSG_NOSIGNAL, MSG_EOR, MSG_MORE, MSG_CONFIRM,
			(int)(1u << rn(31)) }, 8);

		flags |= bad;
		if ((bad & ~(recv_ok_flags | MSG_CMSG_COMPAT)) ||
		    (bad == MSG_CMSG_COMPAT && !use_recvfrom))
			e_early(&e, "recv flag", bad == MSG_CMSG_COMPAT ?
				EINVAL : EOPNOTSUPP, 0);
	}
	if (!forced && chance(2)) {
		flags |= MSG_CMSG_COMPAT;
		if (!use_recvfrom)
			e_early(&e, "MSG_CMSG_COMPAT", EINVAL, 0);
	}
	blen = BUF_MAX;
	if (!forced && chance(30))
		blen = pick_size((const size_t[]){
			0, 1, 7, 16, 31, 32, 33, 100, 4096,
			65536 }, 10);
	if (!forced && chance(6)) {
		buf = bad_ptr(&buf_kernel, &what);
		if (!blen)
			blen = 1 + rn(4096);
		if (bad_room)	/* a message that fits is read */
			eset_add(&e.base, EFAULT);
		else if (buf_kernel)
			e_early(&e, "bad buffer", EFAULT, 0);
		else if (!(flags & MSG_ERRQUEUE))
			e_late(&e, "bad buffer", EFAULT, 0);
	}
	if (!forced && chance(5)) {
		name = NULL;
	} else if (!forced && chance(5)) {
		fromlen = rn(16);	/* cut to this, the length is full */
	} else if (!forced && chance(4)) {
		name = bad_ptr(&kernel, &nwhat);
		if (!name)
			name = (void *)16;
		e_late(&e, "bad name ptr", EFAULT, 0);
	} else if (!forced && chance(3)) {
		if (use_recvfrom) {
			fromlenp = bad_ptr(&kernel, &nwhat);
			if (nwhat[0] == 'e')
				fromlenp = (socklen_t *)(edge_page + page - 2);
			e_late(&e, "bad namelen ptr", EFAULT, 0);
		} else {
			fromlen = -1 - rn(100);
			e_early(&e, "negative namelen", EINVAL, 0);
		}
	}
	if (!forced && chance(20)) {
		ctllen = rn(2) ? 0 : rn(CMSG_SPACE(sizeof(info)));
	} else if (!forced && chance(5)) {
		/* put_cmsg()'s fault is not the call's: the control
		 * message is lost, the message read
		 */
		ctl = bad_ptr(&kernel, &nwhat);
		eset_add(&e.base, EFAULT);
	}
	iov[0].iov_base = buf;
	iov[0].iov_len = blen;
	if (!use_recvfrom && buf == recvbuf && blen > 3 && chance(20)) {
		niov = 4;
		iov[0].iov_len = blen / 4;
		iov[1].iov_base = recvbuf + blen / 4;
		iov[1].iov_len = 0;
		iov[2].iov_base = recvbuf + blen / 4;
		iov[2].iov_len = blen / 2;
		iov[3].iov_base = recvbuf + blen / 4 + blen / 2;
		iov[3].iov_len = blen - blen / 4 - blen / 2;
	}
	if (!forced && !use_recvfrom && chance(2)) {
		iovp = bad_ptr(&kernel, &what);
		e_early(&e, "iov array", EFAULT, 0);
	}
	snprintf(call, sizeof(call),
		 "%s(%d, len %zu, flags %#x, namelen %d, ctl %zu%s%s%s%s) %s %s port %d",
		 use_recvfrom ? "recvfrom" : "recvmsg", slots[sl].fd, blen,
		 flags, (int)fromlen, ctllen, what[0] ? ", bad buf " : "", what,
		 nwhat[0] ? ", bad " : "", nwhat, proto_name[so->pi],
		 so->family == AF_INET ? "v4" : "v6", so->port);
	memset(&m, 0, sizeof(m));
	name_given = fromlen;
	if (use_recvfrom) {
		r = recvfrom(slots[sl].fd, buf, blen, flags, name, fromlenp);
		err = errno;
		ctllen = 0;
	} else {
		m.msg_name = name;
		m.msg_namelen = fromlen;
		m.msg_iov = iovp;
		m.msg_iovlen = niov;
		m.msg_control = ctl;
		m.msg_controllen = ctllen;
		r = recvmsg(slots[sl].fd, &m, flags);
		err = errno;
		fromlen = m.msg_namelen;
	}
	if (!judge(use_recvfrom ? K_RECVFROM : K_RECVMSG, r, err, &e, call))
		return;
	if (r < 0) {
		if (err == EFAULT && buf != recvbuf && !buf_kernel)
			n_lost_fault++;
		return;
	}
	if (!use_recvfrom && ctl == ctlbuf) {
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SHOAL &&
			    c->cmsg_type == SHOAL_CMSG_RECV &&
			    c->cmsg_len >= CMSG_LEN(sizeof(info))) {
				memcpy(&info, CMSG_DATA(c), sizeof(info));
				infop = &info;
			}
		if (!infop && ctllen >= CMSG_SPACE(sizeof(info)))
			fail("%s: no SHOAL_CMSG_RECV", call);
	}
	if (name != &from || fromlenp != &fromlen)
		fromlen = 0;
	if (fromlen && ((so->family == AF_INET &&
			 fromlen != sizeof(struct sockaddr_in)) ||
			(so->family == AF_INET6 &&
			 fromlen != sizeof(struct sockaddr_in6))))
		fail("%s: name length %d", call, (int)fromlen);
	if (flags & MSG_ERRQUEUE) {
		if (r != 0 || (!use_recvfrom && !(m.msg_flags & MSG_ERRQUEUE)))
			fail("%s: error report returned %zd, msg_flags %#x",
			     call, r, m.msg_flags);
		n_errq++;
		so->errq_reads++;
		if (!infop)
			return;
		for (i = 0; i < 4; i++)
			if (info.error == errq_errs[i])
				break;
		if (i == 4 || !info.id)
			fail("%s: error report id %#llx error %d", call,
			     (unsigned long long)info.id, info.error);
		else
			n_errq_by[i]++;
		return;
	}
	/* the sender, if the whole name came back */
	if (!fromlen || name_given < fromlen)
		fromlen = 0;
	recv_verify(sl, call, buf == recvbuf ? recvbuf : NULL, blen, r, flags,
		    use_recvfrom ? -1 : m.msg_flags, fromlen ? &from : NULL,
		    infop);
	if (infop && info.flags == SHOAL_MSG_REQUEST && fromlen)
		remember_request(sl, &from, fromlen, info.id);
}

/* ---- several at once ---- */

#define MMSG	4	/* messages a sendmmsg()/recvmmsg() call at most */
#define MMSG_BUF (BUF_MAX / MMSG)

/*
 * sendmmsg() of 1..MMSG good messages to the pool (one of them of length
 * 0 now and then, which ends the call there): every message goes, or the
 * call stops at the bad one (returning how many went; its errno if none
 * did) or for want of room (EAGAIN)
 */
static void op_sendmmsg(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	unsigned int vlen = 1 + rn(MMSG), i, bad = MMSG;
	struct mmsghdr mm[MMSG];
	struct iovec iov[MMSG];
	struct addr a[MMSG];
	uint32_t seq[MMSG];
	int peer[MMSG], r, err;
	struct expect e;
	char call[128];

	memset(mm, 0, sizeof(mm));
	e_init(&e, true, EAGAIN, ENOMEM, 0);
	if (chance(15)) {
		bad = rn(vlen);
		if (!bad)
			e_early(&e, "length 0 first", EINVAL, 0);
	}
	for (i = 0; i < vlen; i++) {
		uint32_t len = i == bad ? 0 : 1 + rn(chance(80) ? 4000 :
						      MMSG_BUF - 1);
		char *b = sendbuf + i * MMSG_BUF;

		send_dest(so, &a[i], &peer[i]);
		seq[i] = len && next_seq < nops * 2 + 2 ? next_seq++ : 0;
		msg_fill(b, len, seq[i], so->port,
			 peer[i] >= 0 ? socks[peer[i]].port : 0, 0, 0);
		iov[i].iov_base = b;
		iov[i].iov_len = len;
		mm[i].msg_hdr.msg_name = &a[i].ss;
		mm[i].msg_hdr.msg_namelen = a[i].len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	snprintf(call, sizeof(call), "sendmmsg(%d, %u messages%s) %s %s",
		 slots[sl].fd, vlen, bad < MMSG ? ", one of length 0" : "",
		 proto_name[so->pi], so->family == AF_INET ? "v4" : "v6");
	r = sendmmsg(slots[sl].fd, mm, vlen, MSG_DONTWAIT);
	err = errno;
	if (!so->port)
		refresh_port(sl);
	/* a count short of vlen: it stopped at the bad one, or when
	 * SO_SNDBUF was full
	 */
	if (!judge(K_SENDMMSG, r, err, &e, call) || r < 0)
		return;
	if ((unsigned int)r > vlen || (bad < MMSG && (unsigned int)r > bad)) {
		fail("%s: returned %d", call, r);
		return;
	}
	for (i = 0; i < (unsigned int)r; i++) {
		if (mm[i].msg_len != iov[i].iov_len)
			fail("%s: message %u: msg_len %u of %zu", call, i,
			     mm[i].msg_len, iov[i].iov_len);
		so->sends_ok++;
		if (seq[i])
			seq_state[seq[i]] = 1;
		if (peer[i] >= 0)
			n_peer_sends++;
	}
}

/* recvmmsg() of up to MMSG messages, without waiting */
static void op_recvmmsg(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	unsigned int vlen = 1 + rn(MMSG), i;
	struct sockaddr_storage from[MMSG];
	struct shoal_recv_info info, *infop;
	char ctl[MMSG][CMSG_SPACE(sizeof(info)) + 64];
	int flags = MSG_DONTWAIT, r, err;
	struct mmsghdr mm[MMSG];
	struct iovec iov[MMSG];
	struct cmsghdr *c;
	struct expect e;
	char call[128];

	if (chance(50))
		flags |= MSG_WAITFORONE;
	memset(mm, 0, sizeof(mm));
	for (i = 0; i < vlen; i++) {
		iov[i].iov_base = recvbuf + i * MMSG_BUF;
		iov[i].iov_len = MMSG_BUF;
		mm[i].msg_hdr.msg_name = &from[i];
		mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_control = ctl[i];
		mm[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
	}
	/* the core's recvmmsg() reports a failure pending in sk_err before
	 * it reads, once: shoal.ko sets it for a failure whose report found
	 * no memory (Documentation/shoal.md, "Failures")
	 */
	e_init(&e, true, EAGAIN, ECONNREFUSED, EMSGSIZE, ETIMEDOUT,
	       ECONNRESET, 0);
	snprintf(call, sizeof(call), "recvmmsg(%d, %u, flags %#x) %s %s port %d",
		 slots[sl].fd, vlen, flags, proto_name[so->pi],
		 so->family == AF_INET ? "v4" : "v6", so->port);
	r = recvmmsg(slots[sl].fd, mm, vlen, flags, NULL);
	err = errno;
	if (!judge(K_RECVMMSG, r, err, &e, call) || r < 0)
		return;
	if (r < 1 || (unsigned int)r > vlen) {
		fail("%s: returned %d", call, r);
		return;
	}
	for (i = 0; i < (unsigned int)r; i++) {
		infop = NULL;
		for (c = CMSG_FIRSTHDR(&mm[i].msg_hdr); c;
		     c = CMSG_NXTHDR(&mm[i].msg_hdr, c))
			if (c->cmsg_level == SOL_SHOAL &&
			    c->cmsg_type == SHOAL_CMSG_RECV) {
				memcpy(&info, CMSG_DATA(c), sizeof(info));
				infop = &info;
			}
		if (!infop)
			fail("%s: message %u: no SHOAL_CMSG_RECV", call, i);
		recv_verify(sl, call, recvbuf + i * MMSG_BUF, MMSG_BUF,
			    mm[i].msg_len, flags, mm[i].msg_hdr.msg_flags,
			    mm[i].msg_hdr.msg_namelen ? &from[i] : NULL, infop);
	}
}

/* ---- poll, ioctl, shutdown ---- */

static void op_poll(void)
{
	struct pollfd pfd[POOL + 2], *p = pfd;
	int n = 1 + rn(POOL + 2), i, sl, r, ready = 0, want[POOL + 2];
	const short known = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM |
		POLLWRBAND | POLLERR;
	const char *what = "";
	struct expect e;
	char call[96];
	bool kernel;

	for (i = 0; i < n; i++) {
		sl = pick_slot();
		want[i] = sl;
		pfd[i].fd = sl >= 0 && rn(8) ? slots[sl].fd : -1;
		pfd[i].events = rnd() & (POLLIN | POLLOUT | POLLPRI |
					 POLLRDHUP | POLLERR);
		if (chance(60))
			pfd[i].events |= POLLIN;
		pfd[i].revents = 0;
	}
	e_init(&e, true, 0);
	if (chance(5)) {
		p = bad_ptr(&kernel, &what);
		if (what[0] == 'e')
			p = (void *)(edge_page + page - 4);
		e_early(&e, "fds ptr", EFAULT, 0);
	}
	snprintf(call, sizeof(call), "poll(%d fds%s%s)", n,
		 what[0] ? ", bad " : "", what);
	r = poll(p, n, chance(70) ? 0 : 1 + rn(4));
	if (!judge(K_POLL, r, errno, &e, call) || r < 0)
		return;
	for (i = 0; i < n; i++) {
		if (pfd[i].revents)
			ready++;
		if (pfd[i].revents & ~known || (pfd[i].revents &
		    ~(pfd[i].events | POLLERR | POLLRDNORM | POLLWRNORM |
		      POLLWRBAND)))
			fail("%s: fd %d events %#x revents %#x", call,
			     pfd[i].fd, pfd[i].events, pfd[i].revents);
	}
	if (ready != r)
		fail("%s: returned %d, %d fds have events", call, r, ready);
	/* what poll() says is there must be there: one of them, at once */
	for (i = 0; i < n; i++) {
		sl = want[i];
		if (pfd[i].fd < 0 || sl < 0 || slots[sl].fd != pfd[i].fd)
			continue;
		if (pfd[i].revents & POLLIN) {
			n_poll_in++;
			op_recv(sl, false, POLLIN);
			return;
		}
		if (pfd[i].revents & POLLERR) {
			op_recv(sl, false, POLLERR);
			return;
		}
	}
}

static void op_ioctl(int sl)
{
	struct fsock *so = &socks[slots[sl].s];
	const char *what = "", *nm;
	unsigned long req;
	struct expect e;
	struct ifreq ifr;
	char call[128];
	void *arg = ctlbuf;
	int v = 0, r, kind = rn(8);
	bool kernel;

	memset(ctlbuf, 0, 256);
	e_init(&e, true, 0);
	switch (kind) {
	case 0:
		req = FIONREAD;		/* = SIOCINQ */
		nm = "FIONREAD";
		eset_add(&e.base, ENOTTY);
		break;
	case 1:
		req = SIOCOUTQ;
		nm = "SIOCOUTQ";
		eset_add(&e.base, ENOTTY);
		break;
	case 2:
		req = chance(50) ? SIOCGSTAMP : SIOCGSTAMPNS;
		nm = "SIOCGSTAMP";
		eset_add(&e.base, ENOENT);
		break;
	case 3:
		req = FIONBIO;
		nm = "FIONBIO";
		v = rn(2);
		memcpy(ctlbuf, &v, sizeof(v));
		break;
	case 4:
		req = chance(50) ? SIOCGIFINDEX : SIOCGIFNAME;
		nm = "SIOCGIF";
		memset(&ifr, 0, sizeof(ifr));
		if (req == SIOCGIFINDEX)
			strcpy(ifr.ifr_name, chance(50) ? "lo" : "nosuch0");
		else
			ifr.ifr_ifindex = rn(3);
		memcpy(ctlbuf, &ifr, sizeof(ifr));
		eset_add(&e.base, ENODEV);
		break;
	default:
		/* any request but the socket layer's own (0x89xx: routes,
		 * interfaces, bridges, which a fuzzer must not change) and
		 * the file's FIONBIO and FIOASYNC
		 */
		do {
			req = (uint32_t)rnd();
			if (chance(50))
				req &= 0xffff;
		} while (((req >> 8) & 0xff) == 0x89 || req == FIONBIO ||
			 req == FIOASYNC);
		nm = "random";
		eset_add(&e.base, ENOTTY);
		eset_add(&e.base, ENODEV);	/* 0x8bxx: wireless, none here */
		eset_add(&e.base, EINVAL);
		eset_add(&e.base, EFAULT);
		eset_add(&e.base, ENOENT);
		eset_add(&e.base, EOPNOTSUPP);
		eset_add(&e.base, EPERM);
		eset_add(&e.base, EBADF);
		eset_add(&e.base, EXDEV);
		break;
	}
	if (chance(10)) {
		arg = bad_ptr(&kernel, &what);
		if (what[0] == 'e')
			arg = edge_page + page - 2;
		eset_add(&e.base, EFAULT);
		if (kind == 3 || kind == 4)
			e_late(&e, "bad arg", EFAULT, 0);
	}
	snprintf(call, sizeof(call), "ioctl(%d, %s %#lx%s%s)", slots[sl].fd,
		 nm, req, what[0] ? ", bad arg " : "", what);
	r = ioctl(slots[sl].fd, req, arg);
	if (!judge(K_IOCTL, r, errno, &e, call) || r < 0)
		return;
	if (kind == 3 && arg == ctlbuf)
		so->nonblock = v;
	if ((kind == 0 || kind == 1) && arg == ctlbuf) {
		memcpy(&v, ctlbuf, sizeof(v));
		if (v < 0 || v > (int)max_msg_len)
			fail("%s: %d bytes", call, v);
	}
}

static void op_shutdown(int sl)
{
	struct expect e;
	char call[64];
	int how = pick_int((const int[]){
		SHUT_RD, SHUT_WR, SHUT_RDWR, 3, -1 }, 5), r;

	e_init(&e, false, 0);
	e_late(&e, "shutdown", EOPNOTSUPP, 0);
	snprintf(call, sizeof(call), "shutdown(%d, %d)", slots[sl].fd, how);
	r = shutdown(slots[sl].fd, how);
	judge(K_SHUTDOWN, r, errno, &e, call);
}

/* ---- a second thread ----
 *
 * With -t, a second thread makes calls on the pool's descriptors at the
 * same time: non-blocking receives (it takes messages the first thread
 * would have read), SO_RCVBUF, SO_SNDBUF and SO_RESERVE_MEM (which own
 * the socket while packets arrive), SHOAL_SOCK_STATS, poll(), and dup()
 * and close() of a copy.  It never sends nor binds, so the first
 * thread's predictions hold (but a message poll() saw may be gone).
 * The descriptor it picks may be closed meanwhile, or be another
 * socket's by then: EBADF and ENOTSOCK are expected too.
 */
static const int chaos_vals[5] = { 0, 4096, 65536, 1 << 20, 4 << 20 };
static const int chaos_opts[3] = { SO_RCVBUF, SO_SNDBUF, SO_RESERVE_MEM };
static volatile bool chaos_stop;
static unsigned long chaos_calls, chaos_ok, chaos_msgs;

static void *chaos(void *arg)
{
	static char buf[70000], ctl[256];
	uint64_t x = seed * 7919 + 1;
	struct shoal_sock_stats st;
	struct pollfd pfd[POOL];
	struct iovec iov;
	struct msghdr m;
	socklen_t len;
	int fd, v, r, err, i, n;

	(void)arg;
	while (!chaos_stop) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		fd = slots[x % POOL].fd;
		if (fd < 0) {
			usleep(100);
			continue;
		}
		switch ((x >> 8) % 8) {
		case 0: case 1: case 2:
			iov.iov_base = buf;
			iov.iov_len = (x >> 16) % 2 ? sizeof(buf) : 16;
			memset(&m, 0, sizeof(m));
			m.msg_iov = &iov;
			m.msg_iovlen = 1;
			m.msg_control = ctl;
			m.msg_controllen = sizeof(ctl);
			r = recvmsg(fd, &m, MSG_DONTWAIT);
			err = errno;
			if (r >= 0)
				chaos_msgs++;
			break;
		case 3:
			v = chaos_vals[(x >> 16) % 5];
			r = setsockopt(fd, SOL_SOCKET, chaos_opts[(x >> 24) % 3],
				       &v, sizeof(v));
			err = errno;
			break;
		case 4:
			len = sizeof(st);
			r = getsockopt(fd, SOL_SHOAL, SHOAL_SOCK_STATS, &st, &len);
			err = errno;
			break;
		case 5:
			for (i = 0, n = 0; i < POOL; i++)
				if (slots[i].fd >= 0) {
					pfd[n].fd = slots[i].fd;
					pfd[n++].events = POLLIN | POLLOUT;
				}
			r = poll(pfd, n, 0);
			err = errno;
			break;
		default:
			r = dup(fd);
			err = errno;
			if (r >= 0)
				close(r);
			break;
		}
		chaos_calls++;
		if (r >= 0) {
			chaos_ok++;
			continue;
		}
		switch (err) {
		case EAGAIN: case EBADF: case ENOTSOCK: case ENOPROTOOPT:
		case EOPNOTSUPP: case ENOMEM: case EINVAL: case EMFILE:
			break;
		default:
			fail("second thread: call %llu on fd %d: %s",
			     (unsigned long long)(x >> 8) % 8, fd, ename(err));
		}
	}
	return NULL;
}

/* ---- one operation ---- */

static void watchdog(int sig)
{
	static const char msg[] = "not ok 1 - a call blocked for "
		"WATCHDOG_S seconds (see the op index above)\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static void one_op(void)
{
	int sl = pick_slot(), r;

	if (sl < 0 || (free_slot() >= 0 && chance(6))) {
		op_socket();
		return;
	}
	r = rn(100);
	if (r < 5)
		op_socket();
	else if (r < 13)
		op_bind(sl);
	else if (r < 15)
		op_connect(sl);
	else if (r < 17)
		op_listen(sl);
	else if (r < 20)
		op_getname(sl);
	else if (r < 29)
		op_setsockopt(sl);
	else if (r < 36)
		op_getsockopt(sl);
	else if (r < 49)
		op_send(sl, false);
	else if (r < 52)
		op_sendmmsg(sl);
	else if (r < 58)
		op_send(sl, true);
	else if (r < 69)
		op_recv(sl, false, 0);
	else if (r < 71)
		op_recvmmsg(sl);
	else if (r < 76)
		op_recv(sl, true, 0);
	else if (r < 83)
		op_poll();
	else if (r < 87)
		op_ioctl(sl);
	else if (r < 89)
		op_shutdown(sl);
	else if (r < 93)
		op_close(sl);
	else if (r < 96)
		op_dup(sl);
	else if (r < 99)
		usleep(200 + rn(3000));	/* the timers run */
	else
		for (sl = 0; sl < POOL; sl++)
			if (slots[sl].fd >= 0 && chance(50))
				op_close(sl);
}

/* ---- setup, verdict ---- */

static long read_long(const char *path, long def)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f)
		return def;
	if (fscanf(f, "%ld", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

static void own_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(CLONE_NEWNET)) {
		printf("Bail out! unshare(CLONE_NEWNET): %s\n",
		       strerror(errno));
		exit(1);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		printf("Bail out! lo: %s\n", strerror(errno));
		exit(1);
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		printf("Bail out! lo up: %s\n", strerror(errno));
		exit(1);
	}
	close(fd);
}

static int tap_n, tap_fail;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_fail += !ok;
	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int errno_by_name(const char *name)
{
	int e;

	for (e = 1; e < NERR; e++)
		if (!strcmp(ename(e), name))
			return e;
	return -1;
}

/* Each kind reached the paths kind_paths[] names */
static void verdict_paths(void)
{
	char list[256], missing[256], *tok, *save, *alt, *save2;
	struct kstat *ks;
	bool hit;
	int k, e;

	for (k = 0; k < K_MAX; k++) {
		ks = &kstats[k];
		missing[0] = 0;
		snprintf(list, sizeof(list), "%s", kind_paths[k]);
		for (tok = strtok_r(list, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			char alts[64];

			snprintf(alts, sizeof(alts), "%s", tok);
			hit = false;
			for (alt = strtok_r(alts, "|", &save2); alt;
			     alt = strtok_r(NULL, "|", &save2)) {
				if (!strcmp(alt, "ok")) {
					hit |= ks->ok > 0;
					continue;
				}
				e = errno_by_name(alt);
				hit |= e > 0 && ks->err[e] > 0;
			}
			if (!hit)
				snprintf(missing + strlen(missing),
					 sizeof(missing) - strlen(missing),
					 " %s", tok);
		}
		tap(!missing[0], "%s reached %s (%lu calls)%s%s", kind_name[k],
		    kind_paths[k], ks->calls, missing[0] ? "; missing:" : "",
		    missing);
	}
}

static void summary(void)
{
	struct kstat *ks;
	int k, e;

	for (k = 0; k < K_MAX; k++) {
		ks = &kstats[k];
		printf("# %-13s calls %5lu ok %5lu", kind_name[k], ks->calls,
		       ks->ok);
		for (e = 1; e < NERR; e++)
			if (ks->err[e])
				printf(" %s %lu", ename(e), ks->err[e]);
		if (ks->err[0])
			printf(" other %lu", ks->err[0]);
		printf("\n");
	}
	printf("# messages: %lu sent to sockets of the pool, %lu read and verified (%lu cut short, MSG_TRUNC), %lu read into buffers shorter than a header, %lu lost to a bad buffer, %lu requests read and %lu responses sent, %lu reads after poll() said POLLIN\n",
	       n_peer_sends, n_verified, n_trunc, n_short, n_lost_fault,
	       n_req_read, n_rpc_resp, n_poll_in);
	printf("# SO_RESERVE_MEM: %lu set, %lu refused (it needs a memory cgroup)\n",
	       n_reserve[1], n_reserve[0]);
	printf("# error reports: %lu (ECONNREFUSED %lu, EMSGSIZE %lu, ETIMEDOUT %lu, ECONNRESET %lu)\n",
	       n_errq, n_errq_by[0], n_errq_by[1], n_errq_by[2],
	       n_errq_by[3]);
}

/* shoal.ko's object counts, but for sird_peers, back to 0 within 5 s */
static void verdict_objects(void)
{
	static const char path[] = "/sys/kernel/debug/shoal/objects";
	char line[128], left[512], name[64];
	int try;
	FILE *f;
	long v;

	for (try = 0; try < 50; try++) {
		f = fopen(path, "r");
		if (!f) {
			printf("ok %d - shoal.ko's objects back to 0 # SKIP %s: %s\n",
			       ++tap_n, path, strerror(errno));
			return;
		}
		left[0] = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%63s %ld", name, &v) == 2 && v &&
			    strcmp(name, "sird_peers"))
				snprintf(left + strlen(left),
					 sizeof(left) - strlen(left), " %s %ld",
					 name, v);
		fclose(f);
		if (!left[0])
			break;
		usleep(100000);
	}
	tap(!left[0],
	    "shoal.ko's objects (but sird_peers, kept per namespace) back to 0 within %d.%d s of closing every socket%s%s",
	    try / 10, try % 10, left[0] ? "; left:" : "", left);
}

int main(int argc, char **argv)
{
	unsigned long need;
	int i, a = 1;

	bool net_own = false;
	char again[512];
	pthread_t th;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-n")) {
			own_netns();
			net_own = true;
		} else if (!strcmp(argv[a], "-t")) {
			chaos_on = true;
		} else {
			printf("usage: %s [-n] [-t] [OPS [SEED]]\n", argv[0]);
			return 2;
		}
	}
	nops = a < argc ? strtoul(argv[a], NULL, 0) : 5000;
	seed = a + 1 < argc ? strtoull(argv[a + 1], NULL, 0) :
		(unsigned long long)time(NULL) % 1000000;
	snprintf(again, sizeof(again), "%s%s%s %lu %llu", argv[0],
		 net_own ? " -n" : "", chaos_on ? " -t" : "", nops, seed);
	printf("# shoal_sockfuzz: seed %llu, %lu operations%s (again: %s)\n",
	       seed, nops, chaos_on ? ", a second thread" : "", again);
	rs = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	for (i = 0; i < 8; i++)
		rnd();
	proto_num[0] = read_long("/sys/module/shoal/parameters/proto_sird",
				 IPPROTO_SIRD);
	proto_num[1] = read_long("/sys/module/shoal/parameters/proto_pl2",
				 IPPROTO_PL2);
	max_msg_len = read_long("/proc/sys/net/shoal/max_msg_len",
				32 << 20);
	page = sysconf(_SC_PAGESIZE);
	sendbuf = malloc(BUF_MAX);
	recvbuf = malloc(BUF_MAX + 2048 * sizeof(struct iovec));
	ctlbuf = malloc(1 << 20);
	seq_state = calloc(nops * 2 + 2, 1);
	none_page = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	edge_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!sendbuf || !recvbuf || !ctlbuf || !seq_state ||
	    none_page == MAP_FAILED || edge_page == MAP_FAILED ||
	    mprotect(edge_page + page, page, PROT_NONE)) {
		printf("Bail out! no memory\n");
		return 1;
	}
	memset(ctlbuf, 0, 1 << 20);
	for (i = 0; i < POOL; i++) {
		slots[i].fd = -1;
		slots[i].s = -1;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, watchdog);

	if (chaos_on && pthread_create(&th, NULL, chaos, NULL)) {
		printf("Bail out! pthread_create\n");
		return 1;
	}
	for (op_idx = 0; op_idx < nops; op_idx++) {
		alarm(WATCHDOG_S);
		one_op();
	}
	alarm(WATCHDOG_S);
	if (chaos_on) {
		chaos_stop = true;
		pthread_join(th, NULL);
		printf("# second thread: %lu calls, %lu succeeded, %lu messages read\n",
		       chaos_calls, chaos_ok, chaos_msgs);
	}
	/* what is still on its way arrives: read it, then close all */
	usleep(100000);
	for (i = 0; i < POOL; i++)
		if (slots[i].fd >= 0) {
			op_recv(i, false, 0);
			op_close(i);
		}
	alarm(0);

	summary();
	tap(!failures, "every call returned what it may (%lu operations, %lu failures)",
	    nops, failures);
	/* the second thread reads many of them first */
	need = nops < 2000 ? 1 : chaos_on ? 10 : 20;
	tap(n_peer_sends >= need && n_verified >= need,
	    "messages flowed: %lu sent to the pool, %lu read and verified (>= %lu each)",
	    n_peer_sends, n_verified, need);
	tap(n_errq_by[0] >= (nops >= 2000 ? 5 : 0),
	    "failed messages reported: %lu error reports, %lu ECONNREFUSED",
	    n_errq, n_errq_by[0]);
	verdict_paths();
	verdict_objects();
	printf("1..%d\n", tap_n);
	if (failures)
		printf("# FAIL: seed %llu (again: %s)\n", seed, again);
	return failures || tap_fail ? 1 : 0;
}
