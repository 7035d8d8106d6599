// SPDX-License-Identifier: GPL-2.0
/*
 * calq_rank: program sch_calq's rank from packet fields (tc clsact egress).
 *
 * pFabric-style shortest-remaining-first with aging: for a Shoal DATA
 * packet the rank is the bytes of its message still to come, msg_len -
 * offset, in days of 2^shift bytes, capped at max_day; a control packet
 * ranks 0.  It is written to skb->mark; a calq with `rank mark` on the
 * same device queues the packet that many days after the head.  Aging
 * comes free: the head moves on, so a packet of a long message waits at
 * most max_day rotations and cannot starve.  Other packets keep mark 0
 * (the head day).
 *
 * The egress hook runs in __dev_queue_xmit before the qdisc, in the netns
 * of the device, so the mark is not scrubbed on the way.  Loaded and
 * attached by tools/bpf/calq-rank (libbpf); see Documentation/sch_calq.md.
 *
 * Like the PL2 switch, it reads the headers itself rather than with
 * include/net/shoal/'s parsers, which the verifier would have to follow
 * branch by branch: three fields of the uapi struct shoal_hdr suffice.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <linux/shoal.h>

struct calq_rank_cfg {
	__u32 shift;		/* bytes per day = 2^shift */
	__u32 max_day;
	__u32 port;		/* UDP destination port of Shoal */
};

enum { STAT_RANKED, STAT_OTHER, __STAT_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct calq_rank_cfg);
} calq_rank_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, __STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} calq_rank_stats SEC(".maps");

static __always_inline void count(__u32 what)
{
	__u64 *v = bpf_map_lookup_elem(&calq_rank_stats, &what);

	if (v)
		(*v)++;
}

/* Offset of the UDP header of a non-fragmented IPv4/IPv6 packet, or < 0 */
static __always_inline int udp_offset(struct __sk_buff *skb)
{
	__u8 b[2];
	__u16 frag;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		if (bpf_skb_load_bytes(skb, ETH_HLEN, b, 1) ||
		    bpf_skb_load_bytes(skb, ETH_HLEN + 6, &frag, 2) ||
		    bpf_skb_load_bytes(skb, ETH_HLEN + 9, b + 1, 1))
			return -1;
		if (b[1] != IPPROTO_UDP || (bpf_ntohs(frag) & 0x3fff))
			return -1;
		return ETH_HLEN + (b[0] & 0x0f) * 4;
	}
	if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		/* no extension headers: anything else is not ranked */
		if (bpf_skb_load_bytes(skb, ETH_HLEN + 6, b, 1) ||
		    b[0] != IPPROTO_UDP)
			return -1;
		return ETH_HLEN + 40;
	}
	return -1;
}

SEC("tc")
int calq_rank(struct __sk_buff *skb)
{
	struct calq_rank_cfg *cfg;
	struct shoal_hdr sh;
	__u32 key = 0, left, day;
	__u16 dport;
	int off;

	cfg = bpf_map_lookup_elem(&calq_rank_cfg, &key);
	off = udp_offset(skb);
	if (!cfg || off < 0 ||
	    bpf_skb_load_bytes(skb, off + 2, &dport, 2) ||
	    bpf_ntohs(dport) != cfg->port ||
	    bpf_skb_load_bytes(skb, off + 8, &sh, sizeof(sh)) ||
	    sh.ver_type >> 4 != SHOAL_VERSION) {
		count(STAT_OTHER);
		return TC_ACT_OK;
	}
	left = bpf_ntohl(sh.msg_len) - bpf_ntohl(sh.offset);
	if (left > bpf_ntohl(sh.msg_len))	/* offset beyond the end */
		left = 0;
	/* control packets (credit, resend, ...) go at the head */
	if ((sh.ver_type & 0x0f) != SHOAL_T_DATA)
		left = 0;
	day = left >> (cfg->shift & 31);
	skb->mark = day < cfg->max_day ? day : cfg->max_day;
	count(STAT_RANKED);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
