// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_placement - where SYNC_PAIR_AFFINE puts WF_SYNC wakees.
 *
 * Two processes ping-pong one int over two pipes: pipe_write() wakes the
 * sleeping reader with WF_SYNC, and each side wakes the task that last woke
 * it, so the wakeups are reciprocal. Each message carries the sender's CPU,
 * taken just before write(); the receiver compares it with its own CPU right
 * after read(). The share of handoffs that stay on the sender's CPU shows
 * where the wakee ran (judged, with where the kernel sent it; see the
 * bounds below):
 *
 *   hint-only, no-sync                     LOW   (the wakee goes to an idle
 *                                                 CPU, as upstream)
 *   feature off                            upstream's: never stacked on
 *                                                 the waker CPU while the
 *                                                 wakee's CPU was idle
 *   waker-if-alone                         HIGH  (kept on the waker CPU)
 *   reciprocal-only, reciprocal-strict     HIGH without SMT; with SMT active
 *                                          LOW, declined_smt_active > 0 and
 *                                          nothing kept
 *
 * and the verdicts in debugfs sched/sync_wakeup_stats and the trace must
 * tell the same story: each arm may only give the verdicts its policy
 * gives, and each kept wakee is woken on the waker CPU. A fan-out
 * (one writer, three readers that never write back) checks the reciprocity
 * test on one-way wakeups: reciprocal-only declines them as not
 * reciprocal, reciprocal-strict drops their hint.
 *
 * Each arm is one test; every arm prints its share and counters, and the
 * counters must move by what the trace of the same window shows
 * (sw_window_stop()). Needs 2 or more CPUs, all of one capacity: where
 * they differ, the wakee's fit decides (sync_wakeup_capacity).
 */
#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

/* Counted round trips per arm, and uncounted ones before them. */
#define ROUNDS			500
#define WARMUP_ROUNDS		50

/*
 * Shares, judged. make check boots its guests on QEMU's instruction-
 * counting clock (harness/lib.sh guest_clock), where what a guest measures
 * follows from the instructions it runs rather than from the host's load.
 * Each bound is what the rules predict, with room taken from the spread of
 * four make check runs on that clock and the single-program runs of the
 * mutation table (harness/shares.py over the run directories; 2026-12-03,
 * debug kernel, 2-vCPU host, flat, smt, llc2). On 7.3, make repeat (this
 * program and sync_wakeup_promise 10 times on each of flat, smt and llc2,
 * 2026-12-06): every run passed, and the closest a value came to a bound
 * that is not 0 or 1 was 0.974 against 0.90 (ASLEEP_PROMISE_KEPT_MIN, flat);
 * llc2's honest-waker landed_waker_cpu, 0.593 against 0.40, was next.
 *
 * Where the wakee read its message (the same-CPU share of the handoffs):
 * a policy that keeps the pair, 0.51-1.00 (lower than where it was sent,
 * as an idle CPU can pull a queued wakee before the slow debug kernel's
 * waker sleeps); one that does not (hint-only, no-sync; reciprocal-* with
 * SMT active), 0.000-0.040 with four CPUs.
 * Where the kernel sent the wakees of a policy that does not keep the
 * pair (landed_* over sync_wakeups, counted and witnessed by the trace,
 * sw_window_stop()): not to the waker CPU, 0.000-0.038 with four CPUs.
 * With two, select_idle_sibling() has one other CPU to find idle, and
 * whatever else runs there (the test's own output, a kworker) sends the
 * wakee back to the waker CPU: no-sync's landed share was 0.000-0.003 in
 * four runs and 0.792 in a fifth, so there those shares are logged, and
 * each wakeup is judged instead: none goes to the waker CPU while the
 * trace shows the wakee's own CPU idle (expect_not_stacked()). With
 * two LLCs, hint-only's go into the waker's LLC (wake_affine() picks the
 * waker CPU, select_idle_sibling() an idle CPU beside it), 0.76-1.00 in 13
 * runs; no-sync's go back into the other whenever the wakee's CPU there
 * is idle, judged per wakeup (expect_trace_sound()), as the share, 0.65-1.00
 * in 14 runs, follows how often it is. For a policy that keeps it, what
 * the rule kept of what it judged is KEPT_SHARE_MIN's; the landings of all
 * its decisions are not
 * judged, as wake_wide() declines a share that follows the interrupts
 * that happen to land on the pair: 0-87% of a flat run's decisions on
 * this clock too.
 */
#define SAME_CPU_KEPT_MIN	0.40
#define SAME_CPU_MOVED_MAX	0.15
#define LANDED_MOVED_MAX	0.15
#define LLC_SHARE_MIN		0.70
/*
 * honest-waker keeps a new pair on reciprocal-strict's bet until its record
 * shows it honest, then on its record; a probe in every 33 decisions at
 * most is placed as hint-only, and a dip in its record drops the hint for
 * a while. Measured landed_waker_cpu 0.61-0.86, same-CPU share 0.47-0.75
 * with the first eight decisions hint_only (2026-12-03).
 */
#define LANDED_HONEST_MIN	0.40
#define SAME_CPU_HONEST_MIN	0.25
/*
 * Promises of a pipe pair under hint-only, kept over ended: the pair's
 * (its two tasks' sched_sync_promise events) and this process' (its
 * /proc/self/sched, the waker of half the pair's wakeups). Each promise's
 * cause is checked against the sched_switch events of the same trace
 * (sw_trace_stop()): "awake" exactly when the waker never blocked. A pair
 * that answers at once breaks a share that the emulator's vCPU turns
 * decide, not a rule: the partner's vCPU can answer before the waker's
 * reaches its read(), and the waker never sleeps ("awake"): 0.54-0.96 for
 * this process in 23 make check runs on flat; logged. A pair in which each
 * side writes only once the other has blocked since its write
 * (SW_PP_BOTH_ASLEEP) blocks after every promise: none awake, and only a
 * run longer than the late bound breaks one (kept 0.999-1.000 of the
 * pair's on flat, smt and llc2, make check 2026-12-07; 1.000 on cls2).
 */
#define ASLEEP_PROMISE_KEPT_MIN	0.90
/*
 * kept_on_waker_cpu over the verdicts the keep rule itself gave (kept,
 * waker busy, not reciprocal, capacity), for the ping-pong pair where it
 * keeps: the pair's waker is alone on its CPU nearly every time. Verdicts
 * the wake-affine logic gave before the rule (wake_wide(), not affine)
 * depend on timing and load and do not count. Measured on the icount
 * clock (four make check runs, 2026-12-03): 0.75-0.98 for reciprocal-only
 * on flat, where an interrupt's wakeup can make the wakee's last_wakee
 * another task (declined_not_reciprocal), 0.99-1.00 otherwise.
 */
#define KEPT_SHARE_MIN		0.50

#define FANOUT_READERS		3
#define FANOUT_ROUNDS		300

/*
 * Seconds per arm, a limit for a hung test, not a measure: under QEMU TCG
 * with KASAN an arm took 20-60 s in make check here, and twice that with
 * two more busy threads on the 2-core host; 120 s was too few on CI when
 * an arm ran 2,200 round trips and a hint-only baseline of 700 more.
 */
#define ARM_TIMEOUT		300

/*
 * Promises of a round-robin writer under hint-only, as the share of those
 * kept or broken (a promise is judged at the waker's next decision: kept
 * if it blocked within the limit, which the fixture raises to
 * SW_LIMIT_RELAXED_NS): each promise is broken by the next write,
 *   to another reader, before the writer sleeps, whatever the timing
 *   (make check, 2026-12-07: the writer broke 895-899 and kept none on
 *   flat, smt and llc2; all but its last, never judged).
 */
#define FANOUT_PROMISE_BROKEN_MIN	0.90

FIXTURE(placement) {
	struct sw_saved saved;
	bool wa_off;			/* not_affine turned WA_IDLE, WA_WEIGHT off */
	int schedstats;
	long limit;
	int smt;
	int llcs;			/* last-level caches over the CPUs allowed */
	int cpus;
};

