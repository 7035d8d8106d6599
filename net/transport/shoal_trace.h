/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal.ko's tracepoints (tracefs events/shoal/): a message's life at
 * each end, and why a packet that came was dropped.  Each stands beside
 * the counter it can be checked against (Documentation/observing.md,
 * "Tracepoints"); while off, each costs a static branch.
 *
 * Locking: each fires where its counter is taken (under the socket's
 * lock but shoal_rx_drop), and takes no lock of its own.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM shoal

#if !defined(_SHOAL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SHOAL_TRACE_H

#include <linux/tracepoint.h>

#include "shoal_sock.h"

#ifndef _SHOAL_TRACE_ENUMS
#define _SHOAL_TRACE_ENUMS
/* Why a sender's bytes go again */
enum shoal_resend_cause {
	SHOAL_RESEND_ASKED,	/* the receiver's RESEND */
	SHOAL_RESEND_BOUNCED,	/* a switch returned them (tx_rts_resend) */
	SHOAL_RESEND_PROBE,	/* a probe of a silent receiver */
	SHOAL_RESEND_NOMEM,	/* no memory for the packet */
};

/* Why a receiver asks for bytes again (rx_resend_*) */
enum shoal_ask_cause {
	SHOAL_ASK_TRIMMED,
	SHOAL_ASK_RCVBUF,
	SHOAL_ASK_QUIET,
};
#endif

TRACE_DEFINE_ENUM(SHOAL_RESEND_ASKED);
TRACE_DEFINE_ENUM(SHOAL_RESEND_BOUNCED);
TRACE_DEFINE_ENUM(SHOAL_RESEND_PROBE);
TRACE_DEFINE_ENUM(SHOAL_RESEND_NOMEM);
TRACE_DEFINE_ENUM(SHOAL_ASK_TRIMMED);
TRACE_DEFINE_ENUM(SHOAL_ASK_RCVBUF);
TRACE_DEFINE_ENUM(SHOAL_ASK_QUIET);

/* A message this socket sends, to its receiver */
DECLARE_EVENT_CLASS(shoal_omsg_class,
		    TP_PROTO(const struct shoal_sock *ss,
			     const struct shoal_omsg *m),
		    TP_ARGS(ss, m),
		    TP_STRUCT__entry(__array(u8, daddr, 16)
				     __field(u64, id)
				     __field(u32, len)
				     __field(u16, sport)
				     __field(u16, dport)
				     __field(u8, name_flags)
				     __field(u8, pl2)),
		    TP_fast_assign(memcpy(__entry->daddr, &m->dst.ip, 16);
				   __entry->id = m->id;
				   __entry->len = m->len;
				   __entry->sport = ss->port;
				   __entry->dport = m->dst.port;
				   __entry->name_flags = m->name_flags;
				   __entry->pl2 = ss->pl2;),
		    TP_printk("%s port %u to [%pI6c]:%u id %llx len %u%s%s",
			      __entry->pl2 ? "pl2" : "sird", __entry->sport,
			      __entry->daddr, __entry->dport, __entry->id,
			      __entry->len,
			      __entry->name_flags & SHOAL_F_REQUEST ?
			      " request" : "",
			      __entry->name_flags & SHOAL_F_RESPONSE ?
			      " response" : "")
);

/* sendmsg() took a message (tx_msgs) */
DEFINE_EVENT(shoal_omsg_class, shoal_msg_send,
	     TP_PROTO(const struct shoal_sock *ss, const struct shoal_omsg *m),
	     TP_ARGS(ss, m)
);

/* its receiver has all of it (tx_acked) */
DEFINE_EVENT(shoal_omsg_class, shoal_msg_acked,
	     TP_PROTO(const struct shoal_sock *ss, const struct shoal_omsg *m),
	     TP_ARGS(ss, m)
);

/* it failed with @error, reported on the error queue (tx_failed) */
TRACE_EVENT(shoal_msg_fail,
	    TP_PROTO(const struct shoal_sock *ss, const struct shoal_omsg *m,
		     int error),
	    TP_ARGS(ss, m, error),
	    TP_STRUCT__entry(__array(u8, daddr, 16)
			     __field(u64, id)
			     __field(u32, len)
			     __field(int, error)
			     __field(u16, sport)
			     __field(u16, dport)),
	    TP_fast_assign(memcpy(__entry->daddr, &m->dst.ip, 16);
			   __entry->id = m->id;
			   __entry->len = m->len;
			   __entry->error = error;
			   __entry->sport = ss->port;
			   __entry->dport = m->dst.port;),
	    TP_printk("port %u to [%pI6c]:%u id %llx len %u error %d",
		      __entry->sport, __entry->daddr, __entry->dport,
		      __entry->id, __entry->len, __entry->error)
);

/* The receiver lets a message send up to @upto: a CREDIT, or a RESEND
 * that also asks for bytes again
 */
TRACE_EVENT(shoal_credit,
	    TP_PROTO(const struct shoal_omsg *m, u8 type, u32 upto),
	    TP_ARGS(m, type, upto),
	    TP_STRUCT__entry(__field(u64, id)
			     __field(u32, upto)
			     __field(u32, len)
			     __field(u8, type)),
	    TP_fast_assign(__entry->id = m->id;
			   __entry->upto = upto;
			   __entry->len = m->len;
			   __entry->type = type;),
	    TP_printk("id %llx %s up to %u of %u", __entry->id,
		      __entry->type == SHOAL_T_RESEND ? "resend" : "credit",
		      __entry->upto, __entry->len)
);

/* A GRT for a PL2 burst of message @id from @offset: its slot is
 * @wait_ns away, before the cap (pl2_grts)
 */
