/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SYNC_PAIR_AFFINE: what fair.c (the rules) and sync_wakeup.c (the sysctl,
 * the boot parameter and the debugfs counters) share.
 * See Documentation/scheduler/sched-sync-wakeup.rst.
 */
#ifndef _KERNEL_SCHED_SYNC_WAKEUP_H
#define _KERNEL_SCHED_SYNC_WAKEUP_H

/* Where a sync wakee goes while SYNC_PAIR_AFFINE is on. */
enum sync_wakeup_policy {
	SYNC_POLICY_HINT_ONLY,
	SYNC_POLICY_WAKER_IF_ALONE,
	SYNC_POLICY_RECIPROCAL_ONLY,
	SYNC_POLICY_NO_SYNC,
	SYNC_POLICY_RECIPROCAL_STRICT,
	NR_SYNC_POLICIES,
	/* Not a policy: a wakeup SYNC_PAIR_AFFINE does not decide. */
	SYNC_POLICY_NONE = NR_SYNC_POLICIES,
};

/* What the policy decided for one sync wakeup: exactly one per wakeup. */
enum sync_wakeup_verdict {
	SYNC_VERDICT_KEPT,
	SYNC_VERDICT_DECLINED_SMT,
	SYNC_VERDICT_DECLINED_NOT_RECIPROCAL,
	SYNC_VERDICT_DECLINED_WAKER_BUSY,
	SYNC_VERDICT_DECLINED_CAPACITY,
	SYNC_VERDICT_DECLINED_NOT_AFFINE,
	SYNC_VERDICT_DECLINED_WAKE_WIDE,
	SYNC_VERDICT_HINT_DROPPED,
	SYNC_VERDICT_HINT_ONLY,
	NR_SYNC_VERDICTS
};

/*
 * Verdicts counted per CPU. A CPU only changes its own counters, with
 * interrupts disabled (under p->pi_lock), so a reset that runs on each CPU
 * in turn cannot race with them.
 */
struct sync_wakeup_stats {
	unsigned long		verdicts[NR_SYNC_VERDICTS];
};

DECLARE_PER_CPU(struct sync_wakeup_stats, sync_wakeup_stats);
extern unsigned int sysctl_sched_sync_wakeup_policy;
extern const struct file_operations sync_wakeup_stats_fops;

#endif /* _KERNEL_SCHED_SYNC_WAKEUP_H */
