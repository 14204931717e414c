/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SYNC_PAIR_AFFINE selftests: the files of the
 * interface, save/restore of the feature bit and the policy, the counters,
 * and the two workloads (a reciprocal pipe ping-pong and a one-way fan-out).
 *
 * Nothing in here calls the harness' ASSERT_*(): the workloads fork, and an
 * assertion in a forked process would unwind into the harness' own code.
 * Functions return 0 or -errno and the tests decide.
 */
#ifndef __SYNC_WAKEUP_H
#define __SYNC_WAKEUP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../../kselftest.h"

#define SW_FEATURES_PATH	"/sys/kernel/debug/sched/features"
#define SW_STATS_PATH		"/sys/kernel/debug/sched/sync_wakeup_stats"
#define SW_POLICY_PATH		"/proc/sys/kernel/sched_sync_wakeup_policy"
#define SW_AVAILABLE_PATH	"/proc/sys/kernel/sched_sync_wakeup_available_policies"
#define SW_SMT_ACTIVE_PATH	"/sys/devices/system/cpu/smt/active"

#define SW_FEATURE		"SYNC_PAIR_AFFINE"
#define SW_NO_FEATURE		"NO_SYNC_PAIR_AFFINE"
#define SW_DEFAULT_POLICY	"reciprocal-only"

/* The user/group an unprivileged child drops to. */
#define SW_NOBODY		65534

/* The accepted policy names, in the kernel's order. */
static const char * const sw_policies[] = {
	"hint-only",
	"waker-if-alone",
	"reciprocal-only",
	"no-sync",
	"reciprocal-strict",
};

#define SW_NR_POLICIES	ARRAY_SIZE(sw_policies)

/* Lines of sched/sync_wakeup_stats, in the kernel's order. */
enum sw_stat {
	SW_SYNC_WAKEUPS,
	SW_KEPT,
	SW_DECLINED_SMT,
	SW_DECLINED_NOT_RECIPROCAL,
	SW_DECLINED_WAKER_BUSY,
	SW_DECLINED_CAPACITY,
	SW_DECLINED_NOT_AFFINE,
	SW_HINT_DROPPED,
	SW_NR_STATS
};

static const char * const sw_stat_names[] = {
	[SW_SYNC_WAKEUPS]		= "sync_wakeups",
	[SW_KEPT]			= "kept_on_waker_cpu",
	[SW_DECLINED_SMT]		= "declined_smt_active",
	[SW_DECLINED_NOT_RECIPROCAL]	= "declined_not_reciprocal",
	[SW_DECLINED_WAKER_BUSY]	= "declined_waker_busy",
	[SW_DECLINED_CAPACITY]		= "declined_capacity",
	[SW_DECLINED_NOT_AFFINE]	= "declined_not_affine",
	[SW_HINT_DROPPED]		= "hint_dropped",
};

struct sw_stats {
	unsigned long v[SW_NR_STATS];
};

/* ---- files ---------------------------------------------------------- */

/* Read a whole (small) file into @buf, NUL-terminated. Returns length or -errno. */
static inline ssize_t sw_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

