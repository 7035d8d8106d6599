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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/sockios.h>
#include <linux/shoal.h>

#include "../lib/shoal_selftest.h"
#include "../../lib/shoal_socket.h"

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

/* counts several threads add to */
#define ADD(var, n)	__atomic_fetch_add(&(var), (n), __ATOMIC_SEQ_CST)
#define SUB(var, n)	__atomic_fetch_sub(&(var), (n), __ATOMIC_SEQ_CST)
#define LOAD(var)	__atomic_load_n(&(var), __ATOMIC_SEQ_CST)

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

static __thread uint64_t rs;

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
	int nearly, nlate, nsockdep;
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

/* e_sockdep(e): the last fault named depends on the socket (its family,
 * or its port): another socket might take the call
 */
static void e_sockdep(struct expect *e)
{
	e->nsockdep++;
}

/* ---- the run ---- */

static unsigned long long seed;
static bool chaos_on;		/* other threads make calls on the pool too */
static int nracers;
static __thread unsigned long op_idx;
static __thread int tid;	/* 0: the main thread, 1..: the others */
static unsigned long nops;
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
		printf("# FAIL seed %llu thread %d op %lu: ", seed, tid,
		       op_idx);
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

static bool cur_moved(void);
static unsigned long n_moved, n_moved_ebadf;

/*
 * Count the call and judge its result against @e; @ret < 0 is a failure
 * with @err.  True when the result was one @e allows.
 *
 * A call whose slot was closed or given another socket while it ran
 * (cur_moved()) may have reached another socket, of another family,
 * bound or not, or none: it may give any value its faults and the call
 * allow, EBADF (closed), and what a socket of the other family or port
 * state gives (EAFNOSUPPORT, EINVAL, EADDRINUSE, EDESTADDRREQ); success
 * only when no fault but one that depends on the socket was made.
 */
