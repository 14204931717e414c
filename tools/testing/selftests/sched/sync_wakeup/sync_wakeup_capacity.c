// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_capacity - the capacity step of SYNC_PAIR_AFFINE's keep rule.
 *
 * On an asymmetric-capacity system, reciprocal-only and honest-waker keep a
 * sync wakee on the waker CPU only if it fits there (task_fits_cpu()); one
 * that does not is declined_capacity. This process and a child ping-pong
 * over two pipes (pipe_write() wakes the reader with WF_SYNC), the
 * child allowed on every CPU and clamped, uclamp_min and uclamp_max, to a
 * value between the little and the big CPUs' capacities. util_fits_cpu()
 * then says it fits no little CPU (its uclamp_min is above their capacity)
 * and fits every big one (its uclamp_max is below theirs), whatever its
 * utilization: the verdicts follow from the clamp, not from PELT, which
 * under a slow emulator can see the wakee's own work make it too big for
 * a big CPU too:
 *
 *   waker on two little CPUs   none kept, some declined_capacity
 *   waker on two big CPUs      none declined_capacity, some kept
 *
 * The waker may run on two CPUs of its class, never one: waking a task
 * pinned to one CPU skips select_task_rq_fair(), so its wakee's last_wakee
 * would never be the waker and reciprocal-only would decline every wakeup
 * as not reciprocal.
 *
 * Each policy runs in a window whose trace checks every decision against
 * the policy's rules and the counters against the trace (sw_window_stop()).
 * Needs 2 CPUs of the highest capacity and 2 of one lower (cpu_capacity in
 * sysfs) and CONFIG_UCLAMP_TASK; skipped otherwise, as on any symmetric
 * system.
 */
#include <sys/syscall.h>
#include <linux/types.h>

#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

/* Round trips per run. */
#define ROUNDS			200

/*
 * wake_wide() can decline all of a run's decisions (the wakee_flips it reads
 * count the wakeups interrupts make, sync_wakeup_placement.c): a run that
 * never reached the verdict under test runs again with a new pair, at most
 * PAIR_RUNS times in all.
 */
#define PAIR_RUNS		3

/* Seconds per test, a limit for a hung test, as in sync_wakeup_placement.c. */
#define ARM_TIMEOUT		300

/* include/uapi/linux/sched.h, for a libc that lacks them */
#ifndef SCHED_FLAG_KEEP_ALL
#define SCHED_FLAG_KEEP_ALL	0x18
#endif
#ifndef SCHED_FLAG_UTIL_CLAMP_MIN
#define SCHED_FLAG_UTIL_CLAMP_MIN	0x20
#endif
#ifndef SCHED_FLAG_UTIL_CLAMP_MAX
#define SCHED_FLAG_UTIL_CLAMP_MAX	0x40
#endif

/* struct sched_attr (SCHED_ATTR_SIZE_VER1), named apart from a libc's own. */
struct cap_sched_attr {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime;
	__u64 sched_deadline;
	__u64 sched_period;
	__u32 sched_util_min;
	__u32 sched_util_max;
};

/* Clamp this task's utilization to @clamp, both ways: 0 or -errno. */
static int set_clamp(unsigned int clamp)
{
	struct cap_sched_attr attr = {
		.size = sizeof(attr),
		.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MIN |
			       SCHED_FLAG_UTIL_CLAMP_MAX,
		.sched_util_min = clamp,
		.sched_util_max = clamp,
	};

	return syscall(SYS_sched_setattr, 0, &attr, 0) ? -errno : 0;
}

static const char * const uclamp_limits[] = {
	"/proc/sys/kernel/sched_util_clamp_min",
	"/proc/sys/kernel/sched_util_clamp_max",
};

/* A number in a /proc/sys file, or -errno. */
static long sysctl_long(const char *path)
{
	char buf[32];
	ssize_t n = sw_read_file(path, buf, sizeof(buf));

	return n < 0 ? n : atol(buf);
}

/* Can a task clamp itself? Tried in a child, to change nothing here: 0 or -errno. */
static int uclamp_probe(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(-set_clamp(1));
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -ECHILD;
}

/* Two CPUs of each class among those this process may use. */
struct classes {
	int big[2];			/* of the highest capacity */
	int little[2];			/* of one lower capacity */
	long big_cap, little_cap;
	/* The wakee's uclamp_min and uclamp_max: between the two. */
	unsigned int clamp;
};

/*
 * The capacity classes of the CPUs this process may use, into @cl.
 * 0; 1 to skip, -1 to fail, with why in @why.
 */
