// SPDX-License-Identifier: GPL-2.0
/*
 * pl2_switch: the PL2 switch as a tc program on the ingress (clsact) of
 * every switch port; Documentation/pl2-switch.md.
 *
 * An RSV (Shoal over UDP to the configured port, IPv4 or IPv6) reserves
 * its demand on the port it came in on and on the port the routing table
 * sends it out of (bpf_fib_lookup); the packet is turned into the GRT in
 * place (type GRT, SHOAL_F_BOUNCED, word = the two slots; MAC, IP
 * addresses and UDP ports swapped, which leaves both checksums as they
 * were but for the changed header bytes) and redirected out of the port
 * it came from.  DATA counts off both ports (counter mode) or is dropped
 * when unsolicited and the backlog exceeds T.  A leaf's uplinks (towards
 * the spines) reserve nothing; an RSV that leaves by one is reserved on
 * its input alone and passed on, carrying that slot in its word: the
 * switch next to the receiver answers it.  With --any-transport (cfg
 * any), every other unicast IP packet (TCP, UDP to other ports, ICMP...)
 * counts as scheduled DATA (pl2_foreign: hosts running sch_pl2 send them
 * in reserved bursts).
 * Everything else, malformed Shoal packets included, passes untouched
 * and is counted.
 *
 * The program reads the IP, UDP and Shoal headers itself (parse_l3,
 * pl2_classify) instead of with include/net/shoal/'s parsers: the
 * verifier must follow every branch over packet bytes copied to the
 * stack, and the switch needs only a few fields; see pl2_classify.
 *
 * Atomicity: see pl2_switch_core.h.  The port map's values are shared by
 * every CPU and changed only through the core's atomics, or under
 * pl2_lock in the joint mode; statistics are per CPU.  The lease's sweep
 * (a bpf_timer callback, in softirq, beside the programs on other CPUs)
 * uses the same atomics.  The loader writes pl2_cfg only while no port is
 * attached.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "pl2_switch_core.h"

#define AF_INET		2
#define AF_INET6	10
#define TC_PRIO_CONTROL	7
#define CLOCK_MONOTONIC	1

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl2_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} pl2_cfg SEC(".maps");

/* ifindex -> port slot, 0..PL2_PORTS-1 (the loader's) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PL2_PORTS);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} pl2_ifmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PL2_PORTS);
	__type(key, __u32);
	__type(value, struct pl2_port);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} pl2_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PL2_PORTS);
	__type(key, __u32);
	__type(value, struct pl2_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} pl2_stats SEC(".maps");

struct pl2_lock_val {
	struct bpf_spin_lock lock;
};

/* serialises the joint mode's reservations */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl2_lock_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} pl2_lock SEC(".maps");

/*
 * Counter mode with a lease: a timer sweeps every port each lease / 4 and
 * forgets the counts overdue by the lease, so a dead sender's
 * reservations go even if no packet passes the port again.  It runs only
 * while something is reserved: an RSV arms it after adding its demand,
 * and a sweep that leaves every count at 0 stops.  Both sides are full
 * barriers on `armed` and the counts (an atomic add then a read, an
 * exchange then reads), so an RSV racing with the last sweep either is
 * seen by it or sees `armed` 0 and arms the timer itself.  The timer
 * holds the program and lives until the map's last user reference goes
 * (the loader unpins it with the last port).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl2_sweep);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} pl2_sweep SEC(".maps");

struct l34 {
	__u32 udp;		/* offset of the UDP header (any: of the L4
				 * header, for TCP's ports)
				 */
	__u32 udp_len;		/* UDP payload bytes (0 but for Shoal's) */
	__u8 v6;
	__u8 proto;		/* IP protocol; IPv6: the next header */
	__u8 frag;		/* an IPv4 fragment (any) */
	__u8 unicast;		/* to a unicast destination */
};

/*
 * Where the UDP header of a non-fragmented IPv4/IPv6 packet is.  With any
 * (--any-transport), every other IPv4/IPv6 packet too, which is not
 * Shoal's: proto and frag say what it is, and nothing past its IP header
 * is checked here.  Anything else is not ours.
 */
static __always_inline int parse_l3(struct __sk_buff *skb, struct l34 *l,
				    struct bpf_fib_lookup *fib, bool any)
{
	__u8 ip[40];
	__u16 ulen;
	__u32 ihl;

