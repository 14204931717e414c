// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_cgroup - the policy of a cpu cgroup's wakers.
 *
 *  - a non-root group of the cpu controller has cpu.sync_wakeup (0644),
 *    cpu.sync_wakeup.effective and cpu.sync_wakeup.stat (0444); the root
 *    group has none, nor has a group whose parent does not give it the
 *    cpu controller;
 *  - cpu.sync_wakeup reads "inherit" until written; it takes each policy
 *    name (with at most one trailing newline) and "inherit", and refuses
 *    anything else with EINVAL, leaving the value as it was; nobody cannot
 *    open it for writing, nor write it when it owns the file (as in a
 *    delegated subtree): the write needs CAP_SYS_NICE, the opener's (a
 *    file nobody opened is refused to root's write);
 *  - cpu.sync_wakeup.effective is the group's own policy, else its
 *    nearest ancestor's that set one, else the sysctl's, at once after any
 *    write and in a group made under one that set a policy;
 *  - placement: a pipe pair in a group set to reciprocal-only and a UDP
 *    stream in a group set to no-sync, at the same time, under the sysctl's
 *    hint-only: every decision follows its waker's group's policy (the
 *    witness, per decision), and each group's cpu.sync_wakeup.stat counts
 *    exactly the decisions of its wakers the trace shows, their parent the
 *    sum, kept when a group is removed; a pipe pair whose waker and wakee
 *    sit in groups of two policies: each side's decisions follow its own
 *    group's, not its wakee's.
 *
 * Every test puts back the feature bit, the policy and the root group's
 * cgroup.subtree_control it found, and removes the groups it made.
 */
#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

#include <sys/stat.h>

/* The test's groups, under the root group. */
#define TOP_NAME	"sync_wakeup_selftest"

#define PAIR_COMM	"sw_cg_pair"
#define STREAM_COMM	"sw_cg_stream"
#define WAKER_COMM	"sw_cg_waker"
#define WAKEE_COMM	"sw_cg_wakee"
#define PAIR_ROUNDS	300
#define UDP_MESSAGES	300
#define UDP_PAUSE_US	200
#define MIXED_TIMEOUT	600

FIXTURE(group) {
	struct sw_saved saved;
	char root[256];
	char top[320];
	bool cpu_was_on;
	bool cpu_changed;
};

/* Remove @dir and every group below it, deepest first; tasks go to @root. */
static void remove_tree(const char *dir, const char *root)
{
	static const char * const names[] = { "a/b/c", "a/b", "a/new", "a", "pair",
					      "stream", "waker", "wakee", "gone",
					      "bare/child", "bare", "" };
	char path[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, *names[i] ? "/" : "", names[i]);
		sw_cgroup_leave(path, root);
	}
}

FIXTURE_SETUP(group)
{
	char why[512];
	enum sw_iface st;
	int err;

	if (geteuid() != 0)
		SKIP(return, "must run as root");
	st = sw_iface_check(true, why, sizeof(why));
	if (st == SW_IFACE_ABSENT)
		SKIP(return, "%s", why);
	ASSERT_EQ(SW_IFACE_OK, st) TH_LOG("%s", why);
	err = sw_cgroup_root(self->root, sizeof(self->root));
	if (err == -ENODEV)
		SKIP(return, "no cgroup v2 (CONFIG_CGROUPS)");
	ASSERT_EQ(0, err) TH_LOG("mounting cgroup v2: %s", strerror(-err));
	err = sw_cgroup_cpu_on(self->root, &self->cpu_was_on);
	if (err == -ENODEV)
		SKIP(return, "no cpu controller (CONFIG_CGROUP_SCHED), or it is on cgroup v1");
	ASSERT_EQ(0, err) TH_LOG("+cpu in %s/cgroup.subtree_control: %s", self->root,
				 strerror(-err));
	self->cpu_changed = !self->cpu_was_on;
	snprintf(self->top, sizeof(self->top), "%s/%s", self->root, TOP_NAME);
	remove_tree(self->top, self->root);
	ASSERT_EQ(0, mkdir(self->top, 0755))
		TH_LOG("mkdir %s: %s", self->top, strerror(errno));
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy) TH_LOG("cannot read %s", SW_POLICY_PATH);
	snprintf(why, sizeof(why), "%s/%s", self->top, SW_CG_POLICY);
	if (!sw_exists(why))
		SKIP(return, "no %s: a kernel without the per-group policy", why);
}

