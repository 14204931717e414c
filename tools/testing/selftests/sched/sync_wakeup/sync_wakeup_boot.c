// SPDX-License-Identifier: GPL-2.0
/*
 * sync_wakeup_boot - the sched_sync_wakeup=<policy> boot parameter.
 *
 * For a boot whose /proc/cmdline carries the parameter:
 *
 *   valid policy    the policy is that one and SYNC_PAIR_AFFINE is on (its
 *                   bit in sched/features, and sync wakeups are decided and
 *                   counted), and no "unknown policy" line is logged;
 *   unknown policy  the defaults stay (policy reciprocal-only, feature off)
 *                   and the kernel log holds exactly one line with
 *                   "sched_sync_wakeup=<value>" and "unknown policy".
 *
 * With several occurrences the last valid one sets the policy, any valid one
 * turns the feature on, and each unknown one logs its line. Without the
 * parameter there is nothing to check and every test is skipped.
 *
 * Run this before anything that changes the policy or the feature bit at
 * run time (it is first in the Makefile, so first in run_kselftest.sh).
 */
#include "sync_wakeup.h"
#include "../../kselftest_harness.h"

#include <ctype.h>
#include <sys/klog.h>

#define PARAM		"sched_sync_wakeup="
#define UNKNOWN		"unknown policy"
#define MAX_OCCURRENCES	16

/* What the command line asks for. */
struct boot_params {
	int count;				/* occurrences of the parameter */
	char value[MAX_OCCURRENCES][64];	/* their values, in order */
	bool valid[MAX_OCCURRENCES];
	int nr_unknown;
	const char *policy;			/* expected policy */
	bool feature;				/* expected feature state */
};

/*
 * Kernel parameter names treat '-' and '_' alike (parameqn()); values may
 * be quoted. Everything after a lone "--" is for init.
 */
static bool is_param(const char *tok)
{
	size_t i, n = strlen(PARAM);

	for (i = 0; i < n; i++) {
		char c = tok[i] == '-' ? '_' : tok[i];

		if (c != PARAM[i])
			return false;
	}
	return true;
}

static int parse_cmdline(struct boot_params *bp, char *why, size_t size)
{
	char buf[8192], *tok, *save, *val;
	size_t p;
	ssize_t n;
	int i;

	memset(bp, 0, sizeof(*bp));
	bp->policy = SW_DEFAULT_POLICY;

	n = sw_read_file("/proc/cmdline", buf, sizeof(buf));
	if (n < 0) {
		snprintf(why, size, "read /proc/cmdline: %s", strerror(-n));
		return n;
	}
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "--"))
			break;
		if (!is_param(tok))
			continue;
		if (bp->count == MAX_OCCURRENCES) {
			snprintf(why, size, "more than %d %s on the command line",
				 MAX_OCCURRENCES, PARAM);
			return -E2BIG;
		}
		val = tok + strlen(PARAM);
		if (val[0] == '"') {
			val++;
			if (*val && val[strlen(val) - 1] == '"')
				val[strlen(val) - 1] = '\0';
		}
		i = bp->count++;
		snprintf(bp->value[i], sizeof(bp->value[i]), "%s", val);
		for (p = 0; p < SW_NR_POLICIES; p++) {
			if (!strcmp(val, sw_policies[p])) {
				/* The last valid one wins; any turns the feature on. */
				bp->policy = sw_policies[p];
				bp->feature = true;
				bp->valid[i] = true;
			}
		}
		bp->nr_unknown += !bp->valid[i];
	}
	return 0;
}

/*
 * Skip without the parameter; otherwise the kernel must have the interface.
 * Returns false if the test was skipped: the caller must return at once.
 */
static bool require_param(struct __test_metadata *_metadata, struct boot_params *bp)
{
	char why[256] = "";
	int i;

	ASSERT_EQ(0, parse_cmdline(bp, why, sizeof(why)))
		TH_LOG("%s", why);
	if (!bp->count)
		SKIP(return false, "no " PARAM " on the kernel command line");
	for (i = 0; i < bp->count; i++)
		TH_LOG(PARAM "%s: %s", bp->value[i], bp->valid[i] ? "valid" : "unknown");
	TH_LOG("expect policy %s, %s %s", bp->policy, SW_FEATURE, bp->feature ? "on" : "off");
	return true;
}

TEST(policy)
{
	struct boot_params bp;
	char cur[64];
	int err;

	if (!require_param(_metadata, &bp))
		return;
	ASSERT_TRUE(sw_exists(SW_POLICY_PATH))
		TH_LOG("booted with " PARAM " but %s is missing", SW_POLICY_PATH);
	err = sw_policy_get(cur, sizeof(cur));
	ASSERT_EQ(0, err) TH_LOG("read %s: %s", SW_POLICY_PATH, strerror(-err));
	EXPECT_STREQ(bp.policy, cur);
}