TRACE_EVENT(shoal_pl2_grant,
	    TP_PROTO(const struct in6_addr *daddr, u64 id, u32 offset,
		     u64 wait_ns),
	    TP_ARGS(daddr, id, offset, wait_ns),
	    TP_STRUCT__entry(__array(u8, daddr, 16)
			     __field(u64, id)
			     __field(u64, wait_ns)
			     __field(u32, offset)),
	    TP_fast_assign(memcpy(__entry->daddr, daddr, 16);
			   __entry->id = id;
			   __entry->wait_ns = wait_ns;
			   __entry->offset = offset;),
	    TP_printk("to [%pI6c] id %llx offset %u wait %llu ns",
		      __entry->daddr, __entry->id, __entry->offset,
		      __entry->wait_ns)
);

/* A DATA packet of a message queued to go (tx_retx_packets: those with
 * SHOAL_F_RETX)
 */
TRACE_EVENT(shoal_data_tx,
	    TP_PROTO(const struct shoal_omsg *m, u32 offset, u32 len,
		     u8 flags),
	    TP_ARGS(m, offset, len, flags),
	    TP_STRUCT__entry(__field(u64, id)
			     __field(u32, offset)
			     __field(u32, len)
			     __field(u8, flags)),
	    TP_fast_assign(__entry->id = m->id;
			   __entry->offset = offset;
			   __entry->len = len;
			   __entry->flags = flags;),
	    TP_printk("id %llx offset %u len %u%s%s", __entry->id,
		      __entry->offset, __entry->len,
		      __entry->flags & SHOAL_F_SCHED ? " sched" : "",
		      __entry->flags & SHOAL_F_RETX ? " retx" : "")
);

/* A sender's bytes go again, and why */
TRACE_EVENT(shoal_resend,
	    TP_PROTO(const struct shoal_omsg *m, u32 offset, u32 len,
		     enum shoal_resend_cause cause),
	    TP_ARGS(m, offset, len, cause),
	    TP_STRUCT__entry(__field(u64, id)
			     __field(u32, offset)
			     __field(u32, len)
			     __field(int, cause)),
	    TP_fast_assign(__entry->id = m->id;
			   __entry->offset = offset;
			   __entry->len = len;
			   __entry->cause = cause;),
	    TP_printk("id %llx offset %u len %u %s", __entry->id,
		      __entry->offset, __entry->len,
		      __print_symbolic(__entry->cause,
				       { SHOAL_RESEND_ASKED, "asked" },
				       { SHOAL_RESEND_BOUNCED, "bounced" },
				       { SHOAL_RESEND_PROBE, "probe" },
				       { SHOAL_RESEND_NOMEM, "nomem" }))
);

/* A receiver asks for @ranges of a message again (rx_resend_trimmed,
 * _rcvbuf and _quiet count the ranges)
 */
TRACE_EVENT(shoal_resend_ask,
	    TP_PROTO(const struct shoal_imsg *m, u32 ranges,
		     enum shoal_ask_cause cause),
	    TP_ARGS(m, ranges, cause),
	    TP_STRUCT__entry(__array(u8, saddr, 16)
			     __field(u64, id)
			     __field(u32, ranges)
			     __field(int, cause)
			     __field(u16, sport)),
	    TP_fast_assign(memcpy(__entry->saddr, &m->src.ip, 16);
			   __entry->id = m->id;
			   __entry->ranges = ranges;
			   __entry->cause = cause;
			   __entry->sport = m->src.port;),
	    TP_printk("from [%pI6c]:%u id %llx ranges %u %s", __entry->saddr,
		      __entry->sport, __entry->id, __entry->ranges,
		      __print_symbolic(__entry->cause,
				       { SHOAL_ASK_TRIMMED, "trimmed" },
				       { SHOAL_ASK_RCVBUF, "rcvbuf" },
				       { SHOAL_ASK_QUIET, "quiet" }))
);

/* A message this socket receives is complete (rx_msgs) */
TRACE_EVENT(shoal_msg_complete,
	    TP_PROTO(const struct shoal_sock *ss, const struct shoal_imsg *m),
	    TP_ARGS(ss, m),
	    TP_STRUCT__entry(__array(u8, saddr, 16)
			     __field(u64, id)
			     __field(u32, len)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u8, name_flags)),
	    TP_fast_assign(memcpy(__entry->saddr, &m->src.ip, 16);
			   __entry->id = m->id;
			   __entry->len = m->rx.msg_len;
			   __entry->sport = m->src.port;
			   __entry->dport = ss->port;
			   __entry->name_flags = m->name_flags;),
	    TP_printk("port %u from [%pI6c]:%u id %llx len %u%s%s",
		      __entry->dport, __entry->saddr, __entry->sport,
		      __entry->id, __entry->len,
		      __entry->name_flags & SHOAL_F_REQUEST ? " request" : "",
		      __entry->name_flags & SHOAL_F_RESPONSE ?
		      " response" : "")
);

/* A packet that came was dropped, @reason the counter that says so
 * (/proc/net/shoal/stats: rx_drop_*, the parser's refusals too)
 */
TRACE_EVENT(shoal_rx_drop,
	    TP_PROTO(const char *reason),
	    TP_ARGS(reason),
	    TP_STRUCT__entry(__string(reason, reason)),
	    TP_fast_assign(__assign_str(reason, reason);),
	    TP_printk("%s", __get_str(reason))
);

#endif /* _SHOAL_TRACE_H */

/* this part must be outside the guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE shoal_trace
#include <trace/define_trace.h>