static bool judge(enum kind k, long ret, int err, struct expect *e,
		  const char *call)
{
	struct kstat *ks = &kstats[k];
	struct eset allowed;
	bool ok_allowed;
	int i;

	ADD(ks->calls, 1);
	if (ret >= 0)
		ADD(ks->ok, 1);
	else
		ADD(ks->err[err > 0 && err < NERR ? err : 0], 1);
	if (cur_moved()) {
		ADD(n_moved, 1);
		if (ret < 0 && err == EBADF)
			ADD(n_moved_ebadf, 1);
		allowed = e->base;
		for (i = 0; i < NERR / 64; i++)
			allowed.w[i] |= e->late.w[i] | e->early.w[i];
		eset_add(&allowed, EBADF);
		eset_add(&allowed, EAFNOSUPPORT);
		eset_add(&allowed, EINVAL);
		eset_add(&allowed, EADDRINUSE);
		eset_add(&allowed, EDESTADDRREQ);
		ok_allowed = e->base_ok &&
			     e->nearly + e->nlate <= e->nsockdep;
	} else if (e->nearly) {
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

/*
 * Each slot of the pool has a descriptor number of its own, FD_BASE +
 * slot, which only ever holds a socket of the pool: a socket is made at
 * the lowest free number and moved there with dup2(), which replaces
 * the slot's socket at once if it had one.  So a call on a slot's
 * descriptor reaches the slot's socket, another socket of the pool that
 * replaced it meanwhile, or, the slot closed, nothing (EBADF); never a
 * descriptor that is not a socket (ENOTSOCK is never right).
 *
 * The bookkeeping (slots, sockets, requests) is under pool_lock, and so
 * are the calls that change a slot (close, dup2), each of which first
 * bumps the slot's generation.  Every other call is made without the
 * lock, on a snapshot of its slot (struct cur): when the slot's
 * generation moved during the call, the call may have reached another
 * socket or none, and is judged for that (judge()); what it did is then
 * counted to no socket.
 */
#define FD_BASE		900
#define SLOT_FD(sl)	(FD_BASE + (sl))
#define SOCKS_MAX	65536	/* sockets a run makes at most */
#define RACERS_MAX	4

struct fsock {			/* one socket, under one or more descriptors */
	int refs;
	int family, pi;		/* AF_INET or AF_INET6; 0 SIRD, 1 PL2 */
	int port;		/* bound port, 0: none yet */
	bool nonblock;
	/* calls that reached it (atomic): successful sends, sends under
	 * way, messages and error reports read, requests sent
	 */
	unsigned long sends_ok, inflight, reads_ok, errq_reads, reqs_ok;
	/* a call made on another socket's snapshot may have reached it,
	 * or one of its own may have reached another: its counts bound
	 * the kernel's from below only
	 */
	bool inexact;
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

static struct fsock *socks;	/* SOCKS_MAX, never reused */
static int nsocks;
static struct { int fd, s; } slots[POOL];
static unsigned long slot_gen[POOL];	/* written under pool_lock */
static int slot_busy[POOL];		/* calls under way on its snapshot */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* the slot the current call is on, as it was when the call began */
struct cur {
	int sl, fd, s;
	unsigned long gen;
	struct fsock so;
};

static __thread struct cur cur = { .sl = -1 };

/* what flowed */
static unsigned long n_peer_sends, n_verified, n_trunc, n_short,
	n_errq, n_errq_by[4], n_lost_fault, n_req_read, n_rpc_resp, n_poll_in,
	n_reserve[2], n_replaced, n_stray_ok;
/* a message's state by sequence number: */
enum { SEQ_NONE, SEQ_SENT, SEQ_READ, SEQ_SENDING, SEQ_FAILED };
static uint8_t *seq_state;
static uint8_t *seq_stray;	/* its send's slot moved: its sport unsure */
static uint8_t *seq_sport_odd;	/* read from a port its header does not say */
static uint32_t next_seq = 1, seq_max;

/* buffers, each thread its own */
static __thread char *sendbuf, *recvbuf, *ctlbuf;
static char *none_page, *edge_page;
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

/* A slot with a socket, picked at random (a hint: it may change) */
static int pick_slot(void)
{
	int i, n = 0, pick[POOL];

	for (i = 0; i < POOL; i++)
		if (LOAD(slots[i].fd) >= 0)
			pick[n++] = i;
	return n ? pick[rn(n)] : -1;
}

/* Under pool_lock */
static int free_slot(void)
{
	int i;

	for (i = 0; i < POOL; i++)
		if (slots[i].fd < 0)
			return i;
	return -1;
}

/* Under pool_lock */
static bool port_held(int port)
{
	int i;

	for (i = 0; i < POOL; i++)
		if (slots[i].fd >= 0 && socks[slots[i].s].port == port)
			return true;
	return false;
}

/* The current call is on slot @sl: its snapshot; false if it is empty */
static bool op_begin(int sl)
{
	bool ok;

	pthread_mutex_lock(&pool_lock);
	ok = sl >= 0 && slots[sl].fd >= 0;
	if (ok) {
		cur.sl = sl;
		cur.fd = slots[sl].fd;
		cur.s = slots[sl].s;
		cur.gen = slot_gen[sl];
		cur.so = socks[cur.s];
		slot_busy[sl]++;
	}
	pthread_mutex_unlock(&pool_lock);
	return ok;
}

static void op_end(void)
{
	if (cur.sl < 0)
		return;
	pthread_mutex_lock(&pool_lock);
	slot_busy[cur.sl]--;
	pthread_mutex_unlock(&pool_lock);
	cur.sl = -1;
}

/* The current call's slot was closed or given another socket since the
 * call began: the call may have reached another socket, or none
 */
static bool cur_moved(void)
{
	return cur.sl >= 0 && LOAD(slot_gen[cur.sl]) != cur.gen;
}

/* The current socket's record, pool_lock held, if the slot still has it
 * (NULL otherwise, pool_lock held too: cur_put() either way)
 */
static struct fsock *cur_get(void)
{
	pthread_mutex_lock(&pool_lock);
	if (cur.sl < 0 || slot_gen[cur.sl] != cur.gen)
		return NULL;
	return &socks[cur.s];
}

static void cur_put(void)
{
	pthread_mutex_unlock(&pool_lock);
}

/* The port the kernel says the current socket has (uncounted) */
static void refresh_port(void)
{
	struct sockaddr_in6 ss;
	socklen_t len = sizeof(ss);
	struct fsock *so;
	int port;

	if (getsockname(cur.fd, (struct sockaddr *)&ss, &len))
		return;
	port = ntohs(ss.sin6_port);	/* where sin_port is too */
	so = cur_get();
	if (so) {
		so->port = port;
		cur.so.port = port;
	}
	cur_put();
}

/* Slot @sl is about to change: its calls under way see it.  Under
 * pool_lock.
 */
static void slot_move(int sl)
{
	__atomic_store_n(&slot_gen[sl], slot_gen[sl] + 1, __ATOMIC_RELEASE);
}

/* Slot @sl's descriptor is gone (closed, or replaced by dup2()).  Under
 * pool_lock.
 */
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
	__atomic_store_n(&slots[sl].fd, -1, __ATOMIC_RELEASE);
	slots[sl].s = -1;
}

/* A new record for a socket of @fam, @pi; -1 when the run made too
 * many.  Under pool_lock.
 */
static int sock_new(int fam, int pi, bool nonblock)
{
	struct fsock *so;

	if (nsocks >= SOCKS_MAX)
		return -1;
	so = &socks[nsocks];
	memset(so, 0, sizeof(*so));
	so->refs = 1;
	so->family = fam;
	so->pi = pi;
	so->nonblock = nonblock;
	return nsocks++;
}

/* Socket @s, open at @fd, takes slot @sl (replacing what it had): its
 * descriptor moves to the slot's number.  Under pool_lock.  False when
 * dup2() failed (@fd is closed either way).
 */
static bool slot_install(int sl, int fd, int s)
{
	int r;

	slot_move(sl);
	if (slots[sl].fd >= 0)
		slot_close(sl);
	/* a call under way on the slot's old socket may reach this one */
	if (slot_busy[sl])
		socks[s].inexact = true;
	r = fd == SLOT_FD(sl) ? fd : dup2(fd, SLOT_FD(sl));
	if (r != SLOT_FD(sl)) {
		fail("dup2(%d, %d): %s", fd, SLOT_FD(sl), strerror(errno));
		close(fd);
		socks[s].refs--;
		return false;
	}
	if (fd != SLOT_FD(sl))
		close(fd);
	slots[sl].s = s;
	__atomic_store_n(&slots[sl].fd, SLOT_FD(sl), __ATOMIC_RELEASE);
	return true;
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

/*
 * A message's sequence number, taken before it is sent (0: none left):
 * SEQ_SENDING until its send returns, then SEQ_SENT or SEQ_FAILED; a
 * reader makes it SEQ_READ, which it may do while the send is still under
 * way, never after the send failed, and once.
 */
static uint32_t seq_take(void)
{
	uint32_t seq = ADD(next_seq, 1);

	if (seq >= seq_max)
		return 0;
	__atomic_store_n(&seq_state[seq], SEQ_SENDING, __ATOMIC_SEQ_CST);
	return seq;
}

/* The send of message @seq returned: it went or not; @moved: its slot
 * moved meanwhile, so that it may have gone from another socket
 */
static void seq_sent(uint32_t seq, bool sent, bool moved)
{
	uint8_t old = SEQ_SENDING;

	if (!seq)
		return;
	if (moved)
		__atomic_store_n(&seq_stray[seq], 1, __ATOMIC_SEQ_CST);
	if (!__atomic_compare_exchange_n(&seq_state[seq], &old,
					 sent ? SEQ_SENT : SEQ_FAILED, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) &&
	    !sent)
		fail("message seq %u was read, but its send failed", seq);
}

/* A send of up to @n messages on the current socket begins: until it
 * ends the kernel may count any of them (a sendmmsg() counts each as it
 * goes)
 */
static void send_begin(unsigned int n)
{
	ADD(socks[cur.s].inflight, n);
}

/* ... and ended, @ok of its @n messages sent, @nreq of them requests */
static void send_end(unsigned int n, int ok, int nreq)
{
	struct fsock *so = &socks[cur.s];

	if (!cur_moved()) {
		ADD(so->sends_ok, ok);
		ADD(so->reqs_ok, nreq);
	} else if (ok) {
		/* from this socket, or the one that took its slot */
		__atomic_store_n(&so->inexact, true, __ATOMIC_SEQ_CST);
		ADD(n_stray_ok, ok);
	}
	SUB(so->inflight, n);
}

/* ---- calls ---- */

/* socket() into a free slot or, with @replace, into slot @replace
 * (dup2() over its socket; -1: a free one)
 */
static void op_socket_into(int replace)
{
	int sl, fam, pi, type, fd, s;
	struct expect e;
	char call[128];
	bool had;

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
	pthread_mutex_lock(&pool_lock);
	sl = replace >= 0 ? replace : free_slot();
	s = sl >= 0 ? sock_new(fam, pi, type & SOCK_NONBLOCK) : -1;
	had = sl >= 0 && slots[sl].fd >= 0;
	if (s < 0)
		close(fd);
	else if (slot_install(sl, fd, s) && had)
		n_replaced++;
	pthread_mutex_unlock(&pool_lock);
}

static void op_socket(void)
{
	op_socket_into(-1);
}

/* close() of slot @sl's descriptor: it has a socket, or had one that
 * another thread closed (EBADF)
 */
static void op_close(int sl)
{
	struct expect e;
	char call[64];
	int r, err;

	e_init(&e, true, 0);
	pthread_mutex_lock(&pool_lock);
	if (slots[sl].fd < 0)
		e_early(&e, "closed", EBADF, 0);
	else
		slot_move(sl);
	snprintf(call, sizeof(call), "close(%d)", SLOT_FD(sl));
	r = close(SLOT_FD(sl));
	err = errno;
	if (slots[sl].fd >= 0)
		slot_close(sl);
	pthread_mutex_unlock(&pool_lock);
	judge(K_CLOSE, r, err, &e, call);
}

/* dup() of slot @sl's socket: to a free slot, or to a descriptor that
 * replaces the slot's own (under pool_lock: it changes slots)
 */
static void op_dup(int sl)
{
	int to, fd, fd2, err;
	struct expect e;
	char call[64];

	pthread_mutex_lock(&pool_lock);
	if (slots[sl].fd < 0) {
		pthread_mutex_unlock(&pool_lock);
		return;
	}
	to = free_slot();
	e_init(&e, true, EMFILE, 0);
	snprintf(call, sizeof(call), "dup(%d)", slots[sl].fd);
	fd = dup(slots[sl].fd);
	err = errno;
	if (!judge(K_DUP, fd, err, &e, call) || fd < 0) {
		pthread_mutex_unlock(&pool_lock);
		return;
	}
	if (to >= 0 && chance(50)) {	/* a second descriptor */
		socks[slots[sl].s].refs++;
		slot_install(to, fd, slots[sl].s);
		pthread_mutex_unlock(&pool_lock);
		return;
	}
	/* the socket lives on in its copy, moved to the slot's number */
	e_init(&e, true, 0);
	snprintf(call, sizeof(call), "dup2(%d, %d) after dup", fd,
		 slots[sl].fd);	/* the same socket: no move */
	fd2 = dup2(fd, slots[sl].fd);
	judge(K_DUP, fd2, errno, &e, call);
	close(fd);
	pthread_mutex_unlock(&pool_lock);
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
			e_sockdep(e);
			*len = a->len;
		}
		return a;
	default:
		return a;
	}
}

/* Most sockets took a port with their first send: an unbound one, if
 * there is one, more often than not
 */
static int bind_slot(int sl)
{
	int i, r;

	pthread_mutex_lock(&pool_lock);
	for (i = 0, r = rn(POOL); i < POOL && chance(70); i++)
		if (slots[(r + i) % POOL].fd >= 0 &&
		    !socks[slots[(r + i) % POOL].s].port) {
			sl = (r + i) % POOL;
			break;
		}
	pthread_mutex_unlock(&pool_lock);
	return sl;
}

static void op_bind(void)
{
	struct fsock *so = &cur.so;
	int fam, port, r, i;
	struct expect e;
	struct addr a;
	char call[160];
	socklen_t len;
	void *p;

	fam = so->family;
	switch (rn(7)) {
	case 0:
		port = 0;
		break;
	case 6:
		/* another socket's, if one has one of PORT_BASE's */
		port = PORT_BASE + rn(PORT_SPAN);
		pthread_mutex_lock(&pool_lock);
		for (i = 0, r = rn(POOL); i < POOL; i++)
			if (slots[(r + i) % POOL].fd >= 0 &&
			    socks[slots[(r + i) % POOL].s].port) {
				port = socks[slots[(r + i) % POOL].s].port;
				break;
			}
		pthread_mutex_unlock(&pool_lock);
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
	pthread_mutex_lock(&pool_lock);
	if (so->port) {
		e_late(&e, "bound", EINVAL, 0);
		e_sockdep(&e);
	} else if (port && port_held(port)) {
		/* unless another thread closes the one that has it */
		if (chaos_on)
			eset_add(&e.base, EADDRINUSE);
		else
			e_late(&e, "port in use", EADDRINUSE, 0);
	}
	pthread_mutex_unlock(&pool_lock);
	if (chaos_on) {
		/* another thread may bind it, or send from it (a port), or
		 * take the port for another socket, first
		 */
		eset_add(&e.base, EINVAL);
		eset_add(&e.base, EADDRINUSE);
	}
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
		 cur.fd, port, (int)len, proto_name[so->pi],
		 fam == AF_INET ? "v4" : "v6");
	r = bind(cur.fd, p, len);
	if (!judge(K_BIND, r, errno, &e, call) || r || cur_moved())
		return;
	refresh_port();
	if (cur_moved())
		return;
	if ((port && so->port != port) ||
	    (!port && (so->port < 32768 || so->port > 65535)))
		fail("%s: bound port %d", call, so->port);
}

static void op_connect(void)
{
	struct fsock *so = &cur.so;
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
	snprintf(call, sizeof(call), "connect(%d, len %d)", cur.fd,
		 (int)len);
	r = connect(cur.fd, p, len);
	judge(K_CONNECT, r, errno, &e, call);
}

static void op_listen(void)
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
		snprintf(call, sizeof(call), "listen(%d)", cur.fd);
		r = listen(cur.fd, rn(3) ? 16 : -1);
		break;
	case 1:
		snprintf(call, sizeof(call), "accept4(%d)", cur.fd);
		r = accept4(cur.fd, chance(50) ? (void *)&ss : NULL,
			    &len, SOCK_NONBLOCK);
		if (r >= 0)
			close(r);
		break;
	default:
		snprintf(call, sizeof(call), "socketpair(%s)",
			 proto_name[cur.so.pi]);
		r = socketpair(cur.so.family, SOCK_DGRAM,
			       proto_num[cur.so.pi], sv);
		if (r == 0) {
			close(sv[0]);
			close(sv[1]);
		}
	}
	judge(K_LISTEN, r, errno, &e, call);
}

