// SPDX-License-Identifier: GPL-2.0
/*
 * Torture SYNC_PAIR_AFFINE while it is in use. Ping-pong pairs hand a token
 * back and forth over pipes (sync wakeups) while threads flip the policy
 * (one write in ten a bad value) and the feature bit, take every CPU but 0
 * off and on line, move the pairs between CPU masks, and read and reset the
 * counters. A lost wakeup leaves a pair asleep for good: the watchdog fails
 * the run when a pair makes no round trip for --stall seconds. Where the
 * cpu cgroup controller is on cgroup v2, another thread makes groups,
 * writes their cpu.sync_wakeup (one write in ten a bad value), moves the
 * pairs into them and back out, and removes them at once. Every
 * snapshot of the counters, whatever the policy flips and resets around it,
 * must have sync_wakeups equal to the sum of the verdicts.
 *
 * Not a kselftest of its own: it runs for minutes, meant to run beside a
 * load such as stress-ng's pipe and futex stressors. Prints TAP.
 *
 * Usage: sync_wakeup_torture [-d SECONDS] [-p PAIRS] [-s STALL_SECONDS] [-x]
 * -x stops pair 0 with SIGSTOP after a second, to show that the watchdog
 * catches a pair that no longer runs: the run must then fail.
 */
#include "sync_wakeup.h"

#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/stat.h>

#define MAX_PAIRS	16
#define MAX_CPUS	64

struct pair {
	pid_t ping, pong;
	atomic_ulong ping_sent, ping_received, pong_received, pong_sent;
};

/* In shared memory: the pair processes count there. */
struct shared {
	atomic_int stop_pairs;
	struct pair pair[MAX_PAIRS];
};

static struct shared *shm;
static int nr_pairs = 2;
static int nr_cpus;
static atomic_int stop_chaos;

/* What the chaos threads did, and what went wrong (errors stop nothing). */
static atomic_ulong flips, bad_writes, bad_write_errors, flip_errors;
static atomic_ulong toggles, toggle_errors;
static atomic_ulong hotplug_cycles, hotplug_busy, hotplug_errors;
static atomic_ulong affinity_moves, affinity_empty, affinity_errors;
static atomic_ulong stat_reads, stat_resets, stat_bad_rejected, stat_errors;
static atomic_ulong group_cycles, group_moves, group_bad_writes, group_errors;

/* The torture's groups, under cgroup v2's root; empty: no cpu controller. */
static char cg_root[256], cg_top[320];
static bool cg_cpu_was_on;

static char first_error[256];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_error(atomic_ulong *counter, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(counter, 1);
	pthread_mutex_lock(&error_lock);
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&error_lock);
}

static unsigned long rnd(unsigned long *state)
{
	unsigned long x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static unsigned long rnd_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_nsec ^ (unsigned long)pthread_self() ^ getpid()) | 1;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- the pairs ------------------------------------------------------ */

static int ping(struct pair *p, int to_pong, int from_pong)
{
	char c = 'x';

	while (!atomic_load(&shm->stop_pairs)) {
		if (sw_write_full(to_pong, &c, 1))
			return 1;
		atomic_fetch_add(&p->ping_sent, 1);
		if (sw_read_full(from_pong, &c, 1))
			return 1;
		atomic_fetch_add(&p->ping_received, 1);
	}
	close(to_pong);		/* pong reads EOF and exits */
	return 0;
}

