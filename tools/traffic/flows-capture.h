/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shoal-flows' packet capture: goodput by arrival time in the kernel.
 *
 * A receiving process that falls behind (an emulated guest under load)
 * reads data in late batches, so counting what read() returns would put
 * bytes into the wrong time bins.  An AF_PACKET socket on the receiving
 * device sees every packet with its kernel receive time instead.  TCP
 * bytes count once, when they first arrive (retransmissions and segments
 * below the highest sequence seen add nothing); UDP datagrams count whole.
 * Only headers are kept: a classic BPF filter truncates every capture.
 */
#ifndef _SHOAL_FLOWS_CAPTURE_H
#define _SHOAL_FLOWS_CAPTURE_H

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/shoal/byteorder.h>

#define CAP_SNAP	128	/* bytes kept of each packet */

/* Who sent a packet: the flow's identity on the wire */
struct cap_tuple {
	uint8_t family;		/* 4 or 6 */
	uint8_t proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t sport;
	uint8_t saddr[16];
};

struct cap_pkt {
	struct cap_tuple t;
	uint32_t seq;		/* TCP */
	uint32_t payload;	/* L4 payload bytes */
	bool syn;
	bool has_id;		/* UDP: the first 4 payload bytes were captured */
	uint32_t id;
};

/* Parse a captured packet (from its IP header, @len bytes kept, @wire
 * bytes on the wire) sent to @port.  Returns false for anything else.
 */
static inline bool cap_parse(const uint8_t *p, size_t len, size_t wire,
			     uint16_t port, struct cap_pkt *k)
{
	size_t l4, iplen, l4hdr;

	memset(k, 0, sizeof(*k));
	if (len < 20)
		return false;
	if (p[0] >> 4 == 4) {
		l4 = (p[0] & 0x0f) * 4u;
		iplen = shoal_get16(p + 2);
		if ((p[6] & 0x3f) || p[7])	/* fragment */
			return false;
		k->t.family = 4;
		k->t.proto = p[9];
		memcpy(k->t.saddr, p + 12, 4);
	} else if (p[0] >> 4 == 6 && len >= 40) {
		l4 = 40;
		iplen = 40 + (size_t)shoal_get16(p + 4);
		k->t.family = 6;
		k->t.proto = p[6];
		memcpy(k->t.saddr, p + 8, 16);
	} else {
		return false;
	}
	if (iplen > wire || l4 + 8 > len)
		return false;
	if (shoal_get16(p + l4 + 2) != port)
		return false;
	k->t.sport = shoal_get16(p + l4);
	if (k->t.proto == IPPROTO_UDP) {
		l4hdr = 8;
	} else if (k->t.proto == IPPROTO_TCP && l4 + 20 <= len) {
		l4hdr = (p[l4 + 12] >> 4) * 4u;
		k->seq = shoal_get32(p + l4 + 4);
		k->syn = p[l4 + 13] & 0x02;
	} else {
		return false;
	}
	if (l4 + l4hdr > iplen)
		return false;
	k->payload = (uint32_t)(iplen - l4 - l4hdr);
	if (k->t.proto == IPPROTO_UDP && k->payload >= 4 && l4 + 12 <= len) {
		k->has_id = true;
		k->id = shoal_get32(p + l4 + 8);
	}
	return true;
}

/* An AF_PACKET socket on @dev keeping CAP_SNAP bytes of each packet */
static inline int cap_open(const char *dev)
{
	struct sock_filter snap = BPF_STMT(BPF_RET | BPF_K, CAP_SNAP);
	struct sock_fprog prog = { .len = 1, .filter = &snap };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int fd, one = 1, buf = 32 << 20;

	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(dev);
	if (!sll.sll_ifindex)
		return -1;
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK, htons(ETH_P_ALL));
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	return fd;
}

/* Next captured packet sent to @port: its kernel receive time in @t_real
 * (CLOCK_REALTIME ns).  Returns 1, 0 when nothing is pending, -1 on error.
 */
static inline int cap_next(int fd, uint16_t port, struct cap_pkt *k,
			   uint64_t *t_real)
{
	uint8_t buf[CAP_SNAP];
	char cbuf[256];
	struct sockaddr_ll sll;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg;
	struct cmsghdr *c;
	size_t wire;
	ssize_t n;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &sll;
		msg.msg_namelen = sizeof(sll);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		n = recvmsg(fd, &msg, 0);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		/* the filter cut the packet: its length on the wire is in aux */
		wire = (size_t)n;
		*t_real = 0;
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA) {
				struct tpacket_auxdata aux;

				memcpy(&aux, CMSG_DATA(c), sizeof(aux));
				wire = aux.tp_len;
			} else if (c->cmsg_level == SOL_SOCKET &&
				   c->cmsg_type == SO_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				*t_real = (uint64_t)ts.tv_sec * 1000000000ull +
					  (uint64_t)ts.tv_nsec;
			}
		}
		if (cap_parse(buf, (size_t)n, wire, port, k))
			return 1;
	}
}

#endif /* _SHOAL_FLOWS_CAPTURE_H */
