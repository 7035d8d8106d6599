/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qdisc-nlfuzz: UDP traffic through the fuzzed qdisc, so that every
 * change meets queued packets and the qdiscs' packet paths (the Shoal
 * header parser of trim, afq and calq among them) run between changes.
 * Half the packets go to the Shoal port with a Shoal header of random
 * type, flags and lengths; the rest to random ports.  A forked child
 * sends about 3000 packets a second until it is killed (or its parent
 * dies).
 */
#ifndef _NLFUZZ_TRAFFIC_H
#define _NLFUZZ_TRAFFIC_H

#include <arpa/inet.h>
#include <linux/shoal.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void traffic_fill(unsigned char *p, int len, uint64_t *r)
{
	struct shoal_hdr h;
	int i;

	for (i = 0; i < len; i++) {
		*r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
		p[i] = *r >> 56;
	}
	if (len < (int)sizeof(h))
		return;
	memset(&h, 0, sizeof(h));
	h.ver_type = SHOAL_VERSION << 4 | (p[0] % 12);
	h.flags = p[1] & 0x0f;
	h.sport = htons(1000 + p[2]);
	h.dport = htons(2000 + p[3]);
	h.hdr_len = SHOAL_HDR_LEN;
	h.msg_id = ((uint64_t)p[4] << 8 | p[5]);
	h.msg_len = htonl(len * (1 + p[6] % 4));
	h.payload_len = htonl(len - SHOAL_HDR_LEN);
	memcpy(p, &h, sizeof(h));
}

/* never returns: sends until killed */
static void traffic_run(const char *target, uint64_t seed)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct timespec gap = { 0, 300000 };
	static unsigned char pkt[1472];
	uint64_t r = seed ^ 0x5eed;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0 || inet_pton(AF_INET, target, &to.sin_addr) != 1) {
		fprintf(stderr, "qdisc-nlfuzz: traffic to %s: cannot start\n", target);
		_exit(2);
	}
	for (;;) {
		int len;

		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		len = (r >> 33) % sizeof(pkt);
		to.sin_port = htons(r & 1 ? SHOAL_UDP_PORT : 1 + (r >> 8) % 65535);
		traffic_fill(pkt, len, &r);
		sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to));
		nanosleep(&gap, NULL);
	}
}

static pid_t traffic_start(const char *target, uint64_t seed)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("qdisc-nlfuzz: fork");
		exit(2);
	}
	if (!pid)
		traffic_run(target, seed);
	return pid;
}

#endif /* _NLFUZZ_TRAFFIC_H */