static int cpu_classes(struct classes *cl, char *why, size_t size)
{
	static long caps[CPU_SETSIZE];
	int cpu, other, n = 0, nmax = 0, nbig = 0;
	long max = -1;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(why, size, "cannot read the CPUs allowed: %s", strerror(errno));
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		caps[cpu] = -1;
		if (!CPU_ISSET(cpu, &set))
			continue;
		caps[cpu] = sw_cpu_capacity(cpu);
		if (caps[cpu] == -ENOENT) {
			snprintf(why, size, "no cpu%d/cpu_capacity: no asymmetric capacities", cpu);
			return 1;
		}
		if (caps[cpu] < 0) {
			snprintf(why, size, "cpu%d/cpu_capacity: %s", cpu, strerror(-caps[cpu]));
			return -1;
		}
		n++;
		if (caps[cpu] > max)
			max = caps[cpu];
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (caps[cpu] != max)
			continue;
		if (nbig < 2)
			cl->big[nbig++] = cpu;
		nmax++;
	}
	if (nbig < 2) {
		snprintf(why, size, "needs 2 CPUs of the highest capacity (%ld), has 1", max);
		return 1;
	}
	cl->big_cap = max;
	/* The first two CPUs of one capacity below the highest. */
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (caps[cpu] < 0 || caps[cpu] == max)
			continue;
		for (other = cpu + 1; other < CPU_SETSIZE && caps[other] != caps[cpu]; other++)
			;
		if (other < CPU_SETSIZE) {
			cl->little[0] = cpu;
			cl->little[1] = other;
			cl->little_cap = caps[cpu];
			cl->clamp = (cl->big_cap + cl->little_cap) / 2;
			return 0;
		}
	}
	snprintf(why, size, "no 2 CPUs of one capacity below %ld among the %d allowed%s", max, n,
		 nmax == n ? ": all have the same, no asymmetry" : "");
	return 1;
}

FIXTURE(capacity) {
	struct sw_saved saved;
	struct classes cpus;
	long limit;
	int smt;
};

FIXTURE_SETUP(capacity)
{
	char why[512];
	int need, err;
	long limit;
	size_t i;

	self->limit = -1;
	need = sw_test_needs(why, sizeof(why));
	if (need > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, need) TH_LOG("%s", why);
	need = cpu_classes(&self->cpus, why, sizeof(why));
	if (need > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, need) TH_LOG("%s", why);
	err = uclamp_probe();
	if (err == -EOPNOTSUPP)
		SKIP(return, "cannot set a uclamp: kernel without CONFIG_UCLAMP_TASK");
	ASSERT_EQ(0, err) TH_LOG("sched_setattr(uclamp): %s", strerror(-err));
	/* The system's limits cap every task's clamp (a cgroup's would too). */
	for (i = 0; i < ARRAY_SIZE(uclamp_limits); i++) {
		limit = sysctl_long(uclamp_limits[i]);
		ASSERT_LE(0, limit) TH_LOG("%s: %s", uclamp_limits[i], strerror(-limit));
		if (limit < self->cpus.clamp)
			SKIP(return, "%s is %ld, below the wakee's clamp %u", uclamp_limits[i],
			     limit, self->cpus.clamp);
	}
	self->smt = sw_smt_active();
	ASSERT_LE(0, self->smt) TH_LOG("cannot tell whether SMT is active: %s",
				       strerror(-self->smt));

	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
	ASSERT_TRUE(self->saved.have_feature);
	/*
	 * Off before this process logs: each line it writes is a sync wakeup
	 * of the pipe's reader, and with the feature on a promise on the
	 * record that honest-waker judges.
	 */
	ASSERT_EQ(0, sw_feature_set(false));
	TH_LOG("big CPUs %d and %d (capacity %ld), little %d and %d (%ld), SMT %s",
	       self->cpus.big[0], self->cpus.big[1], self->cpus.big_cap, self->cpus.little[0],
	       self->cpus.little[1], self->cpus.little_cap, self->smt ? "active" : "inactive");
	/* A waker that blocks keeps its promises, however slow the emulation. */
	self->limit = sw_limit_set(SW_LIMIT_RELAXED_NS);
	ASSERT_LE(0, self->limit) TH_LOG("%s: %s", SW_LIMIT_PATH, strerror(-self->limit));
}

FIXTURE_TEARDOWN_PARENT(capacity)
{
	EXPECT_EQ(0, sw_trace_restore());
	if (self->limit >= 0)
		EXPECT_LE(0, sw_limit_set(self->limit));
	EXPECT_EQ(0, sw_restore(&self->saved));
}

/*
 * Each decision in the trace followed the rules that hold whatever the
 * timing (sw_trace_stop()), the counters moved by what it shows, and each
 * of the run's @tasks made decisions.
 */
static void expect_trace_sound(struct __test_metadata *_metadata, const char *label,
			       const struct sw_trace *t, int tasks)
{
	char buf[512];

	TH_LOG("%s: trace %s", label, sw_trace_str(t, buf, sizeof(buf)));
	EXPECT_EQ(0, t->wrong) TH_LOG("%s: %s", label, t->why);
	EXPECT_EQ(0, t->unwitnessed)
		TH_LOG("%s: counters against the trace: %s", label, t->witness);
	if (sw_judging())
		EXPECT_EQ(0, t->strayed) TH_LOG("%s: %s", label, t->strayed_why);
	EXPECT_LE(tasks, t->our_pids)
		TH_LOG("%s: decisions for %d of the %d tasks", label, t->our_pids, tasks);
}