FIXTURE_SETUP(placement)
{
	char why[512];
	int need;

	self->limit = -1;
	need = sw_test_needs(why, sizeof(why));
	if (need > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, need) TH_LOG("%s", why);
	need = sw_asym_capacity();
	ASSERT_LE(0, need) TH_LOG("cpu_capacity: %s", strerror(-need));
	if (need)
		SKIP(return, "CPUs of unequal capacity: see sync_wakeup_capacity");
	self->cpus = sw_nr_allowed_cpus();
	self->smt = sw_smt_active();
	ASSERT_LE(0, self->smt) TH_LOG("cannot tell whether SMT is active: %s",
				       strerror(-self->smt));
	self->llcs = sw_nr_llcs();
	ASSERT_LT(0, self->llcs) TH_LOG("cannot count the LLCs: %s", strerror(-self->llcs));

	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
	ASSERT_TRUE(self->saved.have_feature);
	/*
	 * Off before this process logs: each line it writes is a sync wakeup
	 * of the pipe's reader (kselftest's runner), and with the feature on
	 * (since boot, sched_sync_wakeup=) a promise on a record that the
	 * honest-waker tests expect to start empty.
	 */
	ASSERT_EQ(0, sw_feature_set(false));
	TH_LOG("topology: %d CPUs allowed, SMT %s, %d LLCs", self->cpus,
	       self->smt ? "active" : "inactive", self->llcs);
	/* For each task's promises in /proc/<pid>/sched. */
	self->schedstats = sw_schedstats_set(1);
	ASSERT_LE(0, self->schedstats) TH_LOG("kernel.sched_schedstats: %s",
					      strerror(-self->schedstats));
	/* A pair that sleeps keeps its promises, however slow the emulation. */
	self->limit = sw_limit_set(SW_LIMIT_RELAXED_NS);
	ASSERT_LE(0, self->limit) TH_LOG("%s: %s", SW_LIMIT_PATH, strerror(-self->limit));
}

FIXTURE_TEARDOWN_PARENT(placement)
{
	EXPECT_EQ(0, sw_trace_restore());
	/* On by default, and nothing else here turns them off. */
	if (self->wa_off) {
		EXPECT_EQ(0, sw_write_str(SW_FEATURES_PATH, "WA_IDLE"));
		EXPECT_EQ(0, sw_write_str(SW_FEATURES_PATH, "WA_WEIGHT"));
	}
	if (self->limit >= 0)
		EXPECT_LE(0, sw_limit_set(self->limit));
	EXPECT_EQ(0, sw_restore(&self->saved));
	if (self->schedstats >= 0)
		EXPECT_LE(0, sw_schedstats_set(self->schedstats));
}

struct arm {
	struct sw_pingpong pp;
	struct sw_stats st;
	struct sw_trace trace;
	struct sw_task_promises own;	/* this process' promises in the run */
	double share;
	unsigned long sync;
};

/* This process' promises from /proc/self/sched; 0 or -errno. */
static int own_promises(struct sw_task_promises *tp)
{
	memset(tp, 0, sizeof(*tp));
	return sw_task_promises(0, tp);
}

/* @a->own becomes the promises made since @before. */
static void own_promises_since(struct __test_metadata *_metadata,
			       const struct sw_task_promises *before, struct arm *a)
{
	struct sw_task_promises now;
	int err = own_promises(&now);

	ASSERT_EQ(0, err) TH_LOG("/proc/self/sched: %s", strerror(-err));
	a->own.kept = now.kept - before->kept;
	a->own.broken = now.broken - before->broken;
}

/*
 * Check each decision in the trace of a run against the rules that hold
 * whatever the timing (sw_trace_stop()): none at all with the feature off;
 * with it on, decisions for each of the run's @tasks. And upstream's
 * placement of a wakeup the policy left without its hint: a wakee whose
 * previous CPU, in any LLC, was idle throughout goes back there
 * (wake_affine_idle() returns an idle prev_cpu when sync is 0, and
 * select_idle_sibling() an idle target), whatever the timing; judged where
 * make check sets SW_JUDGE_SHARES=1, for the reasons expect_not_stacked()
 * gives.
 */
static void expect_trace_sound(struct __test_metadata *_metadata, const char *label,
			       const struct arm *a, bool on, int tasks)
{
	char buf[512];

	TH_LOG("%s: trace %s", label, sw_trace_str(&a->trace, buf, sizeof(buf)));
	EXPECT_EQ(0, a->trace.wrong) TH_LOG("%s: %s", label, a->trace.why);
	EXPECT_EQ(0, a->trace.unwitnessed)
		TH_LOG("%s: counters against the trace: %s", label, a->trace.witness);
	if (sw_judging())
		EXPECT_EQ(0, a->trace.strayed) TH_LOG("%s: %s", label, a->trace.strayed_why);
	if (on)
		EXPECT_LE(tasks, a->trace.our_pids)
			TH_LOG("%s: decisions for %d of the %d tasks", label,
			       a->trace.our_pids, tasks);
}

/*
 * The verdicts the keep rule gave itself, past the wake-affine logic, to
 * this test's tasks (the trace's): the counters also hold other tasks'
 * (390 of 829 decisions in one make check window on 6.12's flat,
 * 2026-12-06, which took reciprocal-only's kept share to 0.495).
 */
static unsigned long judged_by_rule(const struct arm *a)
{
	const long *v = a->trace.our_verdicts;

	return v[SW_KEPT] + v[SW_DECLINED_WAKER_BUSY] + v[SW_DECLINED_NOT_RECIPROCAL] +
	       v[SW_DECLINED_CAPACITY];
}

/* Set the feature and policy, run the ping-pong, log and sanity-check it. */
static void run_pingpong(struct __test_metadata *_metadata, const char *label,
			 bool on, const char *policy, long rounds, unsigned int flags,
			 struct arm *a)
{
	struct sw_task_promises before;
	char buf[512], handoffs[128];
	struct sw_stats window;
	double t[4];
	const char *wrong;
	int err, terr;

	ASSERT_EQ(0, sw_policy_set(policy));
	err = own_promises(&before);
	ASSERT_EQ(0, err) TH_LOG("/proc/self/sched: %s", strerror(-err));
	t[0] = sw_now_us();
	err = sw_window_start(on, &window);
	ASSERT_EQ(0, err) TH_LOG("tracing %s: %s", SW_EVENT, strerror(-err));
	t[1] = sw_now_us();
	err = sw_pingpong_run(WARMUP_ROUNDS, rounds, flags, &a->st, &a->pp);
	t[2] = sw_now_us();
	terr = sw_window_stop(on ? policy : NULL, getpid(), &window, &a->trace);
	t[3] = sw_now_us();
	TH_LOG("%s: seconds to start the trace %.1f, run %.1f, read the trace %.1f", label,
	       (t[1] - t[0]) / 1e6, (t[2] - t[1]) / 1e6, (t[3] - t[2]) / 1e6);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_EQ(0, terr) TH_LOG("reading the trace: %s", strerror(-terr));
	own_promises_since(_metadata, &before, a);
	a->share = sw_pp_share(&a->pp);
	a->sync = a->st.v[SW_SYNC_WAKEUPS];

	snprintf(handoffs, sizeof(handoffs), "parent->child %ld/%ld, child->parent %ld/%ld",
		 a->pp.same_cpu[0], a->pp.handoffs[0], a->pp.same_cpu[1], a->pp.handoffs[1]);
	TH_LOG("%s: same-CPU share %.3f (%s), %.1f us/round trip",
	       label, a->share, handoffs, a->pp.usec_per_round);
	TH_LOG("%s: %s", label, sw_stats_str(&a->st, buf, sizeof(buf)));
	TH_LOG("%s: this process kept %ld promises, broke %ld", label, a->own.kept,
	       a->own.broken);

	ASSERT_EQ(2 * rounds, sw_pp_handoffs(&a->pp));
	/* sync_wakeups is the sum of the verdicts, each one the policy gives. */
	wrong = sw_stats_wrong(&a->st, on ? policy : NULL, buf, sizeof(buf));
	EXPECT_EQ(NULL, wrong) TH_LOG("%s: %s", label, wrong);
	expect_trace_sound(_metadata, label, a, on, 2);
}

