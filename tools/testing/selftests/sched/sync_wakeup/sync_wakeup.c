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
	"honest-waker",
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
	[SW_PROBE]			= "probe",
	[SW_LANDED_WAKER_CPU]		= "landed_waker_cpu",
	[SW_LANDED_SMT_SIBLING]		= "landed_smt_sibling",
	[SW_LANDED_SAME_LLC]		= "landed_same_llc",
	[SW_LANDED_OTHER_LLC]		= "landed_other_llc",
	[SW_CONTEXT_TASK]		= "context_task",
	[SW_CONTEXT_SOFTIRQ_BH]		= "context_softirq_bh",
	[SW_CONTEXT_SOFTIRQ]		= "context_softirq",
	[SW_CONTEXT_HARDIRQ]		= "context_hardirq",
	[SW_PROMISE_KEPT]		= "promise_kept",
	[SW_PROMISE_BROKEN]		= "promise_broken",
	[SW_PROMISE_UNJUDGED]		= "promise_unjudged",
	[SW_PROMISE_PENDING]		= "promise_pending",
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
 * (no debugfs, or 6.12 without CONFIG_SCHED_DEBUG), -ENODATA if the kernel does not
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
/* A file of one line into @buf, its newline dropped; -EPROTO without one. */
static int sw_read_line(const char *path, char *buf, size_t size)
{
	ssize_t n = sw_read_file(path, buf, size);

	if (n < 0)
		return n;
	if (n == 0 || buf[n - 1] != '\n')
		return -EPROTO;
	buf[n - 1] = '\0';
	return 0;
}

int sw_policy_get(char *buf, size_t size)
{
	return sw_read_line(SW_POLICY_PATH, buf, size);
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
/* The first @nr of sw_stat_names[], one a line, in order, and nothing else. */
static int sw_stats_parse(const char *path, int nr, struct sw_stats *st)
{
	char buf[4096], name[64], *line, *save;
	unsigned long val;
	int i = 0, pos;
	ssize_t n;

	memset(st, 0, sizeof(*st));
	n = sw_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (n == 0 || buf[n - 1] != '\n')
		return -EPROTO;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (i >= nr)
			return -EPROTO;
		if (sscanf(line, "%63s %lu%n", name, &val, &pos) != 2 ||
		    line[pos] != '\0' || strcmp(name, sw_stat_names[i]))
			return -EPROTO;
		st->v[i++] = val;
	}
	return i == nr ? 0 : -EPROTO;
}

int sw_stats_read(struct sw_stats *st)
{
	return sw_stats_parse(SW_STATS_PATH, SW_NR_STATS, st);
}

/*
 * @st becomes what the counters counted since snapshot @start: a difference,
 * not a reset, so that a window around it (sw_window_start()) still sees
 * every count.
 */
int sw_stats_since(const struct sw_stats *start, struct sw_stats *st)
{
	int i, err = sw_stats_read(st);

	if (err)
		return err;
	for (i = 0; i < SW_NR_STATS; i++)
		st->v[i] -= start->v[i];
	return 0;
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

	for (i = SW_FIRST_VERDICT; i <= SW_LAST_VERDICT; i++)
		sum += st->v[i];
	return sum;
}

/* Sum of the landing lines: sync_wakeups too. */
unsigned long sw_stats_landings(const struct sw_stats *st)
{
	unsigned long sum = 0;
	int i;

	for (i = SW_FIRST_LANDING; i <= SW_LAST_LANDING; i++)
		sum += st->v[i];
	return sum;
}

/* Sum of the context lines: sync_wakeups too. */
unsigned long sw_stats_contexts(const struct sw_stats *st)
{
	unsigned long sum = 0;
	int i;

	for (i = SW_FIRST_CONTEXT; i <= SW_LAST_CONTEXT; i++)
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
 * drops the hint of any other. honest-waker: an honest waker's wakeup takes
 * the steps of waker-if-alone and the capacity step, as does one on
 * probation (sw_record_honest()) whose wakee last woke it, while any other
 * of its wakeups and a dishonest waker's lose the hint; a wakeup with no
 * waker to judge is hint-only.
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
	SW_WAKER_IF_ALONE_VERDICTS | SW_STAT_BIT(SW_DECLINED_CAPACITY) |
	SW_STAT_BIT(SW_HINT_DROPPED) | SW_STAT_BIT(SW_HINT_ONLY) |
	SW_STAT_BIT(SW_PROBE),						/* honest-waker */
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
 * verdicts and of the landings, and every kept wakee a landed_waker_cpu,
 * always. With @policy set, the only policy in force since the
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
	sum = sw_stats_landings(st);
	if (st->v[SW_SYNC_WAKEUPS] != sum) {
		snprintf(buf, size, "sync_wakeups %lu, but the landings add up to %lu",
			 st->v[SW_SYNC_WAKEUPS], sum);
		return buf;
	}
	sum = sw_stats_contexts(st);
	if (st->v[SW_SYNC_WAKEUPS] != sum) {
		snprintf(buf, size, "sync_wakeups %lu, but the contexts add up to %lu",
			 st->v[SW_SYNC_WAKEUPS], sum);
		return buf;
	}
	/* A kept wakee lands on the waker CPU. */
	if (st->v[SW_LANDED_WAKER_CPU] < st->v[SW_KEPT]) {
		snprintf(buf, size, "kept_on_waker_cpu %lu, but only %lu landed_waker_cpu",
			 st->v[SW_KEPT], st->v[SW_LANDED_WAKER_CPU]);
		return buf;
	}
	if (!policy)
		return NULL;
	allowed = sw_policy_verdicts(policy);
	if (!allowed) {
		snprintf(buf, size, "\"%s\" is no policy", policy);
		return buf;
	}
	for (i = SW_FIRST_VERDICT; i <= SW_LAST_VERDICT; i++) {
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

/* promise_kept over the promises kept or broken. */
double sw_promise_kept_share(const struct sw_stats *st)
{
	return sw_ratio(st->v[SW_PROMISE_KEPT],
			st->v[SW_PROMISE_KEPT] + st->v[SW_PROMISE_BROKEN]);
}

/*
 * The promise counts in /proc/@pid/sched (0: this process), lines
 * "nr_sync_promises_kept  :  N". Returns 0, -ENOENT without them
 * (schedstats off, or no such kernel), or another -errno.
 */
int sw_task_promises(pid_t pid, struct sw_task_promises *tp)
{
	char path[64], buf[16384], *line, *save;
	int found = 0;
	ssize_t n;
	long v;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid ? pid : getpid());
	n = sw_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "nr_sync_promises_kept : %ld", &v) == 1) {
			tp->kept = v;
			found |= 1;
		} else if (sscanf(line, "nr_sync_promises_broken : %ld", &v) == 1) {
			tp->broken = v;
			found |= 2;
		}
	}
	return found == 3 ? 0 : -ENOENT;
}

/* kernel.sched_schedstats: set to @on, returning the old value or -errno. */
int sw_schedstats_set(int on)
{
	char buf[16];
	ssize_t n;
	int err;

	n = sw_read_file("/proc/sys/kernel/sched_schedstats", buf, sizeof(buf));
	if (n < 0)
		return n;
	err = sw_write_str("/proc/sys/kernel/sched_schedstats", on ? "1" : "0");
	return err ? err : atoi(buf);
}

