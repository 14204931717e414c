// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_promise - how SYNC_PAIR_AFFINE judges a waker's promise to
 * sleep, and where honest-waker finds a waker to judge.
 *
 * A decided sync wakeup whose waker is current (in a task, or in a softirq
 * current ran itself from local_bh_enable(), as loopback networking does)
 * is the waker's promise to sleep; the waker's next decision judges it:
 * kept if the waker blocked after running at most the limit, broken
 * otherwise. These tests check what follows whatever the timing:
 *
 *  - a loopback TCP pair: the sender's wakeups of its peer are decided in
 *    its own softirq (ctx=softirq_bh), judged on its record, and kept ones
 *    land on the sender's CPU;
 *  - a loopback UDP sender that never sleeps breaks every promise, so once
 *    its record shows it dishonest it loses every hint;
 *  - a forked waker starts with an empty record, and the promise pending
 *    when it exits is never judged;
 *  - turning the feature off and on starts every record afresh; writing it
 *    while on changes nothing;
 *  - a wakeup whose hint no-sync dropped is not counted as a sync one.
 *
 * Each decision and promise event is also checked by sw_trace_stop(): the
 * context against the tracer's own flags, the verdict against the record
 * the waker was judged on, each outcome against its ran and limit.
 */
#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

/* Round trips or messages: enough decisions to fill a record twice over. */
#define NET_ROUNDS		300
#define UDP_MESSAGES		300
/* The UDP sender spins this long after each send, for the reader to sleep. */
#define UDP_PAUSE_US		200
#define PIPE_ROUNDS		40
#define PIPE_RUNS		50

/* A limit for a hung test: under TCG with KASAN a test takes tens of seconds. */
#define PROMISE_TIMEOUT		300

FIXTURE(promise) {
	struct sw_saved saved;
	int schedstats;
	long limit;
};

FIXTURE_SETUP(promise)
{
	char why[512];
	int need;

	self->schedstats = -1;
	self->limit = -1;
	need = sw_test_needs(why, sizeof(why));
	if (need > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, need) TH_LOG("%s", why);

	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
	ASSERT_TRUE(self->saved.have_feature);
	/* Off: each test turns it on, which starts every record afresh. */
	ASSERT_EQ(0, sw_feature_set(false));
	ASSERT_EQ(0, sw_policy_set("honest-waker"));
	/* For this process' promises in /proc/self/sched. */
	self->schedstats = sw_schedstats_set(1);
	ASSERT_LE(0, self->schedstats) TH_LOG("kernel.sched_schedstats: %s",
					      strerror(-self->schedstats));
	/*
	 * A waker that blocks before its next decision keeps its promise,
	 * however slow the emulated CPU; limit_zero_late tests the limit.
	 */
	self->limit = sw_limit_set(SW_LIMIT_RELAXED_NS);
	ASSERT_LE(0, self->limit) TH_LOG("%s: %s", SW_LIMIT_PATH, strerror(-self->limit));
}

FIXTURE_TEARDOWN_PARENT(promise)
{
	EXPECT_EQ(0, sw_trace_restore());
	if (self->limit >= 0)
		EXPECT_LE(0, sw_limit_set(self->limit));
	EXPECT_EQ(0, sw_restore(&self->saved));
	if (self->schedstats >= 0)
		EXPECT_LE(0, sw_schedstats_set(self->schedstats));
}

/* Decisions of the traced waker in [@from, @to), by context and verdict. */
struct own_tally {
	long n;
	long ctx[SW_NR_CONTEXTS];
	long v[SW_NR_STATS];
	long bh_v[SW_NR_STATS];		/* of those in ctx=softirq_bh */
};

static void tally(const struct sw_trace *t, long from, long to, struct own_tally *c)
{
	const struct sw_own_decision *d;
	long i;

	memset(c, 0, sizeof(*c));
	for (i = from; i < to && i < SW_TRACE_OWN_MAX; i++) {
		d = &t->own_seq[i];
		c->n++;
		c->ctx[d->ctx]++;
		c->v[d->verdict]++;
		if (d->ctx == SW_CTX_SOFTIRQ_BH)
			c->bh_v[d->verdict]++;
	}
}

/*
 * The first of the waker's decisions from a task or its own softirq on a
 * record that @full: holds SW_PROMISE_HISTORY promises; !@full: decides
 * (honest or dishonest).
 */