/*
 * wake_wide() declines a pair's sync wakeups while one task's wakee_flips
 * are twice the other's (the LLC's size times), and record_wakee() counts
 * as a flip every wakeup an interrupt makes while the task is current: a
 * few such wakeups (7 and 3 in a run on flat on 2026-12-02, the feature's
 * rules untouched) had 239 of the pair's 386 decisions declined wide. The
 * flips halve at most once a second, so such a run is not one the rule
 * can be judged on: it runs again with a new pair, at most PAIR_RUNS
 * times in all, until REACHED_RULE_MIN decisions, and at least half of
 * them, got past the wake-affine logic (make check on flat, 2026-12-03:
 * 112 of 479 and 108 of 432 reached the rule, same-CPU shares 0.372 and
 * 0.457; 200 or more of 220-300 in most runs, 0.90-1.00). What the rule
 * then did with them is judged as before; where the pair ran is judged
 * only in a run where the rule decided most of its wakeups.
 *
 * A pair kept on one CPU can also make few decisions: a wakee that blocked
 * while ineligible stays queued (sched_delayed), and its next wakeup goes
 * through ttwu_runnable(), which decides nothing (7.3's bench kernel,
 * 2026-12-06: 24-32 decisions in 500 round trips, all past the wake-affine
 * logic). Then the next run has round trips for about twice
 * REACHED_RULE_MIN decisions at the rate seen, at most MAX_ROUNDS.
 * The decisions are the pair's own, from the trace: the counters also
 * count other tasks'.
 */
#define REACHED_RULE_MIN	100
#define PAIR_RUNS		3
#define MAX_ROUNDS		(8 * ROUNDS)

static long reached_rule(const struct arm *a)
{
	const long *v = a->trace.our_verdicts;

	return a->trace.ours - v[SW_DECLINED_WAKE_WIDE] - v[SW_DECLINED_NOT_AFFINE];
}

static bool rule_decided_most(const struct arm *a)
{
	return reached_rule(a) >= REACHED_RULE_MIN && 2 * reached_rule(a) >= a->trace.ours;
}

/*
 * Returns the number of runs. Each run is a window that turns the feature off
 * and on, so each starts with this process' record empty.
 */
static int run_judged_pingpong(struct __test_metadata *_metadata, const char *policy,
			       unsigned int flags, struct arm *a)
{
	long rounds = ROUNDS, reached;
	int run;

	for (run = 1; ; run++) {
		run_pingpong(_metadata, policy, true, policy, rounds, flags, a);
		if (rule_decided_most(a) || run == PAIR_RUNS)
			return run;
		reached = reached_rule(a);
		if (2 * reached >= a->trace.ours)
			rounds = reached ? rounds * 2 * REACHED_RULE_MIN / reached : MAX_ROUNDS;
		rounds = rounds < MAX_ROUNDS ? rounds : MAX_ROUNDS;
		TH_LOG("%s: %ld of the pair's %ld sync wakeups reached the rule: under %d or half",
		       policy, reached, a->trace.ours, REACHED_RULE_MIN);
		TH_LOG("%s: run %d of %d, with a new pair, %ld round trips", policy, run + 1,
		       PAIR_RUNS, rounds);
	}
}

/*
 * A pair under a policy that does not keep it, run until some of its
 * wakeups found the wakee's previous CPU idle (sw_stack_*(): in the
 * waker's LLC, or without the hint in the other; only the other if @far),
 * at most PAIR_RUNS times: upstream can leave a pair on one CPU for a
 * whole run when something else keeps the other CPU busy (no-sync on flat,
 * all 550 wakeups on the waker CPU at 3.7 ms a round trip, make check
 * 2026-12-03), and then there is no wakeup to judge.
 */
static void run_moved_pingpong(struct __test_metadata *_metadata, const char *policy,
			       bool far, struct arm *a)
{
	long judged;
	int run;

	for (run = 1; ; run++) {
		run_pingpong(_metadata, policy, true, policy, ROUNDS, 0, a);
		judged = a->trace.unhinted_far + (far ? 0 : a->trace.prev_idle);
		if (judged || run == PAIR_RUNS)
			break;
		TH_LOG("%s: no wakeup found prev_cpu idle%s: run %d of %d, with a new pair",
		       policy, far ? " in the other LLC" : "", run + 1, PAIR_RUNS);
	}
	if (sw_judging())
		EXPECT_LT(0, judged) TH_LOG("%s: no wakeup found prev_cpu idle%s", policy,
					    far ? " in the other LLC" : "");
}

/*
 * @value is in [@min, @max]; @what names it. Logged either way, in one
 * form, so that harness/repeats.py can set each value's spread over many
 * runs beside its bound.
 */
static void expect_bound(struct __test_metadata *_metadata, const char *label,
			 const char *what, double value, double min, double max)
{
	bool inside = value >= min && value <= max;

	TH_LOG("%s: %s %.3f, bounds [%.2f, %.2f]%s", label, what, value, min, max,
	       inside ? "" : ", outside");
	EXPECT_TRUE(inside);
}

/* The rule kept at least KEPT_SHARE_MIN of the wakeups it judged. */
static void expect_kept(struct __test_metadata *_metadata, const char *label,
			const struct arm *a)
{
	EXPECT_LT(0, a->trace.our_verdicts[SW_KEPT]);
	expect_bound(_metadata, label, "kept share of the rule's verdicts",
		     sw_ratio(a->trace.our_verdicts[SW_KEPT], judged_by_rule(a)), KEPT_SHARE_MIN,
		     1);
}

/*
 * expect_bound() where the bound is QEMU's on its instruction-counting
 * clock, on which make check sets SW_JUDGE_SHARES=1; elsewhere (host time,
 * hardware) the value is logged.
 */
static void expect_share(struct __test_metadata *_metadata, const char *label,
			 const char *what, double value, double min, double max)
{
	if (!sw_judging()) {
		TH_LOG("%s: %s %.3f (bounds [%.2f, %.2f] not judged here)", label, what,
		       value, min, max);
		return;
	}
	expect_bound(_metadata, label, what, value, min, max);
}

/* The share of the run's counted decisions whose wakee landed at @where. */
static double landed(const struct arm *a, enum sw_stat where)
{
	return sw_ratio(a->st.v[where], a->sync);
}

/* A policy that keeps the pair: the rule kept it, and there it ran. */
static void expect_pair_kept(struct __test_metadata *_metadata, const char *label,
			     const struct arm *a)
{
	expect_kept(_metadata, label, a);
	if (rule_decided_most(a))
		expect_share(_metadata, label, "same-CPU share", a->share, SAME_CPU_KEPT_MIN, 1);
	else
		TH_LOG("%s: same-CPU share %.3f not judged: the rule decided %ld of %ld wakeups",
		       label, a->share, reached_rule(a), a->trace.ours);
}

/*
 * Upstream's placement, whatever the timing: a wakee whose previous CPU,
 * another of the waker's LLC, is idle goes back there
 * (select_idle_sibling() returns an idle prev before it looks further),
 * never onto the busy waker CPU. The trace shows which wakeups of the pair
 * found prev idle throughout (sw_stack_*()); none of them may have stacked
 * the pair. The trace shows idle_cpu(), not all that select_task_rq_fair()
 * reads: a guest's vcpu_is_preempted() (paravirtual steal time), EAS's
 * find_energy_efficient_cpu() before wake_affine(), a throttled group's
 * tasks queued again with no event. make check's guests have none of
 * these, so judged where it sets SW_JUDGE_SHARES=1, logged elsewhere.
 */
static void expect_not_stacked(struct __test_metadata *_metadata, const char *label,
			       const struct arm *a)
{
	TH_LOG("%s: %ld wakeups found the wakee's previous CPU idle, %ld stacked%s", label,
	       a->trace.prev_idle, a->trace.stacked, sw_judging() ? "" : " (not judged here)");
	if (sw_judging())
		EXPECT_EQ(0, a->trace.stacked) TH_LOG("%s: %s", label, a->trace.stacked_why);
}

/*
 * Where a policy that does not keep the pair sent its wakees: never onto
 * the waker CPU while prev was idle; with more than two CPUs (@cpus), not
 * to the waker CPU at all; with two LLCs (@llcs), into the waker's (@hint:
 * the hint made wake_affine() pick the waker CPU), or without the hint
 * back onto the wakee's own CPU in the other LLC whenever that was idle
 * (expect_trace_sound() judges each, run_moved_pingpong() that some
 * were judged). How many went back depends on how often the other LLC
 * was idle: no-sync's landed_other_llc share was 0.65-1.00 in 14 make
 * check runs, so it is logged.
 */