static int pong(struct pair *p, int from_ping, int to_ping)
{
	ssize_t n;
	char c;

	for (;;) {
		n = read(from_ping, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		if (!n)
			return 0;
		atomic_fetch_add(&p->pong_received, 1);
		if (sw_write_full(to_ping, &c, 1))
			return 1;
		atomic_fetch_add(&p->pong_sent, 1);
	}
}

/* The pids go to shared memory only from here: a child would write its 0. */
static int start_pair(struct pair *p)
{
	pid_t ping_pid, pong_pid;
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return -errno;
	pong_pid = fork();
	if (pong_pid < 0)
		return -errno;
	if (!pong_pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(a[1]);
		close(b[0]);
		_exit(pong(p, a[0], b[1]));
	}
	ping_pid = fork();
	if (ping_pid < 0)
		return -errno;
	if (!ping_pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(a[0]);
		close(b[1]);
		_exit(ping(p, a[1], b[0]));
	}
	p->pong = pong_pid;
	p->ping = ping_pid;
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return 0;
}

/* ---- chaos ---------------------------------------------------------- */

struct bad_value {
	const char *bytes;
	size_t len;
};

#define BAD(s) { s, sizeof(s) - 1 }

static const struct bad_value bad_policies[] = {
	BAD(""), BAD("\n"), BAD("hint"), BAD("hint-only\n\n"), BAD("Hint-only"),
	BAD(" no-sync"), BAD("no-sync "), BAD("reciprocal"), BAD("reciprocal-strictly"),
	BAD("waker-if-alone\nno-sync"), BAD("0"), BAD("-1"), BAD("no-sync\0garbage"),
};

/*
 * Every few ms: a random policy, every tenth write a bad one (each in turn);
 * flip the feature every other time. Counted, not drawn: a slow guest makes
 * only a few dozen rounds, and each kind must come up in them.
 */
static void *flipper(void *arg)
{
	unsigned long seed = rnd_seed(), n;
	char before[64], after[64], name[80];
	bool on = false;
	int err;

	for (n = 0; !atomic_load(&stop_chaos); n++) {
		unsigned long r = rnd(&seed);

		if (n % 10 == 1) {
			const struct bad_value *bad =
				&bad_policies[(n / 10) % ARRAY_SIZE(bad_policies)];

			if (sw_policy_get(before, sizeof(before))) {
				note_error(&bad_write_errors, "cannot read the policy");
				continue;
			}
			err = sw_write_file(SW_POLICY_PATH, bad->bytes, bad->len);
			if (err != -EINVAL)
				note_error(&bad_write_errors, "bad policy \"%s\": %s, not EINVAL",
					   bad->bytes, err ? strerror(-err) : "accepted");
			if (sw_policy_get(after, sizeof(after)) || strcmp(before, after))
				note_error(&bad_write_errors, "bad policy \"%s\" changed %s to %s",
					   bad->bytes, before, after);
			atomic_fetch_add(&bad_writes, 1);
		} else {
			const char *good = sw_policies[(r / 10) % SW_NR_POLICIES];

			snprintf(name, sizeof(name), "%s%s", good, r & 1024 ? "\n" : "");
			err = sw_write_str(SW_POLICY_PATH, name);
			if (err || sw_policy_get(after, sizeof(after)) || strcmp(after, good))
				note_error(&flip_errors, "policy %s: %s", good,
					   err ? strerror(-err) : "did not stick");
			atomic_fetch_add(&flips, 1);
		}
		if (n % 2 == 0) {
			on = !on;
			if (sw_feature_set(on))
				note_error(&toggle_errors, "feature %s did not stick",
					   on ? "on" : "off");
			atomic_fetch_add(&toggles, 1);
		}
		sleep_ms(2 + r % 4);
	}
	return NULL;
}

static int cpu_online_set(int cpu, bool online)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return sw_write_str(path, online ? "1" : "0");
}

/* Bring @cpu back, retrying: a CPU left offline would starve the run. */
static int cpu_online_retry(int cpu)
{
	int i, err = 0;

	for (i = 0; i < 50; i++) {
		err = cpu_online_set(cpu, true);
		if (!err)
			return 0;
		sleep_ms(100);
	}
	return err;
}

/* Offline and online every CPU but 0 in turn. */
static void *hotplug(void *arg)
{
	unsigned long seed = rnd_seed();
	int cpu, err;

	while (!atomic_load(&stop_chaos)) {
		sleep_ms(10);	/* no busy loop when no CPU can go */
		for (cpu = 1; cpu < nr_cpus && !atomic_load(&stop_chaos); cpu++) {
			err = cpu_online_set(cpu, false);
			if (err == -EBUSY || err == -EAGAIN) {
				atomic_fetch_add(&hotplug_busy, 1);
				continue;
			}
			if (err) {
				note_error(&hotplug_errors, "offline cpu%d: %s", cpu,
					   strerror(-err));
				continue;
			}
			sleep_ms(10 + rnd(&seed) % 90);
			err = cpu_online_retry(cpu);
			if (err)
				note_error(&hotplug_errors, "online cpu%d: %s", cpu,
					   strerror(-err));
			else
				atomic_fetch_add(&hotplug_cycles, 1);
			sleep_ms(10 + rnd(&seed) % 40);
		}
	}
	return NULL;
}

