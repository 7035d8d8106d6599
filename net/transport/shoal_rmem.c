// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: receive memory.  What a socket holds of what it received (the
 * packets of its messages, their state, the names of the read ones, its
 * error reports) counts in sk_rmem_alloc against SO_RCVBUF and is charged,
 * as UDP charges its receive queue, to the protocol (net.shoal.mem: pages,
 * "min pressure max", for every Shoal socket of the machine) and to the
 * socket's memory cgroup (the one its creator was in).  The limits work as
 * tcp_mem's: up to pressure every socket gets what it asks; past it (until
 * usage is below min again) a socket gets more while it holds less than
 * its share of max (max over the number of Shoal sockets) or less than a
 * page; past max none does.  udp_mem's rule (past min, only sockets under a
 * page) would let the partial messages a receiver holds keep usage past
 * min with none of them able to complete.  What is sent is the sender's:
 * SO_SNDBUF, and the cgroup of whoever calls sendmsg() (shoal_out.c).
 *
 * Locking: sk_forward_alloc, the bytes the socket has been granted and not
 * used, belongs to the socket lock: the core changes it while the socket
 * is owned (setsockopt(SO_RESERVE_MEM)).  Shoal changes it under
 * sk->sk_lock.slock when no one owns the socket.  A charge that finds the
 * socket owned fails (the packet is asked for again, as one dropped for
 * want of memory); what comes free while it is owned waits in
 * ss->rmem_deferred for shoal_rmem_release_cb().  Callers may hold
 * ss->lock, which nests outside the socket's spinlock.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <net/sock.h>

#include "shoal_sock.h"

long sysctl_shoal_mem[3] __read_mostly;
atomic_long_t shoal_memory_allocated;
DEFINE_PER_CPU(int, shoal_memory_per_cpu_fw_alloc);
unsigned long shoal_memory_pressure;
struct percpu_counter shoal_sockets_allocated;

/* What a socket gets past net.shoal.mem's pressure while it holds less,
 * and what it is said to need for sending (never asked: nothing sent is
 * charged here), as udp_rmem_min and udp_wmem_min
 */
int shoal_rmem_min[1] = { PAGE_SIZE };
int shoal_wmem_min[1] = { PAGE_SIZE };

/* net.shoal.mem's default: UDP's share of the memory the machine had free
 * when the module was loaded (an eighth: min at 3/4 of it, pressure at
 * it, max at 3/2)
 */
int shoal_rmem_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);

	sysctl_shoal_mem[0] = limit / 4 * 3;
	sysctl_shoal_mem[1] = limit;
	sysctl_shoal_mem[2] = sysctl_shoal_mem[0] * 2;
	return percpu_counter_init(&shoal_sockets_allocated, 0, GFP_KERNEL);
}

void shoal_rmem_exit(void)
{
	percpu_counter_destroy(&shoal_sockets_allocated);
}

/* Past net.shoal.mem's pressure (the core clears the flag below min) */
void shoal_rmem_enter_pressure(struct sock *sk)
{
	WRITE_ONCE(shoal_memory_pressure, 1);
}

/* Whether @sk should not invite more data: what it would be sent would be
 * refused (the core's rule above, in __sk_mem_raise_allocated()) and
 * dropped, asked for again and dropped.  Its reads, and its senders'
 * probes, start the credit pacer again.
 */
bool shoal_rmem_short(struct sock *sk)
{
	long allocated = sk_memory_allocated(sk);
	int held = atomic_read(&sk->sk_rmem_alloc);

	if (allocated <= sk_prot_mem_limits(sk, 0))
		return false;
	if (allocated > sk_prot_mem_limits(sk, 2))
		return true;
	if (held < READ_ONCE(shoal_rmem_min[0]) || !sk_under_memory_pressure(sk))
		return false;
	/* the core weighs all the socket holds, what it sends too */
	return sk_prot_mem_limits(sk, 2) <=
	       sk_sockets_allocated_read_positive(sk) *
	       sk_mem_pages(READ_ONCE(sk->sk_wmem_queued) + held +
			    READ_ONCE(sk->sk_forward_alloc));
}

/* Bytes @sk may still be charged for what it receives, as far as it can
 * tell now: what SO_RCVBUF leaves, and nothing while its memory is short
 */
long shoal_rmem_room(struct sock *sk)
{
	if (shoal_rmem_short(sk))
		return 0;
	return max(0, READ_ONCE(sk->sk_rcvbuf) -
		      atomic_read(&sk->sk_rmem_alloc));
}

/* Charge @size bytes @ss received: 0, -ENOBUFS over SO_RCVBUF, -ENOSPC
 * when the protocol or the cgroup has no room (or the socket is owned)
 */
int shoal_rmem_charge(struct shoal_sock *ss, int size)
{
	struct sock *sk = &ss->inet.sk;
	int err = -ENOSPC;

	if (atomic_read(&sk->sk_rmem_alloc) + size > READ_ONCE(sk->sk_rcvbuf))
		return -ENOBUFS;
	local_bh_disable();
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk) && __sk_rmem_schedule(sk, size, false)) {
		sk_mem_charge(sk, size);
		err = 0;
	}
	bh_unlock_sock(sk);
	local_bh_enable();
	if (!err)
		atomic_add(size, &sk->sk_rmem_alloc);
	return err;
}

/* @size bytes of @ss's receive memory come free */
void shoal_rmem_uncharge(struct shoal_sock *ss, int size)
{
	struct sock *sk = &ss->inet.sk;

	atomic_sub(size, &sk->sk_rmem_alloc);
	local_bh_disable();
	bh_lock_sock(sk);
	if (sock_owned_by_user(sk))
		ss->rmem_deferred += size;
	else
		sk_mem_uncharge(sk, size);
	bh_unlock_sock(sk);
	local_bh_enable();
}

/* release_sock(): the socket is still owned, its spinlock held */
void shoal_rmem_release_cb(struct sock *sk)
{
	struct shoal_sock *ss = shoal_sk(sk);
	int n = ss->rmem_deferred;

	if (n) {
		ss->rmem_deferred = 0;
		sk_mem_uncharge(sk, n);
	}
}