static void expect_pair_moved(struct __test_metadata *_metadata, const char *label,
			      const struct arm *a, int cpus, int llcs, bool hint)
{
	expect_not_stacked(_metadata, label, a);
	if (cpus <= 2) {
		TH_LOG("%s: %d CPUs: shares logged only", label, cpus);
		return;
	}
	expect_share(_metadata, label, "landed_waker_cpu share",
		     landed(a, SW_LANDED_WAKER_CPU), 0, LANDED_MOVED_MAX);
	expect_share(_metadata, label, "same-CPU share", a->share, 0, SAME_CPU_MOVED_MAX);
	if (llcs < 2)
		return;
	if (hint) {
		expect_share(_metadata, label, "landed_same_llc share",
			     landed(a, SW_LANDED_SAME_LLC), LLC_SHARE_MIN, 1);
		return;
	}
	/* run_moved_pingpong() judged that some went there. */
	TH_LOG("%s: landed_other_llc share %.3f; %ld wakeups found prev_cpu idle there",
	       label, landed(a, SW_LANDED_OTHER_LLC), a->trace.unhinted_far);
}

/* The pair's promises kept over ended, from its tasks' events in the trace. */
static double pair_promise_share(const struct arm *a)
{
	const long *p = a->trace.our_promises;

	return sw_ratio(p[SW_PROMISE_SLEPT],
			p[SW_PROMISE_SLEPT] + p[SW_PROMISE_LATE] + p[SW_PROMISE_AWAKE]);
}

/*
 * The pair's promises, each witnessed by the trace; with @min > 0, the pair
 * and this process kept at least @min of theirs.
 */
static void expect_pair_promises(struct __test_metadata *_metadata, const char *label,
				 const struct arm *a, double min)
{
	const long *p = a->trace.our_promises;
	double own = sw_ratio(a->own.kept, a->own.kept + a->own.broken);

	TH_LOG("%s: pair's promises slept %ld late %ld awake %ld, kept %.3f (this process %.3f)%s",
	       label, p[SW_PROMISE_SLEPT], p[SW_PROMISE_LATE], p[SW_PROMISE_AWAKE],
	       pair_promise_share(a), own, min > 0 ? "" : ", logged");
	EXPECT_LT(0, a->own.kept);
	EXPECT_LT(0, a->trace.promises_witnessed)
		TH_LOG("%s: no promise of the pair whose making the trace holds", label);
	if (min <= 0)
		return;
	expect_share(_metadata, label, "the pair's promise-kept share", pair_promise_share(a),
		     min, 1);
	expect_share(_metadata, label, "promise-kept share of this process", own, min, 1);
}

/*
 * Off means off: whatever the policy, nothing decided, counted, traced or
 * judged. This process first makes promises with the feature on, so that a
 * kernel that ran the policy while off would judge one of them, a
 * sched_sync_promise event the trace check fails, whatever the timing.
 * Upstream's placement is judged per wakeup (expect_not_stacked()). The
 * same-CPU share is only logged: 0.000, 0.528 and 0.839 on flat in three
 * runs on the icount clock, 0.02-0.06 on smt and llc2, as a pair that
 * starts on one CPU can stay there (select_idle_cpu() scans nothing once
 * SIS_UTIL finds the LLC busy, and an idle CPU's newidle balance pulls a
 * wakee queued elsewhere before that CPU runs it).
 */
TEST_F_TIMEOUT(placement, feature_off, ARM_TIMEOUT)
{
	struct sw_pingpong pp;
	struct arm a;
	int i, err;

	ASSERT_EQ(0, sw_policy_set("reciprocal-only"));
	ASSERT_EQ(0, sw_feature_set(true));
	err = sw_pingpong_run(0, SW_PROMISE_HISTORY, 0, NULL, &pp);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	run_pingpong(_metadata, "off (policy reciprocal-only)", false, "reciprocal-only",
		     ROUNDS, 0, &a);
	for (i = 0; i < SW_NR_STATS; i++) {
		const char *name = sw_stat_names[i];

		EXPECT_EQ(0, a.st.v[i]) TH_LOG("%s counted while off", name);
	}
	expect_not_stacked(_metadata, "off", &a);
}

/*
 * hint-only is upstream with counting: every sync wakeup is hint_only. A
 * ping-pong's waker sleeps right after its wakeup: it keeps its promise
 * when its partner does not answer first (ASLEEP_PROMISE_KEPT_MIN).
 */
TEST_F_TIMEOUT(placement, hint_only, ARM_TIMEOUT)
{
	struct arm a;

	run_moved_pingpong(_metadata, "hint-only", false, &a);
	EXPECT_LT(0, a.sync);
	EXPECT_EQ(a.sync, a.st.v[SW_HINT_ONLY]);
	expect_pair_moved(_metadata, "hint-only", &a, self->cpus, self->llcs, true);
	expect_pair_promises(_metadata, "hint-only", &a, 0);

	run_pingpong(_metadata, "hint-only, each answers asleep", true, "hint-only", ROUNDS,
		     SW_PP_BOTH_ASLEEP, &a);
	expect_pair_promises(_metadata, "hint-only, each answers asleep", &a,
			     ASLEEP_PROMISE_KEPT_MIN);
	/*
	 * Each side blocked before its answer came: none broken awake. Not on
	 * PREEMPT_RT, whose rule does not count a sleeping spinlock's wait.
	 */
	if (!sw_kernel_rt())
		EXPECT_EQ(0, a.trace.our_promises[SW_PROMISE_AWAKE]);
}

/* no-sync drops every hint it sees and judges nothing. */
TEST_F_TIMEOUT(placement, no_sync, ARM_TIMEOUT)
{
	unsigned long dropped;
	struct arm a;

	run_moved_pingpong(_metadata, "no-sync", self->llcs > 1, &a);
	dropped = a.st.v[SW_HINT_DROPPED];
	EXPECT_LT(0, a.sync);
	EXPECT_EQ(a.sync, dropped)
		TH_LOG("hint_dropped %lu of %lu sync wakeups", dropped, a.sync);
	EXPECT_EQ(0, a.st.v[SW_KEPT]);
	expect_pair_moved(_metadata, "no-sync", &a, self->cpus, self->llcs, false);
}

/* waker-if-alone ignores SMT and reciprocity: the pair shares a CPU. */
TEST_F_TIMEOUT(placement, waker_if_alone, ARM_TIMEOUT)
{
	struct arm a;

	run_judged_pingpong(_metadata, "waker-if-alone", 0, &a);
	EXPECT_LT(0, a.sync);
	EXPECT_EQ(0, a.st.v[SW_HINT_DROPPED]);
	EXPECT_EQ(0, a.st.v[SW_DECLINED_SMT]);
	EXPECT_EQ(0, a.st.v[SW_DECLINED_NOT_RECIPROCAL]);
	EXPECT_EQ(0, a.st.v[SW_DECLINED_CAPACITY]);
	expect_pair_kept(_metadata, "waker-if-alone", &a);
}

/*
 * A reciprocal pair under reciprocal-only or reciprocal-strict: kept on the
 * waker CPU without SMT; with SMT every wakeup that reciprocal-only judges
 * is declined for SMT, before anything else is looked at.
 */
static void expect_reciprocal_pair(struct __test_metadata *_metadata, const char *label,
				   const struct arm *a, int smt, int cpus, int llcs)
{
	EXPECT_LT(0, a->sync);
	if (smt) {
		EXPECT_EQ(a->sync, a->st.v[SW_DECLINED_SMT] + a->st.v[SW_HINT_DROPPED]);
		EXPECT_LT(0, a->st.v[SW_DECLINED_SMT]);
		expect_pair_moved(_metadata, label, a, cpus, llcs, true);
	} else {
		EXPECT_EQ(0, a->st.v[SW_DECLINED_SMT]);
		/* The trace saw the pair wake each other before each keep. */
		EXPECT_LT(0, a->trace.reciprocal);
		expect_pair_kept(_metadata, label, a);
	}
}

TEST_F_TIMEOUT(placement, reciprocal_only, ARM_TIMEOUT)
{
	struct arm a;

	run_judged_pingpong(_metadata, "reciprocal-only", 0, &a);
	expect_reciprocal_pair(_metadata, "reciprocal-only", &a, self->smt, self->cpus,
			       self->llcs);
}

/*
 * The pair is reciprocal, so strict judges it as reciprocal-only does, but
 * an interrupt that wakes a task while one of the pair is current makes
 * that task its last_wakee: some hints are dropped (not bounded here).
 */
TEST_F_TIMEOUT(placement, reciprocal_strict, ARM_TIMEOUT)
{
	struct arm a;

	run_judged_pingpong(_metadata, "reciprocal-strict", 0, &a);
	expect_reciprocal_pair(_metadata, "reciprocal-strict", &a, self->smt, self->cpus,
			       self->llcs);
}

