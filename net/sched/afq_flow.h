/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow identity for sch_afq and sch_calq's fq rank (kernel side).
 *
 * The hash is a keyed siphash over fields we pick from the flow
 * dissector, never skb->hash: for local TCP that is sk_txhash, which the
 * stack re-randomises on every RTO, and a flow with a fresh hash would get
 * a fresh bid.  The IPv6 flow label is left out for the same reason.  The
 * fields survive forwarding, so a router and its hosts see the same flows.
 */
#ifndef _SHOAL_AFQ_FLOW_H
#define _SHOAL_AFQ_FLOW_H

#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <net/flow_dissector.h>
#include <linux/pkt_sched_shoal.h>

struct afq_flow_fields {
	__be32 src[4];
	__be32 dst[4];
	__be32 ports;
	__be16 n_proto;
	u8 ip_proto;
	u8 pad;
};

static inline void afq_flow_addrs(const struct flow_keys *k,
				  struct afq_flow_fields *f, bool src, bool dst)
{
	if (k->control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS) {
		if (src)
			f->src[0] = k->addrs.v4addrs.src;
		if (dst)
			f->dst[0] = k->addrs.v4addrs.dst;
	} else if (k->control.addr_type == FLOW_DISSECTOR_KEY_IPV6_ADDRS) {
		if (src)
			memcpy(f->src, &k->addrs.v6addrs.src, sizeof(f->src));
		if (dst)
			memcpy(f->dst, &k->addrs.v6addrs.dst, sizeof(f->dst));
	}
}

/* IPv4, the common case, in 16 bytes: siphash_4u32 costs half of what
 * the 40 bytes of afq_flow_fields do, on every packet.
 */
static inline u64 afq_flow_hash_v4(const struct flow_keys *k, u8 mode,
				   const siphash_key_t *key)
{
	u32 src = (__force u32)k->addrs.v4addrs.src;
	u32 dst = (__force u32)k->addrs.v4addrs.dst;
	u32 ports = 0, proto = 0;

	switch (mode) {
	case AFQ_KEY_HOSTS:
		break;
	case AFQ_KEY_SRC:
		dst = 0;
		break;
	case AFQ_KEY_DST:
		src = 0;
		break;
	default:
		ports = (__force u32)k->ports.ports;
		proto = k->basic.ip_proto;
		break;
	}
	return siphash_4u32(src, dst, ports, proto, key);
}

/* The 64-bit flow hash of @skb under @mode (enum afq_flow_key) */
static inline u64 afq_flow_hash(const struct sk_buff *skb, u8 mode,
				const siphash_key_t *key)
{
	struct afq_flow_fields f = {};
	struct flow_keys k;

	switch (mode) {
	case AFQ_KEY_MARK:
		return siphash_1u32(skb->mark, key);
	case AFQ_KEY_PRIO:
		return siphash_1u32(skb->priority, key);
	}
	skb_flow_dissect_flow_keys(skb, &k, 0);
	if (k.control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS)
		return afq_flow_hash_v4(&k, mode, key);
	f.n_proto = k.basic.n_proto;
	switch (mode) {
	case AFQ_KEY_HOSTS:
		afq_flow_addrs(&k, &f, true, true);
		break;
	case AFQ_KEY_SRC:
		afq_flow_addrs(&k, &f, true, false);
		break;
	case AFQ_KEY_DST:
		afq_flow_addrs(&k, &f, false, true);
		break;
	default:
		afq_flow_addrs(&k, &f, true, true);
		f.ports = k.ports.ports;
		f.ip_proto = k.basic.ip_proto;
		break;
	}
	return siphash(&f, sizeof(f), key);
}

#endif /* _SHOAL_AFQ_FLOW_H */
