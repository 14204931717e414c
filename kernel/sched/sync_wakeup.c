// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time selectable placement of WF_SYNC wakeups (SYNC_PAIR_AFFINE).
 *
 * select_task_rq_fair() applies the policy; this file holds its knobs: the
 * kernel.sched_sync_wakeup_policy sysctl, the sched_sync_wakeup= boot
 * parameter, the debugfs counters in sched/sync_wakeup_stats and the cpu
 * cgroup's cpu.sync_wakeup files; sync_wakeup.h holds the promise tracker.
 * See Documentation/scheduler/sched-sync-wakeup.rst.
 */

#include "sync_wakeup.h"

#define CREATE_TRACE_POINTS
#include <trace/events/sched_sync_wakeup.h>
#undef CREATE_TRACE_POINTS

const char * const sync_wakeup_policy_names[] = {
	[SYNC_POLICY_HINT_ONLY]		= "hint-only",
	[SYNC_POLICY_WAKER_IF_ALONE]	= "waker-if-alone",
	[SYNC_POLICY_RECIPROCAL_ONLY]	= "reciprocal-only",
	[SYNC_POLICY_NO_SYNC]		= "no-sync",
	[SYNC_POLICY_RECIPROCAL_STRICT]	= "reciprocal-strict",
	[SYNC_POLICY_HONEST_WAKER]	= "honest-waker",
};

static_assert(ARRAY_SIZE(sync_wakeup_policy_names) == NR_SYNC_POLICIES);

unsigned int sysctl_sched_sync_wakeup_policy __read_mostly = SYNC_POLICY_RECIPROCAL_ONLY;

DEFINE_PER_CPU(struct sync_wakeup_stats, sync_wakeup_stats);
DEFINE_PER_CPU(struct sync_wakeup_decision, sync_wakeup_decision);
u8 sync_wakeup_generation = 1;

/* Where @dest_cpu is, seen from the waker CPU @cpu. */
static enum sync_wakeup_landing sync_wakeup_landing(int cpu, int dest_cpu)
{
	if (dest_cpu == cpu)
		return SYNC_LANDED_WAKER_CPU;
#ifdef CONFIG_SCHED_SMT
	if (cpumask_test_cpu(dest_cpu, cpu_smt_mask(cpu)))
		return SYNC_LANDED_SMT_SIBLING;
#endif
	if (cpus_share_cache(cpu, dest_cpu))
		return SYNC_LANDED_SAME_LLC;

	return SYNC_LANDED_OTHER_LLC;
}

/*
 * select_task_rq() sends @p to @dest_cpu: count and trace the decision
 * select_task_rq_fair() made for it, if any; then, if current was its
 * waker, the wakeup is current's promise to sleep. A decision that dropped
 * the hint drops WF_SYNC from @wake_flags too.
 */
void sync_wakeup_placed(struct task_struct *p, int dest_cpu, int *wake_flags)
{
	struct sync_wakeup_decision *d = this_cpu_ptr(&sync_wakeup_decision);
	struct sync_wakeup_stats *st = this_cpu_ptr(&sync_wakeup_stats);
	enum sync_wakeup_landing landing;
	int cpu = smp_processor_id();

	if (d->p != p || d->gen != READ_ONCE(sync_wakeup_generation)) {
		d->p = NULL;
		return;
	}
	d->p = NULL;

	landing = sync_wakeup_landing(cpu, dest_cpu);
	raw_write_seqcount_begin(&st->seq);
	st->counts.decided[d->verdict][landing]++;
	st->counts.contexts[d->ctx]++;
	raw_write_seqcount_end(&st->seq);
#ifdef CONFIG_CGROUP_SCHED
	/*
	 * In the waker's group and its ancestors', whichever policy decided,
	 * up to the root's child (the root and autogroups have no counters):
	 * a group's stat is its own block, and a removed group's counts stay
	 * in its ancestors'. Interrupts are off: current's group and its
	 * ancestors, which each child pins, outlive this.
	 */
	if (d->ctx <= SYNC_CTX_SOFTIRQ_BH) {
		struct task_group *tg;

		for (tg = task_group(current); tg->sync_wakeup_counts;
		     tg = tg->parent) {
			__this_cpu_inc(tg->sync_wakeup_counts->verdicts[d->verdict]);
			__this_cpu_inc(tg->sync_wakeup_counts->landings[landing]);
		}
	}
#endif
	trace_sched_sync_wakeup_tp(p, d->policy, d->verdict, d->ctx,
				   d->prev_cpu, d->affine_cpu, dest_cpu);
	trace_sched_sync_wakeup(p, d->policy, d->verdict, d->ctx, d->prev_cpu,
				d->affine_cpu, dest_cpu);
	if (d->waker)
		sync_promise_make(current,
				  d->verdict == SYNC_VERDICT_KEPT && dest_cpu == cpu,
				  d->verdict == SYNC_VERDICT_PROBE);
	/*
	 * As if the caller had not passed it: nr_wakeups_sync and wakeup
	 * preemption (preempt_sync() under NEXT_BUDDY) do not see it either.
	 */
	if (d->policy == SYNC_POLICY_NO_SYNC)
		*wake_flags &= ~WF_SYNC;
}