static long record_at(const struct sw_trace *t, bool full)
{
	int record;
	long i;

	for (i = 0; i < t->own && i < SW_TRACE_OWN_MAX; i++) {
		record = t->own_seq[i].record;
		if (t->own_seq[i].ctx > SW_CTX_SOFTIRQ_BH || record < 0)
			continue;
		if (full ? record >> 8 == SW_PROMISE_HISTORY :
			   sw_record_honest(record) || sw_record_dishonest(record))
			break;
	}
	return i;
}

static long promises_judged(const struct sw_trace *t)
{
	return t->own_promises[SW_PROMISE_SLEPT] + t->own_promises[SW_PROMISE_LATE] +
	       t->own_promises[SW_PROMISE_AWAKE];
}

static void log_trace(struct __test_metadata *_metadata, const char *label,
		      const struct sw_trace *t, const struct own_tally *c)
{
	char buf[512];

	TH_LOG("%s: trace %s", label, sw_trace_str(t, buf, sizeof(buf)));
	TH_LOG("%s: %ld decisions of the waker, its record full at %ld, deciding at %ld", label,
	       t->own, record_at(t, true), record_at(t, false));
	TH_LOG("%s: since: task %ld, softirq_bh %ld, softirq %ld, hardirq %ld", label,
	       c->ctx[SW_CTX_TASK], c->ctx[SW_CTX_SOFTIRQ_BH], c->ctx[SW_CTX_SOFTIRQ],
	       c->ctx[SW_CTX_HARDIRQ]);
	TH_LOG("%s: promises slept %ld, late %ld, awake %ld, shared %ld", label,
	       t->own_promises[SW_PROMISE_SLEPT], t->own_promises[SW_PROMISE_LATE],
	       t->own_promises[SW_PROMISE_AWAKE], t->own_promises[SW_PROMISE_SHARED]);
	EXPECT_EQ(0, t->wrong) TH_LOG("%s: %s", label, t->why);
	ASSERT_GE(SW_TRACE_OWN_MAX, t->own);
}

/*
 * Run pipe ping-pongs of PIPE_ROUNDS (@flags: SW_PP_*) with the feature on
 * until @want of this process' promises were judged meanwhile
 * (/proc/self/sched), at most PIPE_RUNS of them: a wakeup of a wakee still
 * queued is not decided, so how many round trips that takes depends on
 * the timing. How many were judged goes to *@judged. Returns 0 or -errno,
 * and asserts nothing, so that a caller tracing meanwhile stops the trace
 * first. Under hint-only every promise is judged; honest-waker keeps a
 * pipe pair on its CPU and leaves those promises unjudged (shared).
 */
static int pipe_promises(long want, unsigned int flags, long *judged)
{
	struct sw_task_promises before, after;
	struct sw_pingpong pp;
	int err, i;

	*judged = 0;
	err = sw_task_promises(0, &before);
	for (i = 0; !err && i < PIPE_RUNS && *judged < want; i++) {
		err = sw_pingpong_run(0, PIPE_ROUNDS, flags, NULL, &pp);
		if (!err)
			err = sw_task_promises(0, &after);
		if (!err)
			*judged = after.kept + after.broken - before.kept - before.broken;
	}
	return err;
}

/*
 * A loopback TCP pair: the client's sends run NET_RX in its own softirq,
 * where it wakes the server; those decisions are judged on its record
 * (sw_trace_stop() replays each, the reciprocal bet on probation too), none
 * is hint_only, which is for a wakeup with no waker to judge, and some are
 * kept, each on the client's CPU (sw_trace_stop() follows the wakee).
 */
