/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Shoal transport: the wire header carried after UDP.
 *
 * All multi-byte fields are big-endian.  The base header is 32 bytes; a
 * packet with SHOAL_F_DEADLINE carries a 64-bit deadline right after it,
 * and then come the options byte 7 names, in the order of its bits.
 * No Shoal header is longer than SHOAL_HDR_MAX, so a switch that keeps
 * SHOAL_HDR_MAX bytes after UDP keeps the whole header.
 *
 *  0      1      2             4             6      7      8
 *  +------+------+-------------+-------------+------+------+
 *  |ver|ty|flags |   sport     |   dport     |hdrlen| opts |
 *  +------+------+-------------+-------------+------+------+
 *  |                   msg_id (64)                         |  8
 *  +---------------------------+---------------------------+
 *  |          msg_len          |          offset           | 16
 *  +---------------------------+---------------------------+
 *  |        payload_len        |        type word          | 24
 *  +---------------------------+---------------------------+
 *  |          deadline (64), only with SHOAL_F_DEADLINE    | 32
 *  +-------------------------------------------------------+
 *  |   acked msg_id (64), only with SHOAL_O_ACK (DATA)     | 32 or 40
 *  +-------------------------------------------------------+
 */
#ifndef _UAPI_LINUX_SHOAL_H
#define _UAPI_LINUX_SHOAL_H

#include <linux/types.h>

#define SHOAL_UDP_PORT		4797	/* default well-known destination port */
#define SHOAL_VERSION		1

#define IPPROTO_SIRD		253
#define IPPROTO_PL2		254

/*
 * Packet types (low nibble of byte 0), and what each carries.  Every
 * packet names its message by the sender's address, sport and msg_id
 * (and SHOAL_F_RESPONSE: a response has its request's id); msg_len is
 * the whole message's length in every type.  Control packets (all but
 * DATA) carry no payload: their payload_len is 0.
 *
 *  DATA	payload bytes offset .. offset + payload_len of the message;
 *		word: the bytes the sender sends without credit (SIRD's
 *		unscheduled prefix), the same in every packet of a message.
 *  CREDIT_REQ	SIRD: the sender asks for credit for the rest of a message
 *		longer than its unscheduled prefix; offset: where the
 *		scheduled bytes start.  Also a sender's probe for a message
 *		the receiver is silent about.  With SHOAL_F_RETX and
 *		SHOAL_F_REQUEST, a client's probe for a request that was
 *		acknowledged and whose response has not come: a receiver
 *		that still has the request answers ACK, one that has not
 *		answers UNKNOWN (ECONNRESET) and never takes it for a new
 *		message.
 *  CREDIT	SIRD: the receiver lets the sender send up to offset; word:
 *		the bytes this grant adds (at most offset).
 *  RESEND	send bytes offset .. offset + word again (word > 0), at once:
 *		they were trimmed, or are overdue.
 *  BUSY	the receiver has the message but schedules others now: the
 *		sender must not time it out.  word SHOAL_BUSY_NOTHELD:
 *		the receiver is alive but cannot take the message yet (it
 *		receives too many, or its memory is full); the sender asks
 *		again later, all of it under credit, and with
 *		SHOAL_BUSY_GAVE_UP also if it was given credit (the
 *		receiver dropped what it had, to free memory for others).
 *		word SHOAL_BUSY_ALL: the same holds for every other
 *		message of the sending socket to this receiver that the
 *		receiver answered before (one BUSY a resend interval
 *		covers a socket's backlog).
 *		SHOAL_BUSY_WAIT(word): the intervals until the receiver's
 *		next BUSY about it (a long wait is told less often).
 *  UNKNOWN	the receiver will not take this message; word: why, an
 *		errno value (ECONNREFUSED: no socket has the port,
 *		EMSGSIZE: it could never hold the message, ECONNRESET: it
 *		does not have the request a probe asks after).  The sender
 *		fails the message.
 *  ACK		the whole message arrived; the sender may free it.
 *  ABORT	the sender gave up the message; word: why (an errno value,
 *		ECANCELED: the sender no longer has it).  The receiver
 *		forgets it.
 *  RSV		PL2: a reservation for a burst of the message starting
 *		at offset; word: its packets (low 16 bits), and the
 *		latest slot that a switch which passed it on towards the
 *		receiver reserved for it (high 16 bits, 0 from the sender).
 *  GRT		PL2: the switch's grant, the RSV returned with
 *		SHOAL_F_BOUNCED; word: the input port's reservation slot
 *		(high 16 bits) and the output port's (low 16 bits).
 */