/* One write() of @len bytes at offset 0. Returns 0 or -errno (-EIO on a short write). */
static inline int sw_write_file(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

static inline int sw_write_str(const char *path, const char *s)
{
	return sw_write_file(path, s, strlen(s));
}

static inline bool sw_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ---- the feature bit ------------------------------------------------ */

/*
 * 1 if SYNC_PAIR_AFFINE is on, 0 if off, -ENOENT without the features file
 * (no debugfs or no CONFIG_SCHED_DEBUG), -ENODATA if the kernel does not
 * know the feature.
 */
static inline int sw_feature_get(void)
{
	char buf[4096], *tok, *save;
	ssize_t n;

	n = sw_read_file(SW_FEATURES_PATH, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (tok = strtok_r(buf, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save)) {
		if (!strcmp(tok, SW_FEATURE))
			return 1;
		if (!strcmp(tok, SW_NO_FEATURE))
			return 0;
	}
	return -ENODATA;
}

/* Set the feature and read it back. Returns 0 or -errno (-EIO if it did not stick). */
static inline int sw_feature_set(bool on)
{
	int err = sw_write_str(SW_FEATURES_PATH, on ? SW_FEATURE : SW_NO_FEATURE);

	if (err)
		return err;
	err = sw_feature_get();
	if (err < 0)
		return err;
	return err == on ? 0 : -EIO;
}

/* ---- the policy ----------------------------------------------------- */

/* The current policy without its newline. Returns 0 or -errno (-EPROTO: no newline). */
static inline int sw_policy_get(char *buf, size_t size)
{
	ssize_t n = sw_read_file(SW_POLICY_PATH, buf, size);

	if (n < 0)
		return n;
	if (n == 0 || buf[n - 1] != '\n')
		return -EPROTO;
	buf[n - 1] = '\0';
	return 0;
}

/* Write @name (no newline) and read it back. Returns 0 or -errno (-EIO: did not stick). */
static inline int sw_policy_set(const char *name)
{
	char cur[64];
	int err = sw_write_str(SW_POLICY_PATH, name);

	if (err)
		return err;
	err = sw_policy_get(cur, sizeof(cur));
	if (err)
		return err;
	return strcmp(cur, name) ? -EIO : 0;
}

static inline bool sw_is_policy(const char *name)
{
	size_t i;

	for (i = 0; i < SW_NR_POLICIES; i++)
		if (!strcmp(name, sw_policies[i]))
			return true;
	return false;
}

/* ---- counters ------------------------------------------------------- */

/*
 * Parse sched/sync_wakeup_stats: exactly the SW_NR_STATS lines "name value",
 * in order. Returns 0, -errno, or -EPROTO on any other format.
 */
static inline int sw_stats_read(struct sw_stats *st)
{
	char buf[4096], name[64], *line, *save;
	unsigned long val;
	int i = 0, pos;
	ssize_t n;

	n = sw_read_file(SW_STATS_PATH, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (n == 0 || buf[n - 1] != '\n')
		return -EPROTO;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (i >= SW_NR_STATS)
			return -EPROTO;
		if (sscanf(line, "%63s %lu%n", name, &val, &pos) != 2 ||
		    line[pos] != '\0' || strcmp(name, sw_stat_names[i]))
			return -EPROTO;
		st->v[i++] = val;
	}
	return i == SW_NR_STATS ? 0 : -EPROTO;
}

static inline int sw_stats_reset(void)
{
	return sw_write_str(SW_STATS_PATH, "0");
}

/* Sum of every verdict plus the dropped hints: never more than sync_wakeups. */
static inline unsigned long sw_stats_outcomes(const struct sw_stats *st)
{
	unsigned long sum = 0;
	int i;

	for (i = SW_KEPT; i < SW_NR_STATS; i++)
		sum += st->v[i];
	return sum;
}

static inline double sw_ratio(unsigned long part, unsigned long whole)
{
	return whole ? (double)part / whole : 0.0;
}

/* "sync_wakeups=.. kept_on_waker_cpu=.. ..." into @buf. */
static inline const char *sw_stats_str(const struct sw_stats *st, char *buf, size_t size)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < SW_NR_STATS && off < size; i++)
		off += snprintf(buf + off, size - off, "%s%s=%lu", i ? " " : "",
				sw_stat_names[i], st->v[i]);
	return buf;
}

/* ---- presence of the interface -------------------------------------- */

enum sw_iface {
	SW_IFACE_OK,
	SW_IFACE_ABSENT,	/* not a patched kernel, or the part is configured out: SKIP */
	SW_IFACE_BROKEN,	/* some of it is there, some not: FAIL */
};

/*
 * Is the interface there? @need_debugfs: the test also needs the feature
 * bit and the counters. @why gets a reason for a skip or a failure.
 */
static inline enum sw_iface sw_iface_check(bool need_debugfs, char *why, size_t size)
{
	bool sysctl = sw_exists(SW_POLICY_PATH);
	bool avail = sw_exists(SW_AVAILABLE_PATH);
	int feat = sw_exists(SW_FEATURES_PATH) ? sw_feature_get() : -ENOENT;

	if (!sysctl && !avail && feat == -ENODATA) {
		snprintf(why, size,
			 "kernel lacks the SYNC_PAIR_AFFINE interface (no %s, no %s in %s): not a patched kernel",
			 SW_POLICY_PATH, SW_FEATURE, SW_FEATURES_PATH);
		return SW_IFACE_ABSENT;
	}
	if (!sysctl && !avail && feat == -ENOENT) {
		snprintf(why, size,
			 "kernel lacks the SYNC_PAIR_AFFINE interface (no %s): not a patched kernel",
			 SW_POLICY_PATH);
		return SW_IFACE_ABSENT;
	}
	if (!sysctl || !avail) {
		snprintf(why, size, "partial interface: %s %s, %s %s",
			 SW_POLICY_PATH, sysctl ? "present" : "missing",
			 SW_AVAILABLE_PATH, avail ? "present" : "missing");
		return SW_IFACE_BROKEN;
	}
	if (!need_debugfs)
		return SW_IFACE_OK;

	if (feat == -ENOENT) {
		snprintf(why, size,
			 "%s not found: debugfs not mounted at /sys/kernel/debug or CONFIG_SCHED_DEBUG=n",
			 SW_FEATURES_PATH);
		return SW_IFACE_ABSENT;
	}
	if (feat < 0) {
		snprintf(why, size, "%s present but %s has no %s (error %d)",
			 SW_POLICY_PATH, SW_FEATURES_PATH, SW_FEATURE, feat);
		return SW_IFACE_BROKEN;
	}
	if (!sw_exists(SW_STATS_PATH)) {
		snprintf(why, size, "%s knows %s but %s is missing",
			 SW_FEATURES_PATH, SW_FEATURE, SW_STATS_PATH);
		return SW_IFACE_BROKEN;
	}
	return SW_IFACE_OK;
}

