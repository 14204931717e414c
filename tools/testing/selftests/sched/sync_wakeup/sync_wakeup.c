// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the SYNC_PAIR_AFFINE selftests, linked into every test
 * program; sync_wakeup.h declares them.
 */
/* Leave out the test programs' exit hook: this file has no results. */
#define SW_LIBRARY
#include "sync_wakeup.h"

const char * const sw_policies[SW_NR_POLICIES] = {
	"hint-only",
	"waker-if-alone",
	"reciprocal-only",
	"no-sync",
	"reciprocal-strict",
};

const char * const sw_stat_names[SW_NR_STATS] = {
	[SW_SYNC_WAKEUPS]		= "sync_wakeups",
	[SW_KEPT]			= "kept_on_waker_cpu",
	[SW_DECLINED_SMT]		= "declined_smt_active",
	[SW_DECLINED_NOT_RECIPROCAL]	= "declined_not_reciprocal",
	[SW_DECLINED_WAKER_BUSY]	= "declined_waker_busy",
	[SW_DECLINED_CAPACITY]		= "declined_capacity",
	[SW_DECLINED_NOT_AFFINE]	= "declined_not_affine",
	[SW_DECLINED_WAKE_WIDE]		= "declined_wake_wide",
	[SW_HINT_DROPPED]		= "hint_dropped",
	[SW_HINT_ONLY]			= "hint_only",
};

/* ---- files ---------------------------------------------------------- */

/* Read a whole (small) file into @buf, NUL-terminated. Returns length or -errno. */
ssize_t sw_read_file(const char *path, char *buf, size_t size)
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
int sw_write_file(const char *path, const void *buf, size_t len)
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

int sw_write_str(const char *path, const char *s)
{
	return sw_write_file(path, s, strlen(s));
}

bool sw_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ---- the feature bit ------------------------------------------------ */

/*
 * 1 if SYNC_PAIR_AFFINE is on, 0 if off, -ENOENT without the features file
 * (no debugfs or no CONFIG_SCHED_DEBUG), -ENODATA if the kernel does not
 * know the feature.
 */
int sw_feature_get(void)
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
int sw_feature_set(bool on)
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
int sw_policy_get(char *buf, size_t size)
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
int sw_policy_set(const char *name)
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

bool sw_is_policy(const char *name)
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
int sw_stats_read(struct sw_stats *st)
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

int sw_stats_reset(void)
{
	return sw_write_str(SW_STATS_PATH, "0");
}

/* Sum of the verdict lines: sync_wakeups, exactly, in every snapshot. */
unsigned long sw_stats_verdicts(const struct sw_stats *st)
{
	unsigned long sum = 0;
	int i;

	for (i = SW_FIRST_VERDICT; i < SW_NR_STATS; i++)
		sum += st->v[i];
	return sum;
}

/*
 * The verdicts each policy can give, in the order of sw_policies[]. The
 * decision takes these steps in turn, those marked R for reciprocal-only
 * only, and the first that declines gives the verdict: R: SMT active;
 * wake_wide(); the waker CPU not allowed or not what the wake-affine step
 * picked; R: not reciprocal; another task runnable on the waker CPU;
 * R: the wakee does not fit an asymmetric capacity; else kept.
 * reciprocal-strict judges a reciprocal wakeup as reciprocal-only does and
 * drops the hint of any other.
 */
#define SW_WAKER_IF_ALONE_VERDICTS					\
	(SW_STAT_BIT(SW_KEPT) | SW_STAT_BIT(SW_DECLINED_WAKE_WIDE) |	\
	 SW_STAT_BIT(SW_DECLINED_NOT_AFFINE) | SW_STAT_BIT(SW_DECLINED_WAKER_BUSY))
#define SW_RECIPROCAL_ONLY_VERDICTS					\
	(SW_WAKER_IF_ALONE_VERDICTS | SW_STAT_BIT(SW_DECLINED_SMT) |	\
	 SW_STAT_BIT(SW_DECLINED_NOT_RECIPROCAL) | SW_STAT_BIT(SW_DECLINED_CAPACITY))

static const unsigned int sw_verdicts_of[SW_NR_POLICIES] = {
	SW_STAT_BIT(SW_HINT_ONLY),					/* hint-only */
	SW_WAKER_IF_ALONE_VERDICTS,					/* waker-if-alone */
	SW_RECIPROCAL_ONLY_VERDICTS,					/* reciprocal-only */
	SW_STAT_BIT(SW_HINT_DROPPED),					/* no-sync */
	SW_RECIPROCAL_ONLY_VERDICTS | SW_STAT_BIT(SW_HINT_DROPPED),	/* reciprocal-strict */
};

/* SW_STAT_BIT() of each verdict @policy can give; 0 if it is no policy. */
unsigned int sw_policy_verdicts(const char *policy)
{
	size_t i;

	for (i = 0; i < SW_NR_POLICIES; i++)
		if (!strcmp(policy, sw_policies[i]))
			return sw_verdicts_of[i];
	return 0;
}