/*
 * Move every pair process to a random CPU mask every few ms. The first
 * masks hold CPU 0, which never goes offline: at least one move succeeds.
 */
static void *affinity_churn(void *arg)
{
	unsigned long seed = rnd_seed();
	bool first = true;
	cpu_set_t set;
	int i, cpu;

	for (; !atomic_load(&stop_chaos); first = false) {
		for (i = 0; i < 2 * nr_pairs; i++) {
			struct pair *p = &shm->pair[i / 2];
			pid_t pid = i & 1 ? p->pong : p->ping;
			unsigned long bits = rnd(&seed) | first;

			CPU_ZERO(&set);
			for (cpu = 0; cpu < nr_cpus; cpu++)
				if (bits & (1UL << cpu))
					CPU_SET(cpu, &set);
			if (!CPU_COUNT(&set))
				CPU_SET(bits % nr_cpus, &set);
			if (!sched_setaffinity(pid, sizeof(set), &set))
				atomic_fetch_add(&affinity_moves, 1);
			else if (errno == EINVAL)	/* only offline CPUs in the mask */
				atomic_fetch_add(&affinity_empty, 1);
			else
				note_error(&affinity_errors, "sched_setaffinity(%d): %s",
					   pid, strerror(errno));
		}
		sleep_ms(5 + rnd(&seed) % 15);
	}
	return NULL;
}

/*
 * Read the counters every 10 ms; reset them every twentieth read, the first
 * included, and try a bad reset (each in turn) ten reads after each reset.
 * The policy changes under the readings, so a snapshot can hold the
 * verdicts of several policies: only the sum is checked.
 */
static void *stats_churn(void *arg)
{
	static const char * const bad_resets[] = { "1", "x", "-1", "", "0x" };
	const char *wrong;
	struct sw_stats st;
	unsigned long n;
	char buf[256];
	int err;

	for (n = 0; !atomic_load(&stop_chaos); n++) {
		err = sw_stats_read(&st);
		if (err) {
			note_error(&stat_errors, "reading the counters: %s", strerror(-err));
		} else {
			wrong = sw_stats_wrong(&st, NULL, buf, sizeof(buf));
			if (wrong)
				note_error(&stat_errors, "counters: %s", wrong);
		}
		atomic_fetch_add(&stat_reads, 1);
		if (n % 20 == 0) {
			err = sw_stats_reset();
			if (err)
				note_error(&stat_errors, "resetting the counters: %s",
					   strerror(-err));
			atomic_fetch_add(&stat_resets, 1);
		} else if (n % 20 == 10) {
			const char *bad = bad_resets[(n / 20) % ARRAY_SIZE(bad_resets)];

			err = sw_write_str(SW_STATS_PATH, bad);
			if (err != -EINVAL)
				note_error(&stat_errors, "reset with \"%s\": %s, not EINVAL", bad,
					   err ? strerror(-err) : "accepted");
			else
				atomic_fetch_add(&stat_bad_rejected, 1);
		}
		sleep_ms(10);
	}
	return NULL;
}

/*
 * Make the group sync_wakeup_torture for the pairs' groups, giving the
 * cpu controller to its children. Returns false, with @why, where cgroup
 * v2 or its cpu controller is missing.
 */
static bool groups_setup(char *why, size_t size)
{
	bool was_on;
	int err;

	err = sw_cgroup_root(cg_root, sizeof(cg_root));
	if (!err)
		err = sw_cgroup_cpu_on(cg_root, &cg_cpu_was_on);
	if (err) {
		snprintf(why, size, "no cpu controller on cgroup v2: %s", strerror(-err));
		return false;
	}
	snprintf(cg_top, sizeof(cg_top), "%s/sync_wakeup_torture", cg_root);
	if ((mkdir(cg_top, 0755) && errno != EEXIST) || sw_cgroup_cpu_on(cg_top, &was_on)) {
		snprintf(why, size, "cannot make %.200s: %s", cg_top, strerror(errno));
		cg_top[0] = '\0';
		return false;
	}
	return true;
}

