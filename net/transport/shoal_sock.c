// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: the sockets.  socket(AF_INET or AF_INET6, SOCK_DGRAM,
 * IPPROTO_SIRD or IPPROTO_PL2) gives a message socket
 * (include/uapi/linux/shoal.h, Documentation/shoal.md): bind() takes a
 * Shoal port (or one is chosen at the first send), sendmsg() sends one
 * whole message, recvmsg() returns one whole message, MSG_ERRQUEUE the
 * messages that failed.  The two protocols differ only in how they send
 * (PL2: shoal_pl2.c).  The protocol number is a lookup key for socket()
 * only: packets travel as UDP.  The numbers are the module's parameters
 * (shoal_main.c), set here before the protocols are registered.
 *
 * Locking: see shoal_sock.h.  sn->ports_lock guards writers of the port
 * table; the receive path reads it under RCU.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include "shoal_sock.h"

#define SHOAL_PORT_AUTO		32768	/* automatic ports: 32768 .. 65535 */

static u8 shoal_pl2_proto __read_mostly;	/* PL2's protocol number */

static struct hlist_head *shoal_port_head(struct shoal_net *sn, u16 port)
{
	return &sn->ports[port & (SHOAL_PORT_HASH - 1)];
}

/* The socket bound to @port, under RCU or sn->ports_lock */
static struct shoal_sock *shoal_port_find(struct shoal_net *sn, u16 port)
{
	struct shoal_sock *ss;

	hlist_for_each_entry_rcu(ss, shoal_port_head(sn, port), port_node,
				 lockdep_is_held(&sn->ports_lock))
		if (ss->port == port)
			return ss;
	return NULL;
}

/* Bind @ss to @port, or to a free automatic port if 0 */
static int shoal_port_take(struct shoal_sock *ss, u16 port)
{
	struct shoal_net *sn = ss->sn;
	u32 i, span = 65536 - SHOAL_PORT_AUTO;
	int err = 0;

	spin_lock_bh(&sn->ports_lock);
	if (ss->port) {
		err = -EINVAL;			/* bound already */
	} else if (port) {
		if (shoal_port_find(sn, port))
			err = -EADDRINUSE;
	} else {
		for (i = 0; i < span; i++) {
			port = SHOAL_PORT_AUTO + (sn->next_port++ % span);
			if (!shoal_port_find(sn, port))
				break;
		}
		if (i == span)
			err = -EADDRNOTAVAIL;
	}
	if (!err) {
		ss->port = port;
		ss->inet.inet_sport = htons(port);
		ss->inet.inet_num = port;
		hlist_add_head_rcu(&ss->port_node, shoal_port_head(sn, port));
	}
	spin_unlock_bh(&sn->ports_lock);
	return err;
}

/* @uaddr as a peer; AF_INET6 sockets take either family */
static int shoal_addr_from(struct sock *sk, const void *uaddr, int len,
			   struct shoal_addr *a)
{
	const struct sockaddr_in6 *s6 = uaddr;
	const struct sockaddr_in *s4 = uaddr;

	if (!uaddr || len < (int)sizeof(sa_family_t))
		return -EDESTADDRREQ;
	if (s4->sin_family == AF_INET) {
		if (len < (int)sizeof(*s4))
			return -EINVAL;
		ipv6_addr_set_v4mapped(s4->sin_addr.s_addr, &a->ip);
		a->port = ntohs(s4->sin_port);
		return 0;
	}
	if (s6->sin6_family != AF_INET6 || sk->sk_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (len < SIN6_LEN_RFC2133)
		return -EINVAL;
	a->ip = s6->sin6_addr;
	a->port = ntohs(s6->sin6_port);
	return 0;
}

/* @a in msg_name, in the socket's family */
static void shoal_addr_to(struct sock *sk, const struct shoal_addr *a,
			  struct msghdr *msg)
{
	if (!msg->msg_name)
		return;
	if (sk->sk_family == AF_INET) {
		DECLARE_SOCKADDR(struct sockaddr_in *, s4, msg->msg_name);

		*s4 = (struct sockaddr_in){
			.sin_family = AF_INET,
			.sin_port = htons(a->port),
			.sin_addr.s_addr = a->ip.s6_addr32[3],
		};
		msg->msg_namelen = sizeof(*s4);
	} else {
		DECLARE_SOCKADDR(struct sockaddr_in6 *, s6, msg->msg_name);

		*s6 = (struct sockaddr_in6){
			.sin6_family = AF_INET6,
			.sin6_port = htons(a->port),
			.sin6_addr = a->ip,
		};
		msg->msg_namelen = sizeof(*s6);
	}
}

static int shoal_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct shoal_sock *ss = shoal_sk(sock->sk);
	struct shoal_addr a;
	int err;