/* Set the promise limit to @ns; the old value, or -errno. */
long sw_limit_set(long ns)
{
	char buf[32];
	long old;
	ssize_t n;
	int err;

	n = sw_read_file(SW_LIMIT_PATH, buf, sizeof(buf));
	if (n < 0)
		return n;
	old = atol(buf);
	snprintf(buf, sizeof(buf), "%ld", ns);
	err = sw_write_str(SW_LIMIT_PATH, buf);
	return err ? err : old;
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

/* ---- the sched:sched_sync_wakeup trace event ------------------------- */

/*
 * The events over the kernel's bare tracepoints, made with the fprobe "t:"
 * lines of Documentation/scheduler/sched-sync-wakeup.rst (FPROBE_EVENTS and
 * BTF) in a group of the tests' own, where the kernel has no events of its
 * own in "sched". Same names and fields; the enums print as numbers.
 */
static const char * const sw_tprobes[] = {
	"t:" SW_TPROBE_GROUP "/" SW_EVENT
	" sched_sync_wakeup_tp comm=p->comm:string pid=p->pid policy verdict ctx prev_cpu affine_cpu dest_cpu",
	"t:" SW_TPROBE_GROUP "/" SW_PROMISE_EVENT
	" sched_sync_promise_tp comm=p->comm:string pid=p->pid cause history=history:x8 count ran limit",
};

#define SW_DYNAMIC_EVENTS	SW_TRACEFS "/dynamic_events"

/* The group of the events in use: "sched" or SW_TPROBE_GROUP. */
static char sw_event_enable[128] = SW_TRACEFS "/events/sched/" SW_EVENT "/enable";
static char sw_promise_enable[128] = SW_TRACEFS "/events/sched/" SW_PROMISE_EVENT "/enable";

/*
 * Remove the tests' "t:" events, if any: once read, as the trace cannot
 * print an entry whose event is gone; and before making them, in case a
 * failed test left them behind, enabled.
 */
static void sw_tprobes_remove(void)
{
	sw_write_str(SW_TRACEFS "/events/" SW_TPROBE_GROUP "/enable", "0");
	sw_write_str(SW_DYNAMIC_EVENTS, "-:" SW_TPROBE_GROUP "/" SW_EVENT);
	sw_write_str(SW_DYNAMIC_EVENTS, "-:" SW_TPROBE_GROUP "/" SW_PROMISE_EVENT);
}

/* Append @line to dynamic_events, which O_APPEND keeps the others of. */
static int sw_tprobe_add(const char *line)
{
	int fd = open(SW_DYNAMIC_EVENTS, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

static bool sw_kernel_events(void)
{
	return sw_exists(SW_TRACEFS "/events/sched/" SW_EVENT "/enable") &&
	       sw_exists(SW_TRACEFS "/events/sched/" SW_PROMISE_EVENT "/enable");
}

/*
 * Whether the kernel can give the events: its own, or "t:" events over the
 * tracepoints, which need fprobe events (tracefs' README lists "t:") and
 * BTF for the arguments by name (it lists "<argname>", and vmlinux's BTF
 * is there). Mounts tracefs if it is not. 0 if so, 1
 * to skip, -1 to fail, with why in @why.
 */
int sw_trace_available(char *why, size_t size)
{
	char readme[16384];
	int err = sw_tracefs_mount();

	if (err) {
		snprintf(why, size, "cannot mount tracefs: %s", strerror(-err));
		return -1;
	}
	if (sw_kernel_events())
		return 0;
	if (sw_read_file(SW_TRACEFS "/README", readme, sizeof(readme)) < 0 ||
	    !strstr(readme, "t[:[<group>/][<event>]] <tracepoint>") ||
	    !strstr(readme, "<argname>") || !sw_exists("/sys/kernel/btf/vmlinux")) {
		snprintf(why, size, "no %s event, nor fprobe events with BTF to make one",
			 SW_EVENT);
		return 1;
	}
	return 0;
}

/*
 * Make sure sched_sync_wakeup and sched_sync_promise exist: the kernel's
 * trace events, or "t:" events that sw_trace_stop() removes. Returns 0,
 * -EOPNOTSUPP if the kernel can give neither, or another -errno.
 */
static int sw_trace_events(void)
{
	char why[160];
	size_t i;
	int err;

	err = sw_trace_available(why, sizeof(why));
	if (err)
		return err > 0 ? -EOPNOTSUPP : -EIO;
	if (sw_kernel_events())
		return 0;
	sw_tprobes_remove();
	for (i = 0; i < ARRAY_SIZE(sw_tprobes); i++) {
		err = sw_tprobe_add(sw_tprobes[i]);
		if (err) {
			sw_tprobes_remove();
			return err;
		}
	}
	snprintf(sw_event_enable, sizeof(sw_event_enable), "%s",
		 SW_TRACEFS "/events/" SW_TPROBE_GROUP "/" SW_EVENT "/enable");
	snprintf(sw_promise_enable, sizeof(sw_promise_enable), "%s",
		 SW_TRACEFS "/events/" SW_TPROBE_GROUP "/" SW_PROMISE_EVENT "/enable");
	return 0;
}

/*
 * The trace settings sw_trace_start() changes, to put back: the eight
 * events' enable files, trace_clock, buffer_size_kb and tracing_on.
 */
#define SW_TRACE_NR_SAVED	11
static const char * const sw_trace_files[SW_TRACE_NR_SAVED] = {
	SW_WAKING_DIR "/enable",
	SW_WAKEUP_DIR "/enable",
	SW_WAKEUP_NEW_DIR "/enable",
	SW_SWITCH_DIR "/enable",
	SW_MIGRATE_DIR "/enable",
	SW_FORK_DIR "/enable",
	sw_event_enable,
	sw_promise_enable,
	SW_TRACEFS "/trace_clock",
	SW_TRACEFS "/buffer_size_kb",
	SW_TRACEFS "/tracing_on",
};

/*
 * The files sw_trace_start() changed (the events' as that process found
 * them), their values before, and whether they are to be put back. Shared
 * by every process of the program, so that whichever runs the fixture's
 * teardown sees what the test changed, and a later test or the exit hook
 * what a test the harness killed left behind. (6.12's harness runs no
 * FIXTURE_TEARDOWN() after a failed ASSERT at -O2: its "child" is not
 * volatile across the longjmp, so the test process takes the parent's
 * path, and runs a FIXTURE_TEARDOWN_PARENT() there.)
 */
struct sw_trace_state {
	bool changed;
	char file[SW_TRACE_NR_SAVED][128];
	char val[SW_TRACE_NR_SAVED][32];
};

static struct sw_trace_state sw_trace_private;
static struct sw_trace_state *sw_trace_state = &sw_trace_private;

static void __attribute__((constructor)) sw_trace_state_share(void)
{
	void *p = mmap(NULL, sizeof(*sw_trace_state), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		ksft_print_msg("no shared trace state (%s): a failed test may leave tracing on\n",
			       strerror(errno));
	else
		sw_trace_state = p;
}

/* Mount tracefs where it belongs, unless it is there. Returns 0 or -errno. */
int sw_tracefs_mount(void)
{
	if (sw_exists(SW_TRACEFS "/trace") ||
	    !mount("tracefs", SW_TRACEFS, "tracefs", 0, NULL) || errno == EBUSY)
		return 0;
	return -errno;
}

/*
 * The names of the own fields of @event (SW_EVENT or SW_PROMISE_EVENT),
 * those after the common_* ones, in order and separated by spaces, into
 * @buf. Returns 0, -EOPNOTSUPP if the kernel cannot give the event, or
 * another -errno.
 */
int sw_trace_fields(const char *event, char *buf, size_t size)
{
	char fmt[4096], path[160], *line, *save, *name, *end;
	const char *enable;
	size_t off = 0;
	int err;

	err = sw_trace_events();
	if (err)
		return err;
	enable = strcmp(event, SW_EVENT) ? sw_promise_enable : sw_event_enable;
	snprintf(path, sizeof(path), "%.*s/format",
		 (int)(strlen(enable) - strlen("/enable")), enable);
	err = sw_read_file(path, fmt, sizeof(fmt)) < 0 ? -ENOENT : 0;
	sw_tprobes_remove();
	if (err)
		return err;
	buf[0] = '\0';
	/* "\tfield:__data_loc char[] policy;\toffset:..." */
	for (line = strtok_r(fmt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (strncmp(line, "field:", 6))
			continue;
		end = strchr(line, ';');
		if (!end)
			return -EPROTO;
		*end = '\0';
		name = strrchr(line, ' ');
		name = name ? name + 1 : line + 6;
		name[strcspn(name, "[")] = '\0';
		/* A "t:" event records the probed address first. */
		if (!strncmp(name, "common_", 7) || !strcmp(name, "__probe_ip"))
			continue;
		off += snprintf(buf + off, size > off ? size - off : 0, "%s%s",
				off ? " " : "", name);
	}
	return off < size ? 0 : -ENOSPC;
}

/*
 * Per CPU. The tests' traces held 400 to 19,000 entries over all CPUs in
 * make check's runs of 2026-12-07 (the most: the placement test of
 * honest-waker's phases); an overflow fails the check (events lost). 8192
 * took 5-12 s to set up under TCG with KASAN, this 1-2 s.
 */
#define SW_TRACE_BUFFER_KB	"2048"

/* The value of tracefs file @i as it can be written back. */
static int sw_trace_save(int i)
{
	char buf[512], *val = buf, *end;
	ssize_t n;

	if (snprintf(sw_trace_state->file[i], sizeof(sw_trace_state->file[i]), "%s",
		     sw_trace_files[i]) >= (int)sizeof(sw_trace_state->file[i]))
		return -ENAMETOOLONG;
	n = sw_read_file(sw_trace_files[i], buf, sizeof(buf));
	if (n < 0)
		return n;
	/* trace_clock lists every clock, the one in use in [brackets]. */
	if (strchr(buf, '[')) {
		val = strchr(buf, '[') + 1;
		end = strchr(val, ']');
	} else {
		/* buffer_size_kb may say "7 (expanded: 1408)" */
		end = val + strcspn(val, "\n ");
	}
	if (!end || end == val || end - val >= (ptrdiff_t)sizeof(sw_trace_state->val[i]))
		return -EPROTO;
	*end = '\0';
	memcpy(sw_trace_state->val[i], val, end - val + 1);
	return 0;
}

/*
 * Record sched_sync_wakeup, sched_sync_promise, sched_waking,
 * sched_wakeup, sched_wakeup_new, sched_switch, sched_migrate_task and
 * sched_process_fork of every task from now on, in a cleared buffer. A decision
 * and the wakeup it leads to are on different CPUs, so the trace must order
 * events across CPUs exactly: the "counter" clock numbers events as they are
 * reserved. ("global" put a wakeup before its decision twice in about
 * 30,000 pairs under QEMU TCG.) Returns 0, -EOPNOTSUPP if the kernel can
 * give no sched_sync_wakeup event, or another -errno.
 */
int sw_trace_start(void)
{
	static const char * const set[][2] = {
		{ SW_TRACEFS "/tracing_on", "0" },
		{ SW_TRACEFS "/trace_clock", "counter" },
		{ SW_TRACEFS "/buffer_size_kb", SW_TRACE_BUFFER_KB },
		{ SW_WAKING_DIR "/enable", "1" },
		{ SW_WAKEUP_DIR "/enable", "1" },
		{ SW_WAKEUP_NEW_DIR "/enable", "1" },
		{ SW_SWITCH_DIR "/enable", "1" },
		{ SW_MIGRATE_DIR "/enable", "1" },
		{ SW_FORK_DIR "/enable", "1" },
		{ sw_event_enable, "1" },
		{ sw_promise_enable, "1" },
	};
	size_t i;
	int fd, err;

	/* What a test the harness killed left on is not the state to keep. */
	sw_trace_restore();
	err = sw_trace_events();
	if (err)
		return err;
	for (i = 0; i < SW_TRACE_NR_SAVED; i++) {
		err = sw_trace_save(i);
		if (err) {
			sw_tprobes_remove();
			return err;
		}
	}
	sw_trace_state->changed = true;
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		err = sw_write_str(set[i][0], set[i][1]);
		if (err)
			goto undo;
	}
	/* Opening "trace" for writing with O_TRUNC clears the buffer. */
	fd = open(SW_TRACEFS "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto undo;
	}
	close(fd);
	err = sw_write_str(SW_TRACEFS "/tracing_on", "1");
	if (err)
		goto undo;
	return 0;
undo:
	sw_trace_restore();
	return err;
}

void sw_own_count(const struct sw_trace *t, long from, long to, struct sw_own_count *c)
{
	long i;

	memset(c, 0, sizeof(*c));
	for (i = from; i < to; i++) {
		c->n++;
		c->v[t->own_seq[i].verdict]++;
	}
}

/*
 * Of this process' decisions in [@from, @to), those where it was the waker
 * (task or softirq_bh context): the ones that settle its promises.
 */
long sw_own_as_waker(const struct sw_trace *t, long from, long to)
{
	long i, n = 0;

	for (i = from; i < to && i < SW_TRACE_OWN_MAX; i++)
		n += t->own_seq[i].ctx <= SW_CTX_SOFTIRQ_BH;
	return n;
}

/* "n decisions of this process: kept k, ..." (the nonzero verdicts) */
const char *sw_own_count_str(const struct sw_own_count *c, char *buf, size_t size)
{
	size_t off;
	int i;

	off = snprintf(buf, size, "%ld decisions of this process:", c->n);
	for (i = SW_KEPT; i <= SW_LAST_VERDICT && off < size; i++)
		if (c->v[i])
			off += snprintf(buf + off, size - off, " %s %ld", sw_stat_names[i],
					c->v[i]);
	return buf;
}

/*
 * Put back the trace settings sw_trace_start() changed and remove the
 * tests' "t:" events. sw_trace_stop() does; so do a fixture's teardown,
 * for a test that failed with the trace on, and sw_trace_start() and the
 * exit hook, for one the harness killed. Returns 0, also when
 * there was nothing to put back, or the first -errno.
 */
int sw_trace_restore(void)
{
	int i, ret, err = 0;

	if (!sw_trace_state->changed)
		return 0;
	sw_trace_state->changed = false;
	for (i = 0; i < SW_TRACE_NR_SAVED; i++) {
		ret = sw_write_str(sw_trace_state->file[i], sw_trace_state->val[i]);
		err = err ? err : ret;
	}
	sw_tprobes_remove();
	return err;
}

/* The index in sw_stat_names[] of a verdict as the event names it, or -1. */
static int sw_trace_verdict(const char *name)
{
	int i;

	for (i = SW_FIRST_VERDICT; i <= SW_LAST_VERDICT; i++)
		if (!strcmp(name, sw_stat_names[i]))
			return i;
	return -1;
}

#define SW_CPU_DIR	"/sys/devices/system/cpu/cpu%d"

/* The first CPU of the list in @cpu's sysfs file @fmt (index @i), or -1. */
static int sw_cpu_list_first(const char *fmt, int cpu, int i)
{
	char path[160], buf[256];

	snprintf(path, sizeof(path), fmt, cpu, i);
	if (sw_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/*
 * The CPU that names @cpu's last-level cache: the first CPU sharing the
 * highest-level cache in sysfs; @cpu itself if sysfs shows no cache. That
 * is what cpus_share_cache() sees where the scheduler's LLC domains follow
 * the caches, as in the test guests; cpuset partitions or isolcpus= that
 * split an LLC would make the landings disagree (sd_llc_id).
 */
static int sw_llc_id(int cpu)
{
	int i, level, best = 0, id = cpu;
	char path[160], buf[16];

	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), SW_CPU_DIR "/cache/index%d/level", cpu, i);
		if (sw_read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		level = atoi(buf);
		if (level <= best)
			continue;
		best = level;
		id = sw_cpu_list_first(SW_CPU_DIR "/cache/index%d/shared_cpu_list", cpu, i);
		if (id < 0)
			id = cpu;
	}
	return id;
}

/*
 * Each CPU's core and LLC, named by their first CPU, from sysfs: where a
 * wakee landed, told apart from the counters. Returns the number of CPUs
 * filled in, or -errno.
 */
static int sw_topology_load(int **core, int **llc)
{
	int cpu, nr = sysconf(_SC_NPROCESSORS_CONF);

	if (nr <= 0)
		return -ENOENT;
	*core = calloc(nr, sizeof(**core));
	*llc = calloc(nr, sizeof(**llc));
	if (!*core || !*llc)
		return -ENOMEM;
	for (cpu = 0; cpu < nr; cpu++) {
		(*core)[cpu] = sw_cpu_list_first(SW_CPU_DIR "/topology/thread_siblings_list",
						 cpu, 0);
		if ((*core)[cpu] < 0)
			(*core)[cpu] = cpu;
		(*llc)[cpu] = sw_llc_id(cpu);
	}
	return nr;
}

#define SW_TRACE_WOKE_MAX	64

/* A wakeup between our tasks, followed for the stack witness. */
struct sw_stack {
	pid_t wakee;
	int waker_cpu, prev_cpu, dest_cpu;
	int affine_cpu;		/* its decision's, if decided */
	long end;		/* line of its sched_wakeup; 0 while pending */
	bool busy;		/* prev_cpu was not idle at some point in it */
	bool far;		/* prev_cpu in another LLC than the waker CPU */
	bool unhinted;		/* decided, and went on with sync=0 */
};

/* A waker's last decision: traced, kept its wakee on its CPU, a probe. */
#define SW_MADE		0x1
#define SW_MADE_STACKED	0x2
#define SW_MADE_PROBE	0x4

/* honest-waker's probe state of a waker, replayed from its events. */
struct sw_probing {
	short nshared;		/* shared promises since its last kept probe; -1: unknown */
	signed char reprobe;	/* a probe broke since its last kept one; -1: unknown */
	signed char probe_kept;	/* its last probe was kept; -1: unknown */
	unsigned char made;	/* its last decision's SW_MADE_*, 0 if settled */
};

/* The shared promises after which @st's keeps are probes. */
static int sw_probe_after(const struct sw_probing *st)
{
	return st->probe_kept ? SW_PROMISE_PROBE_AFTER_KEPT : SW_PROMISE_PROBE_AFTER;
}

/* Per pid, for the promise witness: its promise is in the trace... */
#define SW_PROMISED	0x1
/* ...and it blocked since... */
#define SW_BLOCKED	0x2
/* ...or switched out in a way that may or may not have counted as a block. */
#define SW_UNSURE	0x4
/* ...or, under PREEMPT_RT, switched out in D: a sleep, or a spinlock's wait. */
#define SW_D_WAIT	0x8

struct sw_trace_parse {
	struct sw_trace *out;
	const char *policy;
	char comm[16];
	int *pending;		/* per pid: 1 + dest_cpu of its last event, 0 if none */
	int record;		/* this process': history | count << 8, -1 if unknown */
	int judged;		/* its promise judged since its last decision, -1 none */
	struct sw_probing *probing;	/* per pid of a task named as this process */
	char **seen;		/* per pid: its last event of either kind, for errors */
	int pid_max;
	int pids[8];
	int woke[SW_TRACE_WOKE_MAX][2];	/* waker, wakee: our tasks' sched_waking */
	int nr_woke;
	pid_t self;
	size_t comm_len;
	int *core, *llc;	/* per CPU: first CPU of its core, of its LLC */
	int nr_cpus;
	long seq;		/* the event being parsed, counted from 1 */
	bool rt;		/* a PREEMPT_RT kernel: spinlock waits show as D */
	int *curr;		/* per CPU: pid sched_switch put there, -1 unknown */
	bool *claimed;		/* per CPU: a task woken or moved there since */
	long *waking;		/* per pid: seq of its pending sched_waking, or 0 */
	unsigned char *promise;	/* per pid: SW_PROMISED, SW_BLOCKED, SW_UNSURE, SW_D_WAIT */
	unsigned int *blocks;	/* per pid: its blocks since its promise */
	unsigned long long limit;	/* the promise limit an unscaled event gave, ns */
	struct sw_stack *stacks;
	int nr_stacks, cap_stacks;
};

/* Where @dest is, seen from the waker CPU @cpu, as the counters say it. */
static int sw_trace_landing(const struct sw_trace_parse *tp, int cpu, int dest)
{
	if (dest == cpu)
		return SW_LANDED_WAKER_CPU;
	if (tp->core[cpu] == tp->core[dest])
		return SW_LANDED_SMT_SIBLING;
	if (tp->llc[cpu] == tp->llc[dest])
		return SW_LANDED_SAME_LLC;
	return SW_LANDED_OTHER_LLC;
}

/* Remember @line as @pid's last event. */
static void sw_trace_seen(struct sw_trace_parse *tp, int pid, const char *line)
{
	free(tp->seen[pid]);
	tp->seen[pid] = strdup(line);
}

/*
 * The waker's pid, from the line's "<comm>-<pid>" prefix, if its comm is
 * this process' (a comm may hold '-' or spaces); else 0.
 */
static pid_t sw_trace_waker(const struct sw_trace_parse *tp, const char *line)
{
	line += strspn(line, " ");
	if (strncmp(line, tp->comm, tp->comm_len) || line[tp->comm_len] != '-')
		return 0;
	return atoi(line + tp->comm_len + 1);
}

/* Has our task @wakee woken our task @waker in the trace so far? */
static bool sw_trace_woke(const struct sw_trace_parse *tp, pid_t wakee, pid_t waker)
{
	int i;

	for (i = 0; i < tp->nr_woke; i++)
		if (tp->woke[i][0] == wakee && tp->woke[i][1] == waker)
			return true;
	return false;
}

/*
 * The "] " that ends the line's "[<cpu>]" field: the last before the
 * event's name, as a task's comm, which comes first, may hold one. NULL if
 * there is none.
 */
static const char *sw_trace_bracket(const char *line)
{
	const char *end = strstr(line, ": sched_"), *b, *last = NULL;

	for (b = strstr(line, "] "); b && (!end || b < end); b = strstr(b + 1, "] "))
		last = b;
	return last;
}

/*
 * The context the event on @line fired in, from the latency flags after
 * "[<cpu>] ", which the tracer takes from preempt_count() itself: the third
 * is '.' in a task, 's' in a softirq, 'h' or 'H' in a hard interrupt (-1:
 * anything else).
 */
static int sw_trace_flags_ctx(const char *line)
{
	const char *flags = sw_trace_bracket(line);

	if (!flags || strlen(flags) < 5)
		return -1;
	switch (flags[4]) {
	case '.':
		return SW_CTX_TASK;
	case 's':
		return SW_CTX_SOFTIRQ;
	case 'h':
	case 'H':
		return SW_CTX_HARDIRQ;
	}
	return -1;
}

static const char * const sw_ctx_names[SW_NR_CONTEXTS] = {
	[SW_CTX_TASK] = "task",
	[SW_CTX_SOFTIRQ_BH] = "softirq_bh",
	[SW_CTX_SOFTIRQ] = "softirq",
	[SW_CTX_HARDIRQ] = "hardirq",
};

/*
 * The policy honest-waker applies to a waker from task context whose
 * record is @record (history | count << 8), as in sync_wakeup_policy_for():
 * no-sync once it broke too many promises to have kept SW_PROMISE_HONEST
 * of SW_PROMISE_HISTORY.
 */
static const char *sw_honest_waker_rule(int record)
{
	return sw_record_dishonest(record) ? "no-sync" : "honest-waker";
}

/* May an event name @applied while @set is the policy? */
static bool sw_trace_policy_ok(const char *set, const char *applied)
{
	if (!strcmp(applied, set))
		return true;
	if (!strcmp(set, "reciprocal-strict"))
		return !strcmp(applied, "reciprocal-only") || !strcmp(applied, "no-sync");
	if (!strcmp(set, "honest-waker"))
		return !strcmp(applied, "hint-only") || !strcmp(applied, "no-sync");
	return false;
}

static void sw_trace_wrong(struct sw_trace_parse *tp, const char *line, const char *fmt, ...)
{
	va_list ap;
	size_t off;

	if (tp->out->wrong++)
		return;
	va_start(ap, fmt);
	off = vsnprintf(tp->out->why, sizeof(tp->out->why), fmt, ap);
	va_end(ap);
	if (*line && off < sizeof(tp->out->why))
		snprintf(tp->out->why + off, sizeof(tp->out->why) - off, " in: %s", line);
}

/*
 * A "t:" event prints an enum as its number: put the name at that index of
 * @names (@nr of them) in its place in @buf. A name, or a number out of
 * range, stays as it is, for the caller to refuse.
 */
static void sw_trace_enum(char *buf, size_t size, const char * const *names, int nr)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)buf[0]))
		return;
	v = strtol(buf, &end, 10);
	if (!*end && v >= 0 && v < nr)
		snprintf(buf, size, "%s", names[v]);
}