/* ---- save and restore ----------------------------------------------- */

struct sw_saved {
	bool have_feature;
	bool feature;
	bool have_policy;
	char policy[64];
};

static inline void sw_save(struct sw_saved *s)
{
	int feat = sw_feature_get();

	memset(s, 0, sizeof(*s));
	if (feat >= 0) {
		s->have_feature = true;
		s->feature = feat;
	}
	s->have_policy = !sw_policy_get(s->policy, sizeof(s->policy)) &&
			 sw_is_policy(s->policy);
}

/* Put back what sw_save() saw; writes only what changed. Returns 0 or -errno. */
static inline int sw_restore(const struct sw_saved *s)
{
	char cur[64];
	int err = 0, feat;

	if (s->have_policy &&
	    (sw_policy_get(cur, sizeof(cur)) || strcmp(cur, s->policy)))
		err = sw_policy_set(s->policy);
	if (s->have_feature) {
		feat = sw_feature_get();
		if (feat < 0 || feat != s->feature) {
			int e = sw_feature_set(s->feature);

			err = err ? err : e;
		}
	}
	return err;
}

/*
 * A test killed by the harness' timeout never reaches its teardown: the
 * main process puts back the state it found when it exits.
 *
 * The harness exits 0 when every test was skipped, which run_kselftest.sh
 * reports as "ok": exit with KSFT_SKIP instead, so that a kernel without
 * the interface reads as skipped at every level.
 */
static struct sw_saved sw_initial_state;
static pid_t sw_initial_pid;

static void __attribute__((constructor)) sw_save_initial_state(void)
{
	sw_initial_pid = getpid();
	sw_save(&sw_initial_state);
}

static void __attribute__((destructor)) sw_restore_initial_state(void)
{
	if (getpid() != sw_initial_pid)
		return;
	sw_restore(&sw_initial_state);
	if (ksft_get_xskip_cnt() && !ksft_get_pass_cnt() && !ksft_get_fail_cnt() &&
	    !ksft_get_xpass_cnt() && !ksft_get_xfail_cnt() && !ksft_get_error_cnt()) {
		fflush(stdout);
		fflush(stderr);
		_exit(KSFT_SKIP);
	}
}

/* ---- topology ------------------------------------------------------- */

static inline int sw_nr_allowed_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	return CPU_COUNT(&set);
}

/*
 * 1 if SMT is active, 0 if not, -errno if it cannot tell. smt/active shows
 * sched_smt_active(), which the policy itself looks at; without that file
 * (no CONFIG_HOTPLUG_SMT) an online CPU with a sibling online means the same.
 */
static inline int sw_smt_active(void)
{
	char buf[256], path[128];
	long cpu, nr = sysconf(_SC_NPROCESSORS_CONF);
	ssize_t n = sw_read_file(SW_SMT_ACTIVE_PATH, buf, sizeof(buf));

	if (n >= 0) {
		if (buf[0] != '0' && buf[0] != '1')
			return -EPROTO;
		return buf[0] == '1';
	}
	for (cpu = 0; cpu < nr; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", cpu);
		if (sw_read_file(path, buf, sizeof(buf)) < 0)
			continue;
		if (strpbrk(buf, ",-"))
			return 1;
	}
	return nr > 0 ? 0 : -ENOENT;
}

/* ---- forked helpers ------------------------------------------------- */

/* A child's verdict, in memory shared with the parent. */
struct sw_child_result {
	int code;		/* KSFT_PASS, KSFT_FAIL or KSFT_SKIP */
	char msg[512];
};