FIXTURE_TEARDOWN_PARENT(group)
{
	char top[320];

	if (!self->top[0])
		return;
	/* The child may have left a workload in a group: it exited. */
	snprintf(top, sizeof(top), "%s", self->top);
	remove_tree(top, self->root);
	EXPECT_FALSE(sw_exists(top)) TH_LOG("cannot remove %s", top);
	if (self->cpu_changed)
		EXPECT_EQ(0, sw_cgroup_cpu_off(self->root));
	EXPECT_EQ(0, sw_restore(&self->saved));
}

/* Make the group @name under the test's top group; its path into @path. */
static void make_group(struct __test_metadata *_metadata, const char *top,
		       const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", top, name);
	ASSERT_EQ(0, mkdir(path, 0755)) TH_LOG("mkdir %s: %s", path, strerror(errno));
}

/* The group at @dir: cpu.sync_wakeup reads @policy, its wakers get @effective. */
static void expect_group(struct __test_metadata *_metadata, const char *dir,
			 const char *policy, const char *effective)
{
	char buf[128];
	int err;

	err = sw_cgroup_read(dir, SW_CG_POLICY, buf, sizeof(buf));
	ASSERT_EQ(0, err) TH_LOG("%s/%s: %s", dir, SW_CG_POLICY, strerror(-err));
	EXPECT_STREQ(policy, buf) TH_LOG("%s/%s", dir, SW_CG_POLICY);
	err = sw_cgroup_read(dir, SW_CG_EFFECTIVE, buf, sizeof(buf));
	ASSERT_EQ(0, err) TH_LOG("%s/%s: %s", dir, SW_CG_EFFECTIVE, strerror(-err));
	EXPECT_STREQ(effective, buf) TH_LOG("%s/%s", dir, SW_CG_EFFECTIVE);
}

static void set_group(struct __test_metadata *_metadata, const char *dir,
		      const char *policy)
{
	int err = sw_cgroup_write(dir, SW_CG_POLICY, policy);

	ASSERT_EQ(0, err) TH_LOG("%s into %s/%s: %s", policy, dir, SW_CG_POLICY,
				 strerror(-err));
}

static mode_t file_mode(const char *dir, const char *file)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

TEST_F(group, files)
{
	char path[1024], sub[512];

	EXPECT_EQ(0644, file_mode(self->top, SW_CG_POLICY));
	EXPECT_EQ(0444, file_mode(self->top, SW_CG_EFFECTIVE));
	EXPECT_EQ(0444, file_mode(self->top, SW_CG_STAT));
	/* The root group follows the sysctl: no file of its own. */
	snprintf(path, sizeof(path), "%s/%s", self->root, SW_CG_POLICY);
	EXPECT_FALSE(sw_exists(path)) TH_LOG("%s exists", path);
	/* A group whose parent does not give it the cpu controller has none. */
	make_group(_metadata, self->top, "bare", path, sizeof(path));
	make_group(_metadata, path, "child", sub, sizeof(sub));
	snprintf(path, sizeof(path), "%s/%s", sub, SW_CG_POLICY);
	EXPECT_FALSE(sw_exists(path)) TH_LOG("%s exists without +cpu", path);
	EXPECT_EQ(-ENOENT, sw_write_str(path, "no-sync"));
}

/* A new group inherits; its wakers get the sysctl's policy, which it follows. */
TEST_F(group, follows_sysctl)
{
	ASSERT_EQ(0, sw_policy_set("waker-if-alone"));
	expect_group(_metadata, self->top, SW_CG_INHERIT, "waker-if-alone");
	ASSERT_EQ(0, sw_policy_set("no-sync"));
	expect_group(_metadata, self->top, SW_CG_INHERIT, "no-sync");
}