static int sw_trace_cpu(const struct sw_trace_parse *tp, const char *line);

/* sw_trace_comm_policy()'s wakers: a name, its group's policy. */
static struct {
	char comm[16];
	char policy[32];
} sw_comm_policies[SW_TRACE_COMMS];
static int sw_nr_comm_policies;

int sw_trace_comm_policy(const char *comm, const char *policy)
{
	if (!comm) {
		sw_nr_comm_policies = 0;
		return 0;
	}
	if (sw_nr_comm_policies == SW_TRACE_COMMS || strlen(comm) >= 16 ||
	    strlen(policy) >= 32)
		return -ENOSPC;
	snprintf(sw_comm_policies[sw_nr_comm_policies].comm,
		 sizeof(sw_comm_policies[0].comm), "%s", comm);
	snprintf(sw_comm_policies[sw_nr_comm_policies].policy,
		 sizeof(sw_comm_policies[0].policy), "%s", policy);
	sw_nr_comm_policies++;
	return 0;
}

/*
 * Which sw_trace_comm_policy() waker the task of @line is (its "comm-pid"
 * prefix: the event's own comm= names the wakee), or -1.
 */
static int sw_trace_comm_index(const char *line)
{
	size_t len;
	int i;

	line += strspn(line, " ");
	for (i = 0; i < sw_nr_comm_policies; i++) {
		len = strlen(sw_comm_policies[i].comm);
		if (!strncmp(line, sw_comm_policies[i].comm, len) && line[len] == '-' &&
		    isdigit((unsigned char)line[len + 1]))
			return i;
	}
	return -1;
}

/*
 * One sched_sync_wakeup event, its fields from " pid=" on in @f. The rules
 * every decided sync wakeup follows, whatever the timing:
 *   the policy is the one set (reciprocal-strict: reciprocal-only or
 *   no-sync; honest-waker: hint-only or no-sync too), the verdict one that
 *   policy gives;
 *   a kept wakee goes to the waker CPU, which wake_affine() chose or which
 *   was the wakee's previous CPU;
 *   the wakee's next sched_wakeup is on dest_cpu (checked there);
 *   a wakee that reciprocal-only kept on the CPU of a waker, both of this
 *   process' tasks (created in the trace, or this one), woke that waker
 *   earlier in the trace: p->last_wakee == current needs a wakeup of
 *   current by p, which sched_waking shows (not every sched_waking sets
 *   last_wakee, so the converse is not checked);
 *   under honest-waker, a decision of this process follows the rule on the
 *   record its last sched_sync_promise event gave (none yet: unchecked):
 *   no-sync on a dishonest record, honest-waker on an honest one, and on
 *   probation either: the wakee of every honest-waker verdict woke this
 *   process earlier, as a wakee reciprocal-only kept (the no-sync ones
 *   are not checked, as above).
 */