/* Clamp the wakee before its first sleep: sw_pair's turn. */
static int clamp_turn(void *arg, bool first)
{
	return first ? set_clamp(*(unsigned int *)arg) : 0;
}

/*
 * The pair with the waker on @cpus and the wakee clamped between the two
 * capacities of @cl, under reciprocal-only and honest-waker, one window
 * per run: of this process' decisions none may be @never, and at least one
 * must be @want, so that the capacity step was reached.
 * With SMT active reciprocal-only declines every wakeup for SMT before that
 * step, so only honest-waker is run.
 */
static void expect_big_wakee(struct __test_metadata *_metadata, const char *waker,
			     const int cpus[2], const struct classes *cl, int smt,
			     int never, int want)
{
	static const char * const policies[] = { "reciprocal-only", "honest-waker" };
	unsigned int clamp = cl->clamp;
	/*
	 * The wakee answers only once this process has blocked: under TCG
	 * it could otherwise answer before the waker's vCPU reaches read(), a
	 * broken promise, and honest-waker would drop the hint of a dishonest
	 * waker before the capacity step.
	 */
	struct sw_pair pair = { .turn = clamp_turn, .arg = &clamp, .answer_asleep = true };
	struct sw_stats window;
	/* Static: its own_seq[] is some 200 KB. */
	static struct sw_trace t;
	struct sw_own_count c;
	char label[96], buf[512];
	const char *why;
	int run, err, terr;
	size_t p;

	for (p = 0; p < ARRAY_SIZE(policies); p++) {
		snprintf(label, sizeof(label), "%s, %s", waker, policies[p]);
		if (smt && !strcmp(policies[p], "reciprocal-only")) {
			TH_LOG("%s: not run, SMT active: declined for SMT first", label);
			continue;
		}
		ASSERT_EQ(0, sw_policy_set(policies[p]));
		for (run = 1; ; run++) {
			memset(&t, 0, sizeof(t));
			err = sw_window_start(true, &window);
			ASSERT_EQ(0, err) TH_LOG("tracing %s: %s", SW_EVENT, strerror(-err));
			err = sw_pair_run(&pair, cpus[0], cpus[1], ROUNDS, &why);
			terr = sw_window_stop(policies[p], getpid(), &window, &t);
			ASSERT_EQ(0, terr) TH_LOG("reading the trace: %s", strerror(-terr));
			ASSERT_EQ(0, err) TH_LOG("%s: pair: %s%s%s", label, strerror(-err),
						 why ? "; the wakee " : "", why ? why : "");
			expect_trace_sound(_metadata, label, &t, 2);
			ASSERT_GE(SW_TRACE_OWN_MAX, t.own);
			sw_own_count(&t, 0, t.own, &c);
			TH_LOG("%s: %s", label, sw_own_count_str(&c, buf, sizeof(buf)));
			TH_LOG("%s: promises of this process: slept %ld, late %ld, awake %ld",
			       label, t.own_promises[SW_PROMISE_SLEPT],
			       t.own_promises[SW_PROMISE_LATE], t.own_promises[SW_PROMISE_AWAKE]);
			EXPECT_EQ(0, c.v[never])
				TH_LOG("%s: %ld decisions %s", label, c.v[never],
				       sw_stat_names[never]);
			if (c.v[want] || run == PAIR_RUNS)
				break;
			TH_LOG("%s: no decision %s: run %d of %d, with a new pair", label,
			       sw_stat_names[want], run + 1, PAIR_RUNS);
		}
		EXPECT_LT(0, c.v[want])
			TH_LOG("%s: no decision %s in %d runs", label, sw_stat_names[want],
			       PAIR_RUNS);
	}
}

/*
 * A waker on two little CPUs: the wakee fits neither, so every decision
 * that passes the steps before the capacity step is declined_capacity, and
 * none is kept.
 */
TEST_F_TIMEOUT(capacity, little_waker, ARM_TIMEOUT)
{
	expect_big_wakee(_metadata, "little waker", self->cpus.little, &self->cpus, self->smt,
			 SW_KEPT, SW_DECLINED_CAPACITY);
}

/*
 * A waker on two big CPUs: the wakee's uclamp_max fits them whatever its
 * utilization: none is declined_capacity and the decisions that reach the
 * step are kept.
 */
TEST_F_TIMEOUT(capacity, big_waker, ARM_TIMEOUT)
{
	expect_big_wakee(_metadata, "big waker", self->cpus.big, &self->cpus, self->smt,
			 SW_DECLINED_CAPACITY, SW_KEPT);
}

TEST_HARNESS_MAIN
