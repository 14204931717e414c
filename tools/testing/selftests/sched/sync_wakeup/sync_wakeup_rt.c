// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_rt - what only a PREEMPT_RT kernel shows of SYNC_PAIR_AFFINE's
 * promises: a wait for a sleeping spinlock is not the sleep a sync waker
 * promised.
 *
 * Under PREEMPT_RT, spinlock_t sleeps: a task that finds one held by a
 * preempted owner switches out through schedule_rtlock(), which moves its
 * nvcsw as a block does. Such a wait stands in for a spin, so it must not
 * keep a promise. The waker here makes sync wakeups (an AF_UNIX datagram to
 * a sleeping reader) and in between takes its process' siglock
 * (sigprocmask()), which a second thread on the same CPU holds most of the
 * time (sigaction() to "ignored" walks every thread of the process under
 * it). The waker does nothing else that can sleep in D (its memory is
 * locked, its sends do not wait), so each promise whose waker switched out
 * in D only since must be judged "awake"; and now and then it sleeps
 * (nanosleep(), S) after its spinlock waits, a promise then kept: the
 * correction must not hide a real block either.
 */
#include "sync_wakeup.h"

#include <pthread.h>

#include "../../kselftest_harness.h"

/* Threads for the holder's sigaction() to walk under siglock. */
#define RT_IDLE_THREADS		128
#define RT_STACK		(64 * 1024)
/* The waker's sends, its sigprocmask() calls after each, and how often it sleeps. */
#define RT_SENDS		2000
#define RT_MASKS		8
#define RT_SLEEP_EVERY		20
#define RT_SLEEP_NS		200000
/* Runs until one shows a promise followed by a spinlock wait. */
#define RT_RUNS			3
#define RT_TIMEOUT		300