static void sw_trace_decision(struct sw_trace_parse *tp, const char *line,
			      const char *comm, size_t comm_len, const char *f)
{
	static const char fmt[] =
		" pid=%d policy=%31s verdict=%31s ctx=%15s prev_cpu=%d affine_cpu=%d dest_cpu=%d";
	int pid, this_cpu, prev_cpu, affine_cpu, dest_cpu, v, i, record, ctx, group;
	struct sw_trace *out = tp->out;
	const char *set = tp->policy;
	pid_t waker = 0, promiser;
	struct sw_probing *st;
	bool ours, bet = false;
	char policy[32], verdict[32], cname[16];
	const char *rule;

	/* Fired on the waker's CPU, which the line names. */
	this_cpu = sw_trace_cpu(tp, line);
	if (sscanf(f, fmt, &pid, policy, verdict, cname, &prev_cpu, &affine_cpu,
		   &dest_cpu) != 7 ||
	    pid <= 0 || pid > tp->pid_max || this_cpu < 0 || this_cpu >= tp->nr_cpus ||
	    dest_cpu < 0 || dest_cpu >= tp->nr_cpus) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	sw_trace_enum(policy, sizeof(policy), sw_policies, SW_NR_POLICIES);
	sw_trace_enum(verdict, sizeof(verdict), sw_stat_names + SW_FIRST_VERDICT,
		      SW_LAST_VERDICT - SW_FIRST_VERDICT + 1);
	sw_trace_enum(cname, sizeof(cname), sw_ctx_names, SW_NR_CONTEXTS);
	out->events++;
	out->landings[sw_trace_landing(tp, this_cpu, dest_cpu)]++;
	ours = comm_len == tp->comm_len && !strncmp(comm, tp->comm, comm_len);
	/* Whose decisions share the window, for the log ("task-pid" leads the line). */
	if (!ours && !out->other[0])
		snprintf(out->other, sizeof(out->other), "%.*s woke %.*s",
			 (int)strcspn(line + strspn(line, " "), " "), line + strspn(line, " "),
			 (int)comm_len, comm);
	if (ours) {
		out->ours++;
		for (i = 0; i < out->our_pids && tp->pids[i] != pid; i++)
			;
		if (i == out->our_pids && i < 8)
			tp->pids[out->our_pids++] = pid;
	}
	v = sw_trace_verdict(verdict);
	if (v < 0) {
		sw_trace_wrong(tp, line, "unknown verdict %s", verdict);
		return;
	}
	out->verdicts[v]++;
	if (ours)
		out->our_verdicts[v]++;
	for (ctx = 0; ctx < SW_NR_CONTEXTS && strcmp(cname, sw_ctx_names[ctx]); ctx++)
		;
	if (ctx == SW_NR_CONTEXTS) {
		sw_trace_wrong(tp, line, "unknown context %s", cname);
		return;
	}
	out->contexts[ctx]++;
	/*
	 * A promise is made where the waker is current and fair: every waker
	 * in task or softirq_bh context in the test guests; an RT waker would
	 * make promise_pending disagree.
	 */
	out->wakers += ctx <= SW_CTX_SOFTIRQ_BH;
	if (ctx <= SW_CTX_SOFTIRQ_BH) {
		promiser = sw_trace_waker(tp, line);
		if (promiser > 0 && promiser <= tp->pid_max) {
			tp->promise[promiser] = SW_PROMISED;
			tp->blocks[promiser] = 0;
		}
	}
	/* The followed wakeup this decision places, if any. */
	for (i = tp->nr_stacks - 1; i >= 0; i--) {
		if (tp->stacks[i].wakee != pid)
			continue;
		if (!tp->stacks[i].end) {
			tp->stacks[i].unhinted = v == SW_HINT_DROPPED;
			tp->stacks[i].affine_cpu = affine_cpu;
		}
		break;
	}
	/* softirq_bh is a softirq too, one that current ran itself. */
	if (sw_trace_flags_ctx(line) != (ctx == SW_CTX_SOFTIRQ_BH ? SW_CTX_SOFTIRQ : ctx))
		sw_trace_wrong(tp, line, "ctx=%s, but the latency flags say otherwise", cname);
	promiser = sw_trace_waker(tp, line);
	if (ctx <= SW_CTX_SOFTIRQ_BH && promiser > 0 && promiser <= tp->pid_max) {
		st = &tp->probing[promiser];
		/*
		 * A promise its decision before made and no event settled: a
		 * new generation dropped the record (no event says so), or the
		 * pid is a new task's.
		 */
		if (st->made) {
			st->nshared = -1;
			st->reprobe = -1;
			st->probe_kept = -1;
			if (promiser == tp->self)
				tp->record = -1;
		}
		/* A probe in place of a keep, and only then. */
		if (st->nshared >= 0 && st->probe_kept >= 0 &&
		    (v == SW_PROBE || (v == SW_KEPT && !strcmp(policy, "honest-waker")))) {
			out->probes_checked++;
			if (v == SW_PROBE ? st->nshared < sw_probe_after(st) :
			    st->nshared >= sw_probe_after(st))
				sw_trace_wrong(tp, line,
					       "%s after %d shared promises, the last probe %s",
					       verdict, st->nshared,
					       st->probe_kept ? "kept" : "broken");
			else if (v == SW_KEPT && st->nshared >= SW_PROMISE_PROBE_AFTER)
				out->keeps_past_probe++;
		}
		st->made = SW_MADE;
		if (v == SW_KEPT && dest_cpu == this_cpu)
			st->made |= SW_MADE_STACKED;
		if (v == SW_PROBE)
			st->made |= SW_MADE_PROBE;
	}
	if (sw_trace_waker(tp, line) == tp->self) {
		/* The record as its last sched_sync_promise left it, if traced. */
		record = tp->record;
		if (out->own < SW_TRACE_OWN_MAX) {
			out->own_seq[out->own].wakee = pid;
			out->own_seq[out->own].verdict = v;
			out->own_seq[out->own].ctx = ctx;
			out->own_seq[out->own].record = record;
			out->own_seq[out->own].judged = tp->judged;
			out->own_seq[out->own].this_cpu = this_cpu;
			out->own_seq[out->own].prev_cpu = prev_cpu;
		}
		out->own++;
		tp->judged = -1;
		if (!strcmp(tp->policy, "honest-waker") && record >= 0) {
			rule = ctx <= SW_CTX_SOFTIRQ_BH ? sw_honest_waker_rule(record) :
							  "hint-only";
			/* On probation, no-sync unless the wakee last woke it. */
			if (!strcmp(rule, "honest-waker") && !sw_record_honest(record) &&
			    !strcmp(policy, "no-sync"))
				rule = policy;
			out->own_checked++;
			if (strcmp(policy, rule))
				sw_trace_wrong(tp, line,
					       "judged %s on a record of %d kept of %d (0x%02x), not %s",
					       policy, __builtin_popcount(record & 0xff),
					       record >> 8, record & 0xff, rule);
			else if (!strcmp(rule, "honest-waker") && !sw_record_honest(record))
				bet = true;
		}
	}

	/* On probation, the rule itself is the reciprocity bet. */
	if (ours && (bet || (v == SW_KEPT && !strcmp(policy, "reciprocal-only"))))
		waker = sw_trace_waker(tp, line);
	/* The waker's group's policy, where a test named the waker. */
	group = ctx <= SW_CTX_SOFTIRQ_BH ? sw_trace_comm_index(line) : -1;
	if (group >= 0) {
		set = sw_comm_policies[group].policy;
		out->by_comm[group].v[SW_SYNC_WAKEUPS]++;
		out->by_comm[group].v[v]++;
		out->by_comm[group].v[sw_trace_landing(tp, this_cpu, dest_cpu)]++;
	}
	if (!sw_trace_policy_ok(set, policy))
		sw_trace_wrong(tp, line, "policy %s while %s is set%s", policy, set,
			       group >= 0 ? " for its waker's group" : "");
	else if (!(sw_policy_verdicts(policy) & SW_STAT_BIT(v)))
		sw_trace_wrong(tp, line, "%s never gives verdict %s", policy, verdict);
	else if (v == SW_KEPT && dest_cpu != this_cpu)
		sw_trace_wrong(tp, line, "kept, but not on the waker CPU");
	else if (v == SW_KEPT && affine_cpu != this_cpu &&
		 !(affine_cpu == -1 && prev_cpu == this_cpu))
		sw_trace_wrong(tp, line, "kept where wake_affine() did not pick the waker CPU");
	else if (tp->pending[pid])
		sw_trace_wrong(tp, line, "two decisions, no sched_wakeup between; first: %s",
			       tp->seen[pid] ? tp->seen[pid] : "?");
	else if (waker > 0 && !sw_trace_woke(tp, pid, waker))
		sw_trace_wrong(tp, line, "%s as reciprocal, but %d never woke %d", verdict, pid,
			       waker);
	else if (waker > 0)
		out->reciprocal++;
	tp->pending[pid] = 1 + dest_cpu;
	sw_trace_seen(tp, pid, line);
}

/*
 * honest-waker's probe state of @pid, a task named as this process, at
 * the end of its promise by @cause: a shared one follows a decision that
 * kept the wakee on its CPU, and every such decision's promise is shared;
 * it brings a probe nearer; a reprobe follows
 * a probe, the first to break since the last kept one; a kept probe
 * starts the shared count again. Returns the SW_MADE_* of the decision
 * that made the promise, 0 if the trace does not hold it.
 */
static int sw_trace_probing(struct sw_trace_parse *tp, const char *line, pid_t pid, int c)
{
	struct sw_probing *st = &tp->probing[pid];
	int made = st->made;
	bool shared;

	st->made = 0;
	if (!made) {
		/* Whether it was a probe is not known. */
		st->nshared = -1;
		st->reprobe = -1;
		st->probe_kept = -1;
		return 0;
	}
	shared = c == SW_PROMISE_SHARED;
	if (shared != !!(made & SW_MADE_STACKED))
		sw_trace_wrong(tp, line, shared ?
			       "shared, but its decision did not keep its wakee" :
			       "judged, but its decision kept its wakee");
	if (c == SW_PROMISE_REPROBE && (!(made & SW_MADE_PROBE) || st->reprobe == 1))
		sw_trace_wrong(tp, line, "reprobe, but %s",
			       made & SW_MADE_PROBE ? "a probe broke since the last kept one" :
						      "its decision was no probe");
	if ((made & SW_MADE_PROBE) && (c == SW_PROMISE_LATE || c == SW_PROMISE_AWAKE) &&
	    st->reprobe == 0)
		sw_trace_wrong(tp, line, "a broken probe judged, the first since a kept one");
	if (c == SW_PROMISE_SHARED && st->nshared >= 0 && st->probe_kept >= 0 &&
	    st->nshared < sw_probe_after(st))
		st->nshared++;
	if (c == SW_PROMISE_REPROBE)
		st->reprobe = 1;
	if (made & SW_MADE_PROBE)
		st->probe_kept = c == SW_PROMISE_SLEPT;
	if ((made & SW_MADE_PROBE) && c == SW_PROMISE_SLEPT) {
		st->nshared = 0;
		st->reprobe = 0;
	}
	return made;
}

/*
 * One sched_sync_promise event, @comm the waker's, its fields from " pid="
 * on in @f: a waker that blocked was judged by whether it ran more than
 * the limit first (the lazy rule, replayed).
 * For a task named as this process whose promise the trace holds, "awake"
 * (nvcsw did not move) means no sched_switch shows it blocked since, and
 * only then (none of them takes a signal, which would move nvcsw on a
 * switch traced as R). For this process,
 * whose pid no other task can take while it reads the trace, the record is
 * the one before shifted by the outcome, the count saturating at
 * SW_PROMISE_HISTORY, and the ends are counted by cause.
 */
static void sw_trace_promise(struct sw_trace_parse *tp, const char *line,
			     const char *comm, size_t comm_len, const char *f)
{
	static const char * const causes[SW_NR_PROMISE_CAUSES] = {
		[SW_PROMISE_SLEPT] = "slept",
		[SW_PROMISE_LATE] = "late",
		[SW_PROMISE_AWAKE] = "awake",
		[SW_PROMISE_SHARED] = "shared",
		[SW_PROMISE_REPROBE] = "reprobe",
	};
	int pid, history, count, before, want, want_history, made, c;
	unsigned long long ran, limit, want_limit;
	char cause[16];
	bool slept, blocked, sure;

	if (sscanf(f, " pid=%d cause=%15s history=%x count=%d ran=%llu limit=%llu",
		   &pid, cause, &history, &count, &ran, &limit) != 6 ||
	    pid <= 0 || pid > tp->pid_max || history < 0 || history > 0xff) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	sw_trace_enum(cause, sizeof(cause), causes, SW_NR_PROMISE_CAUSES);
	for (c = 0; c < SW_NR_PROMISE_CAUSES && strcmp(cause, causes[c]); c++)
		;
	if (c == SW_NR_PROMISE_CAUSES) {
		sw_trace_wrong(tp, line, "unknown cause %s", cause);
		return;
	}
	slept = c == SW_PROMISE_SLEPT;
	blocked = tp->promise[pid] & SW_BLOCKED;
	sure = (tp->promise[pid] & (SW_PROMISED | SW_UNSURE)) == SW_PROMISED;
	if (c == SW_PROMISE_AWAKE || c == SW_PROMISE_SHARED)
		tp->limit = limit;
	/* The limit scales with the blocks since the promise, clamped to 32 bits. */
	if ((slept || c == SW_PROMISE_LATE) && sure && tp->limit &&
	    !(tp->promise[pid] & SW_D_WAIT) && tp->blocks[pid] < 0x10000) {
		want_limit = (tp->limit >> 10) * tp->blocks[pid];
		want_limit = (want_limit < 0xffffffffULL ? want_limit : 0xffffffffULL) << 10;
		if (limit != want_limit)
			sw_trace_wrong(tp, line, "%s on a limit of %llu ns, not %llu for %u blocks",
				       cause, limit, want_limit, tp->blocks[pid]);
	}
	if (slept && ran > limit)
		sw_trace_wrong(tp, line, "kept, but ran %llu ns, past the limit %llu", ran, limit);
	else if (c == SW_PROMISE_LATE && ran <= limit)
		sw_trace_wrong(tp, line, "late, but ran %llu ns, under the limit %llu", ran, limit);
	tp->out->promises[c]++;
	if (comm_len == tp->comm_len && !strncmp(comm, tp->comm, comm_len)) {
		tp->out->our_promises[c]++;
		if (sure && !blocked && (tp->promise[pid] & SW_D_WAIT)) {
			/* Switched out in D only: the caller knows on what. */
			if (pid == tp->self) {
				tp->out->promises_d_only++;
				if (c != SW_PROMISE_AWAKE && !tp->out->d_only_not_awake)
					snprintf(tp->out->d_only_judged,
						 sizeof(tp->out->d_only_judged), "%s", line);
				tp->out->d_only_not_awake += c != SW_PROMISE_AWAKE;
			}
		} else if (sure && c != SW_PROMISE_SHARED && c != SW_PROMISE_REPROBE) {
			tp->out->promises_witnessed++;
			if (blocked && (tp->promise[pid] & SW_D_WAIT))
				tp->out->promises_d_and_slept++;
			if (c == SW_PROMISE_AWAKE ? blocked : !blocked)
				sw_trace_wrong(tp, line, "%s, yet it %s since its promise", cause,
					       blocked ? "blocked" : "never blocked");
		}
	}
	/* Judged: the next promise is witnessed only if the trace holds its making. */
	tp->promise[pid] = 0;
	tp->blocks[pid] = 0;
	made = 0;
	if (comm_len == tp->comm_len && !strncmp(comm, tp->comm, comm_len))
		made = sw_trace_probing(tp, line, pid, c);
	if (pid != tp->self)
		return;
	tp->judged = c;
	before = tp->record;
	if (c == SW_PROMISE_SHARED || c == SW_PROMISE_REPROBE) {
		/* Unjudged: the record stands. */
		want = before >> 8;
		want_history = before & 0xff;
	} else {
		want = before >> 8 < SW_PROMISE_HISTORY ? (before >> 8) + 1 : SW_PROMISE_HISTORY;
		want_history = ((before & 0xff) << 1 | slept) & 0xff;
	}
	if (before >= 0 && made && (history != want_history || count != want))
		sw_trace_wrong(tp, line, "record 0x%02x of %d after 0x%02x of %d",
			       history, count, before & 0xff, before >> 8);
	tp->record = history | count << 8;
	tp->out->own_promises[c]++;
}