static void op_getname(void)
{
	struct fsock *so = &cur.so;
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
		 peer ? "getpeername" : "getsockname", cur.fd,
		 (int)given, what[0] ? ", " : "", what);
	r = peer ? getpeername(cur.fd, p, lp) :
		   getsockname(cur.fd, p, lp);
	if (!judge(K_GETNAME, r, errno, &e, call) || r || p != &ss ||
	    cur_moved())
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

static void op_setsockopt(void)
{
	struct fsock *so = &cur.so;
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
		if (level == SOL_IPV6) {	/* of a v6 socket */
			e_sockdep(&e);
			opt_generic(&e);
		}
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
		 cur.fd, level, name, v, what[0] ? " at " : "", what,
		 len, so->family == AF_INET ? "v4" : "v6");
	r = setsockopt(cur.fd, level, name, p, len);
	if (level == SOL_SOCKET && name == SO_RESERVE_MEM)
		ADD(n_reserve[r == 0], 1);
	judge(K_SETSOCKOPT, r, errno, &e, call);
}

/* SHOAL_SOCK_STATS against what the run did on this socket */
static unsigned long n_stats_exact, n_stats_below;

/*
 * SHOAL_SOCK_STATS against what the run did on this socket: @lo, its
 * counts read before the call.  Calls of other threads may be under way
 * on it: the kernel has counted every send, read and error report that
 * returned before the call (at least @lo), and at most the messages
 * sent or under way after it (a sendmmsg() under way counts as every
 * message it may send).  Alone, that is exactly the sends it made.  When a call may have reached it through a slot that
 * moved (inexact), only the counts from below hold.
 */