/* BUSY's word */
#define SHOAL_BUSY_NOTHELD	0x1	/* not taken yet: ask again later */
#define SHOAL_BUSY_ALL		0x2	/* and every message of the sending
					 * socket the receiver told of before
					 */
#define SHOAL_BUSY_GAVE_UP	0x4	/* with NOTHELD: the receiver dropped
					 * what it had of the message, even
					 * if it gave credit for it
					 */
#define SHOAL_BUSY_WAIT_SHIFT	8	/* bits 8-15: resend intervals until
					 * the receiver's next BUSY about the
					 * message; its sender probes only
					 * past them (0: two, as before)
					 */
#define SHOAL_BUSY_WAIT_MASK	0xff00
#define SHOAL_BUSY_WAIT(word)	(((word) & SHOAL_BUSY_WAIT_MASK) >> \
				 SHOAL_BUSY_WAIT_SHIFT)

/* RSV's word */
#define SHOAL_RSV_DEMAND_MASK	0x0000ffff	/* packets in the burst */
#define SHOAL_RSV_CARRIED_MASK	0xffff0000	/* a slot reserved on the way */

enum shoal_type {
	SHOAL_T_DATA = 1,
	SHOAL_T_CREDIT_REQ = 2,
	SHOAL_T_CREDIT = 3,
	SHOAL_T_RESEND = 4,
	SHOAL_T_BUSY = 5,
	SHOAL_T_UNKNOWN = 6,
	SHOAL_T_ACK = 7,
	SHOAL_T_ABORT = 8,
	SHOAL_T_RSV = 9,
	SHOAL_T_GRT = 10,
	__SHOAL_T_MAX = 16
};

