/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PL2 switch logic (Documentation/pl2-switch.md): the reservation counters
 * of the paper's Algorithm 1 and the spec's time-based modes, as plain C
 * with no kernel or BPF calls.  pl2_switch.bpf.c includes it and passes in
 * pointers to its map values; the unit test and the fuzzer run the same
 * code in userspace.
 *
 * Atomicity: every port's state is one struct pl2_port, shared by all
 * CPUs.  Counter mode changes it only with PL2_FETCH_ADD (one atomic
 * read-modify-write per counter, as the Tofino's RegisterAction), so the
 * read of a slot and the add of the demand cannot be split by another
 * CPU.  The pairwise clock takes a port's time with a compare-and-swap
 * loop.  The joint clock reads and writes two ports at once: its caller
 * holds one lock (a bpf_spin_lock) around pl2_joint_rsv(), and nothing
 * else writes the clocks in that mode.  The statistics are per CPU and
 * need nothing.  Parsing (pl2_classify) is a pure function.
 */
#ifndef _PL2_SWITCH_CORE_H
#define _PL2_SWITCH_CORE_H

#include <net/shoal/byteorder.h>
#include <linux/bpf.h>		/* struct bpf_timer */
#include <linux/shoal.h>

#define PL2_PORTS		64	/* switch ports, as the paper's registers */
#define PL2_KMAX_DEFAULT	4	/* the paper's K */
#define PL2_T_DEFAULT		60	/* slots; the spec's T = 4t, t = 15 */
#define PL2_SLOT_NS_DEFAULT	12000	/* 1500 B at 1 Gbit/s */
#define PL2_EXPIRE_US_DEFAULT	1000000	/* counter mode's lease: 1 s */
#define PL2_SLOT_NS_MAX		10000000000ULL	/* 10 s: slow tests */
#define PL2_SLOT_MAX		0xffff	/* a slot is 16 bits in the GRT */
#define PL2_CAS_TRIES		4
#define PL2_SWEEP_NS_MIN	100000ULL	/* the lease's sweep, at most this often */

/* gcc and clang -target bpf (-mcpu=v3) both turn these into atomics */
#define PL2_FETCH_ADD(p, v)	__sync_fetch_and_add((p), (v))
#define PL2_CAS(p, o, n)	__sync_val_compare_and_swap((p), (o), (n))
#define PL2_XCHG(p, v)		__sync_lock_test_and_set((p), (v))
/*
 * One plain load the compiler may not tear or cache, as READ_ONCE():
 * clang 14 cannot emit __atomic_load_n for BPF.
 */
#define PL2_READ(x)		(*(volatile __typeof__(x) *)&(x))

/* BPF cannot call functions while it holds its spin lock: inline all */
#ifndef __always_inline
#include <sys/cdefs.h>		/* glibc's; BPF has bpf_helpers.h's */
#endif

enum pl2_mode {
	PL2_MODE_COUNTER,	/* Algorithm 1: counts, +demand, -1 per DATA */
	PL2_MODE_CLOCK,		/* pairwise clocks: time drains them */
	PL2_MODE_JOINT,		/* one start for both ports: no collisions */
	PL2_MODE_NR
};

/* the switch's configuration, one map entry, set by the loader */
struct pl2_cfg {
	u32 udp_port;		/* Shoal's UDP destination port */
	u32 mode;		/* enum pl2_mode */
	u32 kmax;		/* an RSV's demand is capped at this */
	u32 t_unsol;		/* drop unsolicited DATA past this backlog, 0 = never */
	u64 slot_ns;		/* one MTU's time on the wire */
	u64 expire_ns;		/* counter mode: forget overdue reservations, 0 = never */
	u32 queue;		/* count the output's queue in its slot (1, default) */
	u32 any;		/* every other unicast IP packet counts as
				 * scheduled DATA (--any-transport: sch_pl2
				 * hosts), 0 default
				 */
};

/*
 * One switch port.  Counter mode: the packets reserved with this port as
 * the input (the sender's uplink) and as the output (the receiver's
 * downlink) that have not passed yet.  Clock modes: when the port is free
 * again, in CLOCK_MONOTONIC ns; counter mode with expire_ns: when the
 * reserved packets should all have passed.  An uplink (a leaf's port
 * towards a spine) reserves nothing: the reservation, DATA and lease
 * functions below take NULL for it, and act on the other port alone.  An
 * RSV that leaves by an uplink is passed on, not answered: the switch
 * whose port leads to the receiver answers, so that every leaf of a
 * fabric may run the program and a burst waits for its sender's and its
 * receiver's ports, as in one rack.
 */
struct pl2_port {
	s32 in_res;
	s32 out_res;
	u64 in_next;
	u64 out_next;
	u64 out_drain;		/* with queue: when the DATA that passed
				 * towards this port will have left it
				 */
	u32 uplink;		/* 1: towards the core (attach --uplink) */
	u32 pad;
};

/* counter mode's lease: the sweep's timer, and 1 while it runs */
struct pl2_sweep {
	struct bpf_timer timer;
	u32 armed;
};

/* per port and CPU; all count packets arriving on the port */
struct pl2_stats {
	u64 rsv;		/* RSVs answered with a GRT */
	u64 data;		/* DATA passed (and counted off) */
	u64 unsol;		/* ... of which unsolicited */
	u64 unsol_drop;		/* unsolicited DATA dropped: backlog > T */
	u64 clamp;		/* decrements that would have gone below 0 */
	u64 unrouted;		/* RSV/DATA with no output switch port: passed */
	u64 malformed;		/* to the Shoal port but not a valid header */
	u64 grt_err;		/* an RSV that could not be turned around */
	u64 other;		/* everything else, passed untouched */
	u64 expired;		/* reserved packets forgotten as overdue */
	u64 transit;		/* RSVs out of an uplink: passed on */
	u64 foreign;		/* other transports' IP packets (TCP, UDP not
				 * to the Shoal port, ICMP...) counted as
				 * scheduled DATA (any); not in data
				 */
};

/* what pl2_classify() found */
enum pl2_kind {
	PL2_OTHER,		/* a Shoal packet the switch does not act on */
	PL2_RSV,
	PL2_DATA,
	PL2_MALFORMED,
};

struct pl2_pkt {
	u32 kind;		/* enum pl2_kind */
	u32 demand;		/* RSV: packets asked for, capped at kmax */
	u32 word;		/* RSV: its word as it came */
	u32 segs;		/* DATA: packets it is on the wire (1; a GSO
				 * packet of another transport: its segments)
				 */
	bool unsol;		/* DATA sent without a grant */
};

/* IP protocol numbers (the core includes no libc or kernel IP header) */
#define PL2_IP_ICMP		1
#define PL2_IP_TCP		6
#define PL2_IP_UDP		17

/*
 * Whether an IPv4 destination (4 bytes, network order) is unicast: not
 * multicast (224/4), the broadcast 255.255.255.255 or 0/8; sch_pl2
 * reserves for no other.
 */
static __always_inline bool pl2_unicast4(const u8 *a)
{
	return (a[0] & 0xf0) != 0xe0 && a[0] &&
	       !(a[0] == 0xff && a[1] == 0xff && a[2] == 0xff && a[3] == 0xff);
}

/* Whether an IPv6 destination (16 bytes) is unicast: not ff00::/8 */
static __always_inline bool pl2_unicast6(const u8 *a)
{
	return a[0] != 0xff;
}

/*
 * With any (--any-transport), an IP packet of another transport is DATA
 * of a reserved burst: a host running sch_pl2 sends an RSV to the Shoal
 * port before each burst of at most K packets to a destination, then the
 * burst as it is, with no Shoal header, in its slot.  Such a packet counts
 * off both ports' counters and moves the output's drain clock as Shoal
 * DATA does, and, carrying no SCHED flag to say otherwise, is scheduled:
 * never dropped as unsolicited.  Which packets: those sch_pl2 reserves
 * for, every unicast IPv4 or IPv6 packet but Shoal's (UDP to the Shoal
 * port, not an IPv4 fragment: pl2_classify's), so TCP, other UDP, ICMP,
 * IPv4 fragments (the first of a datagram to the Shoal port too, as
 * sch_pl2 reserves it) and IPv6 packets with extension headers (proto is
 * then the first next header, and no port is read).  A packet the
 * switch would not count and the host reserved for would hold its
 * reservation for good: the lease forgets a count only once no RSV moved
 * its port's clock on for a lease's time.  Without any, every such packet
 * is other traffic, as before.  dport: the UDP destination port (of a
 * UDP packet that is not a fragment; else ignored).  A GSO packet is
 * gso_segs packets on the wire and counts as many (sch_pl2 segments them
 * on arrival; a switch port's GRO could merge them again); gso_segs 0 is
 * a plain packet.  Returns true and fills *p as scheduled DATA, or false.
 */
static __always_inline bool pl2_foreign(const struct pl2_cfg *c, u32 proto,
					bool frag, bool unicast, u32 dport,
					u32 gso_segs, struct pl2_pkt *p)
{
	if (!c->any || !unicast ||
	    (proto == PL2_IP_UDP && !frag && dport == c->udp_port))
		return false;
	p->kind = PL2_DATA;
	p->demand = 0;
	p->word = 0;
	p->segs = gso_segs ? gso_segs : 1;
	p->unsol = false;
	return true;
}

/*
 * An RSV's word: the burst's packets in bits 0-15; in bits 16-31 the
 * latest slot that the switches which passed it on towards its receiver
 * reserved (0 from the sender), so that the GRT says when both the
 * sender's and the receiver's ports are free
 */
#define PL2_RSV_DEMAND(w)	((w) & SHOAL_RSV_DEMAND_MASK)
#define PL2_RSV_CARRIED(w)	(((w) & SHOAL_RSV_CARRIED_MASK) >> 16)

/*
 * Classify the first SHOAL_HDR_LEN bytes of a UDP payload of len bytes.
 * Only what the switch relies on is checked: the version, the header
 * length, and an RSV's demand and flags; the endpoint checks the rest.
 * A PL2 endpoint marks DATA sent against a grant with SHOAL_F_SCHED, so
 * DATA without it is unsolicited.
 *
 * This is the switch's own reading of the Shoal header, not wire.h's
 * shoal_wire_parse(): it runs in the BPF program, where the verifier
 * takes a short straight-line function over the 32 bytes it copied and
 * would have to follow the full parser's every branch (deadline, ACK
 * option, per-type checks) for no use here.  The offsets and readers are
 * the shared ones; tools/testing/unit/test_pl2_parse.c holds this
 * function against the shared parser on the same bytes.
 */
static __always_inline void pl2_classify(const u8 *h, u32 len, u32 kmax,
					 struct pl2_pkt *p)
{
	u32 type = h[SHOAL_OFF_VER_TYPE] & 0x0f, word;
	u8 hlen;

	p->kind = PL2_MALFORMED;
	p->demand = 0;
	p->word = 0;
	p->segs = 1;
	p->unsol = false;
	if (len < SHOAL_HDR_LEN || h[SHOAL_OFF_VER_TYPE] >> 4 != SHOAL_VERSION)
		return;
	hlen = h[SHOAL_OFF_HDR_LEN];
	if (hlen < SHOAL_HDR_LEN || hlen > SHOAL_HDR_MAX || hlen > len)
		return;
	if (type == SHOAL_T_RSV) {
		word = shoal_get32(h + SHOAL_OFF_WORD);
		/* a bounced RSV would come back as a GRT: never twice */
		if (!PL2_RSV_DEMAND(word) || (h[SHOAL_OFF_FLAGS] & SHOAL_F_BOUNCED))
			return;
		p->kind = PL2_RSV;
		p->word = word;
		p->demand = PL2_RSV_DEMAND(word) < kmax ? PL2_RSV_DEMAND(word) : kmax;
		return;
	}
	if (type == SHOAL_T_DATA) {
		p->kind = PL2_DATA;
		p->unsol = !(h[SHOAL_OFF_FLAGS] & SHOAL_F_SCHED);
		return;
	}
	p->kind = type && type < SHOAL_T_GRT + 1 ? PL2_OTHER : PL2_MALFORMED;
}

/* the GRT's word: input slot << 16 | output slot, each saturated */
static __always_inline u32 pl2_grt_word(u64 in_slot, u64 out_slot)
{
	if (in_slot > PL2_SLOT_MAX)
		in_slot = PL2_SLOT_MAX;
	if (out_slot > PL2_SLOT_MAX)
		out_slot = PL2_SLOT_MAX;
	return (u32)in_slot << 16 | (u32)out_slot;
}

/* The later of a GRT word's two slots */
static __always_inline u32 pl2_grt_later(u32 grt)
{
	return grt >> 16 > (grt & 0xffff) ? grt >> 16 : grt & 0xffff;
}

/* The word of an RSV passed on by a switch that reserved @grt for it:
 * its demand as it came, and the later of its slots and the carried one
 */
static __always_inline u32 pl2_rsv_carry(u32 rsv_word, u32 grt)
{
	u32 later = pl2_grt_later(grt);

	if (PL2_RSV_CARRIED(rsv_word) > later)
		later = PL2_RSV_CARRIED(rsv_word);
	return later << 16 | PL2_RSV_DEMAND(rsv_word);
}

/* The receiver's switch's GRT: the input slot (the sender's side) no
 * earlier than what the switches before it reserved
 */
static __always_inline u32 pl2_grt_carried(u32 grt, u32 rsv_word)
{
	u32 carried = PL2_RSV_CARRIED(rsv_word);

	return grt >> 16 >= carried ? grt : carried << 16 | (grt & 0xffff);
}

/* ---- counter mode (Algorithm 1) ---- */

/* A counter read by a concurrent RSV while a clamped decrement is undone */
static __always_inline u32 pl2_slot_of(s32 v)
{
	return v < 0 ? 0 : (u32)v;
}

static __always_inline u64 pl2_queue_slots(const struct pl2_cfg *c,
					   const struct pl2_port *out, u64 now);

/* Algorithm 1; with queue, the output's slot also counts the packets
 * that passed and wait in its queue (Algorithm 1 counts a packet off as
 * it arrives, so a burst that arrived early or late, or on top of
 * another, would sit in the queue uncounted and the next burst would be
 * told the port is free)
 */
static __always_inline u32 pl2_counter_rsv(const struct pl2_cfg *c, struct pl2_port *in,
					   struct pl2_port *out, u32 demand, u64 now)
{
	s32 s = in ? PL2_FETCH_ADD(&in->in_res, (s32)demand) : 0;
	s32 r = out ? PL2_FETCH_ADD(&out->out_res, (s32)demand) : 0;

	return pl2_grt_word(pl2_slot_of(s), pl2_slot_of(r) +
			    (out ? pl2_queue_slots(c, out, now) : 0));
}

/*
 * Subtract n (1 for a DATA packet), never below zero: what found 0 is
 * undone.  Two atomics instead of a compare-and-swap loop; between them
 * an RSV may read a negative count, which pl2_slot_of() reads as 0, and
 * the undo then leaves exactly what that RSV added.  Returns how many of
 * the n decrements clamped (found 0).
 */
static __always_inline u32 pl2_sub_sat(s32 *c, u32 n)
{
	s32 old = PL2_FETCH_ADD(c, -(s32)n);
	u32 taken = old <= 0 ? 0 : (u32)old < n ? (u32)old : n;

	if (taken < n)
		PL2_FETCH_ADD(c, (s32)(n - taken));
	return n - taken;
}

/* ---- clock modes ---- */

static __always_inline u64 pl2_ns_to_slots(u64 ns, u64 slot_ns)
{
	return slot_ns ? ns / slot_ns : 0;
}

/*
 * Pairwise clock: the port is busy until *next; a reservation starts at
 * max(now, *next) and moves *next on by its length.  A lost DATA packet
 * or a dead sender costs the port at most that length of time: the clock
 * heals by itself.  Returns the start.
 */
static __always_inline u64 pl2_clock_take(u64 *next, u64 now, u64 len)
{
	u64 old, start;
	int i;

	for (i = 0; i < PL2_CAS_TRIES; i++) {
		old = PL2_READ(*next);
		start = old > now ? old : now;
		if (PL2_CAS(next, old, start + len) == old)
			return start;
	}
	/* still contended: queue behind whatever is there */
	start = PL2_FETCH_ADD(next, len);
	return start > now ? start : now;
}

/* When the output's queue is empty again, by the DATA that passed; now
 * without queue
 */
static __always_inline u64 pl2_drained(const struct pl2_cfg *c,
				       const struct pl2_port *out, u64 now)
{
	u64 d;

	if (!c->queue)
		return now;
	d = PL2_READ(out->out_drain);
	return d > now ? d : now;
}

static __always_inline u64 pl2_queue_slots(const struct pl2_cfg *c,
					   const struct pl2_port *out, u64 now)
{
	return pl2_ns_to_slots(pl2_drained(c, out, now) - now, c->slot_ns);
}

/* With queue, the output's reservation starts no earlier than its queue
 * drains: a reservation is a time the port is free, and it is not while
 * packets that came early, late or together wait there
 */
static __always_inline u32 pl2_clock_rsv(const struct pl2_cfg *c, struct pl2_port *in,
					 struct pl2_port *out, u32 demand, u64 now)
{
	u64 len = (u64)demand * c->slot_ns;
	u64 s = in ? pl2_clock_take(&in->in_next, now, len) : now;
	u64 r = out ? pl2_clock_take(&out->out_next, pl2_drained(c, out, now), len) : now;

	return pl2_grt_word(pl2_ns_to_slots(s - now, c->slot_ns),
			    pl2_ns_to_slots(r - now, c->slot_ns));
}

/*
 * Joint clock, the collision-free ideal of the paper's section 4.2: both
 * ports get the same start, the later of their clocks.  The caller holds
 * the lock that serialises every joint reservation.
 */
static __always_inline u32 pl2_joint_rsv(const struct pl2_cfg *c, struct pl2_port *in,
					 struct pl2_port *out, u32 demand, u64 now)
{
	u64 start = out ? pl2_drained(c, out, now) : now, slot;

	if (in && in->in_next > start)
		start = in->in_next;
	if (out && out->out_next > start)
		start = out->out_next;
	if (in)
		in->in_next = start + (u64)demand * c->slot_ns;
	if (out)
		out->out_next = start + (u64)demand * c->slot_ns;
	slot = pl2_ns_to_slots(start - now, c->slot_ns);
	return pl2_grt_word(slot, slot);
}

/* ---- counter mode's lease (beyond the paper) ---- */

/* Whether reservations have a lease: counter mode with expire_ns */
static __always_inline bool pl2_leased(const struct pl2_cfg *c)
{
	return c->expire_ns && c->mode == PL2_MODE_COUNTER;
}

/* Forget an overdue count: the packets it waits for will not come */
static __always_inline u32 pl2_expire(const struct pl2_cfg *c, s32 *cnt,
				      const u64 *due, u64 now)
{
	if (PL2_READ(*cnt) <= 0 || now <= PL2_READ(*due) + c->expire_ns)
		return 0;
	return pl2_slot_of(PL2_XCHG(cnt, 0));
}

/*
 * With expire_ns, counter mode keeps the paper's slots but each side of a
 * port also runs the pairwise clock: an RSV moves it on by its demand's
 * time, so it says when the reserved packets should all have passed.  A
 * count still above 0 expire_ns after that is forgotten: its DATA was
 * lost, or its sender died or gave up.  An RSV racing with the reset may
 * lose its demand from the count (at most kmax packets, once).  Call
 * before pl2_counter_rsv() with the demand, before pl2_data() with 0.
 * Returns the packets forgotten.
 */
static __always_inline u32 pl2_lease(const struct pl2_cfg *c,
				     struct pl2_port *in, struct pl2_port *out,
				     u32 demand, u64 now)
{
	u32 n;

	if (!pl2_leased(c))
		return 0;
	n = in ? pl2_expire(c, &in->in_res, &in->in_next, now) : 0;
	n += out ? pl2_expire(c, &out->out_res, &out->out_next, now) : 0;
	if (demand && in)
		pl2_clock_take(&in->in_next, now, (u64)demand * c->slot_ns);
	if (demand && out)
		pl2_clock_take(&out->out_next, now, (u64)demand * c->slot_ns);
	return n;
}

/* How often the lease's sweep runs, in ns; 0: no sweep (no lease) */
static __always_inline u64 pl2_sweep_ns(const struct pl2_cfg *c)
{
	if (!pl2_leased(c))
		return 0;
	return c->expire_ns / 4 < PL2_SWEEP_NS_MIN ? PL2_SWEEP_NS_MIN :
						     c->expire_ns / 4;
}

/*
 * The sweep's visit to one port: its overdue counts forgotten, as a
 * packet through it would.  Returns the packets forgotten.
 */
static __always_inline u32 pl2_sweep_port(const struct pl2_cfg *c,
					  struct pl2_port *p, u64 now)
{
	if (!pl2_leased(c))
		return 0;
	return pl2_expire(c, &p->in_res, &p->in_next, now) +
	       pl2_expire(c, &p->out_res, &p->out_next, now);
}

/* ---- DATA ---- */

/* The larger reservation backlog of the two ports, in slots */
static __always_inline u64 pl2_backlog(const struct pl2_cfg *c, const struct pl2_port *in,
				       const struct pl2_port *out, u64 now)
{
	u64 a, b;

	if (c->mode == PL2_MODE_COUNTER) {
		a = in ? pl2_slot_of(PL2_READ(in->in_res)) : 0;
		b = out ? pl2_slot_of(PL2_READ(out->out_res)) : 0;
		return a > b ? a : b;
	}
	a = in ? PL2_READ(in->in_next) : 0;
	b = out ? PL2_READ(out->out_next) : 0;
	a = a > b ? a : b;
	return a > now ? pl2_ns_to_slots(a - now, c->slot_ns) : 0;
}

/*
 * A DATA packet from port in to port out, segs packets on the wire (1
 * but for another transport's GSO packet).  Unsolicited DATA is dropped
 * when either port's backlog exceeds T: it was sent on the bet that the
 * ports were nearly idle, and they are not (section 4.4 of the paper).
 * Otherwise counter mode takes segs packets off both counters (a dropped
 * packet did not pass, so it takes nothing off).  Returns true to drop;
 * *clamps counts the decrements that found 0.
 */
static __always_inline bool pl2_data_n(const struct pl2_cfg *c, struct pl2_port *in,
				       struct pl2_port *out, bool unsol, u32 segs,
				       u64 now, u32 *clamps)
{
	*clamps = 0;
	if (unsol && c->t_unsol && pl2_backlog(c, in, out, now) > c->t_unsol)
		return true;
	if (c->mode == PL2_MODE_COUNTER) {
		*clamps += in ? pl2_sub_sat(&in->in_res, segs) : 0;
		*clamps += out ? pl2_sub_sat(&out->out_res, segs) : 0;
	}
	/* it leaves the output a slot per packet after what is queued there */
	if (c->queue && out)
		pl2_clock_take(&out->out_drain, now, (u64)segs * c->slot_ns);
	return false;
}

/* One DATA packet */
static __always_inline bool pl2_data(const struct pl2_cfg *c, struct pl2_port *in,
				     struct pl2_port *out, bool unsol, u64 now, u32 *clamps)
{
	return pl2_data_n(c, in, out, unsol, 1, now, clamps);
}

/* A configuration the program can run with, or why not */
static inline const char *pl2_cfg_check(const struct pl2_cfg *c)
{
	if (!c->udp_port || c->udp_port > 65535)
		return "the UDP port must be 1..65535";
	if (c->mode >= PL2_MODE_NR)
		return "unknown mode";
	if (!c->kmax || c->kmax > PL2_SLOT_MAX)
		return "kmax must be 1..65535";
	if ((c->mode != PL2_MODE_COUNTER || c->expire_ns || c->queue) &&
	    (!c->slot_ns || c->slot_ns > PL2_SLOT_NS_MAX))
		return "the slot must be 1 ns..10 s";
	if (c->queue > 1)
		return "queue must be 0 or 1";
	if (c->any > 1)
		return "any-transport must be 0 or 1";
	if (c->expire_ns > PL2_SLOT_NS_MAX * 6)
		return "expire must be at most 60 s";
	return NULL;
}

#endif /* _PL2_SWITCH_CORE_H */