	err = shoal_addr_from(sock->sk, uaddr, len, &a);
	if (err == -EDESTADDRREQ)
		err = -EINVAL;
	if (err)
		return err;
	/* the privileged ports are as privileged as for UDP */
	if (a.port && inet_port_requires_bind_service(sock_net(sock->sk),
						      a.port) &&
	    !ns_capable(sock_net(sock->sk)->user_ns, CAP_NET_BIND_SERVICE))
		return -EACCES;
	return shoal_port_take(ss, a.port);
}

/* Arm the socket's timer if it has messages and it is not armed */
void shoal_sock_arm(struct shoal_sock *ss)
{
	unsigned long ival;

	if (ss->dead || timer_pending(&ss->timer))
		return;
	if (list_empty(&ss->out_list) && list_empty(&ss->in_list) &&
	    list_empty(&ss->done) && list_empty(&ss->await) && !ss->nr_acks)
		return;
	ival = shoal_resend_ival(ss->sn);
	mod_timer(&ss->timer, jiffies + max(ival / 2, 1UL));
}

static void shoal_sock_timer(struct timer_list *t)
{
	struct shoal_sock *ss = from_timer(ss, t, timer);
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock(&ss->lock);
	if (!ss->dead) {
		shoal_ack_flush(ss, &q);
		shoal_out_tick(ss, &q);
		shoal_in_tick(ss, &q);
		shoal_sock_arm(ss);
	}
	spin_unlock(&ss->lock);
	shoal_xmit_list(ss->sn, &q);
}

/* An IPv4 socket hears only IPv4 peers, a v6only one only IPv6 ones */
static bool shoal_sock_hears(const struct shoal_sock *ss,
			     const struct shoal_addr *src)
{
	if (ipv6_addr_v4mapped(&src->ip))
		return !ss->inet.sk.sk_ipv6only;
	return ss->inet.sk.sk_family == AF_INET6;
}

/* Our own DATA, returned by a switch (SHOAL_F_BOUNCED): its addresses
 * are swapped, so @src's address is the peer it was sent to, but the
 * Shoal header's are not: pkt->sport is our socket's port and
 * pkt->dport the peer's.  Nothing in it is the peer's word (not its
 * folded ACK): it only tells the sender to send the range again.  Never
 * answered, so a forged one makes at most one packet to that peer.
 */
static void shoal_sock_bounced(struct shoal_net *sn, struct sk_buff *skb,
			       const struct shoal_wire_pkt *pkt,
			       const struct shoal_addr *src)
{
	struct shoal_addr peer = { .ip = src->ip, .port = pkt->dport };
	struct shoal_sock *ss = shoal_port_find(sn, pkt->sport);
	struct sk_buff_head q;

	/* read: what it names is in @pkt */
	consume_skb(skb);
	shoal_stat_inc(sn, SHOAL_STAT_RX_BOUNCED);
	if (!ss || !shoal_sock_hears(ss, &peer)) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_BOUNCE_NO_MSG);
		return;
	}
	__skb_queue_head_init(&q);
	spin_lock(&ss->lock);
	if (ss->dead)
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_BOUNCE_NO_MSG);
	else
		shoal_out_bounced(ss, pkt, &peer, &q);
	spin_unlock(&ss->lock);
	shoal_xmit_list(sn, &q);
}

/* A control packet of @type answering @pkt, which @src sent to our port
 * @sport (at @local, NULL: the route's address), about the message @pkt
 * names: a reply that needs no state of that message
 */
void shoal_reply(struct shoal_net *sn, const struct shoal_wire_pkt *pkt,
		 const struct shoal_addr *src, const struct in6_addr *local,
		 u16 sport, u8 type, u32 word, struct sk_buff_head *q)
{
	shoal_ctrl(sn, &(struct shoal_ctrl){
			.dst = src,
			.saddr = local,
			.sport = sport,
			.type = type,
			.flags = pkt->flags & SHOAL_F_NAME,
			.id = pkt->msg_id,
			.msg_len = pkt->msg_len,
			.word = word,
		   }, q);
}

/* A packet for port pkt->dport, where no socket listens: the peer learns
 * it at once, with one packet of the same size.  A sender of DATA or a
 * CREDIT_REQ (or an RSV) gets UNKNOWN; a receiver still crediting, asking
 * for bytes again or telling us to wait (the socket that sent the message
 * closed) gets ABORT, and forgets the message instead of holding its
 * credit until it times out.
 */