/* ---- one writer, readers that never answer -------------------------- */

static void run_fanout(struct __test_metadata *_metadata, const char *policy,
		       bool round_robin, struct arm *a)
{
	struct sw_task_promises before;
	struct sw_stats window;
	struct sw_fanout fo;
	const char *wrong;
	char buf[512];
	int err, terr;

	memset(a, 0, sizeof(*a));
	ASSERT_EQ(0, sw_policy_set(policy));
	err = own_promises(&before);
	ASSERT_EQ(0, err) TH_LOG("/proc/self/sched: %s", strerror(-err));
	err = sw_window_start(true, &window);
	ASSERT_EQ(0, err) TH_LOG("tracing %s: %s", SW_EVENT, strerror(-err));
	err = sw_fanout_run(FANOUT_READERS, FANOUT_ROUNDS, round_robin,
			    &a->st, &fo);
	terr = sw_window_stop(policy, getpid(), &window, &a->trace);
	ASSERT_EQ(0, err) TH_LOG("fan-out: %s%s%s", strerror(-err), fo.why ? ": " : "",
				 fo.why ?: "");
	ASSERT_EQ(0, terr) TH_LOG("reading the trace: %s", strerror(-terr));
	own_promises_since(_metadata, &before, a);
	a->sync = a->st.v[SW_SYNC_WAKEUPS];

	TH_LOG("fan-out %s: %ld writes to %d readers in %.0f us, %ld bytes read",
	       policy, fo.writes, FANOUT_READERS, fo.usec, fo.bytes_read);
	TH_LOG("fan-out %s: %s", policy, sw_stats_str(&a->st, buf, sizeof(buf)));
	TH_LOG("fan-out %s: the writer kept %ld promises, broke %ld", policy, a->own.kept,
	       a->own.broken);

	EXPECT_EQ((long)FANOUT_READERS * FANOUT_ROUNDS, fo.writes);
	EXPECT_EQ(fo.writes, fo.bytes_read);
	wrong = sw_stats_wrong(&a->st, policy, buf, sizeof(buf));
	EXPECT_EQ(NULL, wrong) TH_LOG("fan-out %s: %s", policy, wrong);
	EXPECT_LT(0, a->sync);
	snprintf(buf, sizeof(buf), "fan-out %s", policy);
	expect_trace_sound(_metadata, buf, a, true, FANOUT_READERS);
}

/*
 * reciprocal-only declines one-way wakeups that get past the wake-affine
 * logic as not reciprocal; with SMT active each is declined for SMT first.
 * How many get that far is up to wake_wide(): the wakee_flips it reads
 * also count the wakeups that interrupts make while a task is current
 * (record_wakee()), so anything from none to all of the fan-out's wakeups
 * can be declined as wide (with the writer's old 50 us pause, llc2,
 * 2026-12-01: 442 of 442 in one run, 228 of 453 in the next; none of 893
 * and 875 on flat and llc2 once it waited for each reader to block,
 * 2026-12-07), so a run where none got through is made again with new
 * tasks. Of those the rule judges, one may be kept all the same, and
 * rightly: a reader that slept in pipe_read() holding the pipe mutex while
 * the writer waited for it wakes the writer on unlock and becomes
 * reciprocal.
 * So no share is judged here: the trace check (sw_trace_stop()) fails any
 * kept wakeup whose wakee had not woken the writer before, event by event.
 */
TEST_F_TIMEOUT(placement, fanout_reciprocal_only, ARM_TIMEOUT)
{
	struct arm a;
	int run;

	/* New tasks while wake_wide() or wake_affine() let none through. */
	for (run = 1; ; run++) {
		run_fanout(_metadata, "reciprocal-only", false, &a);
		if (self->smt || judged_by_rule(&a) || run == PAIR_RUNS)
			break;
		TH_LOG("none of the test's %ld sync wakeups reached the rule: run %d of %d",
		       a.trace.ours, run + 1, PAIR_RUNS);
	}
	if (self->smt) {
		TH_LOG("SMT active: declined for SMT before reciprocity is looked at");
		EXPECT_EQ(a.sync, a.st.v[SW_DECLINED_SMT]);
		return;
	}
	TH_LOG("the rule judged %lu of the test's %ld sync wakeups (others: wide, not affine)",
	       judged_by_rule(&a), a.trace.ours);
	TH_LOG("kept %ld; %ld of them checked as reciprocal in the trace",
	       a.trace.our_verdicts[SW_KEPT], a.trace.reciprocal);
	/* The readers never wake the writer: the rule has one-way wakeups to decline. */
	EXPECT_LT(0, a.trace.our_verdicts[SW_DECLINED_NOT_RECIPROCAL])
		TH_LOG("no one-way wakeup declined as not reciprocal");
}

/* reciprocal-strict treats one-way wakeups as no-sync: their hint is dropped. */
TEST_F_TIMEOUT(placement, fanout_reciprocal_strict, ARM_TIMEOUT)
{
	struct arm a;

	run_fanout(_metadata, "reciprocal-strict", false, &a);
	EXPECT_LT(0, a.st.v[SW_HINT_DROPPED]);
}

/*
 * A writer that feeds its readers round robin wakes the next one before
 * it sleeps: most of its promises are broken, by that wakeup.
 */
TEST_F_TIMEOUT(placement, fanout_promises_broken, ARM_TIMEOUT)
{
	double all, own;
	struct arm a;

	run_fanout(_metadata, "hint-only", true, &a);
	all = 1.0 - sw_promise_kept_share(&a.st);
	own = sw_ratio(a.own.broken, a.own.kept + a.own.broken);
	expect_bound(_metadata, "hint-only fan-out", "broken share of the promises ended", all,
		     FANOUT_PROMISE_BROKEN_MIN, 1);
	EXPECT_LT(0, a.own.kept + a.own.broken);
	expect_bound(_metadata, "hint-only fan-out", "broken share of the writer's promises", own,
		     FANOUT_PROMISE_BROKEN_MIN, 1);
	/*
	 * Three readers spread over the idle CPUs: with SMT one of them is
	 * the writer's sibling (304 of 896 sync wakeups in make check on smt,
	 * 2026-12-07).
	 */
	if (self->smt)
		EXPECT_LT(0, a.st.v[SW_LANDED_SMT_SIBLING]);
}

/* ---- a waker that is not alone ---------------------------------------- */

/*
 * Round trips per policy of the pinned-pair tests: a waker that shares its
 * CPU with a hog is slow (three policies of 200 round trips outlasted 120 s
 * on llc2, single-threaded TCG, two guests at once; two of 100 took about
 * 20 s).
 */
#define PINNED_ROUNDS		100

/* The wakee's CPUs: @home, where it sleeps, within @a and @b, where it may run. */
struct pinned_wakee {
	int a, b, home;
};

/* Sleep on @home, then allow @a and @b again: sw_pair's turn. */
static int pinned_wakee_turn(void *arg, bool first)
{
	const struct pinned_wakee *w = arg;

	return sw_pin(0, w->home, -1) || sw_pin(0, w->a, w->b);
}

/*
 * The waker (this process) is pinned to CPU @a, with a CPU hog beside it if
 * @hog. The wakee may run on @a and @b, but moves to @home (one of them)
 * before each answer, so that it sleeps with prev_cpu @home, unless a load
 * balancer moves it before it sleeps. Returns 0 or -errno, and in @why how
 * the wakee failed.
 */
static int pinned_pair_run(int a, int b, int home, bool hog_on_a, long rounds,
			   const char **why)
{
	struct pinned_wakee w = { .a = a, .b = b, .home = home };
	struct sw_pair pair = { .turn = pinned_wakee_turn, .arg = &w };
	int status, err;
	pid_t hog;

	*why = NULL;
	fflush(stdout);
	fflush(stderr);
	hog = hog_on_a ? fork() : 0;
	if (hog < 0)
		return -errno;
	if (hog_on_a && !hog) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (sw_pin(0, a, -1))
			_exit(1);
		for (;;)
			;
	}
	err = sw_pair_run(&pair, a, -1, rounds, why);
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, &status, 0);
	}
	return err;
}

/* The first two CPUs this process may run on, into @a and @b. */
static int first_two_cpus(int *a, int *b)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (*a = 0; *a < CPU_SETSIZE && !CPU_ISSET(*a, &set); (*a)++)
		;
	for (*b = *a + 1; *b < CPU_SETSIZE && !CPU_ISSET(*b, &set); (*b)++)
		;
	return *b < CPU_SETSIZE ? 0 : -ENODEV;
}