static void groups_teardown(void)
{
	char path[512];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/g%d/sub", cg_top, i);
		sw_cgroup_leave(path, cg_root);
		snprintf(path, sizeof(path), "%s/g%d", cg_top, i);
		sw_cgroup_leave(path, cg_root);
	}
	if (sw_cgroup_leave(cg_top, cg_root))
		note_error(&group_errors, "cannot remove %s", cg_top);
	if (!cg_cpu_was_on)
		sw_cgroup_cpu_off(cg_root);
}

/* Write @name into @dir's cpu.sync_wakeup, or a bad value that must fail. */
static void group_write(const char *dir, unsigned long n, unsigned long r)
{
	const char *good = r % 7 ? sw_policies[r % SW_NR_POLICIES] : SW_CG_INHERIT;
	char before[64], after[64];
	int err;

	if (n % 10 == 3) {
		const struct bad_value *bad =
			&bad_policies[(n / 10) % ARRAY_SIZE(bad_policies)];
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", dir, SW_CG_POLICY);
		if (sw_cgroup_read(dir, SW_CG_POLICY, before, sizeof(before)))
			note_error(&group_errors, "cannot read %s", path);
		err = sw_write_file(path, bad->bytes, bad->len);
		/* cgroup_file_write() takes an empty write as a no-op. */
		if (err != (bad->len ? -EINVAL : 0))
			note_error(&group_errors, "bad value \"%s\" into %s: %s", bad->bytes,
				   path, err ? strerror(-err) : "accepted");
		if (sw_cgroup_read(dir, SW_CG_POLICY, after, sizeof(after)) ||
		    strcmp(before, after))
			note_error(&group_errors, "bad value \"%s\" changed %s", bad->bytes, path);
		atomic_fetch_add(&group_bad_writes, 1);
		return;
	}
	err = sw_cgroup_write(dir, SW_CG_POLICY, good);
	if (err || sw_cgroup_read(dir, SW_CG_POLICY, after, sizeof(after)) ||
	    strcmp(after, good))
		note_error(&group_errors, "%s into %s/%s: %s", good, dir, SW_CG_POLICY,
			   err ? strerror(-err) : "did not stick");
}

/*
 * Every few ms: make g<n> and g<n>/sub, write both, move some pair
 * processes into sub (a leaf: cgroup v2 keeps processes out of a group
 * that gives its children a controller), write again while they run
 * there, then move them back to the root group and remove both groups at
 * once, their tasks still waking each other.
 */
static void *group_churn(void *arg)
{
	char g[400], sub[420];
	unsigned long seed = rnd_seed(), n;
	bool was_on;
	int i;

	for (n = 0; !atomic_load(&stop_chaos); n++) {
		unsigned long r = rnd(&seed);

		snprintf(g, sizeof(g), "%s/g%lu", cg_top, n % 4);
		snprintf(sub, sizeof(sub), "%s/sub", g);
		if ((mkdir(g, 0755) && errno != EEXIST) || sw_cgroup_cpu_on(g, &was_on) ||
		    (mkdir(sub, 0755) && errno != EEXIST)) {
			note_error(&group_errors, "cannot make %s: %s", sub, strerror(errno));
			sleep_ms(10);
			continue;
		}
		group_write(g, n, r);
		group_write(sub, n + 5, r >> 8);
		for (i = 0; i < 2 * nr_pairs; i++) {
			struct pair *p = &shm->pair[i / 2];

			if (!((r >> (16 + i)) & 1))
				continue;
			if (sw_cgroup_enter(sub, i & 1 ? p->pong : p->ping))
				note_error(&group_errors, "cannot move a pair into %s", sub);
			else
				atomic_fetch_add(&group_moves, 1);
		}
		sleep_ms(2 + r % 5);
		group_write(g, n + 1, r >> 4);
		sleep_ms(2 + (r >> 3) % 5);
		if (sw_cgroup_leave(sub, cg_root) || sw_cgroup_leave(g, cg_root))
			note_error(&group_errors, "cannot remove %s: %s", g, strerror(errno));
		atomic_fetch_add(&group_cycles, 1);
	}
	return NULL;
}

/* ---- checks --------------------------------------------------------- */

