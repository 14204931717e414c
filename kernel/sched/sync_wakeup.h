/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SYNC_PAIR_AFFINE: what fair.c (the rules) and sync_wakeup.c (the sysctl,
 * the boot parameter, the debugfs counters and the cpu cgroup files)
 * share.
 * See Documentation/scheduler/sched-sync-wakeup.rst.
 */
#ifndef _KERNEL_SCHED_SYNC_WAKEUP_H
#define _KERNEL_SCHED_SYNC_WAKEUP_H

#include <linux/interrupt.h>
#include <linux/percpu-defs.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seqlock.h>

#include "sched.h"
#include "stats.h"

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
	SYNC_VERDICT_PROBE,	/* honest-waker: placed as hint-only, to judge */
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
 * The context a sync wakeup was decided in, and so whether current is its
 * waker: in a task, or in a softirq that current ran
 * itself from local_bh_enable() (the loopback transmit path: NET_RX runs
 * from the sender's dev_queue_xmit()), it is; in any other softirq (at
 * irq_exit on top of whatever task was interrupted, in ksoftirqd, on the
 * idle task) or in a hard interrupt, it is not.
 */
enum sync_wakeup_context {
	SYNC_CTX_TASK,
	SYNC_CTX_SOFTIRQ_BH,
	SYNC_CTX_SOFTIRQ,
	SYNC_CTX_HARDIRQ,
	NR_SYNC_CONTEXTS
};

/* How a promise to sleep was judged, at the waker's next decision. */
enum sync_promise_cause {
	SYNC_PROMISE_SLEPT,	/* blocked within the bound: kept */
	SYNC_PROMISE_LATE,	/* blocked, but only after the bound: broken */
	SYNC_PROMISE_AWAKE,	/* decided again without blocking: broken */
	SYNC_PROMISE_SHARED,	/* its wakee kept on its CPU: not judged */
	SYNC_PROMISE_REPROBE,	/* a first broken probe: forgiven, probed again */
	NR_SYNC_PROMISE_CAUSES
};

#include <trace/events/sched_sync_wakeup.h>

/* A task keeps the outcomes of its last SYNC_PROMISE_HISTORY promises. */
#define SYNC_PROMISE_HISTORY	8
/*
 * honest-waker: a waker that kept at least half of them is honest; one that
 * broke too many to keep half of SYNC_PROMISE_HISTORY is dishonest; a new
 * one, whose record says neither yet, is on probation
 * (sync_promise_honest(), sync_promise_dishonest()).
 */
#define SYNC_PROMISE_HONEST	4
/*
 * honest-waker: after this many shared promises (not judged) since its
 * last kept probe, an honest waker's wakeups it would keep are probes
 * instead, until one is kept. After SYNC_PROMISE_PROBE_AFTER_KEPT, the
 * larger, if its last probe was kept: a pair that sleeps pays for half as
 * many probes, while a waker that has kept none since it was forked or
 * the feature went on is still probed as soon. After a broken probe its
 * keeps are probes until one is kept, whichever bound it had.
 */
#define SYNC_PROMISE_PROBE_AFTER	32
#define SYNC_PROMISE_PROBE_AFTER_KEPT	63
/* task_struct's sync_promise_nshared has six bits. */
static_assert(SYNC_PROMISE_PROBE_AFTER_KEPT < 64);

/* Promises to sleep: made by a sync wakeup, then kept, broken or unjudged. */
enum sync_promise_event {
	SYNC_PROMISE_MADE,
	SYNC_PROMISE_KEPT,
	SYNC_PROMISE_BROKEN,
	SYNC_PROMISE_UNJUDGED,	/* shared, or a first broken probe */
	NR_SYNC_PROMISE_EVENTS
};

/* Decided sync wakeups by verdict and landing, and by context. */
struct sync_wakeup_counts {
	unsigned long		decided[NR_SYNC_VERDICTS][NR_SYNC_LANDINGS];
	unsigned long		contexts[NR_SYNC_CONTEXTS];
};

/*
 * Per CPU: the decisions, counted under @seq so that a reader sees each
 * one in both its tables or in neither; and the promises of their
 * wakers, made and judged at decisions. A CPU only changes its own
 * counters, from select_task_rq_fair() and select_task_rq() under
 * p->pi_lock with interrupts disabled, so a reset that runs on each CPU
 * in turn cannot race with them.
 */
struct sync_wakeup_stats {
	seqcount_t		seq;
	struct sync_wakeup_counts counts;
	unsigned long		promises[NR_SYNC_PROMISE_EVENTS];
};