/*
 * Run the pinned pair under waker-if-alone and honest-waker and check this
 * process' decisions in the trace: none kept (@hog), or none kept that did
 * not find the wakee's prev_cpu on the waker CPU (!@hog), and at least one
 * @verdict among them, so that the rule under test was reached. Not under reciprocal-only: waking a
 * pinned waker never reaches select_task_rq_fair(), so the wakee's
 * last_wakee is never the waker and every decision is not reciprocal.
 */
static void expect_pinned_pair(struct __test_metadata *_metadata, int home_b, bool hog,
			       int verdict)
{
	static const char * const policies[] = { "waker-if-alone", "honest-waker" };
	const struct sw_own_decision *d;
	long i, kept_moved, reached = 0;
	struct sw_stats window;
	struct sw_own_count c;
	struct arm arm;
	const char *why;
	char buf[512];
	int a = 0, b = 1, err;
	size_t p;

	ASSERT_EQ(0, first_two_cpus(&a, &b));
	for (p = 0; p < ARRAY_SIZE(policies); p++) {
		memset(&arm, 0, sizeof(arm));
		ASSERT_EQ(0, sw_policy_set(policies[p]));
		err = sw_window_start(true, &window);
		ASSERT_EQ(0, err) TH_LOG("tracing %s: %s", SW_EVENT, strerror(-err));
		err = pinned_pair_run(a, b, home_b ? b : a, hog, PINNED_ROUNDS, &why);
		ASSERT_EQ(0, sw_window_stop(policies[p], getpid(), &window, &arm.trace));
		ASSERT_EQ(0, err) TH_LOG("pinned pair: %s%s%s", strerror(-err),
					 why ? "; the wakee " : "", why ? why : "");
		expect_trace_sound(_metadata, policies[p], &arm, true, 1);
		ASSERT_GE(SW_TRACE_OWN_MAX, arm.trace.own);
		sw_own_count(&arm.trace, 0, arm.trace.own, &c);
		TH_LOG("%s: %s", policies[p], sw_own_count_str(&c, buf, sizeof(buf)));
		/* A wakee that has not slept yet when the next byte comes is not decided. */
		EXPECT_LT(0, c.n) TH_LOG("%s: no decision", policies[p]);
		for (i = 0, kept_moved = 0; i < arm.trace.own; i++) {
			d = &arm.trace.own_seq[i];
			kept_moved += d->verdict == SW_KEPT && d->prev_cpu != d->this_cpu;
		}
		EXPECT_EQ(0, hog ? c.v[SW_KEPT] : kept_moved)
			TH_LOG("%s: kept %ld, %ld of them from another CPU", policies[p],
			       c.v[SW_KEPT], kept_moved);
		reached += c.v[verdict] + (hog ? c.v[SW_KEPT] : kept_moved);
	}
	/* Most decisions get there; wake_wide() can take all of one policy's. */
	EXPECT_LT(0, reached) TH_LOG("no decision reached the rule under test");
}

/*
 * A wake-affine target on the waker CPU is not enough: the waker must be
 * alone there. The wakee sleeps on the waker CPU, so prev_cpu is the waker
 * CPU and wake_affine() does not even run, but a hog runs beside the
 * waker: declined_waker_busy, whatever the timing never kept.
 */
TEST_F_TIMEOUT(placement, waker_busy, ARM_TIMEOUT)
{
	expect_pinned_pair(_metadata, false, true, SW_DECLINED_WAKER_BUSY);
}

/*
 * Nor is a waker alone on its CPU enough: wake_affine() must have chosen
 * that CPU. With WA_IDLE and WA_WEIGHT off it returns prev_cpu for every
 * wakeup, and the wakee sleeps on the other CPU: declined_not_affine,
 * never kept from another CPU. (A wakee whose prev_cpu is the waker CPU,
 * which wake_affine() then does not look at, may be kept: one of 138 and
 * one of 159 decisions in two runs, the wakee's first sleep, before it
 * pinned itself, or a load balancer's move. It now pins itself before its
 * first sleep too.)
 */
TEST_F_TIMEOUT(placement, not_affine, ARM_TIMEOUT)
{
	ASSERT_EQ(0, sw_write_str(SW_FEATURES_PATH, "NO_WA_IDLE"));
	self->wa_off = true;
	ASSERT_EQ(0, sw_write_str(SW_FEATURES_PATH, "NO_WA_WEIGHT"));
	expect_pinned_pair(_metadata, true, false, SW_DECLINED_NOT_AFFINE);
}

/* ---- honest-waker ---------------------------------------------------- */

/*
 * honest-waker judges a waker by its last SW_PROMISE_HISTORY promises.
 * Until that record shows it honest or dishonest (it is on probation),
 * the waker's wakeups make reciprocal-strict's bet (the honest rule if the
 * wakee last woke the waker, else no-sync); the record empties again
 * only when a fork starts a new one or the feature is turned off and on
 * (each window does that first). No wakeup of this process is hint_only.
 * That every decision of this process follows the rule on the record it
 * was judged on, whatever the timing, sw_trace_stop() checks from the
 * sched_sync_promise events, and that a wakee the honest rule judged on
 * probation woke this process before.
 */

/*
 * How often an honest waker's record dips below half is the emulator's
 * timing, not the rule's: under TCG the wakee's vCPU can answer before the
 * waker sleeps, which breaks a promise. The hint_dropped share of a pipe pair's judged
 * wakeups went from 0.02 to 0.09 on one machine and past 0.35 on a slower
 * one (CI, 2026-12-01), so it is logged, not judged. What is judged is
 * that every decision follows the rule on the record it was judged on
 * (sw_trace_stop()), and what no timing changes: a writer that wakes
 * another reader before it ever sleeps breaks every promise by that wakeup,
 * so once its record decides each of its wakeups is hint_dropped (1.000 in
 * every run so far; the bound leaves room for the rare write that waits
 * for a pipe mutex and sleeps).
 */
#define FANOUT_DROPPED_MIN	0.60
/* Phase lengths of the re-judging test, in round trips or rounds. */
#define PHASE_ROUNDS		300

/* A decision this process made as the waker: in task or softirq_bh context. */
static bool own_as_waker(const struct sw_trace *t, long i)
{
	return t->own_seq[i].ctx <= SW_CTX_SOFTIRQ_BH;
}

/*
 * The first of this process' decisions as the waker in [@from, @to) on a
 * record that decides; @to if none.
 */
static long own_record_decided(const struct sw_trace *t, long from, long to)
{
	int record;

	for (; from < to; from++) {
		record = t->own_seq[from].record;
		if (own_as_waker(t, from) &&
		    (sw_record_honest(record) || sw_record_dishonest(record)))
			break;
	}
	return from;
}

/* hint_only decisions of this process as the waker in [@from, @to). */
static long own_hint_only(const struct sw_trace *t, long from, long to)
{
	long n = 0;

	for (; from < to; from++)
		n += own_as_waker(t, from) && t->own_seq[from].verdict == SW_HINT_ONLY;
	return n;
}

/*
 * This process' decisions are all in own_seq, and the rule was checked on
 * them: its promises were traced from its first decision on.
 */
static void expect_own_complete(struct __test_metadata *_metadata, const struct sw_trace *t)
{
	ASSERT_LT(0, t->own) TH_LOG("no decision with this process as the waker");
	ASSERT_GE(SW_TRACE_OWN_MAX, t->own)
		TH_LOG("%ld decisions of this process, only %d kept", t->own, SW_TRACE_OWN_MAX);
	TH_LOG("promises of this process: slept %ld, late %ld, awake %ld, shared %ld",
	       t->own_promises[SW_PROMISE_SLEPT], t->own_promises[SW_PROMISE_LATE],
	       t->own_promises[SW_PROMISE_AWAKE], t->own_promises[SW_PROMISE_SHARED]);
	EXPECT_LT(0, t->own_checked)
		TH_LOG("no decision of this process checked against its record");
}

/*
 * No decision of this process as the waker in [@from, @to) is hint_only
 * (which is for a wakeup with no waker to judge: an interrupt's, on this
 * process' CPU); once its record decides, at least @min_dropped of them
 * are hint_dropped (0: the share is logged only), and @decide: it must
 * decide. @fresh: the waker's record was empty at @from, so it decides no
 * sooner than its (SW_PROMISE_HONEST + 1)-th decision (a promise is judged
 * at the next decision). Returns the decisions judged honest: on a record
 * that decides, neither hint_dropped nor hint_only.
 */