/* Each name round-trips, with or without a newline, and so does "inherit". */
TEST_F(group, round_trip)
{
	char buf[64];
	size_t i;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	for (i = 0; i < SW_NR_POLICIES; i++) {
		snprintf(buf, sizeof(buf), "%s%s", sw_policies[i], i & 1 ? "\n" : "");
		set_group(_metadata, self->top, buf);
		expect_group(_metadata, self->top, sw_policies[i], sw_policies[i]);
	}
	set_group(_metadata, self->top, "inherit\n");
	expect_group(_metadata, self->top, SW_CG_INHERIT, "hint-only");
}

/*
 * A child follows its parent until written, keeps its own value when the
 * parent changes, and follows again after "inherit"; a grandchild follows
 * whichever of them is nearest with a value; a group made under one with
 * a value gets that value at once.
 */
TEST_F(group, inheritance)
{
	char a[512], b[512], c[512], fresh[512];
	bool was_on;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_cgroup_cpu_on(self->top, &was_on));
	make_group(_metadata, self->top, "a", a, sizeof(a));
	ASSERT_EQ(0, sw_cgroup_cpu_on(a, &was_on));
	make_group(_metadata, a, "b", b, sizeof(b));
	ASSERT_EQ(0, sw_cgroup_cpu_on(b, &was_on));
	make_group(_metadata, b, "c", c, sizeof(c));

	set_group(_metadata, a, "no-sync");
	expect_group(_metadata, a, "no-sync", "no-sync");
	expect_group(_metadata, b, SW_CG_INHERIT, "no-sync");
	expect_group(_metadata, c, SW_CG_INHERIT, "no-sync");

	set_group(_metadata, b, "reciprocal-only");
	expect_group(_metadata, b, "reciprocal-only", "reciprocal-only");
	expect_group(_metadata, c, SW_CG_INHERIT, "reciprocal-only");

	set_group(_metadata, a, "honest-waker");
	expect_group(_metadata, a, "honest-waker", "honest-waker");
	expect_group(_metadata, b, "reciprocal-only", "reciprocal-only");
	expect_group(_metadata, c, SW_CG_INHERIT, "reciprocal-only");

	make_group(_metadata, a, "new", fresh, sizeof(fresh));
	expect_group(_metadata, fresh, SW_CG_INHERIT, "honest-waker");

	set_group(_metadata, b, SW_CG_INHERIT);
	expect_group(_metadata, b, SW_CG_INHERIT, "honest-waker");
	expect_group(_metadata, c, SW_CG_INHERIT, "honest-waker");

	set_group(_metadata, a, SW_CG_INHERIT);
	expect_group(_metadata, a, SW_CG_INHERIT, "hint-only");
	expect_group(_metadata, c, SW_CG_INHERIT, "hint-only");
	expect_group(_metadata, fresh, SW_CG_INHERIT, "hint-only");
	ASSERT_EQ(0, sw_policy_set("reciprocal-strict"));
	expect_group(_metadata, c, SW_CG_INHERIT, "reciprocal-strict");
}

struct bad_value {
	const char *bytes;
	size_t len;
};

#define BAD(s) { s, sizeof(s) - 1 }

/*
 * Refused with EINVAL, an embedded NUL included; the value and what the
 * wakers get stay as they were.
 */