static void stats_check(const struct fsock *lo,
			const struct shoal_sock_stats *st, const char *call)
{
	struct fsock *so = &socks[cur.s];
	unsigned long busy, ok, reqs;
	bool exact;

	if (cur_moved())
		return;
	busy = LOAD(so->inflight);
	ok = LOAD(so->sends_ok);
	reqs = LOAD(so->reqs_ok);
	exact = !LOAD(so->inexact);
	if (exact)
		ADD(n_stats_exact, 1);
	else
		ADD(n_stats_below, 1);
	/* a request is acknowledged, and fails later if its response
	 * never comes (ECONNRESET, ETIMEDOUT): counted in both
	 */
	if (st->tx_msgs < lo->sends_ok || st->rx_msgs < lo->reads_ok ||
	    st->tx_failed < lo->errq_reads || st->tx_queued > st->tx_msgs ||
	    (exact && (st->tx_msgs > ok + busy ||
		       st->tx_acked + st->tx_failed >
		       st->tx_msgs + reqs + busy)))
		fail("%s: tx_msgs %llu (sent %lu to %lu, %lu under way) acked %llu failed %llu (read %lu) queued %u, rx_msgs %llu (read %lu)%s",
		     call, (unsigned long long)st->tx_msgs, lo->sends_ok, ok,
		     busy, (unsigned long long)st->tx_acked,
		     (unsigned long long)st->tx_failed, lo->errq_reads,
		     st->tx_queued, (unsigned long long)st->rx_msgs,
		     lo->reads_ok, exact ? "" : " (from below only)");
}

static void op_getsockopt(void)
{
	struct fsock *so = &cur.so;
	int level = opt_level(so->family), name, r, v;
	socklen_t len, given, *lp = &len;
	const char *what = "", *lwhat = "";
	struct fsock lo;
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
		if (level == SOL_IPV6) {	/* of a v6 socket */
			e_sockdep(&e);
			opt_generic(&e);
		}
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
		 cur.fd, level, name, (int)given, what[0] ? ", val " : "",
		 what, lwhat[0] ? ", len at " : "", lwhat,
		 so->family == AF_INET ? "v4" : "v6");
	lo.sends_ok = LOAD(socks[cur.s].sends_ok);
	lo.reads_ok = LOAD(socks[cur.s].reads_ok);
	lo.errq_reads = LOAD(socks[cur.s].errq_reads);
	r = getsockopt(cur.fd, level, name, p, lp);
	if (!judge(K_GETSOCKOPT, r, errno, &e, call) || r || lp != &len ||
	    cur_moved())
		return;
	if ((int)given >= 0 && len > given)
		fail("%s: returned length %u > %u", call, len, given);
	if (level == SOL_SHOAL) {
		if (len != (given < sizeof(struct shoal_sock_stats) ? given :
			    sizeof(struct shoal_sock_stats)))
			fail("%s: returned length %u", call, len);
		else if (p == ctlbuf && len == sizeof(struct shoal_sock_stats))
			stats_check(&lo, (struct shoal_sock_stats *)p, call);
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
	int i, n = 0, pick[POOL], fam[POOL], port[POOL];
	struct in6_addr h6 = { .s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
	struct fsock *o;

	*peer = -1;
	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < POOL; i++) {
		if (slots[i].fd < 0)
			continue;
		o = &socks[slots[i].s];
		if (o->port && (o->family == AF_INET6 ||
				so->family == AF_INET || chance(50))) {
			fam[n] = o->family;
			port[n] = o->port;
			pick[n++] = slots[i].s;
		}
	}
	pthread_mutex_unlock(&pool_lock);
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
	i = rn(n);
	*peer = pick[i];
	addr_loop(a, so->family, fam[i], port[i]);
}