struct rt_run {
	int sv[2];		/* the waker's socket, the reader's */
	int idle[2];		/* the idle threads read [0] until EOF */
	cpu_set_t all;		/* the CPUs the test may use */
	int cpu;		/* the waker's and the holder's: the first of them */
	int stop;		/* __atomic: the holder and the reader read it */
	long sent, received;
};

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void *idle_thread(void *arg)
{
	struct rt_run *r = arg;
	char c;

	while (read(r->idle[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Holds siglock as much as it can, on the waker's CPU. */
static void *holder_thread(void *arg)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	struct rt_run *r = arg;

	if (pin_self(r->cpu))
		return (void *)1;
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		/* SIGWINCH is ignored either way: both walk the threads. */
		sigaction(SIGWINCH, &ign, NULL);
		sigaction(SIGWINCH, &dfl, NULL);
	}
	return NULL;
}

/*
 * The wakee: sleeps in recv() until the waker's next datagram, on every
 * CPU (or its wakeups are not placed at all), until told to stop.
 */
static void *reader_thread(void *arg)
{
	struct timeval tv = { .tv_usec = 100000 };
	struct rt_run *r = arg;
	char c;

	if (sched_setaffinity(0, sizeof(r->all), &r->all) ||
	    setsockopt(r->sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return (void *)1;
	for (;;) {
		if (recv(r->sv[1], &c, 1, 0) == 1)
			r->received++;
		else if (errno != EAGAIN || __atomic_load_n(&r->stop, __ATOMIC_RELAXED))
			return NULL;
	}
}

/* The waker: a sync wakeup, then RT_MASKS takes of siglock; now and then a sleep. */
static void waker(struct rt_run *r, long sends)
{
	struct timespec nap = { .tv_nsec = RT_SLEEP_NS };
	sigset_t usr1;
	char c = 'x';
	long i;
	int k;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	for (i = 0; i < sends; i++) {
		if (send(r->sv[0], &c, 1, MSG_DONTWAIT) == 1)
			r->sent++;
		for (k = 0; k < RT_MASKS; k++)
			sigprocmask(k & 1 ? SIG_UNBLOCK : SIG_BLOCK, &usr1, NULL);
		if (i % RT_SLEEP_EVERY == RT_SLEEP_EVERY - 1)
			nanosleep(&nap, NULL);
	}
}

/* One run with the trace on: 0, or a negative errno. */
static int rt_contend(struct rt_run *r, const char *policy, struct sw_trace *t)
{
	pthread_t idle[RT_IDLE_THREADS], holder, reader;
	void *holder_ret = NULL, *reader_ret = NULL;
	pthread_attr_t attr;
	int i, n = 0, err = 0, terr;

	memset(r, 0, sizeof(*r));
	if (sched_getaffinity(0, sizeof(r->all), &r->all))
		return -errno;
	for (r->cpu = 0; !CPU_ISSET(r->cpu, &r->all); r->cpu++)
		;
	if (pin_self(r->cpu))
		return -errno;
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, r->sv))
		return -errno;
	if (pipe(r->idle)) {
		err = -errno;
		close(r->sv[0]);
		close(r->sv[1]);
		return err;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RT_STACK);
	for (; n < RT_IDLE_THREADS && !err; n++)
		err = -pthread_create(&idle[n], &attr, idle_thread, r);
	if (err)
		n--;
	if (!err)
		err = -pthread_create(&reader, &attr, reader_thread, r);
	if (!err) {
		/* Warm: every page the waker touches is in before the trace. */
		waker(r, 10);
		err = sw_trace_start();
		if (!err && pthread_create(&holder, &attr, holder_thread, r))
			err = -EAGAIN;
		if (!err) {
			waker(r, RT_SENDS);
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
			pthread_join(holder, &holder_ret);
		}
		terr = sw_trace_stop(policy, t);
		if (!err)
			err = holder_ret ? -EINVAL : terr;
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
		pthread_join(reader, &reader_ret);
		if (!err && reader_ret)
			err = -EINVAL;
	}
	close(r->idle[1]);
	for (i = 0; i < n; i++)
		pthread_join(idle[i], NULL);
	close(r->idle[0]);
	close(r->sv[0]);
	close(r->sv[1]);
	pthread_attr_destroy(&attr);
	if (sched_setaffinity(0, sizeof(r->all), &r->all) && !err)
		err = -errno;
	return err;
}

FIXTURE(rt) {
	struct sw_saved saved;
};

FIXTURE_SETUP(rt)
{
	char why[512];
	int need;

	need = sw_test_needs(why, sizeof(why));
	if (need > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, need) TH_LOG("%s", why);
	if (!sw_kernel_rt())
		SKIP(return, "needs a PREEMPT_RT kernel (make check-rt)");
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
	ASSERT_TRUE(self->saved.have_feature);
	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_feature_set(true));
}

FIXTURE_TEARDOWN_PARENT(rt)
{
	EXPECT_EQ(0, sw_trace_restore());
	EXPECT_EQ(0, sw_restore(&self->saved));
}

/*
 * The waker's promises followed by spinlock waits only are judged
 * "awake": schedule_rtlock() moved the promise's snapshot past them.
 * Without that, each is "slept" or "late". Those followed by a sleep as
 * well are not "awake" (sw_trace_stop() checks every witnessed promise).
 */
TEST_F_TIMEOUT(rt, rtlock_wait_is_no_block, RT_TIMEOUT)
{
	struct rt_run r;
	struct sw_trace t;
	char buf[512];
	int run, err;

	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE)) TH_LOG("mlockall: %s", strerror(errno));
	for (run = 0; run < RT_RUNS; run++) {
		err = rt_contend(&r, "hint-only", &t);
		ASSERT_EQ(0, err) TH_LOG("run %d: %s", run, strerror(-err));
		TH_LOG("run %d: sent %ld, received %ld; trace %s", run, r.sent, r.received,
		       sw_trace_str(&t, buf, sizeof(buf)));
		TH_LOG("run %d: the waker's promises slept %ld, late %ld, awake %ld", run,
		       t.own_promises[SW_PROMISE_SLEPT], t.own_promises[SW_PROMISE_LATE],
		       t.own_promises[SW_PROMISE_AWAKE]);
		TH_LOG("run %d: after switches in D only %ld, of them not awake %ld", run,
		       t.promises_d_only, t.d_only_not_awake);
		TH_LOG("run %d: after D and a sleep %ld", run, t.promises_d_and_slept);
		EXPECT_EQ(0, t.wrong) TH_LOG("%s", t.why);
		if (t.promises_d_only && t.promises_d_and_slept)
			break;
	}
	ASSERT_LT(0, t.promises_d_only)
		TH_LOG("in %d runs no promise was followed by a spinlock wait alone", RT_RUNS);
	ASSERT_LT(0, t.promises_d_and_slept)
		TH_LOG("in %d runs no promise was followed by a spinlock wait and a sleep",
		       RT_RUNS);
	EXPECT_EQ(0, t.d_only_not_awake)
		TH_LOG("a spinlock wait kept a promise: %s", t.d_only_judged);
}

TEST_HARNESS_MAIN