/*
 * Could the kernel give snapshot @st? sync_wakeups must be the sum of the
 * verdicts, always. With @policy set, the only policy in force since the
 * counters were last reset, every verdict counted must be one it gives.
 * Returns NULL if so, else what is wrong, written into @buf.
 */
const char *sw_stats_wrong(const struct sw_stats *st, const char *policy,
			   char *buf, size_t size)
{
	unsigned long sum = sw_stats_verdicts(st);
	unsigned int allowed;
	int i;

	if (st->v[SW_SYNC_WAKEUPS] != sum) {
		snprintf(buf, size, "sync_wakeups %lu, but the verdicts add up to %lu",
			 st->v[SW_SYNC_WAKEUPS], sum);
		return buf;
	}
	if (!policy)
		return NULL;
	allowed = sw_policy_verdicts(policy);
	if (!allowed) {
		snprintf(buf, size, "\"%s\" is no policy", policy);
		return buf;
	}
	for (i = SW_FIRST_VERDICT; i < SW_NR_STATS; i++) {
		if (st->v[i] && !(allowed & SW_STAT_BIT(i))) {
			snprintf(buf, size, "%s %lu under %s, which never gives that verdict",
				 sw_stat_names[i], st->v[i], policy);
			return buf;
		}
	}
	return NULL;
}

double sw_ratio(unsigned long part, unsigned long whole)
{
	return whole ? (double)part / whole : 0.0;
}

/* "sync_wakeups=.. kept_on_waker_cpu=.. ..." into @buf. */
const char *sw_stats_str(const struct sw_stats *st, char *buf, size_t size)
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

/*
 * Is the interface there? @need_debugfs: the test also needs the feature
 * bit and the counters. @why gets a reason for a skip or a failure.
 */
enum sw_iface sw_iface_check(bool need_debugfs, char *why, size_t size)
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

void sw_save(struct sw_saved *s)
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
int sw_restore(const struct sw_saved *s)
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
 * The state the main process found, put back by the exit hook in
 * sync_wakeup.h (sw_exit()), also after a test the harness' timeout killed.
 */
static struct sw_saved sw_initial_state;
static pid_t sw_initial_pid;

static void __attribute__((constructor)) sw_save_initial_state(void)
{
	sw_initial_pid = getpid();
	sw_save(&sw_initial_state);
}

/* In the main process: put back the initial state, return true. Else false. */
bool sw_restore_initial_state(void)
{
	if (getpid() != sw_initial_pid)
		return false;
	sw_restore(&sw_initial_state);
	return true;
}

/* ---- topology ------------------------------------------------------- */

int sw_nr_allowed_cpus(void)
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
int sw_smt_active(void)
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

struct sw_child_result *sw_child_result_alloc(void)
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
int sw_run_child(int (*fn)(struct sw_child_result *r, void *arg),
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
int sw_drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(SW_NOBODY, SW_NOBODY, SW_NOBODY) ||
	    setresuid(SW_NOBODY, SW_NOBODY, SW_NOBODY))
		return -errno;
	if (geteuid() != SW_NOBODY || getegid() != SW_NOBODY)
		return -EPERM;
	return 0;
}

/* ---- workloads ------------------------------------------------------ */

double sw_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int sw_read_full(int fd, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int sw_write_full(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do {
		n = write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

long sw_pp_handoffs(const struct sw_pingpong *pp)
{
	return pp->handoffs[0] + pp->handoffs[1];
}

double sw_pp_share(const struct sw_pingpong *pp)
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
int sw_pingpong_run(long warmup, long rounds, struct sw_stats *st,
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

/*
 * One writer (this process), @readers children each reading its own pipe.
 * The writer writes @rounds bytes to each pipe, one reader after the other,
 * pausing @pause_us after every byte so that the reader goes back to sleep
 * and each write is a WF_SYNC wakeup of a sleeping reader. A reader's
 * last_wakee becomes the writer only if the reader is current while
 * something wakes the writer, an interrupt included (record_wakee() runs
 * for every wakeup). Readers never write, and the writer spins through its
 * pauses rather than sleep on a timer, so that is rare: only a writer
 * waiting for the pipe mutex a reader holds is woken by it.
 *
 * One reader at a time, not round robin: readers inherit the writer's
 * wakee_flips at fork and never decay them, so a writer that switched
 * wakees on every write would soon make wake_wide() call every wakeup wide
 * and no wake-affine rule would ever look at it.
 * If @st is set the counters are reset before and read after the writes,
 * while every reader is still alive. Returns 0 or -errno.
 */
int sw_fanout_run(int readers, long rounds, long pause_us,
		  struct sw_stats *st, struct sw_fanout *out)
{
	int fds[SW_FANOUT_MAX_READERS][2], status, err = 0, r, nr = 0;
	pid_t pids[SW_FANOUT_MAX_READERS];
	long *bytes;
	double t0, t;
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
			for (t = sw_now_us(); sw_now_us() < t + pause_us;)
				;
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
