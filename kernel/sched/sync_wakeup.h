/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SYNC_PAIR_AFFINE: what fair.c (the rules) and sync_wakeup.c (the sysctl,
 * the boot parameter, the debugfs counters and the trace event) share.
 * See Documentation/scheduler/sched-sync-wakeup.rst.
 */
#ifndef _KERNEL_SCHED_SYNC_WAKEUP_H
#define _KERNEL_SCHED_SYNC_WAKEUP_H

#include <trace/events/sched_sync_wakeup.h>

/* Where a sync wakee goes while SYNC_PAIR_AFFINE is on. */
enum sync_wakeup_policy {
	SYNC_POLICY_HINT_ONLY,
	SYNC_POLICY_WAKER_IF_ALONE,
	SYNC_POLICY_RECIPROCAL_ONLY,
	SYNC_POLICY_NO_SYNC,
	SYNC_POLICY_RECIPROCAL_STRICT,
	SYNC_POLICY_HONEST_WAKER,
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

/* Where the wakee went, seen from the waker's CPU. */
enum sync_wakeup_landing {
	SYNC_LANDED_WAKER_CPU,
	SYNC_LANDED_SMT_SIBLING,
	SYNC_LANDED_SAME_LLC,
	SYNC_LANDED_OTHER_LLC,
	NR_SYNC_LANDINGS
};

/*
 * honest-waker judges a waker by its last SYNC_PROMISE_HISTORY promises (the
 * bits of task_struct::sync_promise_history): honest if it kept at least
 * SYNC_PROMISE_HONEST of them, half. A pipe pair keeps most of its promises
 * (59-97% under QEMU TCG, where a slow vCPU lets the tick catch the waker),
 * a one-to-many waker next to none, each broken by its next wakeup.
 */
#define SYNC_PROMISE_HISTORY	8
#define SYNC_PROMISE_HONEST	4

/* Promises to sleep: made by a sync wakeup, then kept or broken. */
enum sync_promise_event {
	SYNC_PROMISE_MADE,
	SYNC_PROMISE_KEPT,
	SYNC_PROMISE_BROKEN,
	NR_SYNC_PROMISE_EVENTS
};

/*
 * Decided sync wakeups counted per CPU by verdict and landing, one
 * increment each, so that the verdicts and the landings read from one
 * snapshot add up to the same total; and the promises of their wakers. A
 * CPU only changes its own counters, with interrupts disabled (under
 * p->pi_lock or the runqueue lock), so a reset that runs on each CPU in
 * turn cannot race with them. A promise can end on another CPU than the
 * one that made it (the waker was preempted and migrated meanwhile): only
 * the sums over all CPUs balance.
 */
struct sync_wakeup_stats {
	unsigned long		decided[NR_SYNC_VERDICTS][NR_SYNC_LANDINGS];
	unsigned long		promises[NR_SYNC_PROMISE_EVENTS];
};

DECLARE_PER_CPU(struct sync_wakeup_stats, sync_wakeup_stats);
extern unsigned int sysctl_sched_sync_wakeup_policy;
extern const char * const sync_wakeup_policy_names[];
extern const char * const sync_wakeup_verdict_names[];
extern const struct file_operations sync_wakeup_stats_fops;

#ifdef CONFIG_SMP
/* @p kept its pending promise to sleep, or broke it; @cause says how. */
static inline void sync_promise_end(struct task_struct *p, bool kept,
				    const char *cause)
{
	p->sync_promise_wakee = NULL;
	p->sync_promise_history = p->sync_promise_history << 1 | kept;
	if (p->sync_promise_count < SYNC_PROMISE_HISTORY)
		p->sync_promise_count++;
	if (kept) {
		this_cpu_inc(sync_wakeup_stats.promises[SYNC_PROMISE_KEPT]);
		schedstat_inc(p->stats.nr_sync_promises_kept);
	} else {
		this_cpu_inc(sync_wakeup_stats.promises[SYNC_PROMISE_BROKEN]);
		schedstat_inc(p->stats.nr_sync_promises_broken);
	}
	trace_sched_sync_promise(p, kept, cause);
}

/*
 * __schedule() blocks @prev: it kept its word. Preemption ends nothing: a
 * preempted waker has not shown yet whether it would have slept.
 */
static inline void sync_promise_sleep(struct task_struct *prev)
{
	if (sched_feat(SYNC_PAIR_AFFINE) && prev->sync_promise_wakee)
		sync_promise_end(prev, true, "sleep");
}

/*
 * __schedule() switches @prev out for @next without blocking it. If @next
 * is the wakee of @prev's pending promise, @prev handed its CPU over as it
 * promised (the wakee preempted it): the run the tick measures starts
 * again. Any other preemption settles nothing.
 */
static inline void sync_promise_handoff(struct task_struct *prev,
					struct task_struct *next)
{
	if (sched_feat(SYNC_PAIR_AFFINE) && prev->sync_promise_wakee == next)
		prev->sync_promise_ticks = 0;
}

/*
 * The tick finds @curr running with a promise pending. The first tick may
 * catch a waker that had microseconds left before it slept, as often as
 * those microseconds are long against the tick period; a second one finds
 * a waker that has run a whole tick period since: broken.
 */
static inline void sync_promise_tick(struct task_struct *curr)
{
	if (sched_feat(SYNC_PAIR_AFFINE) && curr->sync_promise_wakee &&
	    curr->sync_promise_ticks++)
		sync_promise_end(curr, false, "tick");
}
#else
static inline void sync_promise_sleep(struct task_struct *prev) { }
static inline void sync_promise_handoff(struct task_struct *prev,
					struct task_struct *next) { }
static inline void sync_promise_tick(struct task_struct *curr) { }
#endif /* CONFIG_SMP */

#endif /* _KERNEL_SCHED_SYNC_WAKEUP_H */