static void op_send(bool use_sendto)
{
	struct fsock *so = &cur.so;
	struct shoal_send_args args = { 0 };
	struct iovec iov[8], *iovp = iov;
	uint64_t id = 0, reply_to = 0, req_id = 0;
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
		pthread_mutex_lock(&pool_lock);
		for (i = 0; i < NREQ; i++)
			if (reqs[i].valid && reqs[i].s == cur.s)
				break;
		if (i < NREQ) {
			ri = i;
			peer = -1;
			memcpy(&a.ss, &reqs[i].from, reqs[i].fromlen);
			a.len = reqs[i].fromlen;
			req_id = reqs[i].id;
			reqs[i].valid = false;	/* answered once */
		}
		pthread_mutex_unlock(&pool_lock);
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
	/* another thread's socket may take the slot: not one that blocks */
	if (chaos_on || !so->nonblock || chance(50))
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
			args.reply_to = req_id;
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
	if (len > BUF_MAX && len <= max_msg_len)
		len = BUF_MAX;
	if (len && len <= BUF_MAX) {
		seq = seq_take();
		msg_fill(sendbuf, len, seq, so->port, peer >= 0 ? dport : 0,
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
		 use_sendto ? "sendto" : "sendmsg", cur.fd, len, flags,
		 (int)namelen, what[0] ? ", bad ptr " : "", what, ctllen,
		 proto_name[so->pi], so->family == AF_INET ? "v4" : "v6",
		 dport, peer >= 0 ? " (pool)" : "");
	send_begin(1);
	if (use_sendto) {
		r = sendto(cur.fd, buf, len, flags, name, namelen);
	} else {
		memset(&m, 0, sizeof(m));
		m.msg_name = name;
		m.msg_namelen = namelen;
		m.msg_iov = iovp;
		m.msg_iovlen = niov;
		m.msg_control = ctl;
		m.msg_controllen = ctllen;
		r = sendmsg(cur.fd, &m, flags);
	}
	err = errno;
	seq_sent(seq, r >= 0, cur_moved());
	send_end(1, r >= 0, r >= 0 && with_args &&
		 args.flags == SHOAL_MSG_REQUEST);
	if (!so->port)
		refresh_port();	/* a send may take one */
	if (ri >= 0 && r < 0 && err == EAGAIN) {
		/* not answered: later, unless another took its place */
		pthread_mutex_lock(&pool_lock);
		if (reqs[ri].s == cur.s && reqs[ri].id == req_id)
			reqs[ri].valid = true;
		pthread_mutex_unlock(&pool_lock);
	}
	if (!judge(use_sendto ? K_SENDTO : K_SENDMSG, r, err, &e, call) ||
	    r < 0)
		return;
	if ((size_t)r != len) {
		fail("%s: returned %zd", call, r);
		return;
	}
	if (peer >= 0)
		ADD(n_peer_sends, 1);
	if (ri >= 0)
		ADD(n_rpc_resp, 1);
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
static void recv_verify(const char *call, const char *buf,
			size_t blen, ssize_t n, int rflags, int mflags,
			const struct sockaddr_storage *from,
			const struct shoal_recv_info *info)
{
	struct fsock *so = &cur.so;
	size_t got = (size_t)n < blen ? (size_t)n : blen, i;
	uint32_t seq = 0, mlen, ports, flags;
	bool whole, trunc_known = mflags != -1, moved = cur_moved();
	uint64_t reply_to;
	uint8_t old;

	/* the slot moved: which socket read it is not known */
	if (!moved)
		ADD(socks[cur.s].reads_ok, 1);
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
		ADD(n_trunc, 1);
	if (from && !moved && from->ss_family != so->family)
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
		ADD(n_short, 1);
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
	if ((ports & 0xffff) && so->port && !moved &&
	    (int)(ports & 0xffff) != so->port)
		fail("%s: message seq %u for port %u read on port %d", call,
		     seq, ports & 0xffff, so->port);
	/* the sender's port as its sender saw it: if its slot moved while
	 * it sent, another socket may have sent it (the send says so when
	 * it returns: judged at the end)
	 */
	if ((ports >> 16) && from &&
	    ntohs(((struct sockaddr_in *)from)->sin_port) != ports >> 16) {
		if (!chaos_on)
			fail("%s: message seq %u from port %u says port %u",
			     call, seq,
			     ntohs(((struct sockaddr_in *)from)->sin_port),
			     ports >> 16);
		else if (seq && seq < seq_max)
			__atomic_store_n(&seq_sport_odd[seq], 1,
					 __ATOMIC_SEQ_CST);
	}
	if (info && (info->flags != flags ||
		     (flags == SHOAL_MSG_RESPONSE && info->id != reply_to)))
		fail("%s: message seq %u sent as kind %u (reply_to %#llx) read as %u id %#llx",
		     call, seq, flags, (unsigned long long)reply_to,
		     info->flags, (unsigned long long)info->id);
	if (seq && seq < seq_max) {
		old = __atomic_exchange_n(&seq_state[seq], SEQ_READ,
					  __ATOMIC_SEQ_CST);
		if (old == SEQ_READ)
			fail("%s: message seq %u read twice", call, seq);
		else if (old == SEQ_FAILED)
			fail("%s: message seq %u read, but its send failed",
			     call, seq);
		else if (old != SEQ_SENT && old != SEQ_SENDING)
			fail("%s: message seq %u never sent", call, seq);
	}
	ADD(n_verified, 1);
}

static void remember_request(const struct sockaddr_storage *from,
			     socklen_t fromlen, uint64_t id)
{
	int i = rn(NREQ);

	ADD(n_req_read, 1);
	if (!cur_get()) {	/* read by another socket, perhaps */
		cur_put();
		return;
	}
	reqs[i].s = cur.s;
	memcpy(&reqs[i].from, from, sizeof(*from));
	reqs[i].fromlen = fromlen;
	reqs[i].id = id;
	reqs[i].valid = true;
	cur_put();
}

/* @forced: after poll() said there is one: it must come */
static void op_recv(bool use_recvfrom, int forced)
{
	struct fsock *so = &cur.so;
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
	if (chaos_on || !so->nonblock || chance(50))
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
		 use_recvfrom ? "recvfrom" : "recvmsg", cur.fd, blen,
		 flags, (int)fromlen, ctllen, what[0] ? ", bad buf " : "", what,
		 nwhat[0] ? ", bad " : "", nwhat, proto_name[so->pi],
		 so->family == AF_INET ? "v4" : "v6", so->port);
	memset(&m, 0, sizeof(m));
	name_given = fromlen;
	if (use_recvfrom) {
		r = recvfrom(cur.fd, buf, blen, flags, name, fromlenp);
		err = errno;
		ctllen = 0;
	} else {
		m.msg_name = name;
		m.msg_namelen = fromlen;
		m.msg_iov = iovp;
		m.msg_iovlen = niov;
		m.msg_control = ctl;
		m.msg_controllen = ctllen;
		r = recvmsg(cur.fd, &m, flags);
		err = errno;
		fromlen = m.msg_namelen;
	}
	if (!judge(use_recvfrom ? K_RECVFROM : K_RECVMSG, r, err, &e, call))
		return;
	if (r < 0) {
		if (err == EFAULT && buf != recvbuf && !buf_kernel)
			ADD(n_lost_fault, 1);
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
	if (fromlen && !cur_moved() &&
	    ((so->family == AF_INET &&
	      fromlen != sizeof(struct sockaddr_in)) ||
	     (so->family == AF_INET6 &&
	      fromlen != sizeof(struct sockaddr_in6))))
		fail("%s: name length %d", call, (int)fromlen);
	if (flags & MSG_ERRQUEUE) {
		if (r != 0 || (!use_recvfrom && !(m.msg_flags & MSG_ERRQUEUE)))
			fail("%s: error report returned %zd, msg_flags %#x",
			     call, r, m.msg_flags);
		ADD(n_errq, 1);
		if (!cur_moved())
			ADD(socks[cur.s].errq_reads, 1);
		if (!infop)
			return;
		for (i = 0; i < 4; i++)
			if (info.error == errq_errs[i])
				break;
		if (i == 4 || !info.id)
			fail("%s: error report id %#llx error %d", call,
			     (unsigned long long)info.id, info.error);
		else
			ADD(n_errq_by[i], 1);
		return;
	}
	/* the sender, if the whole name came back */
	if (!fromlen || name_given < fromlen)
		fromlen = 0;
	recv_verify(call, buf == recvbuf ? recvbuf : NULL, blen, r, flags,
		    use_recvfrom ? -1 : m.msg_flags, fromlen ? &from : NULL,
		    infop);
	if (infop && info.flags == SHOAL_MSG_REQUEST && fromlen)
		remember_request(&from, fromlen, info.id);
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
static void op_sendmmsg(void)
{
	struct fsock *so = &cur.so;
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
		seq[i] = len ? seq_take() : 0;
		msg_fill(b, len, seq[i], so->port, peer[i] >= 0 ?
			 ntohs(((struct sockaddr_in *)&a[i].ss)->sin_port) : 0,
			 0, 0);
		iov[i].iov_base = b;
		iov[i].iov_len = len;
		mm[i].msg_hdr.msg_name = &a[i].ss;
		mm[i].msg_hdr.msg_namelen = a[i].len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	snprintf(call, sizeof(call), "sendmmsg(%d, %u messages%s) %s %s",
		 cur.fd, vlen, bad < MMSG ? ", one of length 0" : "",
		 proto_name[so->pi], so->family == AF_INET ? "v4" : "v6");
	send_begin(vlen);
	r = sendmmsg(cur.fd, mm, vlen, MSG_DONTWAIT);
	err = errno;
	for (i = 0; i < vlen; i++)
		seq_sent(seq[i], r >= 0 && i < (unsigned int)r, cur_moved());
	send_end(vlen, r > 0 ? r : 0, 0);
	if (!so->port)
		refresh_port();
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
		if (peer[i] >= 0)
			ADD(n_peer_sends, 1);
	}
}

/* recvmmsg() of up to MMSG messages, without waiting */
static void op_recvmmsg(void)
{
	struct fsock *so = &cur.so;
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
		 cur.fd, vlen, flags, proto_name[so->pi],
		 so->family == AF_INET ? "v4" : "v6", so->port);
	r = recvmmsg(cur.fd, mm, vlen, flags, NULL);
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
		recv_verify(call, recvbuf + i * MMSG_BUF, MMSG_BUF,
			    mm[i].msg_len, flags, mm[i].msg_hdr.msg_flags,
			    mm[i].msg_hdr.msg_namelen ? &from[i] : NULL, infop);
	}
}

