// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_drop: drop every frame a device receives, before anything else in
 * the kernel sees it (packet sockets included).  The sqr-heartbeat test
 * attaches it to the receiver's end of a link to make a gray failure: the
 * carrier up, nothing crossing.  A tc ingress filter would not do: the
 * test's capture socket sees a frame before tc drops it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