static unsigned long round_trips(void)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < nr_pairs; i++)
		sum += atomic_load(&shm->pair[i].ping_received);
	return sum;
}

/*
 * Watch the pairs for @seconds: each must complete a round trip at least
 * every @stall seconds. Returns the longest gap seen, in seconds; @stalled
 * gets the first pair that went past @stall, or -1.
 */
static double watch_pairs(int seconds, int stall, int *stalled)
{
	double start = sw_now_us(), now, last[MAX_PAIRS], max_gap = 0;
	unsigned long seen[MAX_PAIRS];
	int i;

	*stalled = -1;
	for (i = 0; i < nr_pairs; i++) {
		seen[i] = atomic_load(&shm->pair[i].ping_received);
		last[i] = start;
	}
	do {
		sleep_ms(100);
		now = sw_now_us();
		for (i = 0; i < nr_pairs; i++) {
			unsigned long n = atomic_load(&shm->pair[i].ping_received);
			double gap = (now - last[i]) / 1e6;

			if (n != seen[i]) {
				seen[i] = n;
				last[i] = now;
				continue;
			}
			if (gap > max_gap)
				max_gap = gap;
			if (gap > stall && *stalled < 0)
				*stalled = i;
		}
	} while (*stalled < 0 && now - start < seconds * 1e6);
	return max_gap;
}

/* Let every pair process run anywhere again: the churn may have pinned it. */
static void unpin_pairs(void)
{
	cpu_set_t set;
	int i, cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		CPU_SET(cpu, &set);
	for (i = 0; i < nr_pairs; i++) {
		sched_setaffinity(shm->pair[i].ping, sizeof(set), &set);
		sched_setaffinity(shm->pair[i].pong, sizeof(set), &set);
	}
}

/*
 * What each policy may do with a sync wakeup, from the counters' side:
 * some counted, sync_wakeups their sum, and only the policy's verdicts
 * (hint-only: all hint_only; no-sync: all hint_dropped; waker-if-alone:
 * kept, wake_wide, not_affine, waker_busy; reciprocal-only: no hint
 * dropped and no hint_only; reciprocal-strict: no hint_only; honest-waker:
 * no declined_smt_active).
 */
static const char *policy_counters_wrong(const char *policy, const struct sw_stats *st,
					 char *buf, size_t size)
{
	if (!st->v[SW_SYNC_WAKEUPS])
		return "no sync wakeup counted";
	return sw_stats_wrong(st, policy, buf, size);
}

/*
 * With the feature off no wakeup is in the middle of being counted, so a
 * reset then gives exact counters. Under each policy in turn, with the
 * pairs running and nothing else changing the policy, the counters must
 * follow that policy's rules, and stand still once the feature is off.
 */
static bool counters_consistent(char *why, size_t size)
{
	struct sw_stats st, later;
	char buf[512], msg[256];
	const char *wrong;
	unsigned long trips;
	size_t i;

	unpin_pairs();
	for (i = 0; i < SW_NR_POLICIES; i++) {
		wrong = NULL;
		if (sw_feature_set(false) || sw_policy_set(sw_policies[i]))
			wrong = "cannot set the policy";
		sleep_ms(500);
		if (!wrong && (sw_stats_reset() || sw_feature_set(true)))
			wrong = "cannot reset the counters";
		trips = round_trips();
		sleep_ms(1000);
		if (!wrong && round_trips() == trips)
			wrong = "the pairs made no round trip";
		if (!wrong && sw_feature_set(false))
			wrong = "cannot turn the feature off";
		sleep_ms(500);
		if (!wrong && sw_stats_read(&st))
			wrong = "cannot read the counters";
		if (!wrong) {
			ksft_print_msg("counters under %s: %s\n", sw_policies[i],
				       sw_stats_str(&st, buf, sizeof(buf)));
			wrong = policy_counters_wrong(sw_policies[i], &st, msg, sizeof(msg));
		}
		sleep_ms(200);
		if (!wrong && sw_stats_read(&later))
			wrong = "cannot read the counters";
		if (!wrong && memcmp(&st, &later, sizeof(st)))
			wrong = "counted while the feature was off";
		if (wrong) {
			snprintf(why, size, "%s: %s", sw_policies[i], wrong);
			return false;
		}
	}
	return true;
}