static u8 shoal_refusal(u8 type)
{
	switch (type) {
	case SHOAL_T_DATA:
	case SHOAL_T_CREDIT_REQ:
	case SHOAL_T_RSV:
		return SHOAL_T_UNKNOWN;
	case SHOAL_T_CREDIT:
	case SHOAL_T_RESEND:
	case SHOAL_T_BUSY:
		return SHOAL_T_ABORT;
	default:
		return 0;	/* unanswered */
	}
}

static void shoal_sock_refuse(struct shoal_net *sn,
			      const struct shoal_wire_pkt *pkt,
			      const struct shoal_addr *src,
			      const struct in6_addr *local,
			      struct sk_buff_head *q)
{
	u8 type = shoal_refusal(pkt->type);

	if (type)
		shoal_reply(sn, pkt, src, local, pkt->dport, type,
			    ECONNREFUSED, q);
}

/* Whether refusal @p, from @peer to @ss, names a message @ss has: an
 * ABORT one it receives, an UNKNOWN one it sends.  Under RCU.
 */
static bool shoal_sock_refusal_hits(struct shoal_sock *ss,
				    const struct shoal_wire_pkt *p,
				    const struct shoal_addr *peer)
{
	u8 name = p->flags & SHOAL_F_NAME;
	bool hit;

	spin_lock(&ss->lock);
	if (p->type == SHOAL_T_ABORT)
		hit = shoal_in_receiving(ss, peer, p->msg_id, name);
	else
		hit = shoal_omsg_find(ss, peer, p->msg_id, name);
	hit = hit && !ss->dead;
	spin_unlock(&ss->lock);
	return hit;
}

/* An ICMP port unreachable for a message of @ss's says more than its
 * refusal: @host has no Shoal socket at all, so none of @ss's other
 * messages from or to it lives on either, but one begun since a socket
 * came back there.  Each would otherwise wait for an ICMP of its own,
 * and hosts rate-limit those (one a second after 6): a gone client's
 * messages held the receiver's credit until they timed out.
 */
static void shoal_sock_host_gone(struct shoal_sock *ss,
				 const struct in6_addr *host)
{
	u32 n = 0;

	spin_lock(&ss->lock);
	if (!ss->dead) {
		n = shoal_in_host_gone(ss, host) +
		    shoal_out_host_gone(ss, host);
		shoal_sock_arm(ss);
	}
	spin_unlock(&ss->lock);
	shoal_stat_add(ss->sn, SHOAL_STAT_RX_HOST_GONE, n);
}

/* ICMP port unreachable came for @sent, our packet to @peer (from
 * @local): the peer's namespace has no Shoal socket, so no Shoal port
 * (shoal_udp.c).  Take the refusal shoal_sock_refuse() would have sent as
 * if it had come, built and parsed as a packet would be.  Softirq context
 * under RCU.  An UNKNOWN or ABORT reads nothing of its skb: there is none.
 * False: the port would have refused nothing (@sent was an ACK, say).
 */
bool shoal_sock_unreachable(struct shoal_net *sn,
			    const struct shoal_wire_pkt *sent,
			    const struct shoal_addr *peer,
			    const struct in6_addr *local)
{
	struct shoal_wire_pkt p = {
		.type = shoal_refusal(sent->type),
		.flags = sent->flags & SHOAL_F_NAME,
		.sport = sent->dport,
		.dport = sent->sport,
		.msg_id = sent->msg_id,
		.msg_len = sent->msg_len,
		.word = ECONNREFUSED,
	};
	struct shoal_sock *ss;
	u8 buf[SHOAL_HDR_MAX];
	bool hit = false;
	u32 n;

	if (!p.type)
		return false;
	n = shoal_wire_build(buf, &p);
	if (shoal_wire_parse(buf, n, n, READ_ONCE(sn->max_msg_len), &p))
		return false;
	/* only a message of ours named speaks for its host: an off-path
	 * host cannot guess one
	 */
	ss = shoal_port_find(sn, p.dport);
	if (ss && shoal_sock_hears(ss, peer))
		hit = shoal_sock_refusal_hits(ss, &p, peer);
	shoal_sock_rcv(sn, NULL, &p, peer, local, false);
	if (hit)
		shoal_sock_host_gone(ss, &peer->ip);
	return true;
}

/* A packet for port pkt->dport, in softirq context under RCU.  Consumes
 * @skb (NULL for a refusal ICMP stood for: shoal_sock_unreachable()).
 */