/* ---- poll, ioctl, shutdown ---- */

/*
 * poll() on some of the pool's descriptors; then a receive on one that
 * said POLLIN or POLLERR must find something (unless another thread took
 * it).  A slot another thread closed meanwhile says POLLNVAL.
 */
static void op_poll(void)
{
	struct pollfd pfd[POOL + 2], *p = pfd;
	int n = 1 + rn(POOL + 2), i, sl, r, ready = 0, want[POOL + 2];
	const short known = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM |
		POLLWRBAND | POLLERR;
	unsigned long gen[POOL + 2];
	const char *what = "";
	struct expect e;
	char call[96];
	bool kernel;

	pthread_mutex_lock(&pool_lock);
	for (i = 0; i < n; i++) {
		sl = pick_slot();
		want[i] = sl;
		pfd[i].fd = sl >= 0 && rn(8) ? slots[sl].fd : -1;
		gen[i] = sl >= 0 ? slot_gen[sl] : 0;
		pfd[i].events = rnd() & (POLLIN | POLLOUT | POLLPRI |
					 POLLRDHUP | POLLERR);
		if (chance(60))
			pfd[i].events |= POLLIN;
		pfd[i].revents = 0;
	}
	pthread_mutex_unlock(&pool_lock);
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
		if (pfd[i].fd >= 0 && pfd[i].revents == POLLNVAL &&
		    LOAD(slot_gen[want[i]]) != gen[i])
			continue;	/* closed meanwhile */
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
		if (pfd[i].fd < 0 || sl < 0 ||
		    !(pfd[i].revents & (POLLIN | POLLERR)) ||
		    !(pfd[i].revents & known))
			continue;
		if (!op_begin(sl))
			return;
		if (cur.gen == gen[i] && (pfd[i].revents & POLLIN))
			ADD(n_poll_in, 1);
		if (cur.gen == gen[i])
			op_recv(false, pfd[i].revents & POLLIN ? POLLIN :
							       POLLERR);
		op_end();
		return;
	}
}

/* FIONBIO and SIOCGIF calls so far, of every thread */
static unsigned int ioctl_copying;

static void op_ioctl(void)
{
	struct fsock *so = &cur.so;
	const char *what = "", *nm;
	unsigned long req;
	struct expect e;
	struct ifreq ifr;
	char call[128];
	void *arg = ctlbuf;
	int v = 0, r, kind = rn(8);
	bool kernel, bad;

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
	/* a fifth: EFAULT comes only from the kinds that copy (half of
	 * them), and a short run makes under a hundred ioctls, so the first
	 * FIONBIO or SIOCGIF of a run and every fifth after has one too
	 * (seed 298145's 90 ioctls had none where it shows)
	 */
	bad = chance(20);
	if ((kind == 3 || kind == 4) &&
	    !(__atomic_fetch_add(&ioctl_copying, 1, __ATOMIC_RELAXED) % 5))
		bad = true;
	if (bad) {
		arg = bad_ptr(&kernel, &what);
		if (what[0] == 'e')
			arg = edge_page + page - 2;
		eset_add(&e.base, EFAULT);
		if (kind == 3 || kind == 4)
			e_late(&e, "bad arg", EFAULT, 0);
	}
	snprintf(call, sizeof(call), "ioctl(%d, %s %#lx%s%s)", cur.fd,
		 nm, req, what[0] ? ", bad arg " : "", what);
	r = ioctl(cur.fd, req, arg);
	if (!judge(K_IOCTL, r, errno, &e, call) || r < 0)
		return;
	if (kind == 3 && arg == ctlbuf) {
		so = cur_get();
		if (so)
			so->nonblock = v;
		cur_put();
	}
	if ((kind == 0 || kind == 1) && arg == ctlbuf) {
		memcpy(&v, ctlbuf, sizeof(v));
		if (v < 0 || v > (int)max_msg_len)
			fail("%s: %d bytes", call, v);
	}
}

static void op_shutdown(void)
{
	struct expect e;
	char call[64];
	int how = pick_int((const int[]){
		SHUT_RD, SHUT_WR, SHUT_RDWR, 3, -1 }, 5), r;

	e_init(&e, false, 0);
	e_late(&e, "shutdown", EOPNOTSUPP, 0);
	snprintf(call, sizeof(call), "shutdown(%d, %d)", cur.fd, how);
	r = shutdown(cur.fd, how);
	judge(K_SHUTDOWN, r, errno, &e, call);
}

/* ---- several threads ----
 *
 * With -t (-tN: N threads, 1 to RACERS_MAX; -t alone is 2) other
 * threads make random calls on the pool's descriptors at the same time
 * as the main thread, as fast as they can (race_op()): sends of every
 * kind to the pool and to nowhere, receives, binds, connect, poll,
 * shutdown, setsockopt and getsockopt (SO_RCVBUF, SO_SNDBUF and
 * SO_RESERVE_MEM often: they own the socket while packets arrive and are
 * charged), socket() into a free slot, a new socket dup2()'d over a
 * slot's (replacing it at once), close() and dup().  So shoal.ko's paths
 * race each other on one socket: sendmsg against recvmsg, bind, setsockopt
 * and the release of the socket, a receive against a send that queues,
 * a port taken by bind() against one taken by a send.  Every call is
 * judged as the main thread's are, with what other threads may change
 * meanwhile allowed (judge(), op_bind(), stats_check(), recv_verify()).
 */
static const int chaos_vals[5] = { 0, 4096, 65536, 1 << 20, 4 << 20 };
static const int chaos_opts[3] = { SO_RCVBUF, SO_SNDBUF, SO_RESERVE_MEM };
static volatile bool chaos_stop;
static unsigned long chaos_calls[RACERS_MAX + 1];
static struct timespec call_start[RACERS_MAX + 1];	/* 0: idle */
static unsigned long call_idx[RACERS_MAX + 1];

/* SO_RCVBUF, SO_SNDBUF or SO_RESERVE_MEM to a size of chaos_vals[] */
static void op_bufopt(void)
{
	int opt = chaos_opts[rn(3)], v = chaos_vals[rn(5)], r;
	struct expect e;
	char call[96];

	/* SO_RESERVE_MEM: ENOPROTOOPT outside a memory cgroup, ENOMEM
	 * past its limit, EINVAL for a negative size (never here)
	 */
	e_init(&e, true, ENOPROTOOPT, ENOMEM, 0);
	if (opt != SO_RESERVE_MEM)
		e_init(&e, true, 0);
	snprintf(call, sizeof(call), "setsockopt(%d, %s, %d)", cur.fd,
		 opt == SO_RCVBUF ? "SO_RCVBUF" : opt == SO_SNDBUF ?
		 "SO_SNDBUF" : "SO_RESERVE_MEM", v);
	r = setsockopt(cur.fd, SOL_SOCKET, opt, &v, sizeof(v));
	if (opt == SO_RESERVE_MEM)
		ADD(n_reserve[r == 0], 1);
	judge(K_SETSOCKOPT, r, errno, &e, call);
}

