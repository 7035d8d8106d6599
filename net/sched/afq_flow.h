/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow identity for sch_afq and sch_calq's fq rank (kernel side).
 *
 * The hash is a keyed siphash over fields we pick from the flow
 * dissector, never skb->hash: for local TCP that is sk_txhash, which the
 * stack re-randomises on every RTO, and a flow with a fresh hash would get
 * a fresh bid.  The IPv6 flow label is left out for the same reason.  The
 * fields survive forwarding, so a router and its hosts see the same flows.
 * TCP and UDP over plain IPv4 and IPv6 are read straight from their
 * headers, the same fields the dissector would give, for a fraction of
 * its cost; the dissector handles the rest.
 *
 * Shoal packets (UDP to or from the Shoal port @port, 0 = none) come
 * from a random UDP source port each: under the flow and shoal-msg keys
 * they are keyed by the addresses and the Shoal header's ports (and
 * message id), which afq_key_core.h reads.  A packet it does not take
 * (no whole Shoal header) is keyed by its 5-tuple as before.
 */
#ifndef _SHOAL_AFQ_FLOW_H
#define _SHOAL_AFQ_FLOW_H

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/flow_dissector.h>
#include <linux/pkt_sched_shoal.h>

#include "afq_key_core.h"

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
static inline u64 afq_flow_hash_v4(__be32 saddr, __be32 daddr, __be32 l4ports,
				   u8 ip_proto, u8 mode,
				   const siphash_key_t *key)
{
	u32 src = (__force u32)saddr, dst = (__force u32)daddr;
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
		ports = (__force u32)l4ports;
		proto = ip_proto;
		break;
	}
	return siphash_4u32(src, dst, ports, proto, key);
}

/* Any other family: the fields @mode keeps, in afq_flow_fields */
static inline u64 afq_flow_hash_fields(struct afq_flow_fields *f,
				       const struct flow_keys *k, u8 mode,
				       const siphash_key_t *key)
{
	switch (mode) {
	case AFQ_KEY_HOSTS:
		afq_flow_addrs(k, f, true, true);
		break;
	case AFQ_KEY_SRC:
		afq_flow_addrs(k, f, true, false);
		break;
	case AFQ_KEY_DST:
		afq_flow_addrs(k, f, false, true);
		break;
	default:
		afq_flow_addrs(k, f, true, true);
		f->ports = k->ports.ports;
		f->ip_proto = k->basic.ip_proto;
		break;
	}
	return siphash(f, sizeof(*f), key);
}

/* Do @mode's keys read the Shoal header of a packet to or from @port? */
static inline bool afq_flow_shoal_mode(u8 mode, u16 port)
{
	return port && (mode == AFQ_KEY_FLOW || mode == AFQ_KEY_SHOAL_MSG);
}

/* The Shoal key of a UDP packet to or from the Shoal port; false (and
 * the 5-tuple is used) when it carries no whole Shoal header.  Kept out
 * of line: its buffer is zeroed on the stack only for Shoal packets.
 */
static noinline bool afq_flow_hash_shoal(const struct sk_buff *skb, u8 mode,
					 u16 port, const siphash_key_t *key,
					 u64 *hash)
{
	u8 buf[AFQ_KEY_PARSE_LEN];
	struct afq_key_fields f;
	int nh = skb_network_offset(skb);
	const u8 *p;
	u32 avail;

	if (nh < 0 || nh >= skb->len)
		return false;
	avail = min_t(u32, skb->len - nh, sizeof(buf));
	p = skb_header_pointer(skb, nh, avail, buf);
	if (!p || !afq_key_shoal(p, avail, skb->len - nh, port,
				 mode == AFQ_KEY_SHOAL_MSG, &f))
		return false;
	*hash = siphash(&f, sizeof(f), key);
	return true;
}

/* UDP ports @ports (as read, network order) of a Shoal packet? */
static inline bool afq_flow_ports_shoal(__be32 ports, u8 ip_proto, u8 mode,
					u16 port)
{
	u32 p = ntohl((__force __be32)ports);

	return ip_proto == IPPROTO_UDP && afq_flow_shoal_mode(mode, port) &&
	       afq_key_is_shoal_port(p >> 16, p & 0xffff, port);
}

/* The ports of a TCP or UDP header at @off, 0 when the packet ends before
 * them (as the flow dissector reads them)
 */
static inline __be32 afq_flow_ports(const struct sk_buff *skb, int off)
{
	__be32 *p, buf;

	p = skb_header_pointer(skb, off, sizeof(buf), &buf);
	return p ? *p : 0;
}

/* TCP or UDP over IPv4, not a fragment: the dissector's fields */
static inline bool afq_flow_hash_ip(const struct sk_buff *skb, int nh,
				    u8 mode, u16 port, const siphash_key_t *key,
				    u64 *hash)
{
	const struct iphdr *iph;
	struct iphdr buf;
	__be32 ports;

	iph = skb_header_pointer(skb, nh, sizeof(buf), &buf);
	if (!iph || iph->ihl < 5 || ip_is_fragment(iph) ||
	    (iph->protocol != IPPROTO_TCP && iph->protocol != IPPROTO_UDP))
		return false;
	ports = afq_flow_ports(skb, nh + iph->ihl * 4);
	if (afq_flow_ports_shoal(ports, iph->protocol, mode, port) &&
	    afq_flow_hash_shoal(skb, mode, port, key, hash))
		return true;
	*hash = afq_flow_hash_v4(iph->saddr, iph->daddr, ports,
				 iph->protocol, mode, key);
	return true;
}