TEST_F_TIMEOUT(promise, tcp_loopback_judged, PROMISE_TIMEOUT)
{
	struct own_tally c;
	struct sw_trace t;
	struct sw_net net;
	int err, terr;

	err = sw_asym_capacity();
	ASSERT_LE(0, err) TH_LOG("cpu_capacity: %s", strerror(-err));
	if (err)
		SKIP(return, "CPUs of unequal capacity: whether the wakee fits decides");
	ASSERT_EQ(0, sw_feature_set(true));
	ASSERT_EQ(0, sw_trace_start());
	err = sw_tcp_pingpong_run(NET_ROUNDS, &net);
	terr = sw_trace_stop("honest-waker", &t);
	ASSERT_EQ(0, err) TH_LOG("TCP ping-pong: %s", strerror(-err));
	ASSERT_EQ(0, terr) TH_LOG("reading the trace: %s", strerror(-terr));
	EXPECT_EQ(NET_ROUNDS, net.answered);
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "tcp", &t, &c);
	TH_LOG("tcp: in its own softirq: kept %ld, hint_dropped %ld",
	       c.bh_v[SW_KEPT], c.bh_v[SW_HINT_DROPPED]);
	TH_LOG("tcp: ... waker busy %ld, wide %ld, not affine %ld",
	       c.bh_v[SW_DECLINED_WAKER_BUSY], c.bh_v[SW_DECLINED_WAKE_WIDE],
	       c.bh_v[SW_DECLINED_NOT_AFFINE]);

	ASSERT_LT(0, c.ctx[SW_CTX_SOFTIRQ_BH])
		TH_LOG("no decision in the client's own softirq");
	EXPECT_EQ(0, c.bh_v[SW_HINT_ONLY])
		TH_LOG("hint_only in the client's own softirq");
	EXPECT_LT(0, c.bh_v[SW_KEPT])
		TH_LOG("no wakeup from the client's own softirq kept on its CPU");
}

/*
 * A loopback UDP sender that never sleeps: each of its decisions finds it
 * awake since the one before, so every promise is broken ("awake"), and
 * its record shows it dishonest after SW_PROMISE_HISTORY -
 * SW_PROMISE_HONEST + 1 broken ones. Its receiver never wakes it, so on
 * probation reciprocal-strict's bet drops the hint as well: every decision
 * of the sender drops the hint, from its first. Declined instead, as
 * reciprocal-only's bet was, its first decisions kept the hint.
 */
TEST_F_TIMEOUT(promise, udp_sender_dishonest, PROMISE_TIMEOUT)
{
	struct own_tally c;
	struct sw_trace t;
	struct sw_net net;
	long decided;
	int err, terr;

	ASSERT_EQ(0, sw_feature_set(true));
	ASSERT_EQ(0, sw_trace_start());
	err = sw_udp_stream_run(UDP_MESSAGES, UDP_PAUSE_US, &net);
	terr = sw_trace_stop("honest-waker", &t);
	ASSERT_EQ(0, err) TH_LOG("UDP stream: %s", strerror(-err));
	ASSERT_EQ(0, terr) TH_LOG("reading the trace: %s", strerror(-terr));
	EXPECT_EQ(UDP_MESSAGES, net.sent);
	decided = record_at(&t, false);
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "udp", &t, &c);

	EXPECT_LE(SW_PROMISE_HISTORY - SW_PROMISE_HONEST + 1, decided)
		TH_LOG("judged before %d promises were on record",
		       SW_PROMISE_HISTORY - SW_PROMISE_HONEST + 1);
	ASSERT_GT(t.own, decided) TH_LOG("the sender's record never decided");
	EXPECT_LT(0, c.ctx[SW_CTX_SOFTIRQ_BH])
		TH_LOG("no decision in the sender's own softirq");
	/* hint_dropped only where there is a waker to judge: task, softirq_bh. */
	EXPECT_EQ(c.ctx[SW_CTX_TASK] + c.ctx[SW_CTX_SOFTIRQ_BH], c.v[SW_HINT_DROPPED])
		TH_LOG("%ld of the sender's %ld decisions dropped the hint (record decided at %ld)",
		       c.v[SW_HINT_DROPPED], c.ctx[SW_CTX_TASK] + c.ctx[SW_CTX_SOFTIRQ_BH],
		       decided);
	EXPECT_LT(0, promises_judged(&t));
	EXPECT_EQ(promises_judged(&t), t.own_promises[SW_PROMISE_AWAKE])
		TH_LOG("a sender that never sleeps kept or slept on a promise");
}

/*
 * A waker honest-waker trusts turns into a streamer: a pipe pair in which
 * each side writes only once the other sleeps fills this process' record
 * with kept promises (under hint-only, which judges every promise: kept on
 * honest-waker's bet, the pair's would be left unjudged, shared), runs on
 * under honest-waker, and then this process sends UDP_MESSAGES datagrams, each once the
 * receiver sleeps, and should not block. Each promise it makes from then on is
 * shared (its wakee was kept on its CPU) or judged: at most
 * SW_PROMISE_PROBE_AFTER_KEPT shared ones come before its keeps turn into
 * probes, which are judged (a broken one when the next breaks too), and
 * five broken ones leave fewer than SW_PROMISE_HONEST kept of eight. So,
 * whatever the timing, the stream's first hint_dropped is at its
 * SW_DISTRUST_BOUND-th decision at the latest, counted from the start of
 * the stream or from the last promise it kept, and every later decision
 * that reaches the rule drops the hint.
 */