static inline struct sw_child_result *sw_child_result_alloc(void)
{
	struct sw_child_result *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->code = -1;
	return r;
}

/*
 * Run @fn in a child; its return value becomes r->code. Returns the code, or
 * -1 if the child did not exit normally.
 */
static inline int sw_run_child(int (*fn)(struct sw_child_result *r, void *arg),
			       void *arg, struct sw_child_result *r)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(r->msg, sizeof(r->msg), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		r->code = fn(r, arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		snprintf(r->msg, sizeof(r->msg), "child did not exit normally (status 0x%x)",
			 status);
		return -1;
	}
	return r->code;
}

/* Become user and group nobody, without supplementary groups. */
static inline int sw_drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(SW_NOBODY, SW_NOBODY, SW_NOBODY) ||
	    setresuid(SW_NOBODY, SW_NOBODY, SW_NOBODY))
		return -errno;
	if (geteuid() != SW_NOBODY || getegid() != SW_NOBODY)
		return -EPERM;
	return 0;
}

/* ---- workloads ------------------------------------------------------ */

static inline double sw_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int sw_read_full(int fd, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static inline int sw_write_full(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do {
		n = write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

struct sw_pingpong {
	long handoffs[2];	/* [0]: parent -> child, [1]: child -> parent */
	long same_cpu[2];	/* of those, received on the sender's CPU */
	double usec_per_round;
	int child_err;
};

static inline long sw_pp_handoffs(const struct sw_pingpong *pp)
{
	return pp->handoffs[0] + pp->handoffs[1];
}

static inline double sw_pp_share(const struct sw_pingpong *pp)
{
	return sw_ratio(pp->same_cpu[0] + pp->same_cpu[1], sw_pp_handoffs(pp));
}

/*
 * Ping-pong between this process and a child over two pipes: every
 * pipe_write() wakes a reader sleeping on the other end with WF_SYNC, and
 * each side wakes the task that last woke it, so the wakeups are reciprocal.
 *
 * A message is the sender's CPU, taken just before write(); the receiver
 * compares it with its own CPU right after read() returns. @warmup round
 * trips run first and are not counted; then, if @st is set, the counters
 * are reset, @rounds round trips are counted and the counters are read
 * into @st before the child exits. Returns 0 or -errno.
 */
static inline int sw_pingpong_run(long warmup, long rounds, struct sw_stats *st,
				  struct sw_pingpong *out)
{
	int p2c[2], c2p[2], err = 0, status;
	struct sw_pingpong *shared;
	double t0 = 0;
	long i;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, sizeof(*shared));
	if (pipe2(p2c, O_CLOEXEC)) {
		err = -errno;
		goto out_unmap;
	}
	if (pipe2(c2p, O_CLOEXEC)) {
		err = -errno;
		goto out_p2c;
	}

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_c2p;
	}
	if (pid == 0) {
		int msg, cpu;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p2c[1]);
		close(c2p[0]);
		for (i = 0; i < warmup + rounds; i++) {
			shared->child_err = sw_read_full(p2c[0], &msg, sizeof(msg));
			if (shared->child_err)
				_exit(1);
			cpu = sched_getcpu();
			if (i >= warmup) {
				shared->handoffs[0]++;
				shared->same_cpu[0] += cpu == msg;
			}
			msg = sched_getcpu();
			shared->child_err = sw_write_full(c2p[1], &msg, sizeof(msg));
			if (shared->child_err)
				_exit(1);
		}
		_exit(0);
	}

	close(p2c[0]);
	close(c2p[1]);
	p2c[0] = -1;
	c2p[1] = -1;
	for (i = 0; i < warmup + rounds; i++) {
		int msg, cpu;

		if (i == warmup) {
			if (st) {
				err = sw_stats_reset();
				if (err)
					break;
			}
			t0 = sw_now_us();
		}
		msg = sched_getcpu();
		err = sw_write_full(p2c[1], &msg, sizeof(msg));
		if (err)
			break;
		err = sw_read_full(c2p[0], &msg, sizeof(msg));
		if (err)
			break;
		cpu = sched_getcpu();
		if (i >= warmup) {
			out->handoffs[1]++;
			out->same_cpu[1] += cpu == msg;
		}
	}
	if (!err && rounds)
		out->usec_per_round = (sw_now_us() - t0) / rounds;
	if (!err && st)
		err = sw_stats_read(st);

	if (err)
		kill(pid, SIGKILL);
	close(p2c[1]);
	close(c2p[0]);
	p2c[1] = -1;
	c2p[0] = -1;
	if (waitpid(pid, &status, 0) != pid)
		err = err ? err : -ECHILD;
	else if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		err = shared->child_err ? shared->child_err : -ECHILD;
	out->handoffs[0] = shared->handoffs[0];
	out->same_cpu[0] = shared->same_cpu[0];
	out->child_err = shared->child_err;
out_c2p:
	if (c2p[0] >= 0)
		close(c2p[0]);
	if (c2p[1] >= 0)
		close(c2p[1]);
out_p2c:
	if (p2c[0] >= 0)
		close(p2c[0]);
	if (p2c[1] >= 0)
		close(p2c[1]);
out_unmap:
	munmap(shared, sizeof(*shared));
	return err;
}