TEST(feature)
{
	struct boot_params bp;
	int on;

	if (!require_param(_metadata, &bp))
		return;
	on = sw_feature_get();
	ASSERT_LE(0, on) TH_LOG("cannot read %s from %s (%s): debugfs not mounted?",
				SW_FEATURE, SW_FEATURES_PATH, strerror(-on));
	EXPECT_EQ(bp.feature, on);
}

/*
 * The feature bit is not the behaviour: what turns the feature on is the
 * static key behind it. Sync wakeups must be decided, and counted, from
 * boot on if the parameter turned the feature on, and not otherwise;
 * nothing here writes to debugfs first.
 */
TEST(decides_sync_wakeups)
{
	struct sw_stats before, after;
	struct boot_params bp;
	struct sw_pingpong pp;
	int err, n = sw_nr_allowed_cpus();

	if (!require_param(_metadata, &bp))
		return;
	if (n >= 0 && n < 2)
		SKIP(return, "needs 2 CPUs for select_task_rq_fair() to run, have %d", n);
	ASSERT_EQ(0, sw_stats_read(&before));
	err = sw_pingpong_run(0, 200, 0, NULL, &pp);
	ASSERT_EQ(0, err) TH_LOG("ping-pong: %s", strerror(-err));
	ASSERT_EQ(0, sw_stats_read(&after));
	TH_LOG("sync_wakeups %lu before 200 round trips, %lu after",
	       before.v[SW_SYNC_WAKEUPS], after.v[SW_SYNC_WAKEUPS]);
	/* Counted if and only if the feature is on. */
	EXPECT_EQ(bp.feature, after.v[SW_SYNC_WAKEUPS] > before.v[SW_SYNC_WAKEUPS]);
}

struct kmsg_scan {
	int matches;		/* records with PARAM and UNKNOWN */
	int matches_value[MAX_OCCURRENCES];
	unsigned long long first_seq;
	bool lost;		/* records overwritten before we read them */
};

static void scan_record(struct kmsg_scan *ks, const struct boot_params *bp,
			const char *text, struct __test_metadata *_metadata)
{
	char want[sizeof(PARAM) + 64 + 1];
	int i;

	if (!strstr(text, PARAM) || !strstr(text, UNKNOWN))
		return;
	TH_LOG("kernel log: %s", text);
	ks->matches++;
	for (i = 0; i < bp->count; i++) {
		snprintf(want, sizeof(want), PARAM "%s:", bp->value[i]);
		if (strstr(text, want))
			ks->matches_value[i]++;
	}
}

/* Every record of the kernel log, from /dev/kmsg without blocking. */
static int scan_kmsg(struct kmsg_scan *ks, const struct boot_params *bp,
		     struct __test_metadata *_metadata)
{
	char rec[8192], *text, *end;
	bool first = true;
	ssize_t n;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE) {
			ks->lost = true;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,ts,flags[,...];text\n[ KEY=value\n...]" */
		if (first) {
			ks->first_seq = strtoull(strchr(rec, ',') ? strchr(rec, ',') + 1 : rec,
						 NULL, 10);
			first = false;
		}
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = '\0';
		scan_record(ks, bp, text, _metadata);
	}
	close(fd);
	return 0;
}

/* The same from syslog(2), if /dev/kmsg cannot be read. */
static int scan_syslog(struct kmsg_scan *ks, const struct boot_params *bp,
		       struct __test_metadata *_metadata)
{
	char *buf, *line, *save;
	int size, n;

	size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return size < 0 ? -errno : -ENODATA;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		scan_record(ks, bp, line, _metadata);
	free(buf);
	return 0;
}

TEST(dmesg)
{
	struct kmsg_scan ks = {};
	struct boot_params bp;
	int err, i;

	if (!require_param(_metadata, &bp))
		return;
	err = scan_kmsg(&ks, &bp, _metadata);
	if (err) {
		TH_LOG("/dev/kmsg: %s; reading syslog(2) instead", strerror(-err));
		memset(&ks, 0, sizeof(ks));
		err = scan_syslog(&ks, &bp, _metadata);
	}
	ASSERT_EQ(0, err) TH_LOG("cannot read the kernel log: %s", strerror(-err));

	if (ks.matches < bp.nr_unknown && (ks.first_seq || ks.lost))
		TH_LOG("kernel log wrapped (first record %llu): boot with a larger log_buf_len=",
		       ks.first_seq);
	EXPECT_EQ(bp.nr_unknown, ks.matches)
		TH_LOG("want %d line(s) with \"%s\" and \"%s\", found %d",
		       bp.nr_unknown, PARAM, UNKNOWN, ks.matches);
	for (i = 0; i < bp.count; i++) {
		/* A value repeated on the command line logs a line per occurrence. */
		int want = 0;

		for (int j = 0; j < bp.count; j++)
			want += !bp.valid[j] && !strcmp(bp.value[j], bp.value[i]);
		EXPECT_EQ(want, ks.matches_value[i])
			TH_LOG("\"%s%s:\" logged %d time(s), want %d", PARAM, bp.value[i],
			       ks.matches_value[i], want);
	}
}

TEST_HARNESS_MAIN