TEST_F(group, bad_write)
{
	static const struct bad_value bad[] = {
		BAD("\n"), BAD("hint"), BAD("hint-only\n\n"), BAD("Hint-only"),
		BAD(" no-sync"), BAD("no-sync "), BAD("inherit "), BAD("inheritx"),
		BAD("parent"), BAD("reciprocal-strictly"), BAD("waker-if-alone\nno-sync"),
		BAD("0"), BAD("1"), BAD("-1"), BAD("no-sync\0garbage"),
	};
	char path[512];
	size_t i;
	int err;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	set_group(_metadata, self->top, "waker-if-alone");
	snprintf(path, sizeof(path), "%s/%s", self->top, SW_CG_POLICY);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = sw_write_file(path, bad[i].bytes, bad[i].len);
		EXPECT_EQ(-EINVAL, err) TH_LOG("\"%s\" (%zu bytes): %s", bad[i].bytes,
					       bad[i].len, err ? strerror(-err) : "accepted");
		expect_group(_metadata, self->top, "waker-if-alone", "waker-if-alone");
	}
	/* cgroup_file_write() takes an empty write as a no-op. */
	EXPECT_EQ(0, sw_write_file(path, "", 0));
	expect_group(_metadata, self->top, "waker-if-alone", "waker-if-alone");
}

static int nobody_write_child(struct sw_child_result *r, void *arg)
{
	const char *path = arg;
	int err = sw_drop_privileges();
	int fd;

	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot become nobody: %s", strerror(-err));
		return KSFT_FAIL;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		err = write(fd, "no-sync", 7) < 0 ? errno : 0;
		close(fd);
		snprintf(r->msg, sizeof(r->msg), "nobody opened %s for writing; write: %s",
			 path, err ? strerror(err) : "accepted");
		return KSFT_FAIL;
	}
	snprintf(r->msg, sizeof(r->msg), "nobody: open(O_WRONLY): %s", strerror(errno));
	return errno == EACCES || errno == EPERM ? KSFT_PASS : KSFT_FAIL;
}

/* nobody owns the file, as a delegated subtree's owner does: still no. */
static int owner_write_child(struct sw_child_result *r, void *arg)
{
	const char *path = arg;
	int err = sw_drop_privileges();

	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot become nobody: %s", strerror(-err));
		return KSFT_FAIL;
	}
	err = sw_write_str(path, "no-sync");
	snprintf(r->msg, sizeof(r->msg), "nobody, owning %.400s: write: %s", path,
		 err ? strerror(-err) : "accepted");
	return err == -EPERM ? KSFT_PASS : KSFT_FAIL;
}

/*
 * A file nobody owns and opened, written with CAP_SYS_NICE: refused, as
 * the opener's credentials decide (file_ns_capable()), not the writer's,
 * or a delegated subtree's owner could hand its open file to a privileged
 * program and have it write.
 */
static int opener_write_child(struct sw_child_result *r, void *arg)
{
	const char *path = arg;
	int fd, err;

	/* An effective uid other than 0 has no capabilities; 0 again has them. */
	if (setresuid(-1, SW_NOBODY, -1)) {
		snprintf(r->msg, sizeof(r->msg), "seteuid(nobody): %s", strerror(errno));
		return KSFT_FAIL;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (setresuid(-1, 0, -1)) {
		snprintf(r->msg, sizeof(r->msg), "seteuid(0): %s", strerror(errno));
		return KSFT_FAIL;
	}
	if (fd < 0) {
		snprintf(r->msg, sizeof(r->msg), "nobody, owning %.400s: open: %s", path,
			 strerror(err));
		return KSFT_FAIL;
	}
	err = write(fd, "no-sync", 7) < 0 ? errno : 0;
	close(fd);
	snprintf(r->msg, sizeof(r->msg), "opened by nobody, written with CAP_SYS_NICE: %s",
		 err ? strerror(err) : "accepted");
	return err == EPERM ? KSFT_PASS : KSFT_FAIL;
}

/* @child tries to write the top group's file (nobody's if @owns): refused. */
static void refused_write(struct __test_metadata *_metadata, const char *top, bool owns,
			  int (*child)(struct sw_child_result *r, void *arg))
{
	struct sw_child_result *r = sw_child_result_alloc();
	char path[512];
	int code;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, sw_policy_set("hint-only"));
	set_group(_metadata, top, "reciprocal-only");
	snprintf(path, sizeof(path), "%s/%s", top, SW_CG_POLICY);
	if (owns)
		ASSERT_EQ(0, chown(path, SW_NOBODY, SW_NOBODY))
			TH_LOG("chown %s: %s", path, strerror(errno));
	code = sw_run_child(child, path, r);
	TH_LOG("%s", r->msg);
	EXPECT_EQ(KSFT_PASS, code);
	munmap(r, sizeof(*r));
	expect_group(_metadata, top, "reciprocal-only", "reciprocal-only");
}