/*
 * A decided sync wakeup, from select_task_rq_fair() to select_task_rq(),
 * which counts and traces it where the wakee goes, after any fallback: in
 * between, under p->pi_lock with interrupts off, nothing else runs here.
 * The generation drops one left behind when the feature went off between
 * the two.
 */
struct sync_wakeup_decision {
	struct task_struct	*p;		/* NULL: none */
	u8			policy;
	u8			verdict;
	u8			ctx;
	u8			gen;		/* sync_wakeup_generation */
	bool			waker;		/* current made a promise */
	int			prev_cpu;
	int			affine_cpu;
};

/*
 * A cpu cgroup's sync wakeups, counted on the CPU that decided them, for
 * its cpu.sync_wakeup.stat. Only the deciding CPU writes its own, with
 * interrupts off.
 */
struct sync_wakeup_group_counts {
	unsigned long		verdicts[NR_SYNC_VERDICTS];
	unsigned long		landings[NR_SYNC_LANDINGS];
};

DECLARE_PER_CPU(struct sync_wakeup_stats, sync_wakeup_stats);
DECLARE_PER_CPU(struct sync_wakeup_decision, sync_wakeup_decision);
extern unsigned int sysctl_sched_sync_wakeup_policy;
extern const char * const sync_wakeup_policy_names[];
int sched_sync_wakeup_policy_handler(const struct ctl_table *table, int write,
				     void *buffer, size_t *lenp, loff_t *ppos);
int sched_sync_wakeup_available_handler(const struct ctl_table *table,
					int write, void *buffer, size_t *lenp,
					loff_t *ppos);
extern const struct file_operations sync_wakeup_stats_fops;

extern u8 sync_wakeup_generation;

void sync_wakeup_placed(struct task_struct *p, int dest_cpu, int *wake_flags);

#ifdef CONFIG_CGROUP_SCHED
/* task_group's sync_wakeup and sync_wakeup_effective: policy + 1, 0 none. */
static_assert(NR_SYNC_POLICIES < U8_MAX);

int sync_wakeup_alloc_group(struct task_group *tg);
void sync_wakeup_free_group(struct task_group *tg);
void sync_wakeup_online_group(struct task_group *tg);
#else
static inline int sync_wakeup_alloc_group(struct task_group *tg) { return 0; }
static inline void sync_wakeup_free_group(struct task_group *tg) { }
static inline void sync_wakeup_online_group(struct task_group *tg) { }
#endif

/*
 * Turning SYNC_PAIR_AFFINE on starts a new generation: a decision left
 * behind when it went off is not counted, and a promise or record from
 * before is dropped at its waker's next decision, not judged as if fresh.
 * Four bits in the task; 0, a new task's, is never current. A task that
 * makes no decision through 15 generations keeps its record.
 */
static inline void sync_wakeup_new_generation(void)
{
	WRITE_ONCE(sync_wakeup_generation, sync_wakeup_generation % 15 + 1);
}

static inline enum sync_wakeup_context sync_wakeup_context(void)
{
	if (in_task())
		return SYNC_CTX_TASK;
	if (in_hardirq() || in_nmi())
		return SYNC_CTX_HARDIRQ;
	if (is_idle_task(current) || current == this_cpu_ksoftirqd())
		return SYNC_CTX_SOFTIRQ;
	/* With PREEMPT_RT softirqs run in ksoftirqd or in the task that enabled them. */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || this_cpu_read(softirq_in_bh_enable))
		return SYNC_CTX_SOFTIRQ_BH;
	return SYNC_CTX_SOFTIRQ;
}

/*
 * Does current make promises in @ctx: is it the waker, and a fair task,
 * whose runs set_next_entity() marks in se.prev_sum_exec_runtime?
 */
static inline bool sync_wakeup_has_waker(enum sync_wakeup_context ctx)
{
	return ctx <= SYNC_CTX_SOFTIRQ_BH &&
	       current->sched_class == &fair_sched_class;
}

/*
 * The policy for a sync wakeup decided in @ctx: that of the group of its
 * waker, current (cpu.sync_wakeup, resolved up the hierarchy when a group
 * is written or made), or the sysctl's where no group on the way up chose
 * one and where current is not the waker (sync_wakeup_context()). Stored
 * as policy + 1, 0 for the sysctl's.
 */