	__builtin_memset(fib, 0, sizeof(*fib));
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, ETH_HLEN, ip, 20))
			return -1;
		ihl = (ip[0] & 0x0f) * 4;
		if (ip[0] >> 4 != 4 || ihl < 20)
			return -1;
		l->proto = ip[9];
		l->frag = ((ip[6] << 8 | ip[7]) & 0x3fff) != 0;
		/* UDP, not a fragment; the rest only with any */
		if ((l->proto != IPPROTO_UDP || l->frag) && !any)
			return -1;
		l->unicast = pl2_unicast4(ip + 16);
		l->udp = ETH_HLEN + ihl;
		l->v6 = 0;
		fib->family = AF_INET;
		fib->tos = ip[1];
		fib->tot_len = (__u16)(ip[2] << 8 | ip[3]);
		__builtin_memcpy(&fib->ipv4_src, ip + 12, 4);
		__builtin_memcpy(&fib->ipv4_dst, ip + 16, 4);
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		/* no extension headers: anything else is not Shoal here */
		if (bpf_skb_load_bytes(skb, ETH_HLEN, ip, 40) || ip[0] >> 4 != 6)
			return -1;
		l->proto = ip[6];
		l->frag = 0;
		if (l->proto != IPPROTO_UDP && !any)
			return -1;
		l->unicast = pl2_unicast6(ip + 24);
		l->udp = ETH_HLEN + 40;
		l->v6 = 1;
		fib->family = AF_INET6;
		fib->flowinfo = *(__be32 *)ip & bpf_htonl(0x0fffffff);
		__builtin_memcpy(fib->ipv6_src, ip + 8, 16);
		__builtin_memcpy(fib->ipv6_dst, ip + 24, 16);
	} else {
		return -1;
	}
	fib->l4_protocol = l->proto;
	fib->ifindex = skb->ingress_ifindex;
	l->udp_len = 0;
	if (l->proto != IPPROTO_UDP || l->frag)
		return 0;	/* any: another transport's, not read further */
	if (bpf_skb_load_bytes(skb, l->udp + 4, &ulen, 2) ||
	    bpf_ntohs(ulen) < 8)
		return -1;
	l->udp_len = bpf_ntohs(ulen) - 8;
	if (l->udp + 8 + l->udp_len > skb->len)
		return -1;
	return 0;
}

/* The output port's map value, by the routing table, or NULL */
static __always_inline struct pl2_port *
out_port(struct __sk_buff *skb, struct bpf_fib_lookup *fib)
{
	__u32 *slot;
	long rc;

	rc = bpf_fib_lookup(skb, fib, sizeof(*fib), 0);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH)
		return NULL;
	slot = bpf_map_lookup_elem(&pl2_ifmap, &fib->ifindex);
	if (!slot)
		return NULL;
	return bpf_map_lookup_elem(&pl2_ports, slot);
}

/* Swap the two runs of n bytes at off (MACs, addresses, ports) */
static __always_inline int swap_bytes(struct __sk_buff *skb, __u32 off,
				      __u32 n)
{
	__u8 a[32], b[32];

	if (n > 16 || bpf_skb_load_bytes(skb, off, a, 2 * n))
		return -1;
	__builtin_memcpy(b, a + n, n);
	__builtin_memcpy(b + n, a, n);
	return bpf_skb_store_bytes(skb, off, b, 2 * n, 0);
}

/* The Shoal header's word of the packet at l to word, the UDP sum with it */
static __always_inline int set_word(struct __sk_buff *skb, const struct l34 *l,
				    const __u8 *h, __u32 word)
{
	__u64 flags = l->v6 ? 0 : BPF_F_MARK_MANGLED_0;
	__be32 oldw, neww;

	__builtin_memcpy(&oldw, h + SHOAL_OFF_WORD, 4);
	neww = bpf_htonl(word);
	if (bpf_l4_csum_replace(skb, l->udp + 6, oldw, neww, flags | 4) ||
	    bpf_skb_store_bytes(skb, l->udp + 8 + SHOAL_OFF_WORD, &neww, 4, 0))
		return -1;
	return 0;
}