/* A call on a slot's socket */
enum sop {
	S_BIND, S_CONNECT, S_LISTEN, S_GETNAME, S_SETSOCKOPT, S_GETSOCKOPT,
	S_SEND, S_SENDMMSG, S_SENDTO, S_RECV, S_RECVMMSG, S_RECVFROM, S_IOCTL,
	S_SHUTDOWN, S_BUFOPT
};

static void slot_op(enum sop op, int sl)
{
	if (!op_begin(sl))
		return;
	switch (op) {
	case S_BIND:
		op_bind();
		break;
	case S_CONNECT:
		op_connect();
		break;
	case S_LISTEN:
		op_listen();
		break;
	case S_GETNAME:
		op_getname();
		break;
	case S_SETSOCKOPT:
		op_setsockopt();
		break;
	case S_GETSOCKOPT:
		op_getsockopt();
		break;
	case S_SEND:
		op_send(false);
		break;
	case S_SENDMMSG:
		op_sendmmsg();
		break;
	case S_SENDTO:
		op_send(true);
		break;
	case S_RECV:
		op_recv(false, 0);
		break;
	case S_RECVMMSG:
		op_recvmmsg();
		break;
	case S_RECVFROM:
		op_recv(true, 0);
		break;
	case S_IOCTL:
		op_ioctl();
		break;
	case S_SHUTDOWN:
		op_shutdown();
		break;
	case S_BUFOPT:
		op_bufopt();
		break;
	}
	op_end();
}

/* One call of another thread: more sends, receives, buffer sizes and
 * slot changes than the main thread's
 */
static void race_op(void)
{
	int sl = pick_slot(), r = rn(100);

	if (sl < 0) {
		op_socket();
		return;
	}
	if (r < 3)
		op_socket_into(sl);	/* replaces the slot's socket */
	else if (r < 6)
		op_close(sl);
	else if (r < 8)
		op_socket();
	else if (r < 10)
		op_dup(sl);
	else if (r < 16)
		op_poll();
	else if (r < 26)
		slot_op(S_BUFOPT, sl);
	else if (r < 31)
		slot_op(S_BIND, bind_slot(sl));
	else if (r < 51)
		slot_op(S_SEND, sl);
	else if (r < 57)
		slot_op(S_SENDTO, sl);
	else if (r < 61)
		slot_op(S_SENDMMSG, sl);
	else if (r < 75)
		slot_op(S_RECV, sl);
	else if (r < 78)
		slot_op(S_RECVMMSG, sl);
	else if (r < 81)
		slot_op(S_RECVFROM, sl);
	else if (r < 84)
		slot_op(S_CONNECT, sl);
	else if (r < 86)
		slot_op(S_SHUTDOWN, sl);
	else if (r < 87)
		slot_op(S_LISTEN, sl);
	else if (r < 91)
		slot_op(S_SETSOCKOPT, sl);
	else if (r < 95)
		slot_op(S_GETSOCKOPT, sl);
	else if (r < 97)
		slot_op(S_GETNAME, sl);
	else if (r < 98)
		slot_op(S_IOCTL, sl);
	else
		usleep(100 + rn(1000));
}

static bool thread_bufs(void)
{
	sendbuf = malloc(BUF_MAX);
	recvbuf = malloc(BUF_MAX + 2048 * sizeof(struct iovec));
	ctlbuf = calloc(1, 1 << 20);
	return sendbuf && recvbuf && ctlbuf;
}

static void call_begin(void)
{
	clock_gettime(CLOCK_MONOTONIC, &call_start[tid]);
	call_idx[tid] = op_idx;
}

static void call_done(void)
{
	__atomic_store_n(&call_start[tid].tv_sec, 0, __ATOMIC_SEQ_CST);
}

static void *racer(void *arg)
{
	tid = (int)(intptr_t)arg;
	rs = (seed + tid) * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	for (op_idx = 0; op_idx < 8; op_idx++)
		rnd();
	if (!thread_bufs()) {
		fail("thread %d: no memory", tid);
		return NULL;
	}
	for (op_idx = 0; !chaos_stop; op_idx++) {
		call_begin();
		race_op();
		call_done();
		chaos_calls[tid]++;
	}
	return NULL;
}

/* Nothing blocks: a call of any thread that takes WATCHDOG_S fails the
 * run (its thread and operation named)
 */