/*
 * sched_sync_wakeup=<policy> lets a distribution opt in without debugfs: it
 * sets the policy and turns SYNC_PAIR_AFFINE on with the code that a write
 * of the feature's name to debugfs sched/features runs.
 */
static int __init setup_sched_sync_wakeup(char *str)
{
	int policy = match_string(sync_wakeup_policy_names, NR_SYNC_POLICIES, str);

	if (policy < 0) {
		pr_warn("sched: sched_sync_wakeup=%s: unknown policy, ignored\n", str);
		return 1;
	}

	sysctl_sched_sync_wakeup_policy = policy;
	/* No CPU hotplug before SMP bringup: no cpus_read_lock() needed. */
	if (sched_feat_set("SYNC_PAIR_AFFINE"))
		pr_warn("sched: sched_sync_wakeup=%s: SYNC_PAIR_AFFINE cannot be turned on\n", str);

	return 1;
}
__setup("sched_sync_wakeup=", setup_sched_sync_wakeup);

#ifdef CONFIG_SYSCTL
/*
 * kernel.sched_sync_wakeup_policy, in fair.c's sysctl table. A write names
 * one policy, whole, in one write() at offset 0, with at most a trailing
 * newline (echo and sysctl -w); anything else is -EINVAL and leaves the
 * policy alone.
 */
int sched_sync_wakeup_policy_handler(const struct ctl_table *table, int write,
				     void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int policy = READ_ONCE(sysctl_sched_sync_wakeup_policy);
	const char *name = sync_wakeup_policy_names[policy];
	const struct ctl_table tbl = {
		.data	= (char *)name,
		.maxlen	= strlen(name) + 1,
	};
	int ret;

	if (!write)
		return proc_dostring(&tbl, write, buffer, lenp, ppos);

	if (*ppos || strnlen(buffer, *lenp) != *lenp)
		return -EINVAL;

	ret = __sysfs_match_string(sync_wakeup_policy_names, NR_SYNC_POLICIES,
				   buffer);
	if (ret < 0)
		return ret;

	WRITE_ONCE(sysctl_sched_sync_wakeup_policy, ret);
	*ppos += *lenp;

	return 0;
}

/*
 * kernel.sched_sync_wakeup_available_policies (read-only): "hint-only
 * waker-if-alone ...", as tcp_available_congestion_control.
 */
int sched_sync_wakeup_available_handler(const struct ctl_table *table,
					int write, void *buffer, size_t *lenp,
					loff_t *ppos)
{
	char names[128];
	const struct ctl_table tbl = {
		.data	= names,
		.maxlen	= sizeof(names),
	};
	int i, n = 0;

	for (i = 0; i < NR_SYNC_POLICIES; i++)
		n += scnprintf(names + n, sizeof(names) - n, "%s%s", i ? " " : "",
			       sync_wakeup_policy_names[i]);
	WARN_ON_ONCE(n >= sizeof(names) - 1);

	return proc_dostring(&tbl, write, buffer, lenp, ppos);
}
#endif /* CONFIG_SYSCTL */