/* Turn the RSV at l into the GRT with word, sent back where it came from */
static __always_inline int make_grt(struct __sk_buff *skb, const struct l34 *l,
				    const __u8 *h, __u32 word)
{
	__u32 hoff = l->udp + 8, csum = l->udp + 6;
	__u64 flags = l->v6 ? 0 : BPF_F_MARK_MANGLED_0;
	__be16 old01, new01;
	__u8 b01[2];

	b01[0] = (SHOAL_VERSION << 4) | SHOAL_T_GRT;
	b01[1] = h[SHOAL_OFF_FLAGS] | SHOAL_F_BOUNCED;
	__builtin_memcpy(&old01, h, 2);
	__builtin_memcpy(&new01, b01, 2);
	if (bpf_l4_csum_replace(skb, csum, old01, new01, flags | 2) ||
	    bpf_skb_store_bytes(skb, hoff, b01, 2, 0) ||
	    set_word(skb, l, h, word))
		return -1;
	/* the sums of the IP header and the pseudo header do not change */
	if (swap_bytes(skb, 0, ETH_ALEN) || swap_bytes(skb, l->udp, 2))
		return -1;
	if (l->v6 ? swap_bytes(skb, ETH_HLEN + 8, 16) :
	    swap_bytes(skb, ETH_HLEN + 12, 4))
		return -1;
	skb->priority = TC_PRIO_CONTROL;
	return 0;
}

struct sweep_ctx {
	const struct pl2_cfg *cfg;
	__u64 now;
	__u64 left;		/* packets still reserved after the sweep */
};

static int sweep_one(__u32 i, struct sweep_ctx *x)
{
	struct pl2_stats *st;
	struct pl2_port *p;

	p = bpf_map_lookup_elem(&pl2_ports, &i);
	st = bpf_map_lookup_elem(&pl2_stats, &i);
	if (p && st) {
		st->expired += pl2_sweep_port(x->cfg, p, x->now);
		x->left += pl2_slot_of(PL2_READ(p->in_res)) +
			   pl2_slot_of(PL2_READ(p->out_res));
	}
	return 0;
}

static int sweep_ports(void *map, __u32 *key, struct pl2_sweep *sw)
{
	struct sweep_ctx x = { 0 };
	__u32 zero = 0;

	PL2_XCHG(&sw->armed, 0);
	x.cfg = bpf_map_lookup_elem(&pl2_cfg, &zero);
	if (!x.cfg || !pl2_sweep_ns(x.cfg))
		return 0;
	x.now = bpf_ktime_get_ns();
	bpf_loop(PL2_PORTS, sweep_one, &x, 0);
	/* again while counts are left, unless an RSV armed it meanwhile */
	if (x.left && !PL2_CAS(&sw->armed, 0, 1))
		bpf_timer_start(&sw->timer, pl2_sweep_ns(x.cfg), 0);
	return 0;
}

/* After an RSV added its demand: the sweep runs, or is started (a
 * failure is tried again at the next RSV)
 */
static __always_inline void sweep_arm(const struct pl2_cfg *cfg)
{
	__u32 zero = 0;
	struct pl2_sweep *sw;

	if (!pl2_leased(cfg))
		return;
	sw = bpf_map_lookup_elem(&pl2_sweep, &zero);
	if (!sw || PL2_READ(sw->armed) || PL2_CAS(&sw->armed, 0, 1))
		return;
	bpf_timer_init(&sw->timer, &pl2_sweep, CLOCK_MONOTONIC);
	if (bpf_timer_set_callback(&sw->timer, sweep_ports) ||
	    bpf_timer_start(&sw->timer, pl2_sweep_ns(cfg), 0))
		PL2_XCHG(&sw->armed, 0);
}