/* TCP or UDP right after the IPv6 header: the fields afq_flow_addrs()
 * and afq_flow_hash_fields() take from the dissector's keys
 */
static inline bool afq_flow_hash_ipv6(const struct sk_buff *skb, int nh,
				      u8 mode, u16 port,
				      const siphash_key_t *key, u64 *hash)
{
	struct afq_flow_fields f = {};
	const struct ipv6hdr *ip6;
	struct ipv6hdr buf;

	ip6 = skb_header_pointer(skb, nh, sizeof(buf), &buf);
	if (!ip6 ||
	    (ip6->nexthdr != IPPROTO_TCP && ip6->nexthdr != IPPROTO_UDP))
		return false;
	f.n_proto = htons(ETH_P_IPV6);
	if (mode != AFQ_KEY_DST)
		memcpy(f.src, &ip6->saddr, sizeof(f.src));
	if (mode != AFQ_KEY_SRC)
		memcpy(f.dst, &ip6->daddr, sizeof(f.dst));
	if (mode != AFQ_KEY_HOSTS && mode != AFQ_KEY_SRC &&
	    mode != AFQ_KEY_DST) {
		f.ports = afq_flow_ports(skb, nh + sizeof(*ip6));
		f.ip_proto = ip6->nexthdr;
		if (afq_flow_ports_shoal(f.ports, f.ip_proto, mode, port) &&
		    afq_flow_hash_shoal(skb, mode, port, key, hash))
			return true;
	}
	*hash = siphash(&f, sizeof(f), key);
	return true;
}

/* The common packets without the generic flow dissector, which was the
 * largest part of our per-packet cost (make bench): TCP or UDP over IPv4
 * (not a fragment) or over IPv6 without extension headers, no VLAN tag
 * in the skb and no BPF flow dissector attached.  For those the
 * dissector reads exactly these fields at these offsets, so the hash is
 * the same; false sends everything else (tunnels, fragments, extension
 * headers, other protocols) to the dissector.  Each family's locals are
 * in its own function: the kernel zeroes every stack variable
 * (CONFIG_INIT_STACK_ALL_ZERO), and IPv4 should not pay for IPv6's.
 */
static inline bool afq_flow_hash_fast(const struct sk_buff *skb, u8 mode,
				      u16 port, const siphash_key_t *key,
				      u64 *hash)
{
	int nh = skb_network_offset(skb);

	if (skb_vlan_tag_present(skb) || !skb->dev ||
	    rcu_access_pointer(init_net.bpf.run_array[NETNS_BPF_FLOW_DISSECTOR]) ||
	    rcu_access_pointer(dev_net(skb->dev)->bpf.run_array[NETNS_BPF_FLOW_DISSECTOR]))
		return false;
	if (skb->protocol == htons(ETH_P_IP))
		return afq_flow_hash_ip(skb, nh, mode, port, key, hash);
	if (skb->protocol == htons(ETH_P_IPV6))
		return afq_flow_hash_ipv6(skb, nh, mode, port, key, hash);
	return false;
}

/* What the flow dissector gives, for any packet */
static inline u64 afq_flow_hash_dissect(const struct sk_buff *skb, u8 mode,
					u16 port, const siphash_key_t *key)
{
	struct afq_flow_fields f = {};
	struct flow_keys k;
	u64 hash;

	skb_flow_dissect_flow_keys(skb, &k, 0);
	if ((k.basic.n_proto == htons(ETH_P_IP) ||
	     k.basic.n_proto == htons(ETH_P_IPV6)) &&
	    afq_flow_ports_shoal(k.ports.ports, k.basic.ip_proto, mode, port) &&
	    afq_flow_hash_shoal(skb, mode, port, key, &hash))
		return hash;
	if (k.control.addr_type == FLOW_DISSECTOR_KEY_IPV4_ADDRS)
		return afq_flow_hash_v4(k.addrs.v4addrs.src,
					k.addrs.v4addrs.dst, k.ports.ports,
					k.basic.ip_proto, mode, key);
	f.n_proto = k.basic.n_proto;
	return afq_flow_hash_fields(&f, &k, mode, key);
}

/* The 64-bit flow hash of @skb under @mode (enum afq_flow_key), Shoal
 * packets recognised on UDP port @port (0: none)
 */
static inline u64 afq_flow_hash(const struct sk_buff *skb, u8 mode, u16 port,
				const siphash_key_t *key)
{
	u64 hash;

	switch (mode) {
	case AFQ_KEY_MARK:
		return siphash_1u32(skb->mark, key);
	case AFQ_KEY_PRIO:
		return siphash_1u32(skb->priority, key);
	}
	if (afq_flow_hash_fast(skb, mode, port, key, &hash))
		return hash;
	return afq_flow_hash_dissect(skb, mode, port, key);
}

#endif /* _SHOAL_AFQ_FLOW_H */