TEST_F(group, owner_without_cap_sys_nice)
{
	refused_write(_metadata, self->top, true, owner_write_child);
}

TEST_F(group, opened_without_cap_sys_nice)
{
	refused_write(_metadata, self->top, true, opener_write_child);
}

TEST_F(group, unprivileged_write)
{
	refused_write(_metadata, self->top, false, nobody_write_child);
}

/* sync_wakeups first, then the verdicts and landings, each adding up to it. */
TEST_F(group, stat_format)
{
	struct sw_stats st;
	unsigned long sum;
	int err, i;

	err = sw_cgroup_stats_read(self->top, &st);
	ASSERT_EQ(0, err) TH_LOG("%s/%s: %s", self->top, SW_CG_STAT, strerror(-err));
	for (i = SW_FIRST_VERDICT, sum = 0; i <= SW_LAST_VERDICT; i++)
		sum += st.v[i];
	EXPECT_EQ(st.v[SW_SYNC_WAKEUPS], sum);
	for (i = SW_FIRST_LANDING, sum = 0; i <= SW_LAST_LANDING; i++)
		sum += st.v[i];
	EXPECT_EQ(st.v[SW_SYNC_WAKEUPS], sum);
}

/* ---- placement: two groups, two rules, one run ------------------------- */

struct workload {
	const char *dir;
	const char *comm;
	bool stream;
};

/* In the group, under its name: the pair (a ping-pong) or the UDP stream. */
static int workload_child(struct sw_child_result *r, void *arg)
{
	const struct workload *w = arg;
	struct sw_pingpong pp;
	struct sw_net net;
	int err;

	err = sw_cgroup_enter(w->dir, 0);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "entering %.400s: %s", w->dir, strerror(-err));
		return KSFT_FAIL;
	}
	/* After entering: no decision of this name outside the group. */
	prctl(PR_SET_NAME, w->comm);
	if (w->stream)
		err = sw_udp_stream_run(UDP_MESSAGES, UDP_PAUSE_US, &net);
	else
		err = sw_pingpong_run(0, PAIR_ROUNDS, 0, NULL, &pp);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "%s: %s", w->comm, strerror(-err));
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/* The counts @after less @before, in @d. */
static void stats_delta(const struct sw_stats *before, const struct sw_stats *after,
			struct sw_stats *d)
{
	int i;

	for (i = 0; i < SW_NR_STATS; i++)
		d->v[i] = after->v[i] - before->v[i];
}

/* @d, a group's counts over the run, is what the trace shows of its wakers. */
static void expect_group_counts(struct __test_metadata *_metadata, const char *label,
				const char *policy, const struct sw_stats *d,
				const struct sw_stats *traced)
{
	char buf[512];
	int i;

	TH_LOG("%s: %s", label, sw_stats_str(d, buf, sizeof(buf)));
	EXPECT_LT(0, d->v[SW_SYNC_WAKEUPS]) TH_LOG("%s: no decision counted", label);
	for (i = 0; i < SW_CG_NR_STATS; i++) {
		EXPECT_EQ(traced->v[i], d->v[i])
			TH_LOG("%s: %s %lu, the trace shows %lu", label, sw_stat_names[i],
			       d->v[i], traced->v[i]);
		if (i >= SW_FIRST_VERDICT && i <= SW_LAST_VERDICT && d->v[i])
			EXPECT_TRUE(sw_policy_verdicts(policy) & SW_STAT_BIT(i))
				TH_LOG("%s: %s never gives %s", label, policy, sw_stat_names[i]);
	}
}

/*
 * Have the groups removed under @dir been released? A group stays dying
 * (cgroup.stat) until the cpu controller's part of it is released and
 * freed: the parent's counts must come through that unchanged.
 */