/* Wait up to @seconds for @pid; SIGKILL it after that. True if it exited 0. */
static bool reap(pid_t pid, int seconds)
{
	int status, i;

	for (i = 0; i < seconds * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status);
		sleep_ms(100);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return false;
}

/*
 * Stop the pairs and check them: each side exits 0 within @stall seconds
 * (a lost wakeup at the very end leaves one asleep) and both sides agree
 * on what was sent and received.
 */
static bool pairs_consistent(int stall, char *why, size_t size)
{
	bool ok = true;
	int i;

	atomic_store(&shm->stop_pairs, 1);
	for (i = 0; i < nr_pairs; i++) {
		struct pair *p = &shm->pair[i];
		unsigned long a, b, c, d;

		if (!reap(p->ping, stall) || !reap(p->pong, stall)) {
			snprintf(why, size, "pair %d did not finish cleanly within %d s", i, stall);
			ok = false;
			continue;
		}
		a = atomic_load(&p->ping_sent);
		b = atomic_load(&p->pong_received);
		c = atomic_load(&p->pong_sent);
		d = atomic_load(&p->ping_received);
		if (a != b || b != c || c != d) {
			snprintf(why, size,
				 "pair %d: sent %lu, pong got %lu, sent back %lu, ping got %lu",
				 i, a, b, c, d);
			ok = false;
		}
	}
	return ok;
}

static void kill_pairs(void)
{
	int i;

	for (i = 0; i < nr_pairs; i++) {
		if (shm->pair[i].ping > 0)
			kill(shm->pair[i].ping, SIGKILL);
		if (shm->pair[i].pong > 0)
			kill(shm->pair[i].pong, SIGKILL);
	}
}