static const char * const sync_wakeup_verdict_names[] = {
	[SYNC_VERDICT_KEPT]			= "kept_on_waker_cpu",
	[SYNC_VERDICT_DECLINED_SMT]		= "declined_smt_active",
	[SYNC_VERDICT_DECLINED_NOT_RECIPROCAL]	= "declined_not_reciprocal",
	[SYNC_VERDICT_DECLINED_WAKER_BUSY]	= "declined_waker_busy",
	[SYNC_VERDICT_DECLINED_CAPACITY]	= "declined_capacity",
	[SYNC_VERDICT_DECLINED_NOT_AFFINE]	= "declined_not_affine",
	[SYNC_VERDICT_DECLINED_WAKE_WIDE]	= "declined_wake_wide",
	[SYNC_VERDICT_HINT_DROPPED]		= "hint_dropped",
	[SYNC_VERDICT_HINT_ONLY]		= "hint_only",
	[SYNC_VERDICT_PROBE]			= "probe",
};

static const char * const sync_wakeup_context_names[] = {
	[SYNC_CTX_TASK]		= "task",
	[SYNC_CTX_SOFTIRQ_BH]	= "softirq_bh",
	[SYNC_CTX_SOFTIRQ]	= "softirq",
	[SYNC_CTX_HARDIRQ]	= "hardirq",
};

static_assert(ARRAY_SIZE(sync_wakeup_verdict_names) == NR_SYNC_VERDICTS);
static_assert(ARRAY_SIZE(sync_wakeup_context_names) == NR_SYNC_CONTEXTS);

static const char * const sync_wakeup_landing_names[] = {
	[SYNC_LANDED_WAKER_CPU]		= "landed_waker_cpu",
	[SYNC_LANDED_SMT_SIBLING]	= "landed_smt_sibling",
	[SYNC_LANDED_SAME_LLC]		= "landed_same_llc",
	[SYNC_LANDED_OTHER_LLC]		= "landed_other_llc",
};

static_assert(ARRAY_SIZE(sync_wakeup_landing_names) == NR_SYNC_LANDINGS);

/*
 * Every decided sync wakeup has exactly one verdict, one landing and one
 * context, and each CPU's are read together (st->seq): sync_wakeups, the
 * verdicts, the landings and the contexts agree in every snapshot.
 */
static int sync_wakeup_stats_show(struct seq_file *m, void *v)
{
	unsigned long verdicts[NR_SYNC_VERDICTS] = {};
	unsigned long landings[NR_SYNC_LANDINGS] = {};
	unsigned long contexts[NR_SYNC_CONTEXTS] = {};
	unsigned long promises[NR_SYNC_PROMISE_EVENTS] = {};
	struct sync_wakeup_counts c;
	unsigned long n, total = 0;
	unsigned int seq;
	int cpu, i, j;

	for_each_possible_cpu(cpu) {
		struct sync_wakeup_stats *st = per_cpu_ptr(&sync_wakeup_stats, cpu);

		do {
			seq = raw_read_seqcount_begin(&st->seq);
			c = st->counts;
		} while (read_seqcount_retry(&st->seq, seq));

		for (i = 0; i < NR_SYNC_VERDICTS; i++) {
			for (j = 0; j < NR_SYNC_LANDINGS; j++) {
				n = c.decided[i][j];
				verdicts[i] += n;
				landings[j] += n;
				total += n;
			}
		}
		for (i = 0; i < NR_SYNC_CONTEXTS; i++)
			contexts[i] += c.contexts[i];
		for (i = 0; i < NR_SYNC_PROMISE_EVENTS; i++)
			promises[i] += READ_ONCE(st->promises[i]);
	}

	seq_printf(m, "sync_wakeups %lu\n", total);
	for (i = 0; i < NR_SYNC_VERDICTS; i++)
		seq_printf(m, "%s %lu\n", sync_wakeup_verdict_names[i], verdicts[i]);
	for (j = 0; j < NR_SYNC_LANDINGS; j++)
		seq_printf(m, "%s %lu\n", sync_wakeup_landing_names[j], landings[j]);
	for (i = 0; i < NR_SYNC_CONTEXTS; i++)
		seq_printf(m, "context_%s %lu\n", sync_wakeup_context_names[i], contexts[i]);
	/*
	 * Made less kept, broken and unjudged (shared, or a forgiven
	 * probe): the promises not settled yet, the last one of each waker,
	 * including wakers that exited or stopped making decisions.
	 * Approximate: off by the few made or settled during the reads, and
	 * after a reset lower by the promises made before it and settled
	 * since (at most one per waker), so it can read negative.
	 */
	seq_printf(m, "promise_kept %lu\npromise_broken %lu\npromise_unjudged %lu\npromise_pending %ld\n",
		   promises[SYNC_PROMISE_KEPT], promises[SYNC_PROMISE_BROKEN],
		   promises[SYNC_PROMISE_UNJUDGED],
		   (long)(promises[SYNC_PROMISE_MADE] - promises[SYNC_PROMISE_KEPT] -
			  promises[SYNC_PROMISE_BROKEN] -
			  promises[SYNC_PROMISE_UNJUDGED]));

	return 0;
}