static void *watchdog(void *arg)
{
	struct timespec now;
	int t;

	(void)arg;
	for (;;) {
		usleep(200000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (t = 0; t <= nracers; t++) {
			time_t s = __atomic_load_n(&call_start[t].tv_sec,
						   __ATOMIC_SEQ_CST);

			if (s && now.tv_sec - s >= WATCHDOG_S) {
				printf("not ok 1 - thread %d: operation %lu blocked for %d seconds (seed %llu)\n",
				       t, call_idx[t], WATCHDOG_S, seed);
				fflush(stdout);
				_exit(1);
			}
		}
	}
	return NULL;
}

/* ---- one operation of the main thread ---- */

static void one_op(void)
{
	int sl = pick_slot(), r, i, n = 0;

	for (i = 0; i < POOL; i++)
		n += LOAD(slots[i].fd) < 0;
	if (sl < 0 || (n && chance(6))) {
		op_socket();
		return;
	}
	r = rn(100);
	if (r < 5)
		op_socket();
	else if (r < 13)
		slot_op(S_BIND, bind_slot(sl));
	else if (r < 15)
		slot_op(S_CONNECT, sl);
	else if (r < 17)
		slot_op(S_LISTEN, sl);
	else if (r < 20)
		slot_op(S_GETNAME, sl);
	else if (r < 29)
		slot_op(S_SETSOCKOPT, sl);
	else if (r < 36)
		slot_op(S_GETSOCKOPT, sl);
	else if (r < 49)
		slot_op(S_SEND, sl);
	else if (r < 52)
		slot_op(S_SENDMMSG, sl);
	else if (r < 58)
		slot_op(S_SENDTO, sl);
	else if (r < 69)
		slot_op(S_RECV, sl);
	else if (r < 71)
		slot_op(S_RECVMMSG, sl);
	else if (r < 76)
		slot_op(S_RECVFROM, sl);
	else if (r < 83)
		op_poll();
	else if (r < 87)
		slot_op(S_IOCTL, sl);
	else if (r < 89)
		slot_op(S_SHUTDOWN, sl);
	else if (r < 93)
		op_close(sl);
	else if (r < 96)
		op_dup(sl);
	else if (r < 99)
		usleep(200 + rn(3000));	/* the timers run */
	else
		for (sl = 0; sl < POOL; sl++)
			if (LOAD(slots[sl].fd) >= 0 && chance(50))
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
	char left[512];
	int tenths, r = shoal_objects_settle(left, sizeof(left), &tenths);

	if (r < 0) {
		printf("ok %d - shoal.ko's objects back to 0 # SKIP %s\n",
		       ++tap_n, left);
		return;
	}
	tap(r == 1,
	    "shoal.ko's objects (but sird_peers, kept per namespace) back to 0 within %d.%d s of closing every socket%s%s",
	    tenths / 10, tenths % 10, r == 1 ? "" : "; left:", left);
}

/* Messages read from another port than their header says: each must
 * have been sent while its slot moved (its sender then cannot tell
 * which socket sent it)
 */
static void verdict_strays(void)
{
	unsigned long odd = 0, bad = 0, first = 0;
	uint32_t i;

	for (i = 1; i < seq_max; i++)
		if (seq_sport_odd[i]) {
			odd++;
			if (!seq_stray[i] && !bad++)
				first = i;
		}
	tap(!bad, "messages from another port than their sender's: %lu, each sent while its slot moved (%lu not; first seq %lu)",
	    odd, bad, first);
}

int main(int argc, char **argv)
{
	unsigned long need, total = 0;
	int i, a = 1;
	bool net_own = false, big;
	char again[512];
	pthread_t th[RACERS_MAX + 1], wd;
	struct rlimit rl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-n")) {
			own_netns();
			net_own = true;
		} else if (!strncmp(argv[a], "-t", 2)) {
			nracers = argv[a][2] ? atoi(argv[a] + 2) : 2;
			if (nracers < 1 || nracers > RACERS_MAX) {
				printf("usage: -tN, N from 1 to %d\n",
				       RACERS_MAX);
				return 2;
			}
			chaos_on = true;
		} else {
			printf("usage: %s [-n] [-t|-tN] [OPS [SEED]]\n", argv[0]);
			return 2;
		}
	}
	nops = a < argc ? strtoul(argv[a], NULL, 0) : 5000;
	seed = a + 1 < argc ? strtoull(argv[a + 1], NULL, 0) :
		(unsigned long long)time(NULL) % 1000000;
	snprintf(again, sizeof(again), "%s%s -t%d %lu %llu", argv[0],
		 net_own ? " -n" : "", nracers, nops, seed);
	if (!chaos_on)
		snprintf(again, sizeof(again), "%s%s %lu %llu", argv[0],
			 net_own ? " -n" : "", nops, seed);
	printf("# shoal_sockfuzz: seed %llu, %lu operations, %d other threads (again: %s)\n",
	       seed, nops, nracers, again);
	rs = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	for (i = 0; i < 8; i++)
		rnd();
	proto_num[0] = shoal_proto_number(false);
	proto_num[1] = shoal_proto_number(true);
	max_msg_len = read_long("/proc/sys/net/shoal/max_msg_len",
				32 << 20);
	/* the slots' descriptor numbers */
	if (!getrlimit(RLIMIT_NOFILE, &rl) &&
	    rl.rlim_cur < FD_BASE + POOL + 64) {
		rl.rlim_cur = FD_BASE + POOL + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	page = sysconf(_SC_PAGESIZE);
	seq_max = (nops * 2 + 2) * (1 + 8 * nracers);
	if (seq_max > 1 << 24)
		seq_max = 1 << 24;
	seq_state = calloc(seq_max, 1);
	seq_stray = calloc(seq_max, 1);
	seq_sport_odd = calloc(seq_max, 1);
	socks = calloc(SOCKS_MAX, sizeof(*socks));
	none_page = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	edge_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!thread_bufs() || !seq_state || !seq_stray || !seq_sport_odd ||
	    !socks || none_page == MAP_FAILED || edge_page == MAP_FAILED ||
	    mprotect(edge_page + page, page, PROT_NONE)) {
		printf("Bail out! no memory\n");
		return 1;
	}
	for (i = 0; i < POOL; i++) {
		slots[i].fd = -1;
		slots[i].s = -1;
	}
	signal(SIGPIPE, SIG_IGN);

	if (pthread_create(&wd, NULL, watchdog, NULL)) {
		printf("Bail out! pthread_create\n");
		return 1;
	}
	for (i = 1; i <= nracers; i++)
		if (pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i)) {
			printf("Bail out! pthread_create\n");
			return 1;
		}
	for (op_idx = 0; op_idx < nops; op_idx++) {
		call_begin();
		one_op();
		call_done();
	}
	chaos_stop = true;
	for (i = 1; i <= nracers; i++) {
		pthread_join(th[i], NULL);
		printf("# thread %d: %lu calls\n", i, chaos_calls[i]);
		total += chaos_calls[i];
	}
	if (chaos_on)
		printf("# races: %lu calls whose slot was closed or given another socket while they ran (%lu of them EBADF), %lu sockets replaced by dup2(), %lu messages sent from a slot that moved, %lu statistics checked exactly and %lu from below\n",
		       n_moved, n_moved_ebadf, n_replaced, n_stray_ok,
		       n_stats_exact, n_stats_below);
	/* what is still on its way arrives: read it, then close all */
	call_begin();
	usleep(100000);
	for (i = 0; i < POOL; i++)
		if (slots[i].fd >= 0) {
			slot_op(S_RECV, i);
			op_close(i);
		}
	call_done();

	summary();
	tap(!failures, "every call returned what it may (%lu operations, %lu of other threads, %lu failures)",
	    nops, total, failures);
	/* a run of the default length, over all threads, reaches each
	 * many times; the other threads read many messages first
	 */
	big = nops + total >= 2000;
	need = !big ? 1 : chaos_on ? 10 : 20;
	tap(n_peer_sends >= need && n_verified >= need,
	    "messages flowed: %lu sent to the pool, %lu read and verified (>= %lu each)",
	    n_peer_sends, n_verified, need);
	tap(n_errq_by[0] >= (big ? 5 : 0),
	    "failed messages reported: %lu error reports, %lu ECONNREFUSED",
	    n_errq, n_errq_by[0]);
	if (chaos_on) {
		verdict_strays();
		tap(total >= nops && n_moved >= (big ? 5 : 0) &&
		    n_replaced >= (big ? 5 : 0),
		    "the threads raced: %lu calls of %d other threads (>= %lu), %lu calls whose slot moved under them (>= %d), %lu sockets replaced under calls (>= %d)",
		    total, nracers, nops, n_moved, big ? 5 : 0, n_replaced,
		    big ? 5 : 0);
	}
	verdict_paths();
	verdict_objects();
	printf("1..%d\n", tap_n);
	if (failures)
		printf("# FAIL: seed %llu (again: %s)\n", seed, again);
	return failures || tap_fail ? 1 : 0;
}