TEST_F_TIMEOUT(promise, honest_waker_streamer_bounded, PROMISE_TIMEOUT)
{
	struct sw_pingpong pp;
	struct own_tally c;
	struct sw_trace t;
	struct sw_net net;
	long start, from, first, other, n, i, judged;
	int err, terr, record, v;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_feature_set(true));
	err = pipe_promises(SW_PROMISE_HISTORY, SW_PP_BOTH_ASLEEP, &judged);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_LE(SW_PROMISE_HISTORY, judged) TH_LOG("the record is not full");
	ASSERT_EQ(0, sw_policy_set("honest-waker"));
	ASSERT_EQ(0, sw_trace_start());
	err = sw_pingpong_run(0, PIPE_ROUNDS, SW_PP_BOTH_ASLEEP, NULL, &pp);
	if (!err)
		err = sw_udp_stream_run(UDP_MESSAGES, UDP_PAUSE_US, &net);
	terr = sw_trace_stop("honest-waker", &t);
	ASSERT_EQ(0, err) TH_LOG("pair, then UDP stream: %s", strerror(-err));
	ASSERT_EQ(0, terr) TH_LOG("reading the trace: %s", strerror(-terr));
	EXPECT_EQ(UDP_MESSAGES, net.sent);
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "pair, then stream", &t, &c);

	/* The stream starts at the first wakee that is not the pair's child. */
	for (start = 0; start < t.own && t.own_seq[start].wakee == t.own_seq[0].wakee; start++)
		;
	ASSERT_LT(start, t.own) TH_LOG("no decision of the stream");
	record = t.own_seq[start].record;
	TH_LOG("the stream's first decision: %s on record 0x%02x of %d",
	       sw_stat_names[t.own_seq[start].verdict], record & 0xff, record >> 8);
	ASSERT_TRUE(record >= 0 && record >> 8 == SW_PROMISE_HISTORY &&
		    __builtin_popcount(record & 0xff) >= SW_PROMISE_HONEST)
		TH_LOG("the pair did not leave this process trusted: nothing to bound");
	/*
	 * The bound holds for a waker that stops sleeping: a promise the
	 * sender kept starts it again, from the decision that judged it
	 * (the witness checks that a kept promise's waker blocked).
	 */
	for (first = from = start;
	     first < t.own && t.own_seq[first].verdict != SW_HINT_DROPPED; first++)
		if (t.own_seq[first].judged == SW_PROMISE_SLEPT)
			from = first;
	if (from > start)
		TH_LOG("the stream kept a promise: bound from its decision %ld as the waker",
		       sw_own_as_waker(&t, start, from + 1));
	n = sw_own_as_waker(&t, from, first < t.own ? first + 1 : t.own);
	TH_LOG("the stream's first hint_dropped at decision %ld as the waker of %ld (bound %d)",
	       n, sw_own_as_waker(&t, from, t.own), SW_DISTRUST_BOUND);
	EXPECT_LT(first, t.own) TH_LOG("no decision of the stream dropped the hint");
	EXPECT_GE(SW_DISTRUST_BOUND, n);
	for (i = first, other = 0; i < t.own; i++) {
		v = t.own_seq[i].verdict;
		if (v == SW_HINT_DROPPED || v == SW_DECLINED_WAKE_WIDE ||
		    v == SW_DECLINED_NOT_AFFINE)
			continue;
		if (!other++)
			TH_LOG("decision %ld of the stream, after its first hint_dropped: %s",
			       i - start + 1, sw_stat_names[v]);
	}
	EXPECT_EQ(0, other) TH_LOG("%ld decisions kept the hint after the first dropped it",
				   other);
}

/*
 * A waker with a full record forks: the child's record starts empty, so
 * it holds SW_PROMISE_HISTORY promises no sooner than at the child's
 * decision after as many; and the promise its last decision made is never
 * judged, at exit or after: one promise event fewer than decisions. Under
 * hint-only, which judges every promise (a record is kept under every
 * policy; honest-waker's bet would keep a new pipe pair together and leave
 * its promises unjudged).
 */