static int sync_wakeup_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, sync_wakeup_stats_show, NULL);
}

static void sync_wakeup_stats_clear(struct sync_wakeup_stats *st)
{
	raw_write_seqcount_begin(&st->seq);
	memset(&st->counts, 0, sizeof(st->counts));
	memset(st->promises, 0, sizeof(st->promises));
	raw_write_seqcount_end(&st->seq);
}

static void sync_wakeup_stats_reset(void *unused)
{
	sync_wakeup_stats_clear(this_cpu_ptr(&sync_wakeup_stats));
}

/*
 * Writing 0 resets the counters: each online CPU clears its own with
 * interrupts off, so no increment is lost half-way; an offline CPU counts
 * nothing, and hotplug is held off meanwhile. Records are left alone: a
 * reset changes what is counted, never what is decided.
 */
static ssize_t sync_wakeup_stats_write(struct file *file,
				       const char __user *ubuf,
				       size_t cnt, loff_t *ppos)
{
	unsigned int val;
	int cpu, ret;

	ret = kstrtouint_from_user(ubuf, cnt, 10, &val);
	if (ret)
		return ret;
	if (val)
		return -EINVAL;

	cpus_read_lock();
	on_each_cpu(sync_wakeup_stats_reset, NULL, 1);
	for_each_possible_cpu(cpu) {
		if (!cpu_online(cpu))
			sync_wakeup_stats_clear(per_cpu_ptr(&sync_wakeup_stats, cpu));
	}
	cpus_read_unlock();

	return cnt;
}