/* byte 1 */
#define SHOAL_F_TRIMMED		0x80	/* a switch cut this packet's payload */
#define SHOAL_F_BOUNCED		0x40	/* a switch returned this packet to its sender:
					 * addresses swapped, UDP and Shoal ports
					 * not (sport is the sender's socket); the
					 * sender resends a DATA's range at once
					 */
#define SHOAL_F_DEADLINE	0x20	/* a 64-bit deadline follows the header */
#define SHOAL_F_CSN		0x10	/* SIRD: the sender is congested */
#define SHOAL_F_REQUEST		0x08	/* the message is a request: a response follows */
#define SHOAL_F_RESPONSE	0x04	/* the message answers request msg_id */
#define SHOAL_F_SCHED		0x02	/* DATA sent against credit */
#define SHOAL_F_RETX		0x01	/* retransmission; on a receiver's CREDIT,
					 * RESEND or ACK: a retransmission started
					 * the message (its first packets were lost)
					 */

#define SHOAL_FLAGS_OFFSET	SHOAL_OFF_FLAGS	/* the flags byte (below) */

/*
 * byte 7: options, each 8 bytes after the base header (and the deadline)
 * in the order of these bits.  A receiver skips the options it does not
 * know (hdr_len says where the payload starts).
 *
 *  SHOAL_O_ACK	on DATA only: the msg_id of a response the packet's
 *		receiver sent to this packet's sender (address and sport):
 *		the whole response arrived, as an ACK would say.  A client
 *		folds its response's ACK into its next request's DATA.
 */
#define SHOAL_O_ACK		0x01

struct shoal_hdr {
	__u8	ver_type;	/* version << 4 | type */
	__u8	flags;
	__be16	sport;		/* Shoal (not UDP) ports: socket demux */
	__be16	dport;
	__u8	hdr_len;	/* bytes of Shoal header, options included */
	__u8	options;	/* SHOAL_O_* */
	__be64	msg_id;
	__be32	msg_len;	/* whole message, bytes */
	__be32	offset;		/* of this packet's payload in the message */
	__be32	payload_len;	/* payload as sent; more than present = trimmed */
	__be32	word;		/* type-specific */
} __attribute__((packed));

#define SHOAL_HDR_LEN		32
#define SHOAL_HDR_DEADLINE_LEN	40
#define SHOAL_OPT_LEN		8	/* each option's bytes */
#define SHOAL_HDR_MAX		64

/*
 * Byte offsets of the fields in the header, for parsers that read a
 * buffer rather than struct shoal_hdr (include/net/shoal/wire.h is the
 * one in this tree).  The deadline, when there, is at SHOAL_OFF_DEADLINE;
 * the options follow it (or the base header), SHOAL_OPT_LEN bytes each.
 */
#define SHOAL_OFF_VER_TYPE	0
#define SHOAL_OFF_FLAGS		1
#define SHOAL_OFF_SPORT		2
#define SHOAL_OFF_DPORT		4
#define SHOAL_OFF_HDR_LEN	6
#define SHOAL_OFF_OPTIONS	7
#define SHOAL_OFF_MSG_ID	8
#define SHOAL_OFF_MSG_LEN	16
#define SHOAL_OFF_OFFSET	20
#define SHOAL_OFF_PAYLOAD_LEN	24
#define SHOAL_OFF_WORD		28
#define SHOAL_OFF_DEADLINE	SHOAL_HDR_LEN

/*
 * The socket API (Documentation/shoal.md, shoal(7)).
 *
 *	fd = socket(AF_INET or AF_INET6, SOCK_DGRAM, IPPROTO_SIRD);
 *
 * sendmsg() sends one whole message to msg_name; it may carry one control
 * message (level SOL_SHOAL, type SHOAL_CMSG_SEND) with struct
 * shoal_send_args: ask for a response, answer a request, and learn the
 * message's id.  recvmsg() returns one whole message with its sender in
 * msg_name and a SHOAL_CMSG_RECV control message (struct shoal_recv_info).
 * With MSG_ERRQUEUE it returns the failure of a message this socket sent:
 * no data, the destination in msg_name, the id and the errno value in
 * SHOAL_CMSG_RECV.
 */
#define SOL_SHOAL		299

#define SHOAL_CMSG_SEND		1	/* sendmsg: struct shoal_send_args */
#define SHOAL_CMSG_RECV		2	/* recvmsg: struct shoal_recv_info */

/* shoal_send_args.flags and shoal_recv_info.flags */
#define SHOAL_MSG_REQUEST	0x1	/* a request: its response comes back */
#define SHOAL_MSG_RESPONSE	0x2	/* the response to request reply_to */

struct shoal_send_args {
	__u32	flags;		/* SHOAL_MSG_REQUEST or SHOAL_MSG_RESPONSE */
	__u32	rsvd;		/* 0 */
	__u64	reply_to;	/* with SHOAL_MSG_RESPONSE: the request's id */
	__u64	id_addr;	/* 0, or where the message's id is written */
};

struct shoal_recv_info {
	__u64	id;		/* the message's id (a response: its request's) */
	__u32	flags;		/* SHOAL_MSG_REQUEST or SHOAL_MSG_RESPONSE */
	__s32	error;		/* MSG_ERRQUEUE: why the message failed */
};

/* getsockopt(SOL_SHOAL, SHOAL_SOCK_STATS): struct shoal_sock_stats */
#define SHOAL_SOCK_STATS	1

struct shoal_sock_stats {
	__u64	tx_msgs;	/* messages sendmsg() took */
	__u64	tx_acked;	/* of which acknowledged by the receiver */
	__u64	tx_failed;	/* of which failed (MSG_ERRQUEUE) */
	__u64	rx_msgs;	/* messages complete, delivered or queued */
	__u64	rx_dup_bytes;	/* payload bytes that arrived twice */
	__u64	rx_drop_rcvbuf;	/* DATA packets over SO_RCVBUF, dropped */
	__u32	tx_queued;	/* messages not yet acknowledged */
	__u32	rx_queued;	/* messages waiting for recvmsg() */
	__u64	tx_rts_resend;	/* DATA packets a switch returned, sent again */
	__u64	rx_drop_mem;	/* DATA packets and new messages dropped: no
				 * room in net.shoal.mem (or a cgroup v1's
				 * TCP memory)
				 */
};

static __inline__ __u8 shoal_ver_type(__u8 ver, __u8 type)
{
	return (__u8)((ver << 4) | (type & 0x0f));
}

#endif /* _UAPI_LINUX_SHOAL_H */