void shoal_sock_rcv(struct shoal_net *sn, struct sk_buff *skb,
		    const struct shoal_wire_pkt *pkt,
		    const struct shoal_addr *src,
		    const struct in6_addr *local, bool ce)
{
	struct shoal_sock *ss = shoal_port_find(sn, pkt->dport);
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	if (pkt->type == SHOAL_T_DATA && (pkt->flags & SHOAL_F_BOUNCED)) {
		shoal_sock_bounced(sn, skb, pkt, src);
		return;
	}
	/* a GRT is its sender's RSV, returned: the socket is its source */
	if (pkt->type == SHOAL_T_GRT) {
		ss = shoal_port_find(sn, pkt->sport);
		if (ss && !ss->pl2)
			ss = NULL;
	}
	if (ss && !shoal_sock_hears(ss, src))
		ss = NULL;
	/* no PL2 switch took it on the way; an RSV of Shoal ports 0 is a
	 * host qdisc's (sch_pl2), for traffic no socket of ours carries
	 */
	if (pkt->type == SHOAL_T_RSV && (ss || (!pkt->sport && !pkt->dport))) {
		shoal_pl2_answer(sn, pkt, src, local, &q);
		consume_skb(skb);
		shoal_xmit_list(sn, &q);
		return;
	}
	if (!ss) {
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_SOCKET);
		shoal_sock_refuse(sn, pkt, src, local, &q);
		kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
		shoal_xmit_list(sn, &q);
		return;
	}
	spin_lock(&ss->lock);
	if (ss->dead) {
		spin_unlock(&ss->lock);
		shoal_stat_inc(sn, SHOAL_STAT_RX_DROP_NO_SOCKET);
		kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
		return;
	}
	if (pkt->options & SHOAL_O_ACK)
		shoal_out_acked(ss, src, pkt->ack_id);
	switch (pkt->type) {
	case SHOAL_T_DATA:
	case SHOAL_T_CREDIT_REQ:
	case SHOAL_T_ABORT:
		shoal_in_rcv(ss, skb, pkt, src, local, ce, &q);
		break;
	case SHOAL_T_GRT:
		shoal_pl2_grt(ss, pkt, src, &q);
		consume_skb(skb);
		break;
	default:
		/* a control packet: what it says is in @pkt */
		shoal_out_rcv(ss, pkt, src, &q);
		consume_skb(skb);
		break;
	}
	shoal_sock_arm(ss);
	spin_unlock(&ss->lock);
	shoal_xmit_list(sn, &q);
}

/* The SHOAL_CMSG_SEND control message, if any */
static int shoal_send_args(struct msghdr *msg, struct shoal_send_args *args)
{
	struct cmsghdr *cmsg;

	memset(args, 0, sizeof(*args));
	if (!msg->msg_controllen)
		return 0;
	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_SHOAL ||
		    cmsg->cmsg_type != SHOAL_CMSG_SEND ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(*args)))
			return -EINVAL;
		memcpy(args, CMSG_DATA(cmsg), sizeof(*args));
	}
	if (args->rsvd || (args->flags & ~(SHOAL_MSG_REQUEST |
					    SHOAL_MSG_RESPONSE)) ||
	    args->flags == (SHOAL_MSG_REQUEST | SHOAL_MSG_RESPONSE))
		return -EINVAL;
	return 0;
}

static int shoal_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct shoal_sock *ss = shoal_sk(sk);
	struct shoal_send_args args;
	struct shoal_addr dst;
	u8 name = 0;
	u64 id;
	int err;

	/* MSG_BATCH: sendmmsg() says more messages follow (on each but
	 * the last); each is sent at once all the same
	 */
	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR |
			       MSG_BATCH | MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	err = shoal_addr_from(sk, msg->msg_name, msg->msg_namelen, &dst);
	if (err)
		return err;
	if (!dst.port || ipv6_addr_any(&dst.ip))
		return -EINVAL;
	err = shoal_send_args(msg, &args);
	if (err)
		return err;
	if (!len)
		return -EINVAL;
	if (len > READ_ONCE(ss->sn->max_msg_len))
		return -EMSGSIZE;
	if (args.flags & SHOAL_MSG_REQUEST)
		name = SHOAL_F_REQUEST;
	if (args.flags & SHOAL_MSG_RESPONSE)
		name = SHOAL_F_RESPONSE;
	id = args.reply_to;
	/* where the id goes must be writable before the message goes */
	if (args.id_addr &&
	    put_user(0ULL, (u64 __user *)(uintptr_t)args.id_addr))
		return -EFAULT;
	if (!ss->port) {
		err = shoal_port_take(ss, 0);
		if (err && err != -EINVAL)	/* -EINVAL: bound meanwhile */
			return err;
	}
	err = shoal_omsg_send(ss, msg, len, &dst, name, &id);
	if (err)
		return err;
	if (args.id_addr)	/* checked: fails only if unmapped meanwhile */
		put_user(id, (u64 __user *)(uintptr_t)args.id_addr);
	return len;
}