static inline enum sync_wakeup_policy
sync_wakeup_group_policy(enum sync_wakeup_context ctx)
{
#ifdef CONFIG_CGROUP_SCHED
	u8 policy = 0;

	/* An RCU read side: the group current leaves is freed after it. */
	lockdep_assert_irqs_disabled();
	if (ctx <= SYNC_CTX_SOFTIRQ_BH)
		policy = READ_ONCE(task_group(current)->sync_wakeup_effective);
	if (policy)
		return policy - 1;
#endif
	return READ_ONCE(sysctl_sched_sync_wakeup_policy);
}

/* Runtime in the task's units: 1024 ns, 32 bits (73 minutes). */
static inline u32 sync_promise_clock(u64 ns)
{
	return ns >> 10;
}

static inline void sync_promise_trace(struct task_struct *w,
				      enum sync_promise_cause cause, u32 ran,
				      u32 limit)
{
	trace_sched_sync_promise_tp(w, cause, (u64)ran << 10, (u64)limit << 10,
				    w->sync_promise_history,
				    w->sync_promise_count);
	trace_sched_sync_promise(w, cause, (u64)ran << 10, (u64)limit << 10,
				 w->sync_promise_history, w->sync_promise_count);
}

/* A promise left unjudged: the record stands. */
static inline void sync_promise_unjudged(struct task_struct *w,
					 enum sync_promise_cause cause, u32 ran,
					 u32 limit)
{
	this_cpu_inc(sync_wakeup_stats.promises[SYNC_PROMISE_UNJUDGED]);
	sync_promise_trace(w, cause, ran, limit);
}

/* The shared promises after which honest-waker's keeps of @w are probes. */
static inline unsigned int sync_promise_probe_after(struct task_struct *w)
{
	return w->sync_promise_probe_kept ? SYNC_PROMISE_PROBE_AFTER_KEPT :
					    SYNC_PROMISE_PROBE_AFTER;
}

static inline void sync_promise_end(struct task_struct *w,
				    enum sync_promise_cause cause, u32 ran,
				    u32 limit)
{
	bool kept = cause == SYNC_PROMISE_SLEPT;

	/*
	 * Until a probe is kept, each wakeup honest-waker would keep probes.
	 * A probe's wakee, on another CPU, may answer before its waker
	 * reaches its sleep: the first probe to break since the last kept
	 * one is forgiven, every further one counts.
	 */
	if (w->sync_promise_probe) {
		w->sync_promise_probe_kept = kept;
		if (kept) {
			w->sync_promise_nshared = 0;
			w->sync_promise_reprobe = 0;
		} else if (!w->sync_promise_reprobe) {
			w->sync_promise_reprobe = 1;
			sync_promise_unjudged(w, SYNC_PROMISE_REPROBE, ran, limit);
			return;
		}
	}
	w->sync_promise_history = w->sync_promise_history << 1 | kept;
	if (w->sync_promise_count < SYNC_PROMISE_HISTORY)
		w->sync_promise_count++;
	if (kept) {
		this_cpu_inc(sync_wakeup_stats.promises[SYNC_PROMISE_KEPT]);
		schedstat_inc(w->stats.nr_sync_promises_kept);
	} else {
		this_cpu_inc(sync_wakeup_stats.promises[SYNC_PROMISE_BROKEN]);
		schedstat_inc(w->stats.nr_sync_promises_broken);
	}
	sync_promise_trace(w, cause, ran, limit);
}

/* @w kept at least SYNC_PROMISE_HONEST of its last promises. */
static inline bool sync_promise_honest(struct task_struct *w)
{
	return hweight8(w->sync_promise_history) >= SYNC_PROMISE_HONEST;
}

/*
 * @w broke too many of its last promises to have kept SYNC_PROMISE_HONEST
 * of SYNC_PROMISE_HISTORY, whatever the rest of a record not yet full.
 */
static inline bool sync_promise_dishonest(struct task_struct *w)
{
	return hweight8(w->sync_promise_history) +
	       (SYNC_PROMISE_HISTORY - SYNC_PROMISE_HONEST) < w->sync_promise_count;
}