/* The CPU in the line's "[<cpu>] " field, or -1. */
static int sw_trace_cpu(const struct sw_trace_parse *tp, const char *line)
{
	const char *end = sw_trace_bracket(line), *start = end;
	int cpu;

	if (!end)
		return -1;
	while (start > line && start[-1] != '[')
		start--;
	if (start == line)
		return -1;
	cpu = atoi(start);
	return cpu < tp->nr_cpus ? cpu : -1;
}

/*
 * The stack witness. A CPU is idle from a sched_switch to pid 0 until a
 * task is woken or moved there (the scheduler's idle_cpu() also counts a
 * wakeup queued there, which its sched_wakeup shows only later: so a
 * wakeup counts from its sched_waking, while its CPU is not yet known).
 * Mark busy each followed wakeup but @self whose prev_cpu is @cpu and that
 * was still pending at @since.
 */
static void sw_stack_busy(struct sw_trace_parse *tp, int cpu, long since,
			  const struct sw_stack *self)
{
	struct sw_stack *s;

	for (s = tp->stacks; s < tp->stacks + tp->nr_stacks; s++)
		if (s != self && s->prev_cpu == cpu && (!s->end || since < s->end))
			s->busy = true;
}

/* Follow a wakeup of our task @wakee by ours on @cpu, from @prev. */
static void sw_stack_open(struct sw_trace_parse *tp, pid_t wakee, int cpu, int prev)
{
	struct sw_stack *s;

	if (prev == cpu || prev < 0 || prev >= tp->nr_cpus)
		return;
	if (tp->nr_stacks == tp->cap_stacks) {
		tp->cap_stacks = tp->cap_stacks ? 2 * tp->cap_stacks : 1024;
		s = realloc(tp->stacks, tp->cap_stacks * sizeof(*s));
		if (!s) {
			sw_trace_wrong(tp, "", "out of memory");
			tp->cap_stacks = tp->nr_stacks;
			return;
		}
		tp->stacks = s;
	}
	s = &tp->stacks[tp->nr_stacks++];
	*s = (struct sw_stack){
		.wakee = wakee, .waker_cpu = cpu, .prev_cpu = prev, .dest_cpu = -1,
		.affine_cpu = -1, .busy = tp->curr[prev] != 0 || tp->claimed[prev],
		.far = tp->llc[prev] != tp->llc[cpu],
	};
}

/*
 * A task is woken (@since: from its sched_waking; @self: its own followed
 * wakeup, if any) or moved to @cpu.
 */
static void sw_stack_claim(struct sw_trace_parse *tp, int cpu, long since,
			   const struct sw_stack *self)
{
	tp->claimed[cpu] = true;
	sw_stack_busy(tp, cpu, since, self);
}

/*
 * "sched_switch: prev_comm=... prev_pid=P prev_prio=.. prev_state=S ==>
 * next_comm=... next_pid=N ...", on @cpu. prev_state R (R+: preempted) is
 * a task that was running; any other, one that blocked, except that under
 * PREEMPT_RT a D may also be a wait for a sleeping spinlock, which the
 * kernel does not count as one (SW_D_WAIT).
 */
static void sw_trace_switch(struct sw_trace_parse *tp, const char *line, int cpu)
{
	const char *f = strstr(line, " next_pid="), *p = strstr(line, " prev_pid=");
	int next, prev, n = 0;
	char state;

	if (!f || !p || cpu < 0 || sscanf(f, " next_pid=%d", &next) != 1 ||
	    sscanf(p, " prev_pid=%d prev_prio=%*d prev_state=%c%n", &prev, &state, &n) != 2 ||
	    !n || prev < 0 || prev > tp->pid_max) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	/*
	 * A bare R is a yield (nivcsw) or a block a pending signal undid
	 * (nvcsw): which one, the trace cannot tell.
	 */
	if (state == 'D' && tp->rt) {
		tp->promise[prev] |= SW_D_WAIT;
	} else if (state != 'R') {
		tp->promise[prev] |= SW_BLOCKED;
		tp->blocks[prev]++;
	} else if (p[n] != '+') {
		tp->promise[prev] |= SW_UNSURE;
	}
	tp->curr[cpu] = next;
	tp->claimed[cpu] = false;
	if (next)
		sw_stack_busy(tp, cpu, tp->seq, NULL);
}

/*
 * "sched_process_fork: comm=... pid=N child_comm=... child_pid=C": the
 * child is placed and queued before its sched_wakeup_new, so it counts
 * from here, as a wakeup from its sched_waking.
 */
static void sw_trace_fork(struct sw_trace_parse *tp, const char *line)
{
	const char *f = strstr(line, " child_pid=");
	int child;

	if (!f || sscanf(f, " child_pid=%d", &child) != 1 || child <= 0 || child > tp->pid_max) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	tp->waking[child] = tp->seq;
}

/* "sched_migrate_task: comm=... pid=N prio=P orig_cpu=A dest_cpu=B" */
static void sw_trace_migrate(struct sw_trace_parse *tp, const char *line)
{
	const char *f = strstr(line, " dest_cpu=");
	int dest;

	if (!f || sscanf(f, " dest_cpu=%d", &dest) != 1 || dest < 0 || dest >= tp->nr_cpus) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	sw_stack_claim(tp, dest, tp->seq, NULL);
}

/* The followed wakeups that found prev_cpu idle; which went to the waker. */
static void sw_stack_count(struct sw_trace_parse *tp)
{
	struct sw_trace *out = tp->out;
	struct sw_stack *s;

	for (s = tp->stacks; s < tp->stacks + tp->nr_stacks; s++) {
		if (!s->end || s->busy)
			continue;
		if (s->unhinted) {
			out->unhinted_idle++;
			out->unhinted_far += s->far;
			if ((s->dest_cpu != s->prev_cpu ||
			     (s->affine_cpu >= 0 && s->affine_cpu != s->prev_cpu)) &&
			    !out->strayed++)
				snprintf(out->strayed_why, sizeof(out->strayed_why),
					 "pid %d woken without the hint on CPU %d (wake_affine() %d), its previous CPU %d idle (event %ld)",
					 s->wakee, s->dest_cpu, s->affine_cpu, s->prev_cpu, s->end);
		}
		if (s->far)
			continue;
		out->prev_idle++;
		if (s->dest_cpu != s->waker_cpu || out->stacked++)
			continue;
		snprintf(out->stacked_why, sizeof(out->stacked_why),
			 "pid %d woken on the waker CPU %d while its previous CPU %d was idle (event %ld)",
			 s->wakee, s->waker_cpu, s->prev_cpu, s->end);
	}
}

/*
 * A sched_waking event, its fields from " pid=" on in @f, @comm the wakee's:
 * remember which of our tasks woke which other (current is the waker, in a
 * task or an interrupt on its CPU, as for record_wakee()), and follow a
 * wakeup by one of ours in task context for the stack witness (target_cpu
 * is the wakee's CPU before the wakeup).
 */
static void sw_trace_waking(struct sw_trace_parse *tp, const char *line,
			    const char *comm, size_t comm_len, const char *f)
{
	pid_t waker = sw_trace_waker(tp, line);
	int pid, prio, prev, cpu = sw_trace_cpu(tp, line);

	if (sscanf(f, " pid=%d prio=%d target_cpu=%d", &pid, &prio, &prev) != 3 ||
	    pid <= 0 || pid > tp->pid_max || cpu < 0) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	tp->waking[pid] = tp->seq;
	if (waker <= 0 || comm_len != tp->comm_len || strncmp(comm, tp->comm, comm_len))
		return;
	if (sw_trace_flags_ctx(line) == SW_CTX_TASK)
		sw_stack_open(tp, pid, cpu, prev);
	if (sw_trace_woke(tp, waker, pid))
		return;
	if (tp->nr_woke == SW_TRACE_WOKE_MAX) {
		sw_trace_wrong(tp, line, "more than %d pairs of our tasks", SW_TRACE_WOKE_MAX);
		return;
	}
	tp->woke[tp->nr_woke][0] = waker;
	tp->woke[tp->nr_woke][1] = pid;
	tp->nr_woke++;
}

/*
 * A sched_wakeup event (@new: sched_wakeup_new): the wakee of a pending
 * decision is on its dest_cpu; a followed wakeup ends there.
 */
static void sw_trace_wakeup(struct sw_trace_parse *tp, const char *line, const char *f,
			    bool new)
{
	struct sw_stack *self = NULL;
	int pid, prio, target, i;

	if (sscanf(f, " pid=%d prio=%d target_cpu=%d", &pid, &prio, &target) != 3 ||
	    pid <= 0 || pid > tp->pid_max || target < 0 || target >= tp->nr_cpus) {
		sw_trace_wrong(tp, line, "cannot parse");
		return;
	}
	for (i = tp->nr_stacks - 1; i >= 0 && !new; i--) {
		if (tp->stacks[i].wakee != pid)
			continue;
		if (!tp->stacks[i].end) {
			self = &tp->stacks[i];
			self->end = tp->seq;
			self->dest_cpu = target;
		}
		break;
	}
	sw_stack_claim(tp, target, tp->waking[pid], self);
	tp->waking[pid] = 0;
	if (new)
		return;
	if (tp->pending[pid]) {
		if (target != tp->pending[pid] - 1)
			sw_trace_wrong(tp, line, "woken on CPU %d after the decision %s",
				       target, tp->seen[pid] ? tp->seen[pid] : "?");
		tp->out->paired++;
		tp->pending[pid] = 0;
	}
	sw_trace_seen(tp, pid, line);
}

/*
 * The comm at @f, the fields of a sched_sync_wakeup or sched_sync_promise
 * event, past the probed address and without the quotes a "t:" event
 * prints; its length in *@len and the fields from " pid=" on in *@rest.
 * NULL if it cannot be parsed.
 */
static const char *sw_trace_comm(const char *f, size_t *len, const char **rest)
{
	const char *pid;

	if (*f == '(') {
		f = strstr(f, ") ");
		if (!f)
			return NULL;
		f += 2;
	}
	if (strncmp(f, "comm=", 5))
		return NULL;
	f += 5;
	pid = strstr(f, " pid=");
	if (!pid)
		return NULL;
	*rest = pid;
	*len = pid - f;
	if (*len >= 2 && f[0] == '"' && pid[-1] == '"') {
		f++;
		*len -= 2;
	}
	return f;
}