static int shoal_put_info(struct msghdr *msg, u64 id, u8 name, int error)
{
	struct shoal_recv_info info = {
		.id = id,
		.error = error,
	};

	if (name & SHOAL_F_REQUEST)
		info.flags = SHOAL_MSG_REQUEST;
	if (name & SHOAL_F_RESPONSE)
		info.flags = SHOAL_MSG_RESPONSE;
	return put_cmsg(msg, SOL_SHOAL, SHOAL_CMSG_RECV, sizeof(info), &info);
}

/* SO_TIMESTAMP and SO_TIMESTAMPNS, in the layout the socket asked for:
 * when the message was complete, as a datagram's arrival is reported
 */
static void shoal_put_tstamp(struct sock *sk, struct msghdr *msg, ktime_t t)
{
	struct timespec64 ts = ktime_to_timespec64(t);
	bool ns = sock_flag(sk, SOCK_RCVTSTAMPNS);

	if (!t || !sock_flag(sk, SOCK_RCVTSTAMP))
		return;
	if (sock_flag(sk, SOCK_TSTAMP_NEW) && ns) {
		struct __kernel_timespec v = {
			.tv_sec = ts.tv_sec, .tv_nsec = ts.tv_nsec };

		put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMPNS_NEW, sizeof(v), &v);
	} else if (sock_flag(sk, SOCK_TSTAMP_NEW)) {
		struct __kernel_sock_timeval v = {
			.tv_sec = ts.tv_sec, .tv_usec = ts.tv_nsec / NSEC_PER_USEC };

		put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_NEW, sizeof(v), &v);
	} else if (ns) {
		struct __kernel_old_timespec v = {
			.tv_sec = ts.tv_sec, .tv_nsec = ts.tv_nsec };

		put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMPNS_OLD, sizeof(v), &v);
	} else {
		struct __kernel_old_timeval v = {
			.tv_sec = ts.tv_sec, .tv_usec = ts.tv_nsec / NSEC_PER_USEC };

		put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_OLD, sizeof(v), &v);
	}
}

/* The next failure report; with none, once, the error of failures whose
 * report found no memory (shoal_omsg_fail())
 */
static int shoal_recv_err(struct shoal_sock *ss, struct msghdr *msg)
{
	struct sock *sk = &ss->inet.sk;
	struct shoal_err *e;

	spin_lock_bh(&ss->lock);
	e = list_first_entry_or_null(&ss->errq, struct shoal_err, node);
	if (e)
		list_del(&e->node);
	spin_unlock_bh(&ss->lock);
	if (!e)
		return sock_error(sk) ?: -EAGAIN;
	shoal_addr_to(sk, &e->dst, msg);
	shoal_put_info(msg, e->id, e->name_flags, e->error);
	msg->msg_flags |= MSG_ERRQUEUE;
	shoal_rmem_uncharge(ss, sizeof(*e));
	kfree(e);
	shoal_obj_dec(SHOAL_OBJ_ERR);
	return 0;
}

/* Sleep until @cond(@ss, @arg) holds: 0, or -EAGAIN when *@timeo ran out
 * (at once when 0), or a signal's error.  Process context, no lock held.
 */