#define SW_FANOUT_MAX_READERS	8

struct sw_fanout {
	long writes;
	long bytes_read;	/* by all readers, once they saw EOF */
	double usec;
};

/*
 * One writer (this process), @readers children each reading its own pipe.
 * The writer writes @rounds bytes to each pipe, one reader after the other,
 * pausing @pause_us after every byte so that the reader goes back to sleep
 * and each write is a WF_SYNC wakeup of a sleeping reader. Readers never
 * write anything, so they never wake the writer: none of these wakeups is
 * reciprocal.
 *
 * One reader at a time, not round robin: readers inherit the writer's
 * wakee_flips at fork and never decay them, so a writer that switched
 * wakees on every write would soon make wake_wide() call every wakeup wide
 * and no wake-affine rule would ever look at it.
 * If @st is set the counters are reset before and read after the writes,
 * while every reader is still alive. Returns 0 or -errno.
 */
static inline int sw_fanout_run(int readers, long rounds, long pause_us,
				struct sw_stats *st, struct sw_fanout *out)
{
	int fds[SW_FANOUT_MAX_READERS][2], status, err = 0, r, nr = 0;
	pid_t pids[SW_FANOUT_MAX_READERS];
	struct timespec pause = {
		.tv_sec = pause_us / 1000000,
		.tv_nsec = (pause_us % 1000000) * 1000,
	};
	long *bytes;
	double t0;
	long i;

	memset(out, 0, sizeof(*out));
	if (readers < 1 || readers > SW_FANOUT_MAX_READERS)
		return -EINVAL;
	for (r = 0; r < readers; r++) {
		fds[r][0] = -1;
		fds[r][1] = -1;
	}
	bytes = mmap(NULL, sizeof(long) * readers, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bytes == MAP_FAILED)
		return -errno;
	memset(bytes, 0, sizeof(long) * readers);

	for (r = 0; r < readers; r++) {
		if (pipe2(fds[r], O_CLOEXEC)) {
			err = -errno;
			goto out;
		}
	}
	fflush(stdout);
	fflush(stderr);
	for (nr = 0; nr < readers; nr++) {
		pids[nr] = fork();
		if (pids[nr] < 0) {
			err = -errno;
			goto out;
		}
		if (pids[nr] == 0) {
			char buf[256];
			ssize_t n;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (r = 0; r < readers; r++) {
				close(fds[r][1]);
				if (r != nr)
					close(fds[r][0]);
			}
			while ((n = read(fds[nr][0], buf, sizeof(buf))) != 0) {
				if (n < 0 && errno != EINTR)
					_exit(1);
				if (n > 0)
					bytes[nr] += n;
			}
			_exit(0);
		}
	}
	for (r = 0; r < readers; r++) {
		close(fds[r][0]);
		fds[r][0] = -1;
	}

	if (st) {
		err = sw_stats_reset();
		if (err)
			goto out;
	}
	t0 = sw_now_us();
	for (r = 0; r < readers && !err; r++) {
		for (i = 0; i < rounds && !err; i++) {
			err = sw_write_full(fds[r][1], "x", 1);
			out->writes += !err;
			if (pause_us)
				nanosleep(&pause, NULL);
		}
	}
	out->usec = sw_now_us() - t0;
	if (!err && st)
		err = sw_stats_read(st);

out:
	for (r = 0; r < readers; r++) {
		if (fds[r][0] >= 0)
			close(fds[r][0]);
		if (fds[r][1] >= 0)
			close(fds[r][1]);
	}
	for (r = 0; r < nr; r++) {
		if (err)
			kill(pids[r], SIGKILL);
		if (waitpid(pids[r], &status, 0) != pids[r] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			err = err ? err : -ECHILD;
		out->bytes_read += bytes[r];
	}
	munmap(bytes, sizeof(long) * readers);
	return err;
}

#endif /* __SYNC_WAKEUP_H */