const struct file_operations sync_wakeup_stats_fops = {
	.open		= sync_wakeup_stats_open,
	.read		= seq_read,
	.write		= sync_wakeup_stats_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

#ifdef CONFIG_CGROUP_SCHED
/*
 * cpu.sync_wakeup: the policy for the sync wakeups whose waker is in the
 * group ("inherit": its parent's; the root group follows the sysctl).
 * Resolved here, when a group is written or brought online, into each
 * group's sync_wakeup_effective, so a wakeup reads one value
 * (sync_wakeup_group_policy()). The mutex orders the two, as css_online()
 * and css_for_each_descendant_pre() need: a group online before a write's
 * walk is seen by it, and one brought online after copies the result.
 */
static DEFINE_MUTEX(sync_wakeup_cgroup_mutex);

/* A cgroup's counters; an autogroup has none, nor has the root group. */
int sync_wakeup_alloc_group(struct task_group *tg)
{
	tg->sync_wakeup_counts = alloc_percpu(struct sync_wakeup_group_counts);

	return tg->sync_wakeup_counts ? 0 : -ENOMEM;
}

void sync_wakeup_free_group(struct task_group *tg)
{
	free_percpu(tg->sync_wakeup_counts);
}

/* Resolve @top's and its descendants' policies, top down. */
static void sync_wakeup_resolve(struct cgroup_subsys_state *top)
{
	struct cgroup_subsys_state *css;

	lockdep_assert_held(&sync_wakeup_cgroup_mutex);

	rcu_read_lock();
	css_for_each_descendant_pre(css, top) {
		struct task_group *tg = css_tg(css);
		u8 policy = tg->sync_wakeup ?:
			    css_tg(css->parent)->sync_wakeup_effective;

		/* A subtree already resolved to this is unchanged below. */
		if (policy == tg->sync_wakeup_effective && css != top) {
			css = css_rightmost_descendant(css);
			continue;
		}
		WRITE_ONCE(tg->sync_wakeup_effective, policy);
	}
	rcu_read_unlock();
}

void sync_wakeup_online_group(struct task_group *tg)
{
	guard(mutex)(&sync_wakeup_cgroup_mutex);
	sync_wakeup_resolve(&tg->css);
}

static int cpu_sync_wakeup_show(struct seq_file *sf, void *v)
{
	u8 policy = READ_ONCE(css_tg(seq_css(sf))->sync_wakeup);

	seq_printf(sf, "%s\n", policy ? sync_wakeup_policy_names[policy - 1] :
					"inherit");
	return 0;
}

/*
 * One name, as the sysctl takes it, or "inherit"; else -EINVAL, unchanged.
 * (cgroup_file_write() takes an empty write as a no-op.)
 */
static ssize_t cpu_sync_wakeup_write(struct kernfs_open_file *of, char *buf,
				     size_t nbytes, loff_t off)
{
	struct cgroup_subsys_state *css = of_css(of);
	int policy = -1;

	/*
	 * The waker's group decides where its wakees run, whatever their
	 * groups: a placement choice over other tasks, as sched_setaffinity()
	 * of another user's task is, so not handed over with a delegated
	 * subtree, whose files its owner creates. The opener's capability,
	 * not the writer's: an open file must not borrow a privileged writer.
	 */
	if (!file_ns_capable(of->file, &init_user_ns, CAP_SYS_NICE))
		return -EPERM;
	/* kernfs ends @buf at @nbytes: a NUL before is a bad name. */
	if (strlen(buf) != nbytes)
		return -EINVAL;
	if (!sysfs_streq(buf, "inherit")) {
		policy = __sysfs_match_string(sync_wakeup_policy_names,
					      NR_SYNC_POLICIES, buf);
		if (policy < 0)
			return policy;
	}

	guard(mutex)(&sync_wakeup_cgroup_mutex);
	WRITE_ONCE(css_tg(css)->sync_wakeup, policy + 1);
	sync_wakeup_resolve(css);

	return nbytes;
}

/* The policy its wakers get: its own, an ancestor's or the sysctl's. */
static int cpu_sync_wakeup_effective_show(struct seq_file *sf, void *v)
{
	u8 policy = READ_ONCE(css_tg(seq_css(sf))->sync_wakeup_effective);

	seq_printf(sf, "%s\n", sync_wakeup_policy_names[policy ? policy - 1 :
				READ_ONCE(sysctl_sched_sync_wakeup_policy)]);
	return 0;
}

/*
 * The sync wakeups decided for the wakers of the group and of its
 * descendants, removed ones included (sync_wakeup_placed() counts each in
 * every group up the hierarchy), as debugfs sched/sync_wakeup_stats names
 * them; read without stopping the counting, so a verdict and a landing of
 * one wakeup may fall on either side of the read.
 */
static int cpu_sync_wakeup_stat_show(struct seq_file *sf, void *v)
{
	struct task_group *tg = css_tg(seq_css(sf));
	struct sync_wakeup_group_counts sum = {};
	unsigned long total = 0;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct sync_wakeup_group_counts *c;

		c = per_cpu_ptr(tg->sync_wakeup_counts, cpu);
		for (i = 0; i < NR_SYNC_VERDICTS; i++)
			sum.verdicts[i] += READ_ONCE(c->verdicts[i]);
		for (i = 0; i < NR_SYNC_LANDINGS; i++)
			sum.landings[i] += READ_ONCE(c->landings[i]);
	}

	for (i = 0; i < NR_SYNC_VERDICTS; i++)
		total += sum.verdicts[i];
	seq_printf(sf, "sync_wakeups %lu\n", total);
	for (i = 0; i < NR_SYNC_VERDICTS; i++)
		seq_printf(sf, "%s %lu\n", sync_wakeup_verdict_names[i],
			   sum.verdicts[i]);
	for (i = 0; i < NR_SYNC_LANDINGS; i++)
		seq_printf(sf, "%s %lu\n", sync_wakeup_landing_names[i],
			   sum.landings[i]);
	return 0;
}

static struct cftype sync_wakeup_cgroup_files[] = {
	{
		.name = "sync_wakeup",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = cpu_sync_wakeup_show,
		.write = cpu_sync_wakeup_write,
	},
	{
		.name = "sync_wakeup.effective",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = cpu_sync_wakeup_effective_show,
	},
	{
		.name = "sync_wakeup.stat",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = cpu_sync_wakeup_stat_show,
	},
	{ }	/* terminate */
};

/* The cpu controller's files on cgroup v2, beside those core.c adds. */
static int __init sync_wakeup_cgroup_init(void)
{
	WARN_ON(cgroup_add_dfl_cftypes(&cpu_cgrp_subsys,
				       sync_wakeup_cgroup_files));
	return 0;
}
subsys_initcall(sync_wakeup_cgroup_init);
#endif /* CONFIG_CGROUP_SCHED */