int shoal_wait(struct shoal_sock *ss,
	       bool (*cond)(const struct shoal_sock *ss, u32 arg), u32 arg,
	       long *timeo)
{
	struct sock *sk = &ss->inet.sk;
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (!cond(ss, arg)) {
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		*timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, *timeo);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

static bool shoal_has_ready(const struct shoal_sock *ss, u32 unused)
{
	return !list_empty_careful(&ss->ready);
}

static int shoal_recvmsg(struct socket *sock, struct msghdr *msg,
			 size_t len, int flags)
{
	struct sock *sk = sock->sk;
	struct shoal_sock *ss = shoal_sk(sk);
	struct shoal_imsg *m;
	struct shoal_done *d;
	long timeo;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_ERRQUEUE |
		      MSG_CMSG_COMPAT | MSG_CMSG_CLOEXEC | MSG_WAITALL))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return shoal_recv_err(ss, msg);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	for (;;) {
		err = shoal_wait(ss, shoal_has_ready, 0, &timeo);
		if (err)
			return err;
		spin_lock_bh(&ss->lock);
		m = list_first_entry_or_null(&ss->ready, struct shoal_imsg,
					     node);
		if (m) {
			list_del(&m->node);
			m->state = SHOAL_IN_READING;
			ss->stats.rx_queued--;
		}
		spin_unlock_bh(&ss->lock);
		if (m)
			break;	/* another reader may have taken it */
	}
	err = shoal_in_read(m, msg, len);
	if (err >= 0) {
		shoal_addr_to(sk, &m->src, msg);
		shoal_put_info(msg, m->id, m->name_flags, 0);
		shoal_put_tstamp(sk, msg, m->done_at);
		if (m->rx.msg_len > len)
			msg->msg_flags |= MSG_TRUNC;
		if (flags & MSG_TRUNC)
			err = m->rx.msg_len;
	}
	/* the message is read (or lost to a fault): its name is remembered */
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	spin_lock_bh(&ss->lock);
	shoal_in_done(ss, m, d, err >= 0);
	shoal_sock_arm(ss);
	spin_unlock_bh(&ss->lock);
	/* memory came free: messages waiting for it may get credit (a
	 * hint read without the lock: one that starts to wait kicks the
	 * pacer itself)
	 */
	if (!list_empty(&ss->sn->sird.wanting))
		shoal_sird_kick(&ss->sn->sird);
	return err;
}

static __poll_t shoal_poll(struct file *file, struct socket *sock,
			   poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct shoal_sock *ss = shoal_sk(sk);
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (!list_empty_careful(&ss->ready))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!list_empty_careful(&ss->errq) || READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	return mask;
}

static int shoal_init_sock(struct sock *sk)
{
	struct shoal_sock *ss = shoal_sk(sk);
	struct shoal_net *sn = shoal_net(sock_net(sk));
	int err, i;

	/* first: nothing else is set up when it fails (ss->sn says to
	 * shoal_destroy() that it did not)
	 */
	if (shoal_done_init(ss))
		return -ENOMEM;
	ss->sn = sn;
	sk_sockets_allocated_inc(sk);	/* the share of net.shoal.mem */
	err = shoal_udp_get(sn);	/* the first socket opens the port */
	if (err)
		return err;
	ss->udp_held = true;
	/* keyed per socket: its message ids cannot be guessed (nor named
	 * as a closed one on the same port named its messages), nor its
	 * buckets chosen by a peer
	 */
	get_random_bytes(&ss->id_key, sizeof(ss->id_key));
	get_random_bytes(&ss->hash_key, sizeof(ss->hash_key));
	spin_lock_init(&ss->lock);
	for (i = 0; i < SHOAL_MSG_HASH; i++) {
		INIT_HLIST_HEAD(&ss->out_hash[i]);
		INIT_HLIST_HEAD(&ss->in_hash[i]);
	}
	INIT_LIST_HEAD(&ss->out_list);
	INIT_LIST_HEAD(&ss->in_list);
	INIT_LIST_HEAD(&ss->ready);
	INIT_LIST_HEAD(&ss->done);
	INIT_LIST_HEAD(&ss->await);
	INIT_LIST_HEAD(&ss->errq);
	timer_setup(&ss->timer, shoal_sock_timer, 0);
	ss->pl2 = sk->sk_protocol == shoal_pl2_proto;
	if (ss->pl2)
		shoal_pl2_sock_init(ss);
	sock_set_flag(sk, SOCK_RCU_FREE);
	sk->sk_sndbuf = READ_ONCE(sn->cfg.sndbuf);
	sk->sk_rcvbuf = READ_ONCE(sn->cfg.rcvbuf);
	return 0;
}

/* Close: nothing new arrives (dead), the port goes, every message is
 * freed; the socket itself is freed an RCU grace period after the last
 * reference, as a packet may still have found it
 */
