// SPDX-License-Identifier: GPL-2.0
/*
 * shoal.ko: /proc/net/shoal/stats, one "name value" line per counter of
 * the namespace: the totals, packets by type, packets dropped by reason;
 * /proc/net/shoal/sird, its SIRD receiver and sender; and
 * /proc/net/shoal/sockets, a line per bound socket.
 *
 * Locking: none for the counters; per-CPU counters are summed without a
 * lock, each value read whole (64-bit machines only: see Kbuild).  The
 * socket list is walked under rcu_read_lock() (sockets are freed after a
 * grace period, SOCK_RCU_FREE), each socket's line read under its lock.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "shoal_impl.h"
#include "shoal_sock.h"

static const char * const shoal_stat_names[SHOAL_STAT_NR] = {
	[SHOAL_STAT_RX_PACKETS] = "rx_packets",
	[SHOAL_STAT_RX_BYTES] = "rx_bytes",
	[SHOAL_STAT_RX_TRIMMED] = "rx_trimmed",
	[SHOAL_STAT_RX_CE] = "rx_ce",
	[SHOAL_STAT_RX_DROP_NOMEM] = "rx_drop_nomem",
	[SHOAL_STAT_RX_DROP_NOT_UNICAST] = "rx_drop_not_unicast",
	[SHOAL_STAT_RX_DROP_IP_PROTO] = "rx_drop_ip_proto",
	[SHOAL_STAT_RX_DROP_NO_SOCKET] = "rx_drop_no_socket",
	[SHOAL_STAT_RX_DROP_NO_MSG] = "rx_drop_no_msg",
	[SHOAL_STAT_RX_DROP_MISMATCH] = "rx_drop_mismatch",
	[SHOAL_STAT_RX_DROP_RCVBUF] = "rx_drop_rcvbuf",
	[SHOAL_STAT_RX_DROP_MEM] = "rx_drop_mem",
	[SHOAL_STAT_RX_DROP_FRAGMENTED] = "rx_drop_fragmented",
	[SHOAL_STAT_RX_DUP_PACKETS] = "rx_dup_packets",
	[SHOAL_STAT_RX_DUP_BYTES] = "rx_dup_bytes",
	[SHOAL_STAT_RX_RESEND_TRIMMED] = "rx_resend_trimmed",
	[SHOAL_STAT_RX_RESEND_RCVBUF] = "rx_resend_rcvbuf",
	[SHOAL_STAT_RX_RESEND_QUIET] = "rx_resend_quiet",
	[SHOAL_STAT_RX_MSGS] = "rx_msgs",
	[SHOAL_STAT_RX_DONE_NOMEM] = "rx_done_nomem",
	[SHOAL_STAT_TX_PACKETS] = "tx_packets",
	[SHOAL_STAT_TX_BYTES] = "tx_bytes",
	[SHOAL_STAT_TX_DROP_NOROUTE] = "tx_drop_noroute",
	[SHOAL_STAT_TX_DROP_NOMEM] = "tx_drop_nomem",
	[SHOAL_STAT_TX_MSGS] = "tx_msgs",
	[SHOAL_STAT_TX_ACKED] = "tx_acked",
	[SHOAL_STAT_TX_TIMEOUT] = "tx_timeout",
	[SHOAL_STAT_TX_REFUSED] = "tx_refused",
	[SHOAL_STAT_TX_RPC_LOST] = "tx_rpc_lost",
	[SHOAL_STAT_TX_RETX_PACKETS] = "tx_retx_packets",
	[SHOAL_STAT_TX_ACKS_FOLDED] = "tx_acks_folded",
	[SHOAL_STAT_RX_ACKS_FOLDED] = "rx_acks_folded",
	[SHOAL_STAT_PL2_BURSTS] = "pl2_bursts",
	[SHOAL_STAT_PL2_BURST_PKTS] = "pl2_burst_pkts",
	[SHOAL_STAT_PL2_UNSOL] = "pl2_unsol",
	[SHOAL_STAT_PL2_UNSOL_RESENT] = "pl2_unsol_resent",
	[SHOAL_STAT_PL2_GRTS] = "pl2_grts",
	[SHOAL_STAT_PL2_GRT_STALE] = "pl2_grt_stale",
	[SHOAL_STAT_PL2_RSV_TIMEOUT] = "pl2_rsv_timeout",
	[SHOAL_STAT_PL2_RSV_ANSWERED] = "pl2_rsv_answered",
	[SHOAL_STAT_PL2_WAIT_CAPPED] = "pl2_wait_capped",
	[SHOAL_STAT_PL2_WAIT_NS] = "pl2_wait_ns",
	[SHOAL_STAT_PL2_RSV_GRT_NS] = "pl2_rsv_grt_ns",
	[SHOAL_STAT_RX_BOUNCED] = "rx_bounced",
	[SHOAL_STAT_TX_RTS_RESEND] = "tx_rts_resend",
	[SHOAL_STAT_RX_DROP_BOUNCE_NO_MSG] = "rx_drop_bounce_no_msg",
	[SHOAL_STAT_RX_DROP_BOUNCE_STALE] = "rx_drop_bounce_stale",
	[SHOAL_STAT_RX_DROP_BOUNCE_BAD] = "rx_drop_bounce_bad",
	[SHOAL_STAT_RX_BUSY_COVERED] = "rx_busy_covered",
	[SHOAL_STAT_RX_BUSY_NOTHELD] = "rx_busy_notheld",
	[SHOAL_STAT_TX_NOTHELD] = "tx_notheld",
	[SHOAL_STAT_RX_QUIET_QUEUED] = "rx_quiet_queued",
	[SHOAL_STAT_TX_UNSCHED_CUT] = "tx_unsched_cut",
	[SHOAL_STAT_TX_PROBE_TURN] = "tx_probe_turn",
	[SHOAL_STAT_TX_PROBE_WAKE] = "tx_probe_wake",
	[SHOAL_STAT_RX_PROBE_NEW] = "rx_probe_new",
	[SHOAL_STAT_RX_ICMP_UNREACH] = "rx_icmp_unreach",
	[SHOAL_STAT_RX_ICMP_IGNORED] = "rx_icmp_ignored",
	[SHOAL_STAT_RX_HOST_GONE] = "rx_host_gone",
	[SHOAL_STAT_RX_TIMEOUT] = "rx_timeout",
	[SHOAL_STAT_RX_GAVE_UP] = "rx_gave_up",
	[SHOAL_STAT_TX_RESTARTED] = "tx_restarted",
};

/* @s's name in /proc/net/shoal/stats (and shoal_rx_drop's reason) */
const char *shoal_stat_name(enum shoal_stat s)
{
	return s < SHOAL_STAT_NR ? shoal_stat_names[s] : "?";
}