static int sw_trace_parse(struct sw_trace_parse *tp)
{
	static const char dec[] = ": sched_sync_wakeup: ";
	static const char wak[] = ": sched_wakeup: comm=";
	static const char pro[] = ": sched_sync_promise: ";
	static const char wkg[] = ": sched_waking: comm=";
	static const char wnew[] = ": sched_wakeup_new: comm=";
	unsigned long in_buffer, written;
	char *line = NULL, *f, *comm, *pid;
	const char *name, *rest;
	size_t cap = 0, len;
	ssize_t n;
	FILE *fp;
	int i;

	fp = fopen(SW_TRACEFS "/trace", "re");
	if (!fp)
		return -errno;
	while ((n = getline(&line, &cap, fp)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &in_buffer, &written) == 2) {
			tp->out->entries = in_buffer;
			if (in_buffer != written)
				sw_trace_wrong(tp, line, "events lost: the buffer overflowed");
		}
		if (strstr(line, "LOST") && strstr(line, "EVENTS]"))
			sw_trace_wrong(tp, line, "events lost");
		if (line[0] == '#')
			continue;
		tp->seq++;
		if (strstr(line, ": sched_switch: ")) {
			sw_trace_switch(tp, line, sw_trace_cpu(tp, line));
			continue;
		}
		if (strstr(line, ": sched_migrate_task: ")) {
			sw_trace_migrate(tp, line);
			continue;
		}
		if (strstr(line, ": sched_process_fork: ")) {
			sw_trace_fork(tp, line);
			continue;
		}
		f = strstr(line, wnew);
		if (f) {
			pid = strstr(f + sizeof(wnew) - 1, " pid=");
			if (pid)
				sw_trace_wakeup(tp, line, pid, true);
			else
				sw_trace_wrong(tp, line, "cannot parse");
			continue;
		}
		f = strstr(line, dec);
		if (f) {
			name = sw_trace_comm(f + sizeof(dec) - 1, &len, &rest);
			if (name)
				sw_trace_decision(tp, line, name, len, rest);
			else
				sw_trace_wrong(tp, line, "cannot parse");
			continue;
		}
		f = strstr(line, pro);
		if (f) {
			name = sw_trace_comm(f + sizeof(pro) - 1, &len, &rest);
			if (name)
				sw_trace_promise(tp, line, name, len, rest);
			else
				sw_trace_wrong(tp, line, "cannot parse");
			continue;
		}
		f = strstr(line, wkg);
		if (f) {
			comm = f + sizeof(wkg) - 1;
			pid = strstr(comm, " pid=");
			if (pid)
				sw_trace_waking(tp, line, comm, pid - comm, pid);
			else
				sw_trace_wrong(tp, line, "cannot parse");
			continue;
		}
		f = strstr(line, wak);
		if (f) {
			pid = strstr(f + sizeof(wak) - 1, " pid=");
			if (pid)
				sw_trace_wakeup(tp, line, pid, false);
			else
				sw_trace_wrong(tp, line, "cannot parse");
		}
	}
	free(line);
	fclose(fp);
	for (i = 0; i <= tp->pid_max; i++)
		tp->out->pending += !!tp->pending[i];
	sw_stack_count(tp);
	return 0;
}

/*
 * Stop tracing, put the trace settings back and check every decision in
 * the trace against the rules of @policy (NULL: the feature was off, so
 * there must be none). Returns 0 with the findings in @out, or -errno if
 * the trace could not be read.
 */
int sw_trace_stop(const char *policy, struct sw_trace *out)
{
	return sw_trace_stop_pid(policy, getpid(), out);
}

/* sw_trace_stop(), with @own's decisions and promises as "own". */
int sw_trace_stop_pid(const char *policy, pid_t own, struct sw_trace *out)
{
	struct sw_trace_parse tp = {
		.out = out, .policy = policy ? policy : "", .record = -1, .judged = -1,
	};
	char buf[32];
	int i, err, ret;

	memset(out, 0, sizeof(*out));
	err = sw_write_str(SW_TRACEFS "/tracing_on", "0");
	if (!err && sw_read_file("/proc/sys/kernel/pid_max", buf, sizeof(buf)) > 0)
		tp.pid_max = atoi(buf);
	if (!err && tp.pid_max <= 0)
		err = -EPROTO;
	if (!err) {
		tp.pending = calloc(tp.pid_max + 1, sizeof(*tp.pending));
		tp.seen = calloc(tp.pid_max + 1, sizeof(*tp.seen));
		tp.waking = calloc(tp.pid_max + 1, sizeof(*tp.waking));
		tp.promise = calloc(tp.pid_max + 1, sizeof(*tp.promise));
		tp.blocks = calloc(tp.pid_max + 1, sizeof(*tp.blocks));
		tp.probing = malloc((tp.pid_max + 1) * sizeof(*tp.probing));
		if (!tp.pending || !tp.seen || !tp.waking || !tp.promise || !tp.blocks ||
		    !tp.probing)
			err = -ENOMEM;
		for (i = 0; !err && i <= tp.pid_max; i++)
			tp.probing[i] = (struct sw_probing){ .nshared = -1, .reprobe = -1,
						     .probe_kept = -1 };
	}
	if (!err && prctl(PR_GET_NAME, tp.comm))
		err = -errno;
	tp.comm_len = strlen(tp.comm);
	tp.self = own;
	tp.rt = sw_kernel_rt();
	if (!err) {
		tp.nr_cpus = sw_topology_load(&tp.core, &tp.llc);
		if (tp.nr_cpus < 0)
			err = tp.nr_cpus;
	}
	if (!err) {
		tp.curr = malloc(tp.nr_cpus * sizeof(*tp.curr));
		tp.claimed = calloc(tp.nr_cpus, sizeof(*tp.claimed));
		if (!tp.curr || !tp.claimed)
			err = -ENOMEM;
		for (i = 0; !err && i < tp.nr_cpus; i++)
			tp.curr[i] = -1;
	}
	if (!err)
		err = sw_trace_parse(&tp);
	free(tp.core);
	free(tp.llc);
	free(tp.curr);
	free(tp.claimed);
	free(tp.waking);
	free(tp.promise);
	free(tp.blocks);
	free(tp.probing);
	free(tp.stacks);
	if (tp.seen)
		for (i = 0; i <= tp.pid_max; i++)
			free(tp.seen[i]);
	free(tp.seen);
	free(tp.pending);
	if (!err && !policy && out->events)
		sw_trace_wrong(&tp, "", "%ld decisions traced while the feature was off",
			       out->events);
	if (!err && !policy &&
	    out->promises[SW_PROMISE_SLEPT] + out->promises[SW_PROMISE_LATE] +
	    out->promises[SW_PROMISE_AWAKE] + out->promises[SW_PROMISE_SHARED] +
	    out->promises[SW_PROMISE_REPROBE])
		sw_trace_wrong(&tp, "", "promises judged while the feature was off");

	ret = sw_trace_restore();
	return err ? err : ret;
}

/*
 * "entries=.. events=.. ours=.. (n tasks) kept=.. ... paired=.. pending=..
 * reciprocal=.. wrong=.. unwitnessed=.. prev_idle=.. stacked=.. unhinted_idle=..
 * (.. far) strayed=.. promises_witnessed=.."
 */
const char *sw_trace_str(const struct sw_trace *t, char *buf, size_t size)
{
	size_t off;
	int i;

	off = snprintf(buf, size, "entries=%ld events=%ld ours=%ld (%d tasks)", t->entries,
		       t->events, t->ours, t->our_pids);
	for (i = SW_KEPT; i <= SW_LAST_VERDICT && off < size; i++)
		if (t->verdicts[i])
			off += snprintf(buf + off, size - off, " %s=%ld",
					sw_stat_names[i], t->verdicts[i]);
	if (off < size)
		snprintf(buf + off, size - off,
			 " paired=%ld pending=%ld reciprocal=%ld wrong=%ld unwitnessed=%ld prev_idle=%ld stacked=%ld unhinted_idle=%ld (%ld far) strayed=%ld promises_witnessed=%ld",
			 t->paired, t->pending, t->reciprocal, t->wrong, t->unwitnessed,
			 t->prev_idle, t->stacked, t->unhinted_idle, t->unhinted_far, t->strayed,
			 t->promises_witnessed);
	off = strlen(buf);
	if (t->other[0] && off < size)
		snprintf(buf + off, size - off, " first other: %s", t->other);
	return buf;
}

/*
 * Start a window: the feature off, a snapshot of the counters in @before,
 * the trace on, then the feature on if @on. Every decision counted from
 * here until sw_window_stop() is traced, and none outside it: both happen
 * at the same place, only while the feature is on.
 */
int sw_window_start(bool on, struct sw_stats *before)
{
	int err = sw_feature_set(false);

	if (!err)
		err = sw_stats_read(before);
	if (!err)
		err = sw_trace_start();
	if (!err && on)
		err = sw_feature_set(true);
	return err;
}

/* Append "<name> <counted> (trace <seen>)" to @out's witness if they differ. */
static void sw_witness(struct sw_trace *out, const char *name, long counted, long seen)
{
	size_t off = strlen(out->witness);

	if (counted == seen)
		return;
	out->unwitnessed++;
	snprintf(out->witness + off, sizeof(out->witness) - off, "%s%s %ld (trace %ld)",
		 off ? ", " : "", name, counted, seen);
}

/*
 * End the window sw_window_start() began: the feature off, then the trace
 * stopped and checked as sw_trace_stop_pid() does, then the counters
 * compared with it. Each counter must have moved by what the trace shows:
 * sync_wakeups by the events, each verdict and context by its events, each
 * landing by the events whose dest_cpu is there (from sysfs), promise_kept
 * and promise_broken by the promises' ends, promise_pending by the
 * promises made (decisions in task or softirq_bh context) less those
 * ended. A counter the kernel skips, doubles or puts in the wrong bucket
 * lands in @out->unwitnessed. The feature stays off.
 */
int sw_window_stop(const char *policy, pid_t own, const struct sw_stats *before,
		   struct sw_trace *out)
{
	struct sw_stats after;
	long d[SW_NR_STATS], ended;
	int i, err = sw_feature_set(false);

	if (err)
		return err;
	err = sw_trace_stop_pid(policy, own, out);
	if (!err)
		err = sw_stats_read(&after);
	if (err)
		return err;
	for (i = 0; i < SW_NR_STATS; i++)
		d[i] = (long)(after.v[i] - before->v[i]);
	ended = out->promises[SW_PROMISE_SLEPT] + out->promises[SW_PROMISE_LATE] +
		out->promises[SW_PROMISE_AWAKE] + out->promises[SW_PROMISE_SHARED] +
		out->promises[SW_PROMISE_REPROBE];
	sw_witness(out, sw_stat_names[SW_SYNC_WAKEUPS], d[SW_SYNC_WAKEUPS], out->events);
	for (i = SW_FIRST_VERDICT; i <= SW_LAST_VERDICT; i++)
		sw_witness(out, sw_stat_names[i], d[i], out->verdicts[i]);
	for (i = SW_FIRST_LANDING; i <= SW_LAST_LANDING; i++)
		sw_witness(out, sw_stat_names[i], d[i], out->landings[i]);
	for (i = SW_FIRST_CONTEXT; i <= SW_LAST_CONTEXT; i++)
		sw_witness(out, sw_stat_names[i], d[i], out->contexts[i - SW_FIRST_CONTEXT]);
	sw_witness(out, sw_stat_names[SW_PROMISE_KEPT], d[SW_PROMISE_KEPT],
		   out->promises[SW_PROMISE_SLEPT]);
	sw_witness(out, sw_stat_names[SW_PROMISE_BROKEN], d[SW_PROMISE_BROKEN],
		   out->promises[SW_PROMISE_LATE] + out->promises[SW_PROMISE_AWAKE]);
	sw_witness(out, sw_stat_names[SW_PROMISE_UNJUDGED], d[SW_PROMISE_UNJUDGED],
		   out->promises[SW_PROMISE_SHARED] + out->promises[SW_PROMISE_REPROBE]);
	sw_witness(out, sw_stat_names[SW_PROMISE_PENDING], d[SW_PROMISE_PENDING],
		   out->wakers - ended);
	return 0;
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
			 "%s not found: debugfs not mounted at /sys/kernel/debug (or, on 6.12, CONFIG_SCHED_DEBUG=n)",
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

/* ---- cpu cgroups ---------------------------------------------------- */

/*
 * Where cgroup v2 is mounted, into @buf; mounted at /sys/fs/cgroup first
 * if nowhere. -ENODEV: the kernel has no cgroup v2 (CONFIG_CGROUPS).
 */
int sw_cgroup_root(char *buf, size_t size)
{
	char line[512], dev[128], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			fclose(f);
			snprintf(buf, size, "%s", dir);
			return 0;
		}
	}
	fclose(f);
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		return errno == ENODEV ? -ENODEV : -errno;
	snprintf(buf, size, "/sys/fs/cgroup");
	return 0;
}

/*
 * Give @dir's children the cpu controller ("+cpu" in its
 * cgroup.subtree_control); @was_on says whether they had it already.
 * -ENODEV: @dir cannot give it (not in its cgroup.controllers).
 */
int sw_cgroup_cpu_on(const char *dir, bool *was_on)
{
	char path[1024], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	n = sw_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (!strstr(buf, "cpu ") && !strstr(buf, "cpu\n"))
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	n = sw_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	*was_on = strstr(buf, "cpu ") || strstr(buf, "cpu\n");
	return *was_on ? 0 : sw_write_str(path, "+cpu");
}

int sw_cgroup_cpu_off(const char *dir)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	return sw_write_str(path, "-cpu");
}

/* Move @pid (0: this process) into the group at @dir. */
int sw_cgroup_enter(const char *dir, pid_t pid)
{
	char path[1024], num[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(num, sizeof(num), "%d", pid ? pid : getpid());
	return sw_write_str(path, num);
}

/*
 * Move every process of the group at @dir to the group at @to (the root
 * group: cgroup v2 keeps processes out of a group that gives its children
 * a controller), then remove it. A child removed just before may keep it
 * busy until its css goes offline, which the kernel does from a work
 * item: retried for up to a second.
 */
int sw_cgroup_leave(const char *dir, const char *to)
{
	char path[1024], buf[4096], *line, *save;
	ssize_t n;
	int err, i;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = sw_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? 0 : n;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		err = sw_cgroup_enter(to, atoi(line));
		if (err && err != -ESRCH)
			return err;
	}
	for (i = 0; i < 100 && rmdir(dir) && errno == EBUSY; i++)
		usleep(10000);
	return sw_exists(dir) ? -errno : 0;
}