static void shoal_close(struct sock *sk, long timeout)
{
	struct shoal_sock *ss = shoal_sk(sk);
	struct shoal_net *sn = ss->sn;
	struct shoal_omsg *om, *otmp;
	struct shoal_imsg *im, *itmp;
	struct shoal_done *d, *dtmp;
	struct shoal_err *e, *etmp;
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&ss->lock);
	ss->dead = true;
	spin_unlock_bh(&ss->lock);
	del_timer_sync(&ss->timer);
	if (ss->pl2)
		hrtimer_cancel(&ss->pl2s.timer);
	if (ss->port) {
		spin_lock_bh(&sn->ports_lock);
		hlist_del_rcu(&ss->port_node);
		spin_unlock_bh(&sn->ports_lock);
	}
	spin_lock_bh(&ss->lock);
	shoal_ack_flush(ss, &q);	/* the servers need not probe */
	list_for_each_entry_safe(om, otmp, &ss->out_list, node)
		shoal_omsg_free(ss, om);
	list_for_each_entry_safe(om, otmp, &ss->await, node)
		shoal_omsg_free(ss, om);
	list_for_each_entry_safe(im, itmp, &ss->in_list, node)
		shoal_imsg_free(ss, im);
	list_for_each_entry_safe(im, itmp, &ss->ready, node)
		shoal_imsg_free(ss, im);
	list_for_each_entry_safe(d, dtmp, &ss->done, node)
		shoal_done_free(ss, d);
	list_for_each_entry_safe(e, etmp, &ss->errq, node) {
		list_del(&e->node);
		shoal_rmem_uncharge(ss, sizeof(*e));
		kfree(e);
		shoal_obj_dec(SHOAL_OBJ_ERR);
	}
	if (ss->pl2)
		shoal_pl2_sock_close(ss, &q);
	spin_unlock_bh(&ss->lock);
	shoal_xmit_list(sn, &q);
	sk_common_release(sk);
}

/* What shoal_init_sock() set up: from close, or when socket() fails after
 * it (a cgroup's BPF program refused the socket)
 */
static void shoal_destroy(struct sock *sk)
{
	struct shoal_sock *ss = shoal_sk(sk);

	if (!ss->sn)
		return;		/* shoal_init_sock() failed */
	rhashtable_destroy(&ss->done_ht);
	if (ss->udp_held)
		shoal_udp_put(ss->sn);	/* the last closes the port */
	sk_sockets_allocated_dec(sk);
}

static int shoal_getsockopt(struct sock *sk, int level, int optname,
			    char __user *optval, int __user *optlen)
{
	struct shoal_sock *ss = shoal_sk(sk);
	struct shoal_sock_stats st;
	int len;

	if (level != SOL_SHOAL) {
		if (sk->sk_family == AF_INET6)
			return ipv6_getsockopt(sk, level, optname, optval,
					       optlen);
		return ip_getsockopt(sk, level, optname, optval, optlen);
	}
	if (optname != SHOAL_SOCK_STATS)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	spin_lock_bh(&ss->lock);
	st = ss->stats;
	spin_unlock_bh(&ss->lock);
	len = min_t(int, len, sizeof(st));
	if (put_user(len, optlen) || copy_to_user(optval, &st, len))
		return -EFAULT;
	return 0;
}

static int shoal_setsockopt(struct sock *sk, int level, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	if (level != SOL_SHOAL) {
		if (sk->sk_family == AF_INET6)
			return ipv6_setsockopt(sk, level, optname, optval,
					       optlen);
		return ip_setsockopt(sk, level, optname, optval, optlen);
	}
	return -ENOPROTOOPT;
}

/* Sockets are found by Shoal port (shoal_port_take()), not in inet tables */
static int shoal_hash(struct sock *sk)
{
	return 0;
}

static void shoal_unhash(struct sock *sk)
{
}

/* The protocols differ only in name and socket size; they share one
 * receive memory account (shoal_rmem.c), as UDP and UDPv6 do
 */
#define SHOAL_PROTO(nm, sock_type, destroy_fn) {			\
	.name		= nm,						\
	.owner		= THIS_MODULE,					\
	.close		= shoal_close,					\
	.hash		= shoal_hash,					\
	.unhash		= shoal_unhash,					\
	.init		= shoal_init_sock,				\
	.destroy	= destroy_fn,					\
	.setsockopt	= shoal_setsockopt,				\
	.getsockopt	= shoal_getsockopt,				\
	.release_cb	= shoal_rmem_release_cb,			\
	.enter_memory_pressure = shoal_rmem_enter_pressure,		\
	.memory_allocated = &shoal_memory_allocated,			\
	.per_cpu_fw_alloc = &shoal_memory_per_cpu_fw_alloc,		\
	.memory_pressure = &shoal_memory_pressure,			\
	.sockets_allocated = &shoal_sockets_allocated,			\
	.sysctl_mem	= sysctl_shoal_mem,				\
	.sysctl_rmem	= shoal_rmem_min,				\
	.sysctl_wmem	= shoal_wmem_min,				\
	.obj_size	= sizeof(sock_type),				\
}