static long expect_judged(struct __test_metadata *_metadata, const char *label,
			  const struct sw_trace *t, long from, long to, bool fresh,
			  bool decide, double min_dropped)
{
	long decided = own_record_decided(t, from, to);
	struct sw_own_count c, pc;
	double dropped;

	sw_own_count(t, from, decided, &pc);
	sw_own_count(t, decided, to, &c);
	dropped = sw_ratio(c.v[SW_HINT_DROPPED], c.n);
	TH_LOG("%s: %ld decisions of this process, %ld on probation", label, to - from,
	       decided - from);
	TH_LOG("%s: on probation kept %ld, hint_dropped %ld, probe %ld", label,
	       pc.v[SW_KEPT], pc.v[SW_HINT_DROPPED], pc.v[SW_PROBE]);
	TH_LOG("%s: then kept %ld, hint_dropped %ld (%.3f), declined %ld", label,
	       c.v[SW_KEPT], c.v[SW_HINT_DROPPED], dropped,
	       c.n - c.v[SW_KEPT] - c.v[SW_HINT_DROPPED] - c.v[SW_HINT_ONLY]);
	if (fresh)
		EXPECT_LE(SW_PROMISE_HONEST, decided - from)
			TH_LOG("%s: judged before %d promises were on record", label,
			       SW_PROMISE_HONEST);
	if (decide)
		EXPECT_LT(0, c.n) TH_LOG("%s: the record never decided", label);
	EXPECT_EQ(0, own_hint_only(t, from, to))
		TH_LOG("%s: hint_only from a waker to judge", label);
	if (min_dropped > 0)
		expect_bound(_metadata, label, "hint_dropped share of the judged decisions",
			     dropped, min_dropped, 1);
	return c.n - c.v[SW_HINT_DROPPED] - c.v[SW_HINT_ONLY];
}

/*
 * A new pipe pair whose child answers only once the waker sleeps, as an
 * honest waker's partner would (SW_PP_ANSWER_ASLEEP): on probation it is
 * kept on reciprocal-strict's bet, its kept promises unjudged, so its
 * record fills only from the decisions that place the wakee apart (the
 * first one, not yet reciprocal, which drops the hint; probes): its record
 * may not decide in a run, and where it does it is judged on it. Never
 * hint_only nor, with SMT active, declined for SMT; kept on probation (a
 * rule that dropped every hint there would keep the pair only once its
 * record turned honest); every kept wakee lands on the waker CPU (trace).
 */
TEST_F_TIMEOUT(placement, honest_waker, ARM_TIMEOUT)
{
	struct sw_own_count pc;
	long probation;
	struct arm a;

	run_judged_pingpong(_metadata, "honest-waker", SW_PP_ANSWER_ASLEEP, &a);
	expect_own_complete(_metadata, &a.trace);
	expect_judged(_metadata, "honest-waker pair", &a.trace, 0, a.trace.own, true, false, 0);
	EXPECT_LT(0, a.trace.our_verdicts[SW_KEPT]) TH_LOG("the pair was never kept");
	probation = own_record_decided(&a.trace, 0, a.trace.own);
	sw_own_count(&a.trace, 0, probation, &pc);
	EXPECT_LT(0, pc.v[SW_KEPT]) TH_LOG("none of this process' %ld decisions on probation kept",
					   probation);
	EXPECT_EQ(0, a.st.v[SW_DECLINED_SMT]);
	expect_share(_metadata, "honest-waker", "landed_waker_cpu share",
		     landed(&a, SW_LANDED_WAKER_CPU), LANDED_HONEST_MIN, 1);
	expect_share(_metadata, "honest-waker", "same-CPU share", a.share, SAME_CPU_HONEST_MIN, 1);
}

/*
 * A pipe pair kept together: a wakee kept on the waker CPU can preempt
 * the waker, or be pulled to the other CPU, and answer before the waker
 * blocks, a promise the placement broke; every promise whose wakee the
 * rule kept is left unjudged (shared); a new pair is kept on
 * reciprocal-strict's bet from its first reciprocal wakeup, then on the
 * record its probes and first decisions earn, and a probe (placed as
 * hint-only) in every SW_PROMISE_PROBE_AFTER + 1 decisions at most,
 * SW_PROMISE_PROBE_AFTER_KEPT + 1 once one was kept, is what it loses.
 * So of the decisions that reached the rule, at least HONEST_KEPT_MIN are
 * kept and at most HONEST_DROPPED_MAX drop the hint. Pinned to two CPUs,
 * as the bench's pipe-cpu01. Each side answers a partner on another CPU
 * only once the partner has blocked (SW_PP_ANSWER_ASLEEP,
 * SW_PP_APART_ASLEEP): under TCG one vCPU can otherwise answer before the
 * other reaches its read(), so that a promise judged apart breaks by the
 * vCPUs' turns, not the placement: with the child alone waiting, 93-363 of
 * 135-437 promises judged apart broke on 6.12's flat while three guests
 * ran (make repeat, 2026-12-06; the record dipped, hint_dropped 0.07).
 * Waiting for state S instead of the block, 19 and 23 of the child's
 * broke awake on arm64's cls2 in two make check runs (2026-12-07), and
 * its record went dishonest (hint_dropped 0.07); waiting for the block,
 * 2 in one run (and 0 on flat, smt and llc2).
 * The bench kernel's plain pipe pair keeps 99% of its promises apart
 * (results/reference/7.3). This process answers a child beside it at
 * once, as a plain pipe pair does: the promise the placement breaks.
 * Under the rule without shared promises (sync_promise_judge()'s shared
 * test removed) this fails.
 */
#define HONEST_KEPT_MIN		0.90
#define HONEST_DROPPED_MAX	0.02

TEST_F_TIMEOUT(placement, honest_waker_keeps_pair, ARM_TIMEOUT)
{
	const long *p, *v;
	long reached;
	cpu_set_t saved;
	int cpu_a, cpu_b, err;
	struct arm a;

	ASSERT_EQ(0, first_two_cpus(&cpu_a, &cpu_b));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	ASSERT_EQ(0, sw_pin(0, cpu_a, cpu_b));
	run_judged_pingpong(_metadata, "honest-waker", SW_PP_ANSWER_ASLEEP | SW_PP_APART_ASLEEP,
			    &a);
	err = sched_setaffinity(0, sizeof(saved), &saved) ? -errno : 0;
	ASSERT_EQ(0, err) TH_LOG("restoring the affinity: %s", strerror(-err));
	p = a.trace.promises;
	TH_LOG("pair: promises shared %ld, reprobe %ld, slept %ld, late %ld, awake %ld",
	       p[SW_PROMISE_SHARED], p[SW_PROMISE_REPROBE], p[SW_PROMISE_SLEPT],
	       p[SW_PROMISE_LATE], p[SW_PROMISE_AWAKE]);
	/* sw_trace_stop() checked them against each waker's shared count. */
	TH_LOG("honest-waker pair: %ld keeps and probes checked against the shared count",
	       a.trace.probes_checked);
	TH_LOG("of them %ld keeps after %d shared promises", a.trace.keeps_past_probe,
	       SW_PROMISE_PROBE_AFTER);
	EXPECT_LT(0, a.trace.probes_checked);
	/* A kept probe moved the next one on: the pair got that far. */
	EXPECT_LT(0, a.trace.keeps_past_probe);
	/*
	 * The pair's decisions only, from the trace: the counters also count
	 * other tasks' (569 of 1172 decisions in one make check window on
	 * 6.12's flat, whose wakees were not this test's, nearly all with the
	 * hint dropped).
	 */
	v = a.trace.our_verdicts;
	reached = a.trace.ours - v[SW_DECLINED_WAKE_WIDE] - v[SW_DECLINED_NOT_AFFINE] -
		  v[SW_HINT_ONLY];
	ASSERT_LT(0, reached) TH_LOG("no decision of the pair reached the rule");
	expect_bound(_metadata, "honest-waker pair", "kept share of the rule's decisions",
		     sw_ratio(v[SW_KEPT], reached), HONEST_KEPT_MIN, 1);
	expect_bound(_metadata, "honest-waker pair", "hint_dropped share of the rule's decisions",
		     sw_ratio(v[SW_HINT_DROPPED], reached), 0, HONEST_DROPPED_MAX);
}