static u64 shoal_stat_sum(const struct shoal_net *sn, size_t off)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((u8 *)per_cpu_ptr(sn->stats, cpu) + off);
	return sum;
}

static int shoal_stats_show(struct seq_file *seq, void *v)
{
	struct shoal_net *sn = shoal_net(seq_file_single_net(seq));
	int i;

	for (i = 0; i < SHOAL_STAT_NR; i++)
		seq_printf(seq, "%s %llu\n", shoal_stat_name(i),
			   shoal_stat_sum(sn, offsetof(struct shoal_stats,
						       c[i])));
	for (i = 0; i < SHOAL_WIRE_TYPES; i++) {
		if (!shoal_wire_type_name(i))
			continue;
		seq_printf(seq, "rx_%s %llu\n", shoal_wire_type_name(i),
			   shoal_stat_sum(sn, offsetof(struct shoal_stats,
						       rx_type[i])));
	}
	for (i = 0; i < SHOAL_WIRE_TYPES; i++) {
		if (!shoal_wire_type_name(i))
			continue;
		seq_printf(seq, "tx_%s %llu\n", shoal_wire_type_name(i),
			   shoal_stat_sum(sn, offsetof(struct shoal_stats,
						       tx_type[i])));
	}
	for (i = 1; i < SHOAL_WIRE_NR_REASONS; i++)
		seq_printf(seq, "rx_drop_%s %llu\n", shoal_wire_reason_name(i),
			   shoal_stat_sum(sn, offsetof(struct shoal_stats,
						       rx_bad[i])));
	return 0;
}