int main(int argc, char **argv)
{
	void *(*chaos[])(void *) = { flipper, hotplug, affinity_churn, stats_churn,
				     group_churn };
	pthread_t thr[ARRAY_SIZE(chaos)];
	char group_why[256] = "";
	int nr_chaos = ARRAY_SIZE(chaos);
	int seconds = 60, stall = 10, stalled, i, opt, cpu;
	bool stop_one = false;
	char why[256] = "";
	double max_gap, start;
	bool ok;

	while ((opt = getopt(argc, argv, "d:p:s:x")) != -1) {
		switch (opt) {
		case 'd':
			seconds = atoi(optarg);
			break;
		case 'p':
			nr_pairs = atoi(optarg);
			break;
		case 's':
			stall = atoi(optarg);
			break;
		case 'x':
			stop_one = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-d secs] [-p pairs] [-s stall_secs] [-x]\n",
				argv[0]);
			return KSFT_FAIL;
		}
	}
	if (seconds < 5 || stall < 1 || stall >= seconds || nr_pairs < 1 || nr_pairs > MAX_PAIRS) {
		fprintf(stderr, "%s: need -d >= 5, 1 <= -s < -d, 1 <= -p <= %d\n",
			argv[0], MAX_PAIRS);
		return KSFT_FAIL;
	}

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("needs root (hotplug, debugfs, the sysctl)\n");
	if (sw_iface_check(true, why, sizeof(why)) != SW_IFACE_OK)
		ksft_exit_skip("%s\n", why);
	nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_cpus > MAX_CPUS)
		nr_cpus = MAX_CPUS;
	ksft_set_plan(9);
	/* The group thread goes last: without the cpu controller, it stays out. */
	if (!groups_setup(group_why, sizeof(group_why)))
		nr_chaos--;

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	for (i = 0; i < nr_pairs; i++) {
		if (start_pair(&shm->pair[i])) {
			kill_pairs();
			ksft_exit_fail_msg("cannot start pair %d: %s\n", i, strerror(errno));
		}
	}

	ksft_print_msg("%d pairs, %d CPUs, %d s, stall limit %d s\n",
		       nr_pairs, nr_cpus, seconds, stall);
	start = sw_now_us();
	for (i = 0; i < nr_chaos; i++)
		if (pthread_create(&thr[i], NULL, chaos[i], NULL)) {
			kill_pairs();
			ksft_exit_fail_msg("pthread_create failed\n");
		}
	if (stop_one) {
		sleep_ms(1000);
		ksft_print_msg("-x: stopping pair 0 (pid %d) on purpose\n", shm->pair[0].pong);
		kill(shm->pair[0].pong, SIGSTOP);
	}
	max_gap = watch_pairs(seconds, stall, &stalled);
	atomic_store(&stop_chaos, 1);
	for (i = 0; i < nr_chaos; i++)
		pthread_join(thr[i], NULL);
	if (!group_why[0])
		groups_teardown();
	for (cpu = 1; cpu < nr_cpus; cpu++)
		if (cpu_online_retry(cpu))
			note_error(&hotplug_errors, "cpu%d stays offline", cpu);

	ksft_print_msg("%.0f s: %lu round trips, %lu feature toggles\n",
		       (sw_now_us() - start) / 1e6, round_trips(), atomic_load(&toggles));
	ksft_print_msg("%lu policy flips, %lu bad policy writes\n",
		       atomic_load(&flips), atomic_load(&bad_writes));
	ksft_print_msg("%lu hotplug cycles (%lu busy), %lu affinity moves (%lu offline-only)\n",
		       atomic_load(&hotplug_cycles), atomic_load(&hotplug_busy),
		       atomic_load(&affinity_moves), atomic_load(&affinity_empty));
	ksft_print_msg("%lu counter reads, %lu resets, %lu bad resets rejected\n",
		       atomic_load(&stat_reads), atomic_load(&stat_resets),
		       atomic_load(&stat_bad_rejected));
	if (!group_why[0])
		ksft_print_msg("%lu group cycles, %lu moves into them, %lu bad group writes\n",
			       atomic_load(&group_cycles), atomic_load(&group_moves),
			       atomic_load(&group_bad_writes));
	if (first_error[0])
		ksft_print_msg("first error: %s\n", first_error);

	if (stalled >= 0) {
		ksft_test_result_fail("pair %d made no round trip for %d s: a lost wakeup?\n",
				      stalled, stall);
		kill_pairs();
	} else {
		ksft_test_result_pass("no pair waited %d s for a round trip (longest %.1f s)\n",
				      stall, max_gap);
	}
	ksft_test_result(!atomic_load(&flip_errors) && atomic_load(&flips),
			 "%lu policy writes accepted and read back\n", atomic_load(&flips));
	ksft_test_result(!atomic_load(&bad_write_errors) && atomic_load(&bad_writes),
			 "%lu bad policy writes failed with EINVAL and changed nothing\n",
			 atomic_load(&bad_writes));
	ksft_test_result(!atomic_load(&toggle_errors) && atomic_load(&toggles),
			 "%lu feature toggles stuck\n", atomic_load(&toggles));
	ksft_test_result(!atomic_load(&hotplug_errors) &&
			 (nr_cpus < 2 || atomic_load(&hotplug_cycles)),
			 "%lu hotplug cycles, every CPU back online\n",
			 atomic_load(&hotplug_cycles));
	ksft_test_result(!atomic_load(&affinity_errors) && !atomic_load(&stat_errors) &&
			 atomic_load(&affinity_moves) && atomic_load(&stat_reads) &&
			 atomic_load(&stat_resets),
			 "%lu affinity moves, %lu counter reads and %lu resets without errors, every snapshot adding up\n",
			 atomic_load(&affinity_moves), atomic_load(&stat_reads),
			 atomic_load(&stat_resets));

	if (group_why[0])
		ksft_test_result_skip("groups: %s\n", group_why);
	else
		ksft_test_result(!atomic_load(&group_errors) && atomic_load(&group_cycles) &&
				 atomic_load(&group_moves) && atomic_load(&group_bad_writes),
				 "%lu groups made, written and removed under the pairs, bad writes refused\n",
				 atomic_load(&group_cycles));

	if (stalled < 0) {
		ok = counters_consistent(why, sizeof(why));
		ksft_test_result(ok, "counters consistent under every policy%s%s\n",
				 ok ? "" : ": ", ok ? "" : why);
	} else {
		ksft_test_result_skip("counters: the pairs stalled\n");
	}

	ok = pairs_consistent(stall, why, sizeof(why));
	ksft_test_result(ok, "every pair exited 0 with matching sent and received counts%s%s\n",
			 ok ? "" : ": ", ok ? "" : why);
	ksft_finished();
}