TEST_F_TIMEOUT(promise, fork_empty_exit_unjudged, PROMISE_TIMEOUT)
{
	struct own_tally c;
	struct sw_trace t;
	long judged;
	pid_t pid;
	int status, err;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_feature_set(true));
	err = pipe_promises(SW_PROMISE_HISTORY, 0, &judged);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	TH_LOG("parent: %ld promises judged before the fork", judged);
	ASSERT_LE(SW_PROMISE_HISTORY, judged) TH_LOG("the parent's record is not full");

	ASSERT_EQ(0, sw_trace_start());
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	/*
	 * A round trip is a decision only when the wakee already sleeps: 7 to
	 * 23 of 40 round trips were, in make check runs on the icount clock;
	 * 8 of 160 in one on 7.3's bench kernel. Judged promises until the
	 * record is full are decisions but for the last.
	 */
	if (pid == 0)
		_exit(pipe_promises(SW_PROMISE_HISTORY, 0, &judged) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, sw_trace_stop_pid("hint-only", pid, &t));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "child", &t, &c);

	ASSERT_LT(SW_PROMISE_HISTORY, t.own) TH_LOG("the child made too few decisions");
	EXPECT_LE(SW_PROMISE_HISTORY, record_at(&t, true))
		TH_LOG("the child was judged on a record it did not make");
	EXPECT_EQ(t.own - 1, promises_judged(&t) + t.own_promises[SW_PROMISE_SHARED] +
			     t.own_promises[SW_PROMISE_REPROBE])
		TH_LOG("%ld decisions, %ld promises judged, %ld shared, %ld reprobed", t.own,
		       promises_judged(&t), t.own_promises[SW_PROMISE_SHARED],
		       t.own_promises[SW_PROMISE_REPROBE]);
}

/*
 * Turning the feature off and on starts every record afresh: a waker with
 * a full record holds SW_PROMISE_HISTORY promises again no sooner than at
 * its decision after as many. Writing the feature while it is on changes
 * nothing: the record stays full, and the first decision is judged on it.
 * Under hint-only, as fork_empty_exit_unjudged.
 */
TEST_F_TIMEOUT(promise, toggle_starts_afresh, PROMISE_TIMEOUT)
{
	struct sw_pingpong pp;
	struct own_tally c;
	struct sw_trace t;
	long judged, i;
	int err;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_feature_set(true));
	err = pipe_promises(SW_PROMISE_HISTORY, 0, &judged);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_LE(SW_PROMISE_HISTORY, judged) TH_LOG("the record is not full");

	ASSERT_EQ(0, sw_feature_set(true));
	ASSERT_EQ(0, sw_trace_start());
	err = sw_pingpong_run(0, PIPE_ROUNDS, 0, NULL, &pp);
	ASSERT_EQ(0, sw_trace_stop("hint-only", &t));
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "on again while on", &t, &c);
	/* A decision's record is known once a promise event of this process came before it. */
	for (i = 0; i < t.own && t.own_seq[i].record < 0; i++)
		;
	ASSERT_LT(i, t.own) TH_LOG("no promise of this process in the trace");
	EXPECT_EQ(i, record_at(&t, true)) TH_LOG("the record did not survive");

	ASSERT_EQ(0, sw_feature_set(false));
	ASSERT_EQ(0, sw_feature_set(true));
	ASSERT_EQ(0, sw_trace_start());
	err = pipe_promises(SW_PROMISE_HISTORY + 1, 0, &judged);
	ASSERT_EQ(0, sw_trace_stop("hint-only", &t));
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "off and on", &t, &c);
	ASSERT_LT(SW_PROMISE_HISTORY, t.own);
	EXPECT_LE(SW_PROMISE_HISTORY, record_at(&t, true))
		TH_LOG("judged on a record from before the feature was off");
}

/*
 * With a limit of 0 a waker keeps a promise only if less than 1024 ns of
 * runtime is accounted between it and its block: a pipe waker's promises
 * are "late" when it blocked first, and the replay (sw_trace_stop())
 * fails any kept one whose run was over the limit. A kept one with no
 * measured run is possible where sched_clock is coarse (one of 35 in a
 * clean-clone make check on llc2, 2026-12-03), so only "late" ones are
 * required.
 */