static bool released(const char *dir)
{
	char buf[256], *p;
	int i;

	for (i = 0; i < 1000; i++) {
		if (sw_cgroup_read(dir, "cgroup.stat", buf, sizeof(buf)))
			return false;
		p = strstr(buf, "nr_dying_descendants ");
		if (p && atoi(p + strlen("nr_dying_descendants ")) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * Two groups under the test's top group, each set to its policy, whose
 * wakers the witness knows by their names, watched over one window.
 */
struct split {
	const char *name[2], *policy[2], *comm[2];
	char dir[2][512];
	struct sw_stats before[2], delta[2], window;
	struct sw_trace *trace;
};

/* Under the sysctl's hint-only: make and set the groups, start the window. */
static void split_start(struct __test_metadata *_metadata, const char *top,
			struct split *sp)
{
	int i, err;

	sp->trace = calloc(1, sizeof(*sp->trace));
	ASSERT_NE(NULL, sp->trace);
	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_cgroup_cpu_on(top, &(bool){ false }));
	ASSERT_EQ(0, sw_trace_comm_policy(NULL, NULL));
	for (i = 0; i < 2; i++) {
		make_group(_metadata, top, sp->name[i], sp->dir[i], sizeof(sp->dir[i]));
		set_group(_metadata, sp->dir[i], sp->policy[i]);
		ASSERT_EQ(0, sw_trace_comm_policy(sp->comm[i], sp->policy[i]));
		ASSERT_EQ(0, sw_cgroup_stats_read(sp->dir[i], &sp->before[i]));
	}
	err = sw_window_start(true, &sp->window);
	ASSERT_EQ(0, err) TH_LOG("tracing %s: %s", SW_EVENT, strerror(-err));
}

/*
 * End the window: every decision followed its waker's group's policy (or
 * the sysctl's), the counters moved as the trace shows, and each group
 * counted exactly its wakers' decisions, only its policy's verdicts.
 */
static void split_stop(struct __test_metadata *_metadata, struct split *sp)
{
	struct sw_stats after;
	char label[64];
	int i, err;

	err = sw_window_stop("hint-only", getpid(), &sp->window, sp->trace);
	sw_trace_comm_policy(NULL, NULL);
	ASSERT_EQ(0, err) TH_LOG("reading the trace: %s", strerror(-err));
	TH_LOG("trace: %ld decisions, %ld wrong", sp->trace->events, sp->trace->wrong);
	EXPECT_EQ(0, sp->trace->wrong) TH_LOG("%s", sp->trace->why);
	EXPECT_EQ(0, sp->trace->unwitnessed)
		TH_LOG("counters against the trace: %s", sp->trace->witness);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, sw_cgroup_stats_read(sp->dir[i], &after));
		stats_delta(&sp->before[i], &after, &sp->delta[i]);
		snprintf(label, sizeof(label), "group %s", sp->name[i]);
		expect_group_counts(_metadata, label, sp->policy[i], &sp->delta[i],
				    &sp->trace->by_comm[i]);
	}
}

/*
 * Under the sysctl's hint-only, a pipe pair in a group set to
 * reciprocal-only and a UDP stream in one set to no-sync run at once.
 * Each decision must follow its waker's group's policy (the witness reads
 * the waker's name off each event), every other decision hint-only; each
 * group counts exactly its wakers' decisions, their parent the sum, also
 * once they are removed; the global counters exactly the trace's.
 */
