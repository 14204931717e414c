// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_iface - the knobs of SYNC_PAIR_AFFINE, not its placement.
 *
 *  - the feature bit in debugfs sched/features toggles, and nothing else
 *    moves with it;
 *  - kernel.sched_sync_wakeup_policy takes each name the kernel lists in
 *    kernel.sched_sync_wakeup_available_policies, reads it back as
 *    "name\n", and refuses (EINVAL, value unchanged) anything that is not
 *    exactly one name with at most one trailing newline, written whole at
 *    offset 0;
 *  - only real root writes the policy: not nobody, not nobody holding a
 *    root-opened fd, not root of an unprivileged user namespace;
 *  - debugfs sched/sync_wakeup_stats has its lines in the kernel's order,
 *    sync_wakeups the sum of the verdicts and of the landings; it resets
 *    on "0", refuses anything else, and counts nothing while the feature
 *    is off (that each policy gives only its own verdicts is
 *    sync_wakeup_placement's part);
 *  - the tracepoints' events, as the document makes them, have exactly
 *    their documented fields.
 *
 * Every test puts back the feature bit and the policy it found. On a kernel
 * without the interface every test is skipped, saying so.
 */
#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

#include <sys/stat.h>

/* Round trips of the short ping-pong that makes the counters move. */
#define SHORT_ROUNDS		500

/* The policy in place while bad writes are tried; none of them names it. */
#define BAD_WRITE_BASELINE	"no-sync"

/*
 * Skip on a kernel without the interface, fail on a half-present one.
 * @need_debugfs: the test also needs the feature bit and the counters.
 * Returns false if the test was skipped: the caller must return at once.
 */
static bool require_iface(struct __test_metadata *_metadata, bool need_debugfs)
{
	char why[512];
	enum sw_iface st;

	if (geteuid() != 0)
		SKIP(return false, "must run as root");
	st = sw_iface_check(need_debugfs, why, sizeof(why));
	if (st == SW_IFACE_ABSENT)
		SKIP(return false, "%s", why);
	ASSERT_EQ(SW_IFACE_OK, st) TH_LOG("%s", why);
	return true;
}

/*
 * The counters only move for tasks the kernel may place on 2+ CPUs.
 * Returns false if the test was skipped: the caller must return at once.
 */
static bool require_two_cpus(struct __test_metadata *_metadata)
{
	int n = sw_nr_allowed_cpus();

	if (n >= 0 && n < 2)
		SKIP(return false, "needs 2 CPUs to place wakeups on, have %d", n);
	return true;
}

/* Any policy other than @name. */
static const char *other_policy(const char *name)
{
	return strcmp(name, sw_policies[0]) ? sw_policies[0] : sw_policies[1];
}

static bool is_access_denied(int err)
{
	return err == EACCES || err == EPERM;
}

/* ---- every policy round-trips ---------------------------------------- */

FIXTURE(policy) {
	struct sw_saved saved;
};

FIXTURE_VARIANT(policy) {
	const char *name;
};

FIXTURE_VARIANT_ADD(policy, hint_only) { .name = "hint-only", };
FIXTURE_VARIANT_ADD(policy, waker_if_alone) { .name = "waker-if-alone", };
FIXTURE_VARIANT_ADD(policy, reciprocal_only) { .name = "reciprocal-only", };
FIXTURE_VARIANT_ADD(policy, no_sync) { .name = "no-sync", };
FIXTURE_VARIANT_ADD(policy, reciprocal_strict) { .name = "reciprocal-strict", };
FIXTURE_VARIANT_ADD(policy, honest_waker) { .name = "honest-waker", };

FIXTURE_SETUP(policy)
{
	if (!require_iface(_metadata, false))
		return;
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy) TH_LOG("cannot read %s", SW_POLICY_PATH);
}

FIXTURE_TEARDOWN_PARENT(policy)
{
	EXPECT_EQ(0, sw_restore(&self->saved));
}

