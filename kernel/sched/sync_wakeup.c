// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time selectable placement of WF_SYNC wakeups (SYNC_PAIR_AFFINE).
 *
 * select_task_rq_fair() applies the policy; this file holds its knobs: the
 * kernel.sched_sync_wakeup_policy sysctl, the sched_sync_wakeup= boot
 * parameter and the debugfs counters in sched/sync_wakeup_stats.
 * See Documentation/scheduler/sched-sync-wakeup.rst.
 */

#include "sync_wakeup.h"

static const char * const sync_wakeup_policy_names[] = {
	[SYNC_POLICY_HINT_ONLY]		= "hint-only",
	[SYNC_POLICY_WAKER_IF_ALONE]	= "waker-if-alone",
	[SYNC_POLICY_RECIPROCAL_ONLY]	= "reciprocal-only",
	[SYNC_POLICY_NO_SYNC]		= "no-sync",
	[SYNC_POLICY_RECIPROCAL_STRICT]	= "reciprocal-strict",
};

static_assert(ARRAY_SIZE(sync_wakeup_policy_names) == NR_SYNC_POLICIES);

unsigned int sysctl_sched_sync_wakeup_policy __read_mostly = SYNC_POLICY_RECIPROCAL_ONLY;

DEFINE_PER_CPU(struct sync_wakeup_stats, sync_wakeup_stats);

/*
 * sched_sync_wakeup=<policy> lets a distribution opt in without debugfs: it
 * sets the policy and turns SYNC_PAIR_AFFINE on with the code that a write
 * of the feature's name to debugfs sched/features runs. Without SCHED_DEBUG
 * the feature bits are compile-time constants and the feature stays off.
 */
static int __init setup_sched_sync_wakeup(char *str)
{
	int policy = match_string(sync_wakeup_policy_names, NR_SYNC_POLICIES, str);

	if (policy < 0) {
		pr_warn("sched: sched_sync_wakeup=%s: unknown policy, ignored\n", str);
		return 1;
	}

	sysctl_sched_sync_wakeup_policy = policy;
#ifdef CONFIG_SCHED_DEBUG
	/* No CPU hotplug before SMP bringup: no cpus_read_lock() needed. */
	WARN_ON_ONCE(sched_feat_set("SYNC_PAIR_AFFINE"));
#else
	pr_warn("sched: sched_sync_wakeup=%s: SYNC_PAIR_AFFINE needs CONFIG_SCHED_DEBUG\n", str);
#endif

	return 1;
}
__setup("sched_sync_wakeup=", setup_sched_sync_wakeup);

#ifdef CONFIG_SYSCTL
/* "hint-only waker-if-alone ...", as tcp_available_congestion_control. */
static char sync_wakeup_available_policies[80];

/*
 * A write names one policy, whole, in one write() at offset 0, with at most
 * a trailing newline (echo and sysctl -w); anything else is -EINVAL and
 * leaves the policy alone.
 */
static int sched_sync_wakeup_policy_handler(const struct ctl_table *table,
					    int write, void *buffer,
					    size_t *lenp, loff_t *ppos)
{
	unsigned int policy = READ_ONCE(sysctl_sched_sync_wakeup_policy);
	const char *name = sync_wakeup_policy_names[policy];
	struct ctl_table tbl = {
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

static struct ctl_table sync_wakeup_sysctls[] = {
	{
		.procname	= "sched_sync_wakeup_policy",
		.mode		= 0644,
		.proc_handler	= sched_sync_wakeup_policy_handler,
	},
	{
		.procname	= "sched_sync_wakeup_available_policies",
		.data		= sync_wakeup_available_policies,
		.maxlen		= sizeof(sync_wakeup_available_policies),
		.mode		= 0444,
		.proc_handler	= proc_dostring,
	},
};

static int __init sync_wakeup_sysctl_init(void)
{
	char *buf = sync_wakeup_available_policies;
	size_t len = sizeof(sync_wakeup_available_policies);
	int i, n = 0;

	for (i = 0; i < NR_SYNC_POLICIES; i++)
		n += scnprintf(buf + n, len - n, "%s%s", i ? " " : "",
			       sync_wakeup_policy_names[i]);
	WARN_ON_ONCE(n >= len - 1);

	register_sysctl_init("kernel", sync_wakeup_sysctls);

	return 0;
}
late_initcall(sync_wakeup_sysctl_init);
#endif /* CONFIG_SYSCTL */

#ifdef CONFIG_SCHED_DEBUG
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
};

static_assert(ARRAY_SIZE(sync_wakeup_verdict_names) == NR_SYNC_VERDICTS);

/*
 * Every decided sync wakeup has exactly one verdict, so sync_wakeups is
 * their sum, taken from the same reads: it matches them in every snapshot.
 */
static int sync_wakeup_stats_show(struct seq_file *m, void *v)
{
	unsigned long sum[NR_SYNC_VERDICTS] = {}, total = 0;
	int cpu, i;

	for (i = 0; i < NR_SYNC_VERDICTS; i++) {
		for_each_possible_cpu(cpu)
			sum[i] += READ_ONCE(per_cpu(sync_wakeup_stats.verdicts[i], cpu));
		total += sum[i];
	}

	seq_printf(m, "sync_wakeups %lu\n", total);
	for (i = 0; i < NR_SYNC_VERDICTS; i++)
		seq_printf(m, "%s %lu\n", sync_wakeup_verdict_names[i], sum[i]);

	return 0;
}

static int sync_wakeup_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, sync_wakeup_stats_show, NULL);
}

static void sync_wakeup_stats_reset(void *unused)
{
	memset(this_cpu_ptr(&sync_wakeup_stats), 0, sizeof(struct sync_wakeup_stats));
}

/*
 * Writing 0 resets the counters: each online CPU clears its own with
 * interrupts off, so no increment is lost half-way; an offline CPU counts
 * nothing, and hotplug is held off meanwhile.
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
			memset(per_cpu_ptr(&sync_wakeup_stats, cpu), 0,
			       sizeof(struct sync_wakeup_stats));
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
#endif /* CONFIG_SCHED_DEBUG */