static struct proto shoal_prot = SHOAL_PROTO("SIRD", struct shoal_sock,
					     shoal_destroy);
static struct proto shoal_pl2_prot = SHOAL_PROTO("PL2", struct shoal_sock,
						 shoal_destroy);

static const struct proto_ops shoal_inet_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= shoal_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= inet_getname,
	.poll		= shoal_poll,
	.ioctl		= inet_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= shoal_sendmsg,
	.recvmsg	= shoal_recvmsg,
	.mmap		= sock_no_mmap,
	.sendpage	= sock_no_sendpage,
};

static struct inet_protosw shoal_inet_sw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_SIRD,
	.prot		= &shoal_prot,
	.ops		= &shoal_inet_ops,
};

static struct inet_protosw shoal_pl2_inet_sw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_PL2,
	.prot		= &shoal_pl2_prot,
	.ops		= &shoal_inet_ops,
};

#if IS_ENABLED(CONFIG_IPV6)
static void shoal6_destroy(struct sock *sk)
{
	shoal_destroy(sk);
	inet6_destroy_sock(sk);
}

static struct proto shoal6_prot = SHOAL_PROTO("SIRDv6", struct shoal6_sock,
						shoal6_destroy);
static struct proto shoal6_pl2_prot = SHOAL_PROTO("PL2v6", struct shoal6_sock,
						  shoal6_destroy);

static const struct proto_ops shoal_inet6_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= shoal_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= inet6_getname,
	.poll		= shoal_poll,
	.ioctl		= inet6_ioctl,
	.gettstamp	= sock_gettstamp,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= shoal_sendmsg,
	.recvmsg	= shoal_recvmsg,
	.mmap		= sock_no_mmap,
	.sendpage	= sock_no_sendpage,
};

static struct inet_protosw shoal_inet6_sw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_SIRD,
	.prot		= &shoal6_prot,
	.ops		= &shoal_inet6_ops,
};

static struct inet_protosw shoal_pl2_inet6_sw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_PL2,
	.prot		= &shoal6_pl2_prot,
	.ops		= &shoal_inet6_ops,
};
#endif

/* One protocol of each family: its proto, then its protosw */
static int shoal_proto_add(struct proto *prot, struct inet_protosw *sw,
			   bool v6)
{
	int err = proto_register(prot, 1);

	if (err)
		return err;
#if IS_ENABLED(CONFIG_IPV6)
	if (v6) {
		err = inet6_register_protosw(sw);
		if (err)
			proto_unregister(prot);
		return err;
	}
#endif
	inet_register_protosw(sw);
	return 0;
}

static void shoal_proto_del(struct proto *prot, struct inet_protosw *sw,
			    bool v6)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (v6)
		inet6_unregister_protosw(sw);
	else
#endif
		inet_unregister_protosw(sw);
	proto_unregister(prot);
}

static const struct {
	struct proto *prot;
	struct inet_protosw *sw;
	bool v6;
	bool pl2;
} shoal_protos[] = {
	{ &shoal_prot, &shoal_inet_sw, false, false },
	{ &shoal_pl2_prot, &shoal_pl2_inet_sw, false, true },
#if IS_ENABLED(CONFIG_IPV6)
	{ &shoal6_prot, &shoal_inet6_sw, true, false },
	{ &shoal6_pl2_prot, &shoal_pl2_inet6_sw, true, true },
#endif
};

int shoal_sock_register(u8 sird, u8 pl2)
{
	int err, i;

	shoal_pl2_proto = pl2;
	for (i = 0; i < ARRAY_SIZE(shoal_protos); i++)
		shoal_protos[i].sw->protocol = shoal_protos[i].pl2 ? pl2 : sird;
	for (i = 0; i < ARRAY_SIZE(shoal_protos); i++) {
		err = shoal_proto_add(shoal_protos[i].prot, shoal_protos[i].sw,
				      shoal_protos[i].v6);
		if (err)
			goto undo;
	}
	return 0;
undo:
	while (i--)
		shoal_proto_del(shoal_protos[i].prot, shoal_protos[i].sw,
				shoal_protos[i].v6);
	return err;
}

void shoal_sock_unregister(void)
{
	int i = ARRAY_SIZE(shoal_protos);

	while (i--)
		shoal_proto_del(shoal_protos[i].prot, shoal_protos[i].sw,
				shoal_protos[i].v6);
}

MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_SIRD, 2 /* SOCK_DGRAM */);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_SIRD, 2 /* SOCK_DGRAM */);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_PL2, 2 /* SOCK_DGRAM */);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_PL2, 2 /* SOCK_DGRAM */);