/* @dir's @file, its trailing newline dropped. */
int sw_cgroup_read(const char *dir, const char *file, char *buf, size_t size)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return sw_read_line(path, buf, size);
}

int sw_cgroup_write(const char *dir, const char *file, const char *s)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return sw_write_str(path, s);
}

/* cpu.sync_wakeup.stat: sync_wakeups, the verdicts, the landings. */
int sw_cgroup_stats_read(const char *dir, struct sw_stats *st)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, SW_CG_STAT);
	return sw_stats_parse(path, SW_CG_NR_STATS, st);
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
	sw_trace_restore();
	sw_restore(&sw_initial_state);
	return true;
}

/* ---- topology ------------------------------------------------------- */

/*
 * What a test that moves the knobs needs: root, the interface (debugfs
 * included), two CPUs to choose between and the events that witness the
 * decisions. 0 if all are there; 1 to skip, -1 to fail, with why in @why.
 */
int sw_test_needs(char *why, size_t size)
{
	enum sw_iface st;
	int cpus;

	if (geteuid() != 0) {
		snprintf(why, size, "must run as root");
		return 1;
	}
	st = sw_iface_check(true, why, size);
	if (st != SW_IFACE_OK)
		return st == SW_IFACE_ABSENT ? 1 : -1;
	cpus = sw_nr_allowed_cpus();
	if (cpus < 0) {
		snprintf(why, size, "cannot read the CPUs allowed: %s", strerror(-cpus));
		return -1;
	}
	if (cpus < 2) {
		snprintf(why, size, "needs 2 CPUs to choose between, have %d", cpus);
		return 1;
	}
	return sw_trace_available(why, size);
}

bool sw_judging(void)
{
	const char *judge = getenv("SW_JUDGE_SHARES");

	return judge && !strcmp(judge, "1");
}

/* A PREEMPT_RT kernel says so in its version (scripts/mkcompile_h). */
bool sw_kernel_rt(void)
{
	struct utsname u;
	const char *s;

	if (uname(&u))
		return false;
	s = strstr(u.version, " PREEMPT_RT");
	return s && (s[11] == ' ' || !s[11]);
}

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

/* Let @pid run on @a, and on @b too if it is not -1. Returns 0 or -errno. */
int sw_pin(pid_t pid, int a, int b)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(a, &set);
	if (b >= 0)
		CPU_SET(b, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

/*
 * cpu_capacity of @cpu: -ENOENT where the architecture does not scale
 * capacities, other -errno on an error.
 */
long sw_cpu_capacity(int cpu)
{
	char path[96], buf[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
	n = sw_read_file(path, buf, sizeof(buf));
	return n < 0 ? n : atol(buf);
}

/*
 * Do the CPUs differ in capacity? 1, 0, or -errno. All of them, as
 * sched_asym_cpucap_active() looks at all, whatever this process may use.
 * There the keep rule's capacity step and select_idle_sibling()'s fit test
 * decide where a wakee goes by its utilization: sync_wakeup_capacity tests
 * that.
 */
int sw_asym_capacity(void)
{
	long cpu, cap, first = -1, nr = sysconf(_SC_NPROCESSORS_CONF);

	for (cpu = 0; cpu < nr; cpu++) {
		cap = sw_cpu_capacity(cpu);
		if (cap == -ENOENT)
			return 0;
		if (cap < 0)
			return cap;
		if (first < 0)
			first = cap;
		else if (cap != first)
			return 1;
	}
	return 0;
}

/* How many last-level caches the CPUs this process may use span; -errno. */
int sw_nr_llcs(void)
{
	int cpu, i, n = 0, ids[CPU_SETSIZE];
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		ids[n] = sw_llc_id(cpu);
		for (i = 0; i < n && ids[i] != ids[n]; i++)
			;
		n += i == n;
	}
	return n;
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
 * Wait until the task whose /proc/<pid>/stat is open on @fd shows state S
 * (about to block or blocked), polling every SW_ASLEEP_POLL_US, or without
 * a pause if @spin (a waker that must not sleep): 0 or -errno.
 */
int sw_wait_asleep(int fd, bool spin)
{
	char buf[512], *state;
	ssize_t n;

	for (;;) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			return -errno;
		buf[n] = '\0';
		/* "pid (comm) S ...": comm may hold ')' */
		state = strrchr(buf, ')');
		if (!state || state[1] != ' ')
			return -EPROTO;
		if (state[2] == 'S')
			return 0;
		/* Dead: the partner's own error says why. */
		if (state[2] == 'Z' || state[2] == 'X')
			return -ESRCH;
		if (!spin)
			usleep(SW_ASLEEP_POLL_US);
	}
}

/* This thread's voluntary context switches so far: its nvcsw. */
long sw_nvcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -errno;
	return ru.ru_nvcsw;
}

/*
 * The voluntary_ctxt_switches of the task whose /proc/<pid>/status (or
 * /proc/thread-self/status) is open on @fd, the nvcsw the promise rule
 * reads: the count or -errno (-ESRCH once the task is dead).
 */
static long sw_status_nvcsw(int fd)
{
	static const char state[] = "\nState:\t";
	static const char vcsw[] = "\nvoluntary_ctxt_switches:\t";
	char buf[4096], *s, *end;
	ssize_t n;
	long now;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	/* A cut file could cut the count short: never reached. */
	if ((size_t)n == sizeof(buf) - 1)
		return -EOVERFLOW;
	buf[n] = '\0';
	s = strstr(buf, state);
	if (!s)
		return -EPROTO;
	s += sizeof(state) - 1;
	if (*s == 'Z' || *s == 'X')
		return -ESRCH;
	s = strstr(buf, vcsw);
	if (!s)
		return -EPROTO;
	now = strtol(s + sizeof(vcsw) - 1, &end, 10);
	if (*end != '\n' || now < 0)
		return -EPROTO;
	return now;
}

/*
 * Wait until the task whose status is open on @fd (sw_status_nvcsw()) has
 * switched out blocked more than @nvcsw times, polling every
 * SW_ASLEEP_POLL_US: 0 or -errno. Where state S is not enough:
 * pipe_read() sets state S before its last look at the pipe, so an answer
 * written then finds the task still on its CPU, and it reads on without
 * having slept. Not exact either where the task sleeps in its write()
 * before the wakeup (a contended pipe mutex, reclaim), and on PREEMPT_RT,
 * whose promise rule does not count a sleeping spinlock's wait.
 */
int sw_wait_blocked(int fd, long nvcsw)
{
	long now;

	if (nvcsw < 0)
		return nvcsw;
	while ((now = sw_status_nvcsw(fd)) >= 0 && now <= nvcsw)
		usleep(SW_ASLEEP_POLL_US);
	return now < 0 ? now : 0;
}

/* A ping-pong message; long cpu leaves no padding to write uninitialised. */
struct sw_pp_msg {
	long cpu;
	long nvcsw;
};

static int sw_pp_send(int fd)
{
	struct sw_pp_msg msg = { .cpu = sched_getcpu(), .nvcsw = sw_nvcsw() };

	return sw_write_full(fd, &msg, sizeof(msg));
}

/*
 * Ping-pong between this process and a child over two pipes: every
 * pipe_write() wakes a reader sleeping on the other end with WF_SYNC, and
 * each side wakes the task that last woke it, so the wakeups are reciprocal.
 *
 * A message is the sender's CPU and nvcsw, taken just before write(); the
 * receiver compares the CPU with its own right after read() returns.
 * @warmup round trips run first and are not counted; then @rounds round
 * trips are, and if @st is set it gets what the counters counted over
 * them, read before the child exits. With SW_PP_ANSWER_ASLEEP in @flags
 * the child answers only once this process has blocked since its write
 * (sw_wait_blocked()): under TCG the child's vCPU can otherwise run and
 * answer before the waker's vCPU reaches its read(), and the waker never
 * sleeps. With SW_PP_BOTH_ASLEEP, this process also writes only once the
 * child has blocked, so each side's promise is followed by its block. With
 * SW_PP_APART_ASLEEP it waits for the child only when the child's message
 * came from another CPU: a promise the child made apart is followed by its
 * block whatever the vCPUs' turns, one made beside this process is
 * answered at once, as a plain pipe pair answers.
 * Returns 0 or -errno.
 */
int sw_pingpong_run(long warmup, long rounds, unsigned int flags,
		    struct sw_stats *st, struct sw_pingpong *out)
{
	int p2c[2], c2p[2], err = 0, status, parent = -1, child = -1;
	struct sw_pingpong *shared;
	struct sw_pp_msg msg;
	bool apart = false;
	struct sw_stats start;
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
	if (flags & (SW_PP_ANSWER_ASLEEP | SW_PP_BOTH_ASLEEP)) {
		parent = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
		if (parent < 0) {
			err = -errno;
			goto out_c2p;
		}
	}

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out_c2p;
	}
	if (pid == 0) {
		int cpu;

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
				shared->same_cpu[0] += cpu == msg.cpu;
			}
			if (parent >= 0) {
				shared->child_err = sw_wait_blocked(parent, msg.nvcsw);
				if (shared->child_err)
					_exit(1);
			}
			shared->child_err = sw_pp_send(c2p[1]);
			if (shared->child_err)
				_exit(1);
		}
		_exit(0);
	}

	close(p2c[0]);
	close(c2p[1]);
	p2c[0] = -1;
	c2p[1] = -1;
	if (flags & (SW_PP_BOTH_ASLEEP | SW_PP_APART_ASLEEP)) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		child = open(path, O_RDONLY | O_CLOEXEC);
		if (child < 0)
			err = -errno;
	}
	/* A child forked with nvcsw 0 has blocked once it waits to read. */
	msg.nvcsw = 0;
	for (i = 0; !err && i < warmup + rounds; i++) {
		int cpu;

		if (i == warmup) {
			if (st) {
				err = sw_stats_read(&start);
				if (err)
					break;
			}
			t0 = sw_now_us();
		}
		if (child >= 0 && ((flags & SW_PP_BOTH_ASLEEP) || apart)) {
			err = sw_wait_blocked(child, msg.nvcsw);
			if (err)
				break;
		}
		err = sw_pp_send(p2c[1]);
		if (err)
			break;
		err = sw_read_full(c2p[0], &msg, sizeof(msg));
		if (err)
			break;
		cpu = sched_getcpu();
		apart = cpu != msg.cpu;
		if (i >= warmup) {
			out->handoffs[1]++;
			out->same_cpu[1] += cpu == msg.cpu;
		}
	}
	if (!err && rounds)
		out->usec_per_round = (sw_now_us() - t0) / rounds;
	if (!err && st)
		err = sw_stats_since(&start, st);

	if (err)
		kill(pid, SIGKILL);
	if (child >= 0)
		close(child);
	close(p2c[1]);
	close(c2p[0]);
	p2c[1] = -1;
	c2p[0] = -1;
	if (waitpid(pid, &status, 0) != pid)
		err = err ? err : -ECHILD;
	else if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		err = shared->child_err ? shared->child_err : -ECHILD;
	/* A child that failed first leaves the parent an EOF: say why. */
	if (err && shared->child_err)
		err = shared->child_err;
	out->handoffs[0] = shared->handoffs[0];
	out->same_cpu[0] = shared->same_cpu[0];
	out->child_err = shared->child_err;
	out->child = pid;
out_c2p:
	if (parent >= 0)
		close(parent);
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

/* The exit codes of sw_pair_run()'s wakee: it may not use the harness. */
enum { SW_WAKEE_OK, SW_WAKEE_TURN, SW_WAKEE_ASLEEP, SW_WAKEE_PIPE, SW_WAKEE_NR };

static const char * const sw_wakee_errors[SW_WAKEE_NR] = {
	[SW_WAKEE_OK]		= "exited 0",
	[SW_WAKEE_TURN]		= "failed to set itself up",
	[SW_WAKEE_ASLEEP]	= "could not read the waker's context switches",
	[SW_WAKEE_PIPE]		= "a pipe read or write failed",
};