/*
 * At a decided sync wakeup by @w, judge the promise its previous one made.
 *
 * Not judged ("shared") if the policy kept the wakee on @w's CPU: there
 * the wakee may preempt @w and answer before @w blocks, or be pulled to
 * another CPU by the load balancer and answer from there, so @w finds its
 * answer ready and wakes again without having slept, a promise broken by
 * the placement, not by @w. A pipe pair and a streamer look alike then;
 * honest-waker's probes tell them apart.
 *
 * Otherwise kept if @w blocked since (nvcsw moved) and ran at most
 * sysctl_sched_migration_cost per block: the scheduler's own measure of a
 * run short enough that its cache is still hot, so a wakee that waited
 * that long on the waker CPU lost less than a migration would cost it.
 * Measured from the start of the run that made the promise to the start of
 * @w's current run (set_next_entity()'s prev_sum_exec_runtime at both
 * ends), so the waker's whole run around its wakeup counts, and a task
 * that was preempted after it woke is charged for that run too; neither
 * end depends on the tick's phase. Per block, as a waker's wakeups that
 * reach no decision (a wakee still queued, sched_delayed, goes through
 * ttwu_runnable()) stretch the window over many of its sleeps: the whole
 * window against one limit would break a pipe pair's promise for a window
 * longer than about ten round trips. set_next_task() on a running @w (a
 * change of its priority, affinity or group, by itself or another CPU)
 * also marks a run's start, which shortens the run judged: that errs
 * towards kept. The runtimes are read without @w's rq lock, under which
 * another CPU may write them: on 32-bit a torn value misjudges one
 * promise, as does a waker that blocked a multiple of 65536 times (16
 * bits of nvcsw) or ran a multiple of 73 minutes in between.
 */
static inline void sync_promise_judge(struct task_struct *w)
{
	u32 limit = sync_promise_clock(sysctl_sched_migration_cost);
	u32 ran;

	if (w->sync_promise_gen != READ_ONCE(sync_wakeup_generation)) {
		w->sync_promise_history = 0;
		w->sync_promise_count = 0;
		w->sync_promise_nshared = 0;
		w->sync_promise_reprobe = 0;
		w->sync_promise_probe_kept = 0;
		return;
	}
	if (w->sync_promise_stacked || (u16)w->nvcsw == w->sync_promise_nvcsw) {
		/* Lockless, and for the trace only. */
		ran = sync_promise_clock(data_race(w->se.sum_exec_runtime)) -
		      w->sync_promise_runtime;
		if (w->sync_promise_stacked) {
			/* A probe comes nearer. */
			if (w->sync_promise_nshared < sync_promise_probe_after(w))
				w->sync_promise_nshared++;
			sync_promise_unjudged(w, SYNC_PROMISE_SHARED, ran, limit);
		} else {
			sync_promise_end(w, SYNC_PROMISE_AWAKE, ran, limit);
		}
		return;
	}
	/* Lockless: a stale or torn value misjudges one promise. */
	ran = sync_promise_clock(data_race(w->se.prev_sum_exec_runtime)) -
	      w->sync_promise_runtime;
	/* ran is a u32: a bound clamped to U32_MAX judges it as the full one. */
	limit = min_t(u64, mul_u32_u32(limit, (u16)((u16)w->nvcsw -
						       w->sync_promise_nvcsw)),
		      U32_MAX);
	sync_promise_end(w, ran <= limit ? SYNC_PROMISE_SLEPT : SYNC_PROMISE_LATE,
			 ran, limit);
}

/*
 * @w's decided sync wakeup is its promise to sleep, until its next one.
 * @stacked: the policy kept the wakee on @w's CPU; @probe: honest-waker
 * placed it where hint-only would, to judge this promise.
 */
static inline void sync_promise_make(struct task_struct *w, bool stacked,
				     bool probe)
{
	w->sync_promise_gen = READ_ONCE(sync_wakeup_generation);
	/* Lockless: a stale or torn value misjudges one promise. */
	w->sync_promise_runtime = sync_promise_clock(data_race(w->se.prev_sum_exec_runtime));
	w->sync_promise_nvcsw = (u16)w->nvcsw;
	w->sync_promise_stacked = stacked;
	w->sync_promise_probe = probe;
	this_cpu_inc(sync_wakeup_stats.promises[SYNC_PROMISE_MADE]);
}

/*
 * A PREEMPT_RT sleeping spinlock's wait goes through __schedule() as a
 * block and moves nvcsw, but it stands in for a spin, not for the sleep
 * @w promised: schedule_rtlock() advances the promise's nvcsw snapshot by
 * the switches the wait made. Only @w's own decisions write the snapshot,
 * never in a hard interrupt; @w is off its CPU while it waits, and nothing
 * between the two reads runs softirqs (PREEMPT_RT never runs them at
 * irq_exit), so nothing writes it in between.
 */
static __always_inline void sync_promise_rtlock_waited(struct task_struct *w,
						       unsigned long nvcsw)
{
	w->sync_promise_nvcsw += (u16)(w->nvcsw - nvcsw);
}

#endif /* _KERNEL_SCHED_SYNC_WAKEUP_H */