TEST_F_TIMEOUT(group, mixed_workload, MIXED_TIMEOUT)
{
	struct split sp = {
		.name = { "pair", "stream" }, .policy = { "reciprocal-only", "no-sync" },
		.comm = { PAIR_COMM, STREAM_COMM },
	};
	struct workload w[2] = { { .comm = PAIR_COMM }, { .comm = STREAM_COMM, .stream = true } };
	struct sw_stats tb, ta, td, tg;
	struct sw_child_result *r[2];
	int i, status;
	pid_t pid[2];

	ASSERT_EQ(0, sw_cgroup_stats_read(self->top, &tb));
	split_start(_metadata, self->top, &sp);
	for (i = 0; i < 2; i++) {
		w[i].dir = sp.dir[i];
		r[i] = sw_child_result_alloc();
		ASSERT_NE(NULL, r[i]);
		fflush(stdout);
		fflush(stderr);
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(workload_child(r[i], &w[i]));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == KSFT_PASS)
			TH_LOG("%s: %s", w[i].comm, r[i]->msg);
		munmap(r[i], sizeof(*r[i]));
	}
	split_stop(_metadata, &sp);

	/* The parent counts its children's, and no decision of its own. */
	ASSERT_EQ(0, sw_cgroup_stats_read(self->top, &ta));
	stats_delta(&tb, &ta, &td);
	for (i = 0; i < SW_CG_NR_STATS; i++) {
		EXPECT_EQ(sp.delta[0].v[i] + sp.delta[1].v[i], td.v[i])
			TH_LOG("%s: %s %lu, its groups' %lu and %lu", self->top,
			       sw_stat_names[i], td.v[i], sp.delta[0].v[i], sp.delta[1].v[i]);
	}
	/* ... and keeps them once they are gone, released (not dying). */
	ASSERT_EQ(0, sw_cgroup_leave(sp.dir[0], self->root));
	ASSERT_EQ(0, sw_cgroup_leave(sp.dir[1], self->root));
	ASSERT_TRUE(released(self->top))
		TH_LOG("%s: removed groups still dying after 10 s", self->top);
	ASSERT_EQ(0, sw_cgroup_stats_read(self->top, &tg));
	for (i = 0; i < SW_CG_NR_STATS; i++) {
		EXPECT_EQ(ta.v[i], tg.v[i])
			TH_LOG("%s: %s %lu after its groups went, %lu before", self->top,
			       sw_stat_names[i], tg.v[i], ta.v[i]);
	}
	free(sp.trace);
}

/* In its group, under its name: a pipe pair's waker or (its turn) wakee. */
static int wakee_turn(void *arg, bool first)
{
	const char *dir = arg;

	if (!first)
		return 0;
	if (sw_cgroup_enter(dir, 0))
		return 1;
	prctl(PR_SET_NAME, WAKEE_COMM);
	return 0;
}

static int split_waker_child(struct sw_child_result *r, void *arg)
{
	const char * const *dirs = arg;
	struct sw_pair pair = { .turn = wakee_turn, .arg = (void *)dirs[1] };
	const char *why;
	int err;

	err = sw_cgroup_enter(dirs[0], 0);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "entering %.400s: %s", dirs[0], strerror(-err));
		return KSFT_FAIL;
	}
	prctl(PR_SET_NAME, WAKER_COMM);
	err = sw_pair_run(&pair, 0, 1, PAIR_ROUNDS, &why);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "pair: %s%s%s", strerror(-err),
			 why ? ": " : "", why ? why : "");
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/*
 * The waker's group decides, not the wakee's: a pipe pair whose waker is in
 * a group set to reciprocal-only and whose wakee is in one set to no-sync.
 * Each side wakes the other: the waker's decisions must be reciprocal-only's,
 * the wakee's no-sync's, and each group must count its own side's.
 */
TEST_F_TIMEOUT(group, waker_decides, MIXED_TIMEOUT)
{
	struct split sp = {
		.name = { "waker", "wakee" }, .policy = { "reciprocal-only", "no-sync" },
		.comm = { WAKER_COMM, WAKEE_COMM },
	};
	const char *dirs[2] = { sp.dir[0], sp.dir[1] };
	struct sw_child_result *r;
	int code;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs 2 CPUs for the pair");
	r = sw_child_result_alloc();
	ASSERT_NE(NULL, r);
	split_start(_metadata, self->top, &sp);
	code = sw_run_child(split_waker_child, dirs, r);
	EXPECT_EQ(KSFT_PASS, code) TH_LOG("%s", r->msg);
	munmap(r, sizeof(*r));
	split_stop(_metadata, &sp);
	free(sp.trace);
}

TEST_HARNESS_MAIN