/* A writer that wakes three readers in turn before it sleeps loses the hint. */
TEST_F_TIMEOUT(placement, honest_waker_fanout, ARM_TIMEOUT)
{
	struct arm a;

	run_fanout(_metadata, "honest-waker", true, &a);
	expect_own_complete(_metadata, &a.trace);
	expect_judged(_metadata, "honest-waker fan-out", &a.trace, 0, a.trace.own, true, true,
		      FANOUT_DROPPED_MIN);
}

/* A verdict the wake-affine logic gave before any policy's rule. */
static bool before_rule(int verdict)
{
	return verdict == SW_DECLINED_WAKE_WIDE || verdict == SW_DECLINED_NOT_AFFINE;
}

/*
 * The index, from @from, of the first decision in [@from, @to) that the
 * rule judged dishonest (@dropped: hint_dropped) or honest (!@dropped: it
 * reached the rule on a record that decides and kept its hint); @to - @from
 * if none.
 */
static long first_judged(const struct sw_trace *t, long from, long to, bool dropped)
{
	int v;
	long i;

	for (i = from; i < to; i++) {
		v = t->own_seq[i].verdict;
		if (!own_as_waker(t, i))
			continue;
		if (dropped ? v == SW_HINT_DROPPED :
		    v != SW_HINT_DROPPED && v != SW_HINT_ONLY && !before_rule(v))
			break;
	}
	return i - from;
}

/* "0x5f, 6 kept of 8", or "unknown" */
static const char *record_str(int record, char *buf, size_t size)
{
	if (record < 0)
		return "unknown";
	snprintf(buf, size, "0x%02x, %d kept of %d", record & 0xff,
		 __builtin_popcount(record & 0xff), record >> 8);
	return buf;
}

/*
 * One waker, three phases under one trace: a pipe pair, a round-robin
 * fan-out, a pipe pair again. The phases are told apart by the wakee: the
 * first pairs' children, the readers, the second pairs' children. The
 * pairs' child answers once the waker sleeps (SW_PP_ANSWER_ASLEEP).
 *
 * Into the fan-out the waker is judged dishonest within SW_DISTRUST_BOUND
 * decisions whatever the timing: each of its wakeups breaks the promise of
 * the one before, or is left unjudged where a reader was kept on its
 * CPU, until its keeps turn into probes (sync_wakeup_promise's
 * honest_waker_streamer_bounded). Back to a pair it is judged honest
 * again as soon as half of its last eight promises were kept, which
 * sw_trace_stop() checks at every decision; how soon that is depends on
 * how many promises the emulator's timing breaks, so it is logged, and the
 * test asserts that it happens.
 *
 * The first pair, on probation, is kept on reciprocal-strict's bet, and its
 * record fills only from the decisions that place the wakee apart (its
 * first, and a probe after SW_PROMISE_PROBE_AFTER kept ones, after
 * SW_PROMISE_PROBE_AFTER_KEPT once a probe was kept); and a
 * pair whose wakee is still queued (sched_delayed) when woken makes no
 * decision (ttwu_runnable()): 8 in PHASE_ROUNDS round trips on 7.3's bench
 * kernel (2026-12-06). So each pair phase runs new pairs until this
 * process has kept SW_PROMISE_HONEST more promises (a decision that judged
 * it honest, if it broke none between), at most PHASE_PAIRS of them.
 */
#define PHASE_PAIRS		16

struct phase_pairs {
	pid_t child[PHASE_PAIRS];
	int n;
};

/* Pairs until this process kept SW_PROMISE_HONEST more promises. */
static int run_phase_pairs(struct phase_pairs *pairs)
{
	struct sw_task_promises before, now;
	struct sw_pingpong pp;
	int err;

	err = own_promises(&before);
	for (pairs->n = 0; !err && pairs->n < PHASE_PAIRS; ) {
		err = sw_pingpong_run(0, PHASE_ROUNDS, SW_PP_ANSWER_ASLEEP, NULL, &pp);
		if (err)
			break;
		pairs->child[pairs->n++] = pp.child;
		err = own_promises(&now);
		if (err || now.kept - before.kept >= SW_PROMISE_HONEST)
			break;
	}
	return err;
}

static bool phase_child(const struct phase_pairs *pairs, int pid)
{
	int i;

	for (i = 0; i < pairs->n; i++)
		if (pairs->child[i] == pid)
			return true;
	return false;
}

TEST_F_TIMEOUT(placement, honest_waker_rejudged, 2 * ARM_TIMEOUT)
{
	struct phase_pairs first, last;
	long p2, p3, d2, d3, i;
	struct sw_fanout fo = { 0 };
	struct sw_stats st, window;
	struct arm a;
	char buf[64];
	int err;

	memset(&a, 0, sizeof(a));
	memset(&last, 0, sizeof(last));
	ASSERT_EQ(0, sw_policy_set("honest-waker"));
	err = sw_window_start(true, &window);
	ASSERT_EQ(0, err) TH_LOG("tracing %s: %s", SW_EVENT, strerror(-err));
	err = run_phase_pairs(&first);
	if (!err)
		err = sw_fanout_run(FANOUT_READERS, PHASE_ROUNDS, true, &st, &fo);
	if (!err)
		err = run_phase_pairs(&last);
	ASSERT_EQ(0, sw_window_stop("honest-waker", getpid(), &window, &a.trace));
	ASSERT_EQ(0, err) TH_LOG("workload: %s%s%s", strerror(-err), fo.why ? ": " : "",
				 fo.why ?: "");
	expect_trace_sound(_metadata, "honest-waker phases", &a, true, 2);
	expect_own_complete(_metadata, &a.trace);

	/*
	 * Phase 2 starts at the first other wakee, phase 3 at the last pairs';
	 * a wakeup from an interrupt on this process' CPU is neither.
	 */
	for (p2 = 0; p2 < a.trace.own && (!own_as_waker(&a.trace, p2) ||
					  phase_child(&first, a.trace.own_seq[p2].wakee)); p2++)
		;
	for (p3 = p2; p3 < a.trace.own && (!own_as_waker(&a.trace, p3) ||
					   !phase_child(&last, a.trace.own_seq[p3].wakee)); p3++)
		;
	TH_LOG("phases: pair %ld (%d pairs), fan-out %ld, pair %ld (%d pairs) decisions", p2,
	       first.n, p3 - p2, a.trace.own - p3, last.n);
	ASSERT_LT(0, p2) TH_LOG("no decision of the first pairs");
	ASSERT_LT(p2, p3) TH_LOG("cannot tell the phases apart by their wakees");
	for (i = p2; i < p3; i++)
		ASSERT_FALSE(phase_child(&first, a.trace.own_seq[i].wakee));
	for (i = p3; i < a.trace.own; i++)
		ASSERT_TRUE(!own_as_waker(&a.trace, i) ||
			    phase_child(&last, a.trace.own_seq[i].wakee));

	expect_judged(_metadata, "phase 1, pair", &a.trace, 0, p2, true, true, 0);
	TH_LOG("phase 1 ends with %s on record %s",
	       sw_stat_names[a.trace.own_seq[p2 - 1].verdict],
	       record_str(a.trace.own_seq[p2 - 1].record, buf, sizeof(buf)));

	d2 = first_judged(&a.trace, p2, p3, true);
	i = sw_own_as_waker(&a.trace, p2, p2 + d2 < p3 ? p2 + d2 + 1 : p3);
	TH_LOG("fan-out: first hint_dropped at its decision %ld as the waker (bound %d)", i,
	       SW_DISTRUST_BOUND);
	EXPECT_GE(SW_DISTRUST_BOUND, i);
	expect_judged(_metadata, "phase 2, fan-out", &a.trace, p2 + d2, p3, false, true,
		      FANOUT_DROPPED_MIN);
	EXPECT_EQ(SW_HINT_DROPPED, a.trace.own_seq[p3 - 1].verdict);

	d3 = first_judged(&a.trace, p3, a.trace.own, false);
	ASSERT_GT(a.trace.own - p3, d3) TH_LOG("the second pair was never judged honest");
	TH_LOG("pair again: first judged honest at its decision %ld, on record %s", d3,
	       record_str(a.trace.own_seq[p3 + d3].record, buf, sizeof(buf)));
	expect_judged(_metadata, "phase 3, pair", &a.trace, p3 + d3, a.trace.own, false, true, 0);
}

TEST_HARNESS_MAIN