/* The waker's message is its nvcsw before the write; the answer a byte. */
static void sw_pair_wakee(const struct sw_pair *pair, int in, int out, int waker)
{
	long nvcsw;
	ssize_t n;
	char c = 'x';

	if (pair->turn && pair->turn(pair->arg, true))
		_exit(SW_WAKEE_TURN);
	while ((n = read(in, &nvcsw, sizeof(nvcsw))) == sizeof(nvcsw)) {
		if (waker >= 0 && sw_wait_blocked(waker, nvcsw))
			_exit(SW_WAKEE_ASLEEP);
		if (pair->turn && pair->turn(pair->arg, false))
			_exit(SW_WAKEE_TURN);
		if (write(out, &c, 1) != 1)
			_exit(SW_WAKEE_PIPE);
	}
	_exit(n ? SW_WAKEE_PIPE : SW_WAKEE_OK);
}

/*
 * @rounds round trips between this process, the waker, allowed on CPU @a
 * and @b (-1: @a only) once the wakee is forked, and the wakee, which keeps
 * this process' CPUs unless its @turn moves it. Each write is a WF_SYNC
 * wakeup of the other side: the waker's carries its nvcsw, the wakee's a
 * byte. Returns 0 or -errno; -ECHILD for a wakee that failed, with how in
 * @why (else NULL). This process' affinity is restored.
 */
int sw_pair_run(const struct sw_pair *pair, int a, int b, long rounds, const char **why)
{
	int p2c[2] = { -1, -1 }, c2p[2] = { -1, -1 }, waker = -1, status, err = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	pid_t wakee = -1;
	cpu_set_t saved;
	char c = 'x';
	long i, nvcsw;

	*why = NULL;
	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -errno;
	if (pair->answer_asleep) {
		waker = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
		if (waker < 0)
			return -errno;
	}
	/* A wakee that failed leaves EPIPE, and its exit code says why. */
	if (sigaction(SIGPIPE, &ign, &old)) {
		err = -errno;
		goto out_stat;
	}
	if (pipe2(p2c, O_CLOEXEC) || pipe2(c2p, O_CLOEXEC)) {
		err = -errno;
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
	wakee = fork();
	if (wakee < 0) {
		err = -errno;
		goto out;
	}
	if (!wakee) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p2c[1]);
		close(c2p[0]);
		sw_pair_wakee(pair, p2c[0], c2p[1], waker);
	}
	close(p2c[0]);
	close(c2p[1]);
	p2c[0] = -1;
	c2p[1] = -1;
	err = sw_pin(0, a, b);
	for (i = 0; i < rounds && !err; i++) {
		nvcsw = sw_nvcsw();
		if (write(p2c[1], &nvcsw, sizeof(nvcsw)) != sizeof(nvcsw) ||
		    read(c2p[0], &c, 1) != 1)
			err = -EIO;
	}
out:
	/* The wakee reads EOF and exits. */
	for (i = 0; i < 2; i++) {
		if (p2c[i] >= 0)
			close(p2c[i]);
		if (c2p[i] >= 0)
			close(c2p[i]);
	}
	if (wakee > 0) {
		if (waitpid(wakee, &status, 0) != wakee) {
			err = err ? err : -ECHILD;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			*why = !WIFEXITED(status) ? "killed by a signal" :
			       WEXITSTATUS(status) < SW_WAKEE_NR ?
			       sw_wakee_errors[WEXITSTATUS(status)] : "exited with an unknown code";
			err = -ECHILD;
		}
	}
	sigaction(SIGPIPE, &old, NULL);
out_stat:
	if (waker >= 0)
		close(waker);
	if (sched_setaffinity(0, sizeof(saved), &saved))
		err = err ? err : -errno;
	return err;
}

/*
 * One writer (this process), @readers children each reading its own pipe.
 * The writer writes @rounds bytes to each pipe, one reader after the other,
 * each byte once its reader has blocked since the last (its nvcsw in
 * /proc/<pid>/status, 0 at fork), so that nearly every write wakes a
 * sleeping reader and makes a decision; one still queued (sched_delayed),
 * or whose nvcsw moved for another reason (sw_wait_blocked()), makes none.
 * With a 50 us pause after each write instead, 6 of 900 writes found
 * their reader asleep in one CI run on smt (2026-12-07), 161-284 in eight
 * runs of that test alone. The writer spins through the wait rather than
 * sleep, so that it keeps no promise. A reader's last_wakee becomes the
 * writer only if the reader is current while something wakes the writer,
 * an interrupt included (record_wakee() runs for every wakeup). Readers
 * never write, so that is rare: only a writer waiting for the pipe mutex
 * a reader holds (one that slept in pipe_read()) is woken by it.
 *
 * One reader at a time, unless @round_robin: readers inherit the writer's
 * wakee_flips at fork and never decay them, so a writer that switched
 * wakees on every write would soon make wake_wide() call every wakeup wide
 * and no wake-affine rule would ever look at it. Round robin is for the
 * writer's promises: it wakes another reader before it ever sleeps.
 * If @st is set it gets what the counters counted over the writes, read
 * while every reader is still alive. Returns 0 or -errno: -ECHILD if a
 * reader failed, with how in @out->why (rather than the -ESRCH or -EPIPE
 * the writer saw of it); -ESRCH or -EPIPE if one died of a SIGKILL not the
 * writer's, which cannot be told apart from its failure to read;
 * -ETIMEDOUT if one did not block again within SW_FANOUT_WAIT_S; else
 * the failed setup call's.
 */
int sw_fanout_run(int readers, long rounds, bool round_robin,
		  struct sw_stats *st, struct sw_fanout *out)
{
	int fds[SW_FANOUT_MAX_READERS][2], status_fd[SW_FANOUT_MAX_READERS];
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	long blocked[SW_FANOUT_MAX_READERS] = { 0 };
	int status, err = 0, r, nr = 0, killed;
	pid_t pids[SW_FANOUT_MAX_READERS];
	const char *why;
	struct sw_stats start;
	long *bytes, seen;
	double t0, since;
	char path[64];
	long i;

	memset(out, 0, sizeof(*out));
	if (readers < 1 || readers > SW_FANOUT_MAX_READERS)
		return -EINVAL;
	for (r = 0; r < readers; r++) {
		fds[r][0] = -1;
		fds[r][1] = -1;
		status_fd[r] = -1;
	}
	bytes = mmap(NULL, sizeof(long) * readers, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bytes == MAP_FAILED)
		return -errno;
	memset(bytes, 0, sizeof(long) * readers);
	/* A reader that dies between the wait and the write leaves EPIPE. */
	if (sigaction(SIGPIPE, &ign, &old)) {
		err = -errno;
		munmap(bytes, sizeof(long) * readers);
		return err;
	}

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
		snprintf(path, sizeof(path), "/proc/%d/status", pids[r]);
		status_fd[r] = open(path, O_RDONLY | O_CLOEXEC);
		if (status_fd[r] < 0) {
			err = -errno;
			goto out;
		}
		/* Its seq_file buffer allocated here, not between writes. */
		seen = sw_status_nvcsw(status_fd[r]);
		if (seen < 0) {
			err = seen;
			goto out;
		}
	}

	if (st) {
		err = sw_stats_read(&start);
		if (err)
			goto out;
	}
	t0 = sw_now_us();
	for (i = 0; i < (long)readers * rounds && !err; i++) {
		r = round_robin ? i % readers : i / rounds;
		/* A spin: the writer must not sleep. */
		since = sw_now_us();
		do {
			seen = sw_status_nvcsw(status_fd[r]);
			if (seen >= 0 && seen <= blocked[r] &&
			    sw_now_us() > since + SW_FANOUT_WAIT_S * 1e6)
				seen = -ETIMEDOUT;
		} while (seen >= 0 && seen <= blocked[r]);
		if (seen < 0) {
			err = seen;
			break;
		}
		blocked[r] = seen;
		err = sw_write_full(fds[r][1], "x", 1);
		out->writes += !err;
	}
	out->usec = sw_now_us() - t0;
	if (!err && st)
		err = sw_stats_since(&start, st);

out:
	for (r = 0; r < readers; r++) {
		if (fds[r][0] >= 0)
			close(fds[r][0]);
		if (fds[r][1] >= 0)
			close(fds[r][1]);
		if (status_fd[r] >= 0)
			close(status_fd[r]);
	}
	killed = err;
	for (r = 0; r < nr; r++) {
		if (killed)
			kill(pids[r], SIGKILL);
	}
	for (r = 0; r < nr; r++) {
		why = NULL;
		if (waitpid(pids[r], &status, 0) != pids[r])
			why = "a reader could not be reaped";
		else if (WIFEXITED(status) && WEXITSTATUS(status))
			why = "a reader's read() failed";
		else if (WIFSIGNALED(status) && !(killed && WTERMSIG(status) == SIGKILL))
			why = "a reader was killed by a signal";
		/* What the writer saw of a reader's death says less. */
		if (why && !out->why && (!err || err == -ESRCH || err == -EPIPE)) {
			err = -ECHILD;
			out->why = why;
		}
		out->bytes_read += bytes[r];
	}
	sigaction(SIGPIPE, &old, NULL);
	munmap(bytes, sizeof(long) * readers);
	return err;
}

/* A socket of @type on 127.0.0.1, bound to a free port: the fd or -errno. */
static int sw_loopback_socket(int type, struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd, one = 1;

	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) ||
	    getsockname(fd, (struct sockaddr *)addr, &len) ||
	    (type == SOCK_STREAM &&
	     setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))) {
		one = -errno;
		close(fd);
		return one;
	}
	return fd;
}

/* Reap @pid; its exit status 0 or -ECHILD. */
static int sw_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

/*
 * A TCP ping-pong over loopback between this process (the client) and a
 * child (the server), TCP_NODELAY, @rounds round trips of an int: each
 * side sends, then sleeps in recv() until the answer. Returns 0 or -errno.
 */
int sw_tcp_pingpong_run(long rounds, struct sw_net *out)
{
	struct sockaddr_in addr;
	int lfd, fd, err = 0, msg = 0, one = 1;
	pid_t pid;
	long i;

	memset(out, 0, sizeof(*out));
	lfd = sw_loopback_socket(SOCK_STREAM, &addr);
	if (lfd < 0)
		return lfd;
	if (listen(lfd, 1)) {
		err = -errno;
		close(lfd);
		return err;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(lfd);
		return err;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = accept(lfd, NULL, NULL);
		if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
			_exit(1);
		for (i = 0; i < rounds; i++) {
			if (recv(fd, &msg, sizeof(msg), MSG_WAITALL) != sizeof(msg) ||
			    send(fd, &msg, sizeof(msg), 0) != sizeof(msg))
				_exit(1);
		}
		_exit(0);
	}
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		err = -errno;
	for (i = 0; !err && i < rounds; i++) {
		msg = i;
		if (send(fd, &msg, sizeof(msg), 0) != sizeof(msg)) {
			err = -errno;
			break;
		}
		out->sent++;
		if (recv(fd, &msg, sizeof(msg), MSG_WAITALL) != sizeof(msg)) {
			err = -EPROTO;
			break;
		}
		out->answered += msg == i;
	}
	if (fd >= 0)
		close(fd);
	if (err)
		kill(pid, SIGKILL);
	if (sw_reap(pid) && !err) {
		out->child_err = -ECHILD;
		err = -ECHILD;
	}
	return err;
}

/*
 * A UDP stream over loopback: this process sends @messages datagrams to a
 * child that reads them, spinning @pause_us between sends so that the
 * reader can go back to sleep, and never sleeping itself. Datagrams the
 * reader has no room for are dropped; the child is killed at the end.
 * Returns 0 or -errno.
 */
int sw_udp_stream_run(long messages, long pause_us, struct sw_net *out)
{
	int rfd, fd, stat = -1, err = 0;
	struct sockaddr_in addr;
	char buf[64] = "", path[64];
	double t;
	pid_t pid;
	long i;

	memset(out, 0, sizeof(*out));
	rfd = sw_loopback_socket(SOCK_DGRAM, &addr);
	if (rfd < 0)
		return rfd;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(rfd);
		return err;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			if (recv(rfd, buf, sizeof(buf), 0) < 0 && errno != EINTR)
				_exit(1);
	}
	close(rfd);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = open(path, O_RDONLY | O_CLOEXEC);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (stat < 0 || fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		err = -errno;
	/*
	 * Each message to a receiver in state S in recv(), so that nearly each
	 * is a wakeup, however slow the receiver: the sender spins until then
	 * (state S comes before the receiver's last look at its queue).
	 */
	for (i = 0; !err && i < messages; i++) {
		err = sw_wait_asleep(stat, true);
		if (err)
			break;
		if (send(fd, buf, sizeof(buf), 0) != sizeof(buf)) {
			err = -errno;
			break;
		}
		out->sent++;
		for (t = sw_now_us(); sw_now_us() < t + pause_us;)
			;
	}
	if (fd >= 0)
		close(fd);
	if (stat >= 0)
		close(stat);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return err;
}