static int shoal_sird_proc_show(struct seq_file *seq, void *v)
{
	struct shoal_net *sn = shoal_net(seq_file_single_net(seq));

	/* the peers' answer delay, and the resend interval it sets */
	seq_printf(seq, "probe_srtt_us %u\nresend_ival_us %u\n",
		   jiffies_to_usecs(READ_ONCE(sn->rtt8) >> SHOAL_RTT_SHIFT),
		   jiffies_to_usecs(shoal_resend_ival(sn)));
	shoal_sird_show(&sn->sird, seq);
	shoal_sird_tx_show(&sn->sird_tx, seq);
	return 0;
}

/* One bound socket: its port, protocol, owner and inode, its messages
 * each way (sent and not acknowledged, of which requests waiting for
 * their responses; being received; complete and not read), its memory
 * and limits, what it sent and received in all, failed and dropped
 */
static void shoal_sock_line(struct seq_file *seq, struct shoal_sock *ss)
{
	struct sock *sk = &ss->inet.sk;
	unsigned long ino = sock_i_ino(sk);
	kuid_t uid = sock_i_uid(sk);
	struct shoal_omsg *m;
	u32 await = 0;

	spin_lock_bh(&ss->lock);
	list_for_each_entry(m, &ss->await, node)
		await++;
	seq_printf(seq, "%u %s %u %lu %u %u %u %u %d %d %d %d %llu %llu %llu %llu\n",
		   ss->port, ss->pl2 ? "pl2" : "sird",
		   from_kuid_munged(seq_user_ns(seq), uid), ino,
		   ss->stats.tx_queued, await, ss->nr_receiving,
		   ss->stats.rx_queued, sk_rmem_alloc_get(sk),
		   READ_ONCE(sk->sk_wmem_queued), READ_ONCE(sk->sk_rcvbuf),
		   READ_ONCE(sk->sk_sndbuf), ss->stats.tx_msgs,
		   ss->stats.rx_msgs, ss->stats.tx_failed,
		   ss->stats.rx_drop_rcvbuf + ss->stats.rx_drop_mem);
	spin_unlock_bh(&ss->lock);
}

static int shoal_sockets_show(struct seq_file *seq, void *v)
{
	struct shoal_net *sn = shoal_net(seq_file_single_net(seq));
	struct shoal_sock *ss;
	int i;

	seq_puts(seq, "# port proto uid inode tx_queued awaiting rx_receiving rx_queued rmem wmem rcvbuf sndbuf tx_msgs rx_msgs tx_failed rx_drops\n");
	rcu_read_lock();
	for (i = 0; i < SHOAL_PORT_HASH; i++)
		hlist_for_each_entry_rcu(ss, &sn->ports[i], port_node)
			shoal_sock_line(seq, ss);
	rcu_read_unlock();
	return 0;
}

int shoal_proc_init(struct shoal_net *sn)
{
	struct proc_dir_entry *dir;

	dir = proc_net_mkdir(sn->net, "shoal", sn->net->proc_net);
	if (!dir)
		return -ENOMEM;
	if (!proc_create_net_single("stats", 0444, dir, shoal_stats_show,
				    NULL) ||
	    !proc_create_net_single("sird", 0444, dir, shoal_sird_proc_show,
				    NULL) ||
	    !proc_create_net_single("sockets", 0444, dir, shoal_sockets_show,
				    NULL)) {
		remove_proc_subtree("shoal", sn->net->proc_net);
		return -ENOMEM;
	}
	return 0;
}

void shoal_proc_exit(struct shoal_net *sn)
{
	remove_proc_subtree("shoal", sn->net->proc_net);
}