SEC("tc")
int pl2_switch(struct __sk_buff *skb)
{
	__u32 key = 0, *slot, word, clamps, ifindex = skb->ingress_ifindex;
	struct bpf_fib_lookup fib;
	struct pl2_port *in, *out;
	struct pl2_lock_val *lk;
	struct pl2_stats *st;
	struct pl2_cfg *cfg;
	struct pl2_pkt p;
	__u8 h[SHOAL_HDR_LEN], foreign = 0;
	__u16 dport, ports[2];
	struct l34 l;
	__u64 now;
	bool up;

	cfg = bpf_map_lookup_elem(&pl2_cfg, &key);
	slot = bpf_map_lookup_elem(&pl2_ifmap, &ifindex);
	if (!cfg || !slot)
		return TC_ACT_OK;	/* not (yet) a switch port */
	st = bpf_map_lookup_elem(&pl2_stats, slot);
	in = bpf_map_lookup_elem(&pl2_ports, slot);
	if (!st || !in)
		return TC_ACT_OK;
	if (parse_l3(skb, &l, &fib, cfg->any)) {
		st->other++;
		return TC_ACT_OK;
	}
	/* the L4 ports, of UDP (parse_l3 checked they are there) and TCP */
	ports[0] = 0;
	ports[1] = 0;
	if (!l.frag && (l.proto == IPPROTO_UDP || l.proto == IPPROTO_TCP) &&
	    bpf_skb_load_bytes(skb, l.udp, ports, 4)) {
		if (l.proto == IPPROTO_UDP) {
			st->other++;
			return TC_ACT_OK;
		}
		/* a TCP header cut short: no ports, still a packet */
		ports[0] = 0;
		ports[1] = 0;
	}
	dport = ports[1];
	if (l.proto != IPPROTO_UDP || l.frag || bpf_ntohs(dport) != cfg->udp_port) {
		/* another transport: scheduled DATA with --any-transport */
		if (!pl2_foreign(cfg, l.proto, l.frag, l.unicast, bpf_ntohs(dport),
				 skb->gso_segs, &p)) {
			st->other++;
			return TC_ACT_OK;
		}
		foreign = 1;
		/* no RSV reads it, but let no path read it unset */
		__builtin_memset(h, 0, sizeof(h));
		fib.sport = ports[0];
		/* a GSO packet's IPv4 length is all its segments': let the
		 * lookup check the skb against the MTU (GSO-aware) instead
		 */
		fib.tot_len = 0;
	} else {
		if (l.udp_len < SHOAL_HDR_LEN ||
		    bpf_skb_load_bytes(skb, l.udp + 8, h, SHOAL_HDR_LEN)) {
			st->malformed++;
			return TC_ACT_OK;
		}
		pl2_classify(h, l.udp_len, cfg->kmax, &p);
		if (p.kind == PL2_MALFORMED) {
			st->malformed++;
			return TC_ACT_OK;
		}
		if (p.kind == PL2_OTHER) {
			st->other++;
			return TC_ACT_OK;
		}
		fib.sport = 0;
	}
	fib.dport = dport;
	out = out_port(skb, &fib);
	if (!out) {
		st->unrouted++;
		return TC_ACT_OK;
	}
	/* a leaf's ports towards the spines reserve nothing */
	up = PL2_READ(out->uplink);
	if (PL2_READ(in->uplink))
		in = NULL;
	if (up)
		out = NULL;
	/* keep the compiler from testing the flags for the pointers: the
	 * verifier knows a pointer is not NULL only by testing the pointer
	 */
	barrier_var(in);
	barrier_var(out);
	now = bpf_ktime_get_ns();
	st->expired += pl2_lease(cfg, in, out,
				 p.kind == PL2_RSV ? p.demand : 0, now);
	if (p.kind == PL2_DATA) {
		if (pl2_data_n(cfg, in, out, p.unsol, p.segs, now, &clamps)) {
			st->unsol_drop++;
			return TC_ACT_SHOT;
		}
		if (foreign)
			st->foreign += p.segs;
		else
			st->data++;
		st->unsol += p.unsol;
		st->clamp += clamps;
		return TC_ACT_OK;
	}
	/* an RSV */
	if (cfg->mode == PL2_MODE_JOINT) {
		lk = bpf_map_lookup_elem(&pl2_lock, &key);
		if (!lk) {
			st->grt_err++;
			return TC_ACT_OK;
		}
		bpf_spin_lock(&lk->lock);
		word = pl2_joint_rsv(cfg, in, out, p.demand, now);
		bpf_spin_unlock(&lk->lock);
	} else if (cfg->mode == PL2_MODE_CLOCK) {
		word = pl2_clock_rsv(cfg, in, out, p.demand, now);
	} else {
		word = pl2_counter_rsv(cfg, in, out, p.demand, now);
		sweep_arm(cfg);
	}
	/*
	 * The reservation stands even if the GRT cannot be made: the
	 * sender's RSV timeout and the clock modes deal with that.
	 */
	if (up) {
		/* towards the core: the receiver's switch answers, after
		 * the slot reserved here
		 */
		if (set_word(skb, &l, h, pl2_rsv_carry(p.word, word))) {
			st->grt_err++;
			return TC_ACT_SHOT;
		}
		st->transit++;
		return TC_ACT_OK;
	}
	if (make_grt(skb, &l, h, pl2_grt_carried(word, p.word))) {
		st->grt_err++;
		return TC_ACT_SHOT;
	}
	st->rsv++;
	return bpf_redirect(skb->ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";