TEST_F_TIMEOUT(promise, limit_zero_late, PROMISE_TIMEOUT)
{
	struct sw_pingpong pp;
	struct own_tally c;
	struct sw_trace t;
	int err;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_LE(0, sw_limit_set(0));
	ASSERT_EQ(0, sw_feature_set(true));
	ASSERT_EQ(0, sw_trace_start());
	err = sw_pingpong_run(0, PIPE_ROUNDS, 0, NULL, &pp);
	ASSERT_EQ(0, sw_trace_stop("hint-only", &t));
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	tally(&t, 0, t.own, &c);
	log_trace(_metadata, "limit 0", &t, &c);
	EXPECT_LT(0, t.own_promises[SW_PROMISE_LATE]);
}

/* "nr_wakeups : N" and "nr_wakeups_sync : N" of /proc/@pid/sched. */
static int task_wakeups(pid_t pid, long *wakeups, long *sync)
{
	char path[64], buf[16384], *line, *save;
	int found = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	n = sw_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "nr_wakeups : %ld", wakeups) == 1)
			found |= 1;
		else if (sscanf(line, "nr_wakeups_sync : %ld", sync) == 1)
			found |= 2;
	}
	return found == 3 ? 0 : -ENOENT;
}

/*
 * no-sync drops the hint for the whole wakeup, as a caller that passed
 * none: ttwu_stat() does not count a wakeup it decided in nr_wakeups_sync.
 * A child echoes what this process writes into a pipe: its wakeups are
 * sync ones by this process, bar a wait for anything else (a pipe's
 * mutex, a page read in over 9p), whose wakeup never had the flag. Every
 * decision the trace shows for it is then one of its wakeups not counted
 * as sync (one woken while still queued is not decided and keeps the
 * flag). Without the flag cleared, none of the decided wakeups would be
 * among those.
 */
TEST_F_TIMEOUT(promise, no_sync_drops_the_flag, PROMISE_TIMEOUT)
{
	long w0 = 0, s0 = 0, w1 = 0, s1 = 0, dropped = 0, i;
	int to[2], from[2], err = 0, status;
	struct sw_trace t;
	char c = 'x';
	pid_t pid;

	ASSERT_EQ(0, sw_policy_set("no-sync"));
	ASSERT_EQ(0, pipe2(to, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(from, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(to[1]);
		close(from[0]);
		/* Ready: from here on it blocks in read() and write() only. */
		if (write(from[1], &c, 1) == 1)
			while (read(to[0], &c, 1) == 1 && write(from[1], &c, 1) == 1)
				;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	ASSERT_EQ(1, read(from[0], &c, 1));
	ASSERT_EQ(0, sw_feature_set(true));
	/* The child blocks in read() until the first write: nothing moves. */
	err = task_wakeups(pid, &w0, &s0);
	if (!err)
		err = sw_trace_start();
	for (i = 0; !err && i < NET_ROUNDS; i++) {
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			err = -EIO;
	}
	if (!err)
		err = task_wakeups(pid, &w1, &s1);
	EXPECT_EQ(0, sw_trace_stop("no-sync", &t));
	close(to[1]);
	close(from[0]);
	waitpid(pid, &status, 0);
	ASSERT_EQ(0, err) TH_LOG("echo child: %s", strerror(-err));
	ASSERT_GE(SW_TRACE_OWN_MAX, t.own);
	for (i = 0; i < t.own; i++)
		dropped += t.own_seq[i].wakee == pid &&
			   t.own_seq[i].verdict == SW_HINT_DROPPED;
	TH_LOG("child: %ld wakeups, %ld of them sync; %ld decisions hint_dropped",
	       w1 - w0, s1 - s0, dropped);
	EXPECT_EQ(0, t.wrong) TH_LOG("%s", t.why);
	/* Energy-aware placement, say, returns before any decision. */
	if (!dropped && s1 - s0 == w1 - w0)
		SKIP(return, "no wakeup of the child was decided");
	ASSERT_LT(0, dropped);
	EXPECT_LE(dropped, (w1 - w0) - (s1 - s0))
		TH_LOG("%ld decisions dropped the hint, only %ld wakeups not counted as sync",
		       dropped, (w1 - w0) - (s1 - s0));
}

TEST_HARNESS_MAIN