static void round_trip(struct __test_metadata *_metadata, const char *name,
		       const char *suffix)
{
	char buf[128], want[128];
	int err;

	/* Start from another policy so that the write has to change it. */
	ASSERT_EQ(0, sw_policy_set(other_policy(name)));

	snprintf(buf, sizeof(buf), "%s%s", name, suffix);
	err = sw_write_str(SW_POLICY_PATH, buf);
	ASSERT_EQ(0, err) TH_LOG("write \"%s%s\": %s", name,
				 *suffix ? "\\n" : "", strerror(-err));

	ASSERT_LE(0, sw_read_file(SW_POLICY_PATH, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%s\n", name);
	EXPECT_STREQ(want, buf);
}

TEST_F(policy, round_trip)
{
	round_trip(_metadata, variant->name, "");
}

/* As echo(1) and sysctl -w write it. */
TEST_F(policy, round_trip_newline)
{
	round_trip(_metadata, variant->name, "\n");
}

/* ---- every malformed write is refused -------------------------------- */

FIXTURE(bad_write) {
	struct sw_saved saved;
};

FIXTURE_VARIANT(bad_write) {
	const char *buf;	/* bytes written, NULs included */
	size_t len;
	off_t offset;		/* pwrite() there instead of write() */
	size_t total;		/* if set: @buf padded with @pad to this length */
	char pad;
};

/* A string literal with every byte, embedded NULs too, but not the final one. */
#define BYTES(s)	.buf = (s), .len = sizeof(s) - 1

FIXTURE_VARIANT_ADD(bad_write, empty) { BYTES(""), };
FIXTURE_VARIANT_ADD(bad_write, newline_only) { BYTES("\n"), };
FIXTURE_VARIANT_ADD(bad_write, unknown_name) { BYTES("bogus-policy"), };
FIXTURE_VARIANT_ADD(bad_write, prefix) { BYTES("waker"), };
FIXTURE_VARIANT_ADD(bad_write, prefix_newline) { BYTES("waker\n"), };
FIXTURE_VARIANT_ADD(bad_write, trailing_garbage) { BYTES("hint-onlyx"), };
FIXTURE_VARIANT_ADD(bad_write, trailing_space) { BYTES("hint-only "), };
FIXTURE_VARIANT_ADD(bad_write, leading_space) { BYTES(" hint-only"), };
FIXTURE_VARIANT_ADD(bad_write, double_newline) { BYTES("hint-only\n\n"), };
FIXTURE_VARIANT_ADD(bad_write, newline_then_garbage) { BYTES("hint-only\nx"), };
FIXTURE_VARIANT_ADD(bad_write, embedded_nul) { BYTES("hint-only\0x"), };
FIXTURE_VARIANT_ADD(bad_write, trailing_nul) { BYTES("hint-only\0"), };
FIXTURE_VARIANT_ADD(bad_write, upper_case) { BYTES("HINT-ONLY"), };
FIXTURE_VARIANT_ADD(bad_write, two_names) { BYTES("hint-only waker-if-alone"), };
FIXTURE_VARIANT_ADD(bad_write, numeric) { BYTES("0"), };
FIXTURE_VARIANT_ADD(bad_write, nonzero_offset) { BYTES("hint-only"), .offset = 1, };
/* A valid name and newline, then more newlines (or NULs) up to a page and two. */
FIXTURE_VARIANT_ADD(bad_write, len_4096) { BYTES("hint-only\n"), .total = 4096, .pad = '\n', };
FIXTURE_VARIANT_ADD(bad_write, len_8192) { BYTES("hint-only\n"), .total = 8192, .pad = '\n', };
FIXTURE_VARIANT_ADD(bad_write, len_4096_nul_padded) {
	BYTES("hint-only"), .total = 4096, .pad = '\0',
};

FIXTURE_SETUP(bad_write)
{
	if (!require_iface(_metadata, false))
		return;
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
	ASSERT_EQ(0, sw_policy_set(BAD_WRITE_BASELINE));
}

FIXTURE_TEARDOWN_PARENT(bad_write)
{
	EXPECT_EQ(0, sw_restore(&self->saved));
}

TEST_F(bad_write, rejected)
{
	size_t len = variant->total ? variant->total : variant->len;
	char *buf, cur[64];
	int fd, err;
	ssize_t ret;

	buf = malloc(len + 1);
	ASSERT_NE(NULL, buf);
	memset(buf, variant->pad, len + 1);
	memcpy(buf, variant->buf, variant->len);

	fd = open(SW_POLICY_PATH, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", SW_POLICY_PATH, strerror(errno));
	errno = 0;
	if (variant->offset)
		ret = pwrite(fd, buf, len, variant->offset);
	else
		ret = write(fd, buf, len);
	err = errno;
	close(fd);
	free(buf);

	EXPECT_EQ(-1, ret) TH_LOG("write of %zu bytes at offset %ld returned %zd",
				  len, (long)variant->offset, ret);
	EXPECT_EQ(EINVAL, err) TH_LOG("errno %d (%s), want EINVAL", err, strerror(err));

	ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
	EXPECT_STREQ(BAD_WRITE_BASELINE, cur);
}

/* ---- the policy file as a whole ---------------------------------------- */

FIXTURE(sysctl) {
	struct sw_saved saved;
};

FIXTURE_SETUP(sysctl)
{
	if (!require_iface(_metadata, false))
		return;
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
}

FIXTURE_TEARDOWN_PARENT(sysctl)
{
	EXPECT_EQ(0, sw_restore(&self->saved));
}

/* One read gives exactly "name\n"; so do reads of one byte at a time. */
TEST_F(sysctl, read_format)
{
	char whole[128], bytes[128];
	size_t len = 0;
	ssize_t n;
	int fd;

	n = sw_read_file(SW_POLICY_PATH, whole, sizeof(whole));
	ASSERT_LT(1, n);
	ASSERT_EQ('\n', whole[n - 1]);
	EXPECT_EQ(whole + n - 1, strchr(whole, '\n'))
		TH_LOG("more than one newline in \"%s\"", whole);
	whole[n - 1] = '\0';
	EXPECT_TRUE(sw_is_policy(whole)) TH_LOG("\"%s\" is no policy name", whole);
	whole[n - 1] = '\n';

	fd = open(SW_POLICY_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	while (len < sizeof(bytes) - 1 && (n = read(fd, bytes + len, 1)) == 1)
		len++;
	close(fd);
	ASSERT_EQ(0, n) TH_LOG("byte-wise read ended with %zd (%s)", n, strerror(errno));
	bytes[len] = '\0';
	EXPECT_STREQ(whole, bytes);
}

TEST_F(sysctl, file_modes)
{
	struct stat st;

	ASSERT_EQ(0, stat(SW_POLICY_PATH, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0644, st.st_mode & 07777);
	ASSERT_EQ(0, stat(SW_AVAILABLE_PATH, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0444, st.st_mode & 07777);
}

/* "a b c\n": single spaces, one newline, the five names, each once. */
TEST_F(sysctl, available_list)
{
	bool seen[SW_NR_POLICIES] = {};
	char buf[256], *tok, *save;
	size_t i, count = 0;
	ssize_t n;

	n = sw_read_file(SW_AVAILABLE_PATH, buf, sizeof(buf));
	ASSERT_LT(1, n);
	TH_LOG("available: %.*s", (int)n - 1, buf);
	ASSERT_EQ('\n', buf[n - 1]);
	buf[n - 1] = '\0';
	EXPECT_EQ(NULL, strchr(buf, '\n')) TH_LOG("newline inside the list");
	EXPECT_NE(' ', buf[0]);
	EXPECT_NE(' ', buf[n - 2]);
	EXPECT_EQ(NULL, strstr(buf, "  ")) TH_LOG("double space in the list");

	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		for (i = 0; i < SW_NR_POLICIES; i++)
			if (!strcmp(tok, sw_policies[i]))
				break;
		EXPECT_GT(SW_NR_POLICIES, i) TH_LOG("unexpected name \"%s\"", tok);
		if (i < SW_NR_POLICIES) {
			EXPECT_FALSE(seen[i]) TH_LOG("\"%s\" listed twice", tok);
			seen[i] = true;
		}
		count++;
	}
	EXPECT_EQ(SW_NR_POLICIES, count);
	for (i = 0; i < SW_NR_POLICIES; i++) {
		const char *name = sw_policies[i];

		EXPECT_TRUE(seen[i]) TH_LOG("\"%s\" not listed", name);
	}
}

/* Every name the kernel lists is one it takes. */
TEST_F(sysctl, available_all_accepted)
{
	char buf[256], *tok, *save;
	int err;

	ASSERT_LT(1, sw_read_file(SW_AVAILABLE_PATH, buf, sizeof(buf)));
	for (tok = strtok_r(buf, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save)) {
		err = sw_policy_set(other_policy(tok));
		ASSERT_EQ(0, err);
		err = sw_policy_set(tok);
		EXPECT_EQ(0, err) TH_LOG("listed \"%s\" not accepted: %s", tok, strerror(-err));
	}
}

/* Near misses of the listed names are refused. */
TEST_F(sysctl, unlisted_rejected)
{
	static const char * const names[] = {
		"default", "off", "none", "reciprocal", "strict", "hint_only",
		"waker_if_alone", "reciprocal_only", "no_sync", "nosync",
		"reciprocal-strict-", "Hint-only", "honest", "honest_waker",
		"1", "4", "5", "6", "-1",
	};
	char cur[64];
	size_t i;
	int err;

	ASSERT_EQ(0, sw_policy_set(BAD_WRITE_BASELINE));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		err = sw_write_str(SW_POLICY_PATH, names[i]);
		EXPECT_EQ(-EINVAL, err) TH_LOG("\"%s\": %s", names[i],
					       err ? strerror(-err) : "accepted");
		ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
		EXPECT_STREQ(BAD_WRITE_BASELINE, cur)
			ASSERT_EQ(0, sw_policy_set(BAD_WRITE_BASELINE));
	}
}

/*
 * A name must come in one write(): after a first write the file position
 * is past 0, so a second write on the same fd is refused.
 */
TEST_F(sysctl, second_write_same_fd)
{
	char cur[64];
	ssize_t ret;
	int fd, err;

	ASSERT_EQ(0, sw_policy_set("no-sync"));
	fd = open(SW_POLICY_PATH, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(9, write(fd, "hint-only", 9));
	errno = 0;
	ret = write(fd, "waker-if-alone", 14);
	err = errno;
	close(fd);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINVAL, err) TH_LOG("errno %d (%s)", err, strerror(err));
	ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
	EXPECT_STREQ("hint-only", cur);
}

/* The list is read-only, for root too. */
TEST_F(sysctl, available_read_only)
{
	char before[256], after[256];
	int fd, err;

	ASSERT_LT(1, sw_read_file(SW_AVAILABLE_PATH, before, sizeof(before)));
	fd = open(SW_AVAILABLE_PATH, O_WRONLY | O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		EXPECT_GT(0, write(fd, "hint-only", 9));
		close(fd);
	}
	EXPECT_GT(0, fd) TH_LOG("root opened %s for writing", SW_AVAILABLE_PATH);
	if (fd < 0)
		EXPECT_TRUE(is_access_denied(err)) TH_LOG("errno %d (%s)", err, strerror(err));
	ASSERT_LT(1, sw_read_file(SW_AVAILABLE_PATH, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

/* ---- unprivileged users ------------------------------------------------ */

struct unpriv_arg {
	char policy[64];	/* what root reads */
	char available[256];
	int fd;			/* opened for writing by root, or -1 */
};

/* nobody reads what root reads. */
static int unpriv_read_child(struct sw_child_result *r, void *data)
{
	struct unpriv_arg *arg = data;
	char buf[256];
	ssize_t n;
	int err;

	err = sw_drop_privileges();
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot become nobody: %s", strerror(-err));
		return KSFT_FAIL;
	}
	n = sw_read_file(SW_POLICY_PATH, buf, sizeof(buf));
	if (n < 0 || strcmp(buf, arg->policy)) {
		snprintf(r->msg, sizeof(r->msg), "nobody reads policy: %s",
			 n < 0 ? strerror(-n) : buf);
		return KSFT_FAIL;
	}
	n = sw_read_file(SW_AVAILABLE_PATH, buf, sizeof(buf));
	if (n < 0 || strcmp(buf, arg->available)) {
		snprintf(r->msg, sizeof(r->msg), "nobody reads available: %s",
			 n < 0 ? strerror(-n) : buf);
		return KSFT_FAIL;
	}
	return KSFT_PASS;
}

/* Try to write "no-sync" through @fd, or through a fresh open if @fd < 0. */
static int try_write_policy(struct sw_child_result *r, int fd, const char *who)
{
	ssize_t n;
	int err;

	if (fd < 0) {
		fd = open(SW_POLICY_PATH, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			snprintf(r->msg, sizeof(r->msg), "%s: open(O_WRONLY): %s",
				 who, strerror(err));
			return is_access_denied(err) ? KSFT_PASS : KSFT_FAIL;
		}
	}
	n = write(fd, "no-sync", 7);
	err = errno;
	close(fd);
	if (n >= 0) {
		snprintf(r->msg, sizeof(r->msg), "%s: write() returned %zd", who, n);
		return KSFT_FAIL;
	}
	snprintf(r->msg, sizeof(r->msg), "%s: write(): %s", who, strerror(err));
	return is_access_denied(err) ? KSFT_PASS : KSFT_FAIL;
}

static int unpriv_write_child(struct sw_child_result *r, void *data)
{
	struct unpriv_arg *arg = data;
	int err = sw_drop_privileges();

	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot become nobody: %s", strerror(-err));
		return KSFT_FAIL;
	}
	return try_write_policy(r, arg->fd, "nobody");
}

/*
 * nobody makes a user namespace of its own and maps its uid to root there.
 * That root has every capability in its namespace, none over the initial
 * one, and the policy is the initial namespace's.
 */
static int userns_write_child(struct sw_child_result *r, void *data)
{
	char map[32];
	int err;

	(void)data;
	err = sw_drop_privileges();
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "cannot become nobody: %s", strerror(-err));
		return KSFT_FAIL;
	}
	/*
	 * The uid change made us non-dumpable, which makes /proc/self/ root's:
	 * take it back so that we can write our own uid_map.
	 */
	if (prctl(PR_SET_DUMPABLE, 1)) {
		snprintf(r->msg, sizeof(r->msg), "PR_SET_DUMPABLE: %s", strerror(errno));
		return KSFT_FAIL;
	}
	if (unshare(CLONE_NEWUSER)) {
		snprintf(r->msg, sizeof(r->msg),
			 "unshare(CLONE_NEWUSER) as uid %d: %s: unprivileged user namespaces unavailable (CONFIG_USER_NS, kernel.unprivileged_userns_clone, user.max_user_namespaces)",
			 SW_NOBODY, strerror(errno));
		return KSFT_SKIP;
	}
	snprintf(map, sizeof(map), "0 %d 1\n", SW_NOBODY);
	err = sw_write_str("/proc/self/uid_map", map);
	if (err) {
		snprintf(r->msg, sizeof(r->msg), "write uid_map \"0 %d 1\": %s",
			 SW_NOBODY, strerror(-err));
		return KSFT_FAIL;
	}
	if (getuid() != 0 || geteuid() != 0) {
		snprintf(r->msg, sizeof(r->msg), "uid %d after mapping, want 0", getuid());
		return KSFT_FAIL;
	}
	return try_write_policy(r, -1, "root of a user namespace");
}

static void unpriv_prepare(struct __test_metadata *_metadata, struct unpriv_arg *arg)
{
	memset(arg, 0, sizeof(*arg));
	arg->fd = -1;
	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_LT(0, sw_read_file(SW_POLICY_PATH, arg->policy, sizeof(arg->policy)));
	ASSERT_LT(0, sw_read_file(SW_AVAILABLE_PATH, arg->available, sizeof(arg->available)));
}

/* Run @fn as a child, report its verdict, check the policy did not move. */
static void unpriv_run(struct __test_metadata *_metadata,
		       int (*fn)(struct sw_child_result *r, void *arg),
		       struct unpriv_arg *arg)
{
	struct sw_child_result *r = sw_child_result_alloc();
	char cur[64], msg[sizeof(r->msg)];
	int code;

	ASSERT_NE(NULL, r);
	code = sw_run_child(fn, arg, r);
	memcpy(msg, r->msg, sizeof(msg));
	munmap(r, sizeof(*r));
	if (code == KSFT_SKIP)
		SKIP(return, "%s", msg);
	if (msg[0])
		TH_LOG("%s", msg);
	EXPECT_EQ(KSFT_PASS, code);

	ASSERT_EQ(0, sw_policy_get(cur, sizeof(cur)));
	EXPECT_STREQ("hint-only", cur);
}

TEST_F(sysctl, unprivileged_read)
{
	struct unpriv_arg arg;

	unpriv_prepare(_metadata, &arg);
	unpriv_run(_metadata, unpriv_read_child, &arg);
}

TEST_F(sysctl, unprivileged_write)
{
	struct unpriv_arg arg;

	unpriv_prepare(_metadata, &arg);
	unpriv_run(_metadata, unpriv_write_child, &arg);
}

/* Permission is checked at write() too: a root-opened fd does not help. */
TEST_F(sysctl, unprivileged_write_inherited_fd)
{
	struct unpriv_arg arg;

	unpriv_prepare(_metadata, &arg);
	arg.fd = open(SW_POLICY_PATH, O_WRONLY);
	ASSERT_LE(0, arg.fd);
	unpriv_run(_metadata, unpriv_write_child, &arg);
	close(arg.fd);
}

TEST_F(sysctl, userns_root_write)
{
	struct unpriv_arg arg;

	unpriv_prepare(_metadata, &arg);
	unpriv_run(_metadata, userns_write_child, &arg);
}

/* ---- the feature bit and the counters ---------------------------------- */

FIXTURE(feature) {
	struct sw_saved saved;
};

FIXTURE_SETUP(feature)
{
	if (!require_iface(_metadata, true))
		return;
	sw_save(&self->saved);
	ASSERT_TRUE(self->saved.have_policy);
	ASSERT_TRUE(self->saved.have_feature);
}

FIXTURE_TEARDOWN_PARENT(feature)
{
	EXPECT_EQ(0, sw_restore(&self->saved));
}

/* sched/features with our token replaced by "*": what must not move. */
static int features_but_ours(char *buf, size_t size)
{
	char raw[4096], *tok, *save;
	size_t off = 0;
	ssize_t n;

	n = sw_read_file(SW_FEATURES_PATH, raw, sizeof(raw));
	if (n < 0)
		return n;
	buf[0] = '\0';
	for (tok = strtok_r(raw, "\n ", &save); tok && off < size;
	     tok = strtok_r(NULL, "\n ", &save)) {
		if (!strcmp(tok, SW_FEATURE) || !strcmp(tok, SW_NO_FEATURE))
			tok = "*";
		off += snprintf(buf + off, size - off, "%s ", tok);
	}
	return 0;
}

TEST_F(feature, toggle)
{
	char before[4096], after[4096], raw_before[4096], raw_after[4096];
	int i, on = sw_feature_get();

	ASSERT_LE(0, on);
	ASSERT_LT(0, sw_read_file(SW_FEATURES_PATH, raw_before, sizeof(raw_before)));
	ASSERT_EQ(0, features_but_ours(before, sizeof(before)));

	/* Both directions, twice, from wherever it started. */
	for (i = 0; i < 4; i++) {
		on = !on;
		ASSERT_EQ(0, sw_write_str(SW_FEATURES_PATH, on ? SW_FEATURE : SW_NO_FEATURE));
		EXPECT_EQ(on, sw_feature_get());
		ASSERT_EQ(0, features_but_ours(after, sizeof(after)));
		EXPECT_STREQ(before, after) TH_LOG("other features moved with %s", SW_FEATURE);
	}
	ASSERT_LT(0, sw_read_file(SW_FEATURES_PATH, raw_after, sizeof(raw_after)));
	EXPECT_STREQ(raw_before, raw_after);
}

/* The lines in the kernel's order, and sync_wakeups the sum of the verdicts. */
TEST_F(feature, stats_format)
{
	char raw[4096], want[512], buf[512];
	const char *wrong;
	struct sw_stats st;
	size_t off = 0;
	int i, err;

	err = sw_stats_read(&st);
	if (err) {
		for (i = 0; i < SW_NR_STATS && off < sizeof(want); i++)
			off += snprintf(want + off, sizeof(want) - off, " %s", sw_stat_names[i]);
		if (sw_read_file(SW_STATS_PATH, raw, sizeof(raw)) < 0)
			raw[0] = '\0';
		TH_LOG("want the %d lines \"name value\" of%s; got:\n%s",
		       SW_NR_STATS, want, raw);
	}
	ASSERT_EQ(0, err) TH_LOG("%s: %s", SW_STATS_PATH, strerror(-err));
	wrong = sw_stats_wrong(&st, NULL, buf, sizeof(buf));
	EXPECT_EQ(NULL, wrong) TH_LOG("%s", wrong);
}

/* Feature on, a short ping-pong: sync wakeups counted. Then the feature off. */
static void make_counts(struct __test_metadata *_metadata, struct sw_stats *st)
{
	struct sw_pingpong pp;
	const char *wrong;
	char buf[512];
	int err;

	ASSERT_EQ(0, sw_policy_set("hint-only"));
	ASSERT_EQ(0, sw_feature_set(true));
	err = sw_pingpong_run(0, SHORT_ROUNDS, 0, NULL, &pp);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_EQ(0, sw_feature_set(false));
	ASSERT_EQ(0, sw_stats_read(st));
	TH_LOG("after %d round trips: %s", SHORT_ROUNDS, sw_stats_str(st, buf, sizeof(buf)));
	ASSERT_LT(0, st->v[SW_SYNC_WAKEUPS]);
	wrong = sw_stats_wrong(st, NULL, buf, sizeof(buf));
	EXPECT_EQ(NULL, wrong) TH_LOG("%s", wrong);
}

static void expect_all_zero(struct __test_metadata *_metadata, const struct sw_stats *st)
{
	int i;

	for (i = 0; i < SW_NR_STATS; i++) {
		const char *name = sw_stat_names[i];
		unsigned long v = st->v[i];

		EXPECT_EQ(0, v) TH_LOG("%s = %lu", name, v);
	}
}

/*
 * The tracepoints carry the documented arguments: the events the
 * document's "t:" lines make of them (or the kernel's own, where it has
 * them) have exactly the documented fields, in order; that they fire for
 * the tasks of a ping-pong, and only as the rules allow, is
 * sync_wakeup_placement's part.
 */
static void expect_fields(struct __test_metadata *_metadata, const char *event,
			  const char *want)
{
	char got[512], why[160];
	int err;

	if (sw_trace_available(why, sizeof(why)) > 0)
		SKIP(return, "%s", why);
	err = sw_trace_fields(event, got, sizeof(got));
	ASSERT_EQ(0, err) TH_LOG("%s's format: %s", event, strerror(-err));
	EXPECT_STREQ(want, got);
}

TEST_F(feature, trace_event_fields)
{
	expect_fields(_metadata, SW_EVENT,
		      "comm pid policy verdict ctx prev_cpu affine_cpu dest_cpu");
}

TEST_F(feature, promise_event_fields)
{
	expect_fields(_metadata, SW_PROMISE_EVENT, "comm pid cause history count ran limit");
}

TEST_F(feature, stats_reset)
{
	struct sw_stats st;

	if (!require_two_cpus(_metadata))
		return;
	make_counts(_metadata, &st);
	ASSERT_EQ(0, sw_write_str(SW_STATS_PATH, "0"));
	ASSERT_EQ(0, sw_stats_read(&st));
	expect_all_zero(_metadata, &st);

	/* echo 0 > sync_wakeup_stats */
	make_counts(_metadata, &st);
	ASSERT_EQ(0, sw_write_str(SW_STATS_PATH, "0\n"));
	ASSERT_EQ(0, sw_stats_read(&st));
	expect_all_zero(_metadata, &st);
}

/* With the feature off nothing counts, so a refused write must change nothing. */
static void stats_rejects(struct __test_metadata *_metadata, const char *what)
{
	struct sw_stats before, after;
	int err, i;

	make_counts(_metadata, &before);
	err = sw_write_str(SW_STATS_PATH, what);
	EXPECT_EQ(-EINVAL, err) TH_LOG("writing \"%s\": %s", what,
				       err ? strerror(-err) : "accepted");
	ASSERT_EQ(0, sw_stats_read(&after));
	for (i = 0; i < SW_NR_STATS; i++) {
		const char *name = sw_stat_names[i];

		EXPECT_EQ(before.v[i], after.v[i]) TH_LOG("%s moved", name);
	}
}

TEST_F(feature, stats_reject_one)
{
	if (!require_two_cpus(_metadata))
		return;
	stats_rejects(_metadata, "1");
}

TEST_F(feature, stats_reject_garbage)
{
	if (!require_two_cpus(_metadata))
		return;
	stats_rejects(_metadata, "x");
}

TEST_F(feature, no_counting_while_off)
{
	struct sw_pingpong pp;
	const char *wrong;
	struct sw_stats st;
	char buf[512];
	int err;

	if (!require_two_cpus(_metadata))
		return;
	/* The policy that acts the most: it must not act while off either. */
	ASSERT_EQ(0, sw_policy_set("reciprocal-only"));
	ASSERT_EQ(0, sw_feature_set(false));
	ASSERT_EQ(0, sw_stats_reset());
	err = sw_pingpong_run(0, SHORT_ROUNDS, 0, NULL, &pp);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_EQ(0, sw_stats_read(&st));
	TH_LOG("off: %s", sw_stats_str(&st, buf, sizeof(buf)));
	expect_all_zero(_metadata, &st);

	ASSERT_EQ(0, sw_feature_set(true));
	err = sw_pingpong_run(0, SHORT_ROUNDS, 0, NULL, &pp);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_EQ(0, sw_stats_read(&st));
	TH_LOG("on: %s", sw_stats_str(&st, buf, sizeof(buf)));
	EXPECT_LT(0, st.v[SW_SYNC_WAKEUPS]);
	wrong = sw_stats_wrong(&st, "reciprocal-only", buf, sizeof(buf));
	EXPECT_EQ(NULL, wrong) TH_LOG("%s", wrong);
}

TEST_HARNESS_MAIN
